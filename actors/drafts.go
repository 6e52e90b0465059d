package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// Drafts: what the person has typed into a conversation's composer and not sent is kept in
// the store as they type (aux record "draft", flushed like a user message), so closing the
// window, a restart or a crash loses none of it (issue 41). The window is its only writer;
// the conversation's actor never reads it. Delete removes it with the other aux records.

const auxDraft = "draft"

// auxDraftImage prefixes the records of a draft's attached images, each under its SHA-256:
// beside the draft (not among the store's blobs, which only committed messages count), so
// that they go with the conversation and with the draft.
const auxDraftImage = "draft-image/"

// Draft is a conversation's unsent draft: the text and the images attached to it.
type Draft struct {
	Text   string
	Images []Attachment
}

// Empty reports whether there is nothing to keep.
func (d Draft) Empty() bool { return d.Text == "" && len(d.Images) == 0 }

// storedDraft is the draft record's JSON. Images was added after Text (issue 41): an older
// record decodes with none.
type storedDraft struct {
	Text   string             `json:"text"`
	Images []storedDraftImage `json:"images,omitempty"`
}

// storedDraftImage names an attached image and the record holding its bytes.
type storedDraftImage struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Draft returns a conversation's unsent draft; an empty one when there is none. An image whose
// record is missing is left out (the rest of the draft is kept).
func (r *Runtime) Draft(ctx context.Context, id string) (Draft, error) {
	if err := ctx.Err(); err != nil {
		return Draft{}, err
	}
	b, err := r.cfg.Store.Aux(id, auxDraft)
	if errors.Is(err, persistence.ErrNotFound) {
		return Draft{}, nil
	}
	if err != nil {
		return Draft{}, fmt.Errorf("read the unsent draft of %s: %w", id, err)
	}
	var d storedDraft
	if err := json.Unmarshal(b, &d); err != nil {
		return Draft{}, fmt.Errorf("the unsent draft of %s does not decode: %w", id, err)
	}
	out := Draft{Text: d.Text}
	for _, img := range d.Images {
		data, err := r.cfg.Store.Aux(id, auxDraftImage+img.SHA256)
		if err != nil {
			r.log.Warn("an image of an unsent draft could not be read; the draft comes back without it",
				"conversation", id, "image", img.Name, "error", err)
			continue
		}
		out.Images = append(out.Images, Attachment{Name: img.Name, Data: data})
	}
	return out, nil
}

// SaveDraft keeps a conversation's unsent draft; an empty one removes it (the message was
// sent, or the person cleared the composer). Each image is written once, and the images the
// draft no longer holds are removed.
func (r *Runtime) SaveDraft(ctx context.Context, id string, d Draft) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	stored := storedDraft{Text: d.Text}
	keep := map[string]bool{}
	for _, img := range d.Images {
		sum := sha256.Sum256(img.Data)
		sha := hex.EncodeToString(sum[:])
		stored.Images = append(stored.Images, storedDraftImage{Name: img.Name, SHA256: sha})
		if keep[sha] {
			continue
		}
		keep[sha] = true
		if _, err := r.cfg.Store.Aux(id, auxDraftImage+sha); err == nil {
			continue
		}
		if err := r.cfg.Store.PutAux(id, auxDraftImage+sha, img.Data); err != nil {
			return fmt.Errorf("keep the image %s of the unsent draft of %s: %w", img.Name, id, err)
		}
	}
	if d.Empty() {
		if err := r.cfg.Store.DeleteAux(id, auxDraft); err != nil {
			return fmt.Errorf("remove the unsent draft of %s: %w", id, err)
		}
	} else {
		b, err := json.Marshal(stored)
		if err != nil {
			return fmt.Errorf("encode the unsent draft of %s: %w", id, err)
		}
		if err := r.cfg.Store.PutAux(id, auxDraft, b); err != nil {
			return fmt.Errorf("keep the unsent draft of %s: %w", id, err)
		}
	}
	old, err := r.cfg.Store.AuxList(id, auxDraftImage)
	if err != nil {
		return fmt.Errorf("list the images of the unsent draft of %s: %w", id, err)
	}
	for _, it := range old {
		if sha := strings.TrimPrefix(it.Name, auxDraftImage); !keep[sha] {
			if err := r.cfg.Store.DeleteAux(id, it.Name); err != nil {
				return fmt.Errorf("remove an image of the unsent draft of %s: %w", id, err)
			}
		}
	}
	return nil
}
