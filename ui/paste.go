package ui

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/ui/clipboard"
)

// paster is the composer's Ctrl+V and right-click → Paste (both reach the entry's
// TypedShortcut as a ShortcutPaste). Fyne's clipboard holds text only, so the paster first
// asks the desktop's clipboard (package clipboard) for an image or a copied file list, off
// the UI goroutine: the app may own the clipboard itself and its event loop must stay free
// to answer. An image or the images of a file list are attached like dropped ones
// (addAttachments); anything else is pasted as text by Fyne, a moment later.
type paster struct {
	m    *MainWindow
	clip clipboard.Reader
	// told is set once the person was told which package pasting images needs.
	told bool
}

func newPaster(m *MainWindow, clip clipboard.Reader) *paster {
	if clip == nil {
		clip = clipboard.System{MaxBytes: imaging.MaxInputBytes}
	}
	return &paster{m: m, clip: clip}
}

// paste handles a ShortcutPaste sent to the composer.
func (p *paster) paste(s *fyne.ShortcutPaste) {
	m := p.m
	cs := m.current
	if cs == nil || m.composer.entry.Disabled() {
		m.composer.entry.Entry.TypedShortcut(s)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, clipboard.DefaultTimeout)
		c, err := p.clip.Read(ctx)
		cancel()
		switch {
		case err == nil && c.Image != nil:
			m.addAttachments(cs, []func() (*attachment, error){func() (*attachment, error) { return p.pastedImage(c) }})
			return
		case err == nil && slices.ContainsFunc(c.Files, isImageName):
			loads := make([]func() (*attachment, error), len(c.Files))
			for i, f := range c.Files {
				loads[i] = func() (*attachment, error) { return readAttachment(storage.NewFileURI(f)) }
			}
			m.addAttachments(cs, loads)
			return
		}
		m.do(func() {
			var missing *clipboard.MissingToolError
			switch {
			case errors.As(err, &missing):
				if !p.told && m.current == cs {
					p.told = true
					m.showInline(sentence(err))
				}
			case err != nil:
				// The clipboard held an image that could not be read: say why, and paste
				// nothing rather than whatever text came with it.
				if m.current == cs {
					m.showInline(sentence(err))
				}
				return
			}
			if m.current == cs && !m.composer.entry.Disabled() {
				m.composer.entry.Entry.TypedShortcut(s)
			}
		})
	}()
}

// pastedImage makes an attachment of a clipboard image, as a dropped file's bytes become
// one. Its name says when it was pasted, with the extension of what is sent (a BMP is sent
// as PNG).
func (p *paster) pastedImage(c clipboard.Content) (*attachment, error) {
	ext := strings.TrimPrefix(c.Type, "image/")
	switch {
	case ext == "jpeg":
		ext = "jpg"
	case strings.Contains(ext, "bmp"):
		ext = "png"
	}
	return newAttachment("pasted-"+p.m.now().Format("150405")+"."+ext, c.Image)
}

// isImageName reports whether a copied file's name says it is an image the composer attaches.
// A file list without one is pasted as text (its paths), as a text editor would.
func isImageName(path string) bool {
	return slices.Contains(imageExts, strings.ToLower(filepath.Ext(path)))
}

// sentence makes a sentence of an error clause: a capital first letter and a full stop.
func sentence(err error) string {
	s := strings.TrimSpace(err.Error())
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
