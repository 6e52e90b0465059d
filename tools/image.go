package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
)

// ReadImage returns an image file to the model, validated and downscaled by the same rules as
// the person's attachments (REQ-BED-013). Reading is allowed in both modes.
type ReadImage struct{}

// NewReadImage returns the read_image tool.
func NewReadImage() *ReadImage { return &ReadImage{} }

// Name is the catalogue name.
func (*ReadImage) Name() string { return domain.ToolReadImage }

type readImageArgs struct {
	Path string `json:"path"`
}

// Run prepares the image and returns it with a one-line description.
func (r *ReadImage) Run(_ context.Context, env Env, raw json.RawMessage) Output {
	var args readImageArgs
	if err := decodeArgs(r.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	if strings.TrimSpace(args.Path) == "" {
		return errorf("path is empty.")
	}
	path := args.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	path = filepath.Clean(path)
	shown := displayPath(env.Cwd, path)
	p, err := imaging.PrepareFile(path, env.ImageLimits)
	if err != nil {
		hint := ""
		switch {
		case errors.Is(err, imaging.ErrNotImage):
			hint = " read_image takes PNG, JPEG, GIF and WebP files."
		case errors.Is(err, imaging.ErrTooLarge):
			hint = " Make a smaller copy with bash first if you need it."
		}
		return errorf("Cannot read the image %s: %v.%s", shown, err, hint)
	}
	ref := p.Ref(filepath.Base(path))
	text := fmt.Sprintf("Image %s: %s, %d×%d pixels, %s.", shown, p.MediaType, p.Width, p.Height, domain.FormatBytes(int64(len(p.Data))))
	return Output{
		Outcome: domain.OutcomeSuccess,
		Content: text,
		Display: &domain.ToolDisplay{Summary: fmt.Sprintf("%s %d×%d", shown, p.Width, p.Height)},
		Images:  []Image{{Ref: ref, Data: p.Data}},
	}
}
