package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
)

// choices is a multi-select field of a request for input (an array of choices, as the
// reference server's form asks): a check box per choice, the defaults ticked; its text is the
// picked labels one a line, which mcp.FormField.Value reads.
func (card *mcpCard) choices(f actors.MCPFormField) fyne.CanvasObject {
	group := widget.NewCheckGroup(f.Labels, nil)
	group.Horizontal = len(f.Labels) <= 4
	for _, d := range strings.Split(f.Default, actors.MCPChoicesSeparator) {
		if i := slices.Index(f.Options, d); i >= 0 {
			group.Selected = append(group.Selected, f.Labels[i])
		}
	}
	card.values[f.Name] = func() string { return strings.Join(group.Selected, actors.MCPChoicesSeparator) }
	return group
}
