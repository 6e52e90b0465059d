package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// usageLine is the small line under a reply (issue 27): what it took and cost, in the words
// of show and the export (transcript.UsageLine): "12.3k in (90% cached) · 340 out ·
// $0.0042", tokens only where no price is known. The chat model puts it on the reply's last
// row (row.usage), so it follows the whole reply, tool calls included; the text, tool and
// sub-agent rows each draw it under themselves.
type usageLine struct {
	text *widget.RichText
	obj  *fyne.Container
}

// newUsageLine makes the line, its words left from the row's edge, where the row's own
// words start.
func newUsageLine(left float32) *usageLine {
	u := &usageLine{text: widget.NewRichText()}
	u.obj = container.New(&measure.Inset{Left: left}, u.text)
	u.obj.Hide()
	return u
}

// show shows a row's usage, or hides the line of a row that has none.
func (u *usageLine) show(usage string) {
	if usage == "" {
		u.obj.Hide()
		return
	}
	setPlain(u.text, usage, captionStyle())
	u.obj.Show()
}
