//go:build wayland

package clipboard

// toolOrder is the order tools are tried in. The window is a Wayland client in this build
// (Fyne built with the wayland tag), so wl-paste reads its own clipboard; xclip is the
// fallback where only XWayland's is reachable.
var toolOrder = []Tool{WLPaste, XClip}
