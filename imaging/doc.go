// Package imaging validates and prepares images for the model (REQ-BED-013): it recognises
// the four formats every OpenAI-compatible provider accepts (PNG, JPEG, GIF, WebP) from their
// bytes, refuses anything else, refuses decompression bombs before decoding a single pixel,
// and downscales what is too large for the model with a proper resampling filter.
//
// It is shared by the LLM client (images in the history), the read_image tool and the UI
// (dropped and pasted images; FromBMP converts a pasted BMP to PNG). It is pure computation
// on byte slices, apart from PrepareFile, which reads one file with a size cap. It must never import another package of this module except
// domain, and never touch the network or the store.
package imaging
