package ui

import (
	"fmt"
	"image"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
)

// thumbnail returns a thumbnail of a stored image, loading it in the background the first
// time; until then a placeholder icon stands in.
func (m *MainWindow) thumbnail(sha, name string, side float32) fyne.CanvasObject {
	if img, ok := m.thumbs.imgs[sha]; ok {
		return thumbImage(img, side)
	}
	if !m.thumbs.failed[sha] && !m.thumbs.loading[sha] {
		m.thumbs.loading[sha] = true
		go func() {
			var img image.Image
			data, err := m.b.Blob(sha)
			if err == nil {
				var a *attachment
				if a, err = newAttachment(name, data); err == nil {
					img = a.thumb
				}
			}
			m.do(func() {
				delete(m.thumbs.loading, sha)
				if err != nil {
					fyne.LogError("load thumbnail "+sha, err)
					m.thumbs.failed[sha] = true
				} else {
					m.thumbs.put(sha, img)
				}
				m.redrawRows()
			})
		}()
	}
	icon := widget.NewIcon(theme.FileImageIcon())
	if m.thumbs.failed[sha] {
		icon.SetResource(theme.BrokenImageIcon())
	}
	return sized(icon, side)
}

// redrawRows re-binds every visible row of every view (thumbnails arrived, theme changed).
func (m *MainWindow) redrawRows() {
	m.gen++
	for _, cs := range m.convs {
		for _, v := range cs.views {
			v.lastGen = m.gen
			v.list.Refresh()
		}
	}
}

// sizedBox gives an object a fixed minimum size.
type sizedBox struct {
	widget.BaseWidget
	obj  fyne.CanvasObject
	size fyne.Size
}

func sized(o fyne.CanvasObject, side float32) fyne.CanvasObject {
	b := &sizedBox{obj: o, size: fyne.NewSquareSize(side)}
	b.ExtendBaseWidget(b)
	return b
}

func (b *sizedBox) CreateRenderer() fyne.WidgetRenderer { return &sizedRenderer{b} }

type sizedRenderer struct{ b *sizedBox }

func (r *sizedRenderer) Layout(s fyne.Size)           { r.b.obj.Resize(s) }
func (r *sizedRenderer) MinSize() fyne.Size           { return r.b.size }
func (r *sizedRenderer) Refresh()                     { r.b.obj.Refresh() }
func (r *sizedRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.b.obj} }
func (r *sizedRenderer) Destroy()                     {}

// exportDocument is the open conversation as the Markdown document Ctrl+E saves: exactly
// what `phoenix-desktop export` prints, from the one exporter (transcript.Markdown).
func (m *MainWindow) exportDocument() (string, bool) {
	cs := m.current
	if cs == nil || !cs.loaded {
		return "", false
	}
	return transcript.Markdown(cs.conv, cs.msgs), true
}

// exportCurrent saves the open conversation as Markdown (Ctrl+E).
func (m *MainWindow) exportCurrent() {
	cs := m.current
	md, ok := m.exportDocument()
	if !ok {
		m.showInline("Open a conversation to export it.")
		return
	}
	m.showExportDialog(cs, fileName(transcript.Title(cs.conv.Title, cs.conv.Cwd))+".md", md) // exportdialog.go
}

// writeExport writes the export to the file chosen (none: the dialog was cancelled) and says
// where it went, or why it did not (issue 41: it saved with no word).
func (m *MainWindow) writeExport(w fyne.URIWriteCloser, err error, md string) {
	if err == nil && w == nil {
		return
	}
	if err == nil {
		_, err = w.Write([]byte(md))
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		m.showInline(fmt.Sprintf("Could not export the conversation: %v.", err))
		return
	}
	where := w.URI().Path()
	if where == "" {
		where = w.URI().String()
	}
	m.showDone("Exported the conversation to " + where + ".")
}

// fileName turns a title into a safe file name.
func fileName(title string) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, strings.TrimSpace(title))
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	s = strings.Trim(s, "-")
	if s == "" {
		s = "conversation"
	}
	return transcript.OneLine(s, 60)
}
