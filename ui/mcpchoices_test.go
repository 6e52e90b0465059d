package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/mcp"
)

// Issue 26: a multi-select field (the reference server's form has two) is a group of check
// boxes with its defaults ticked, and its picks reach the answer one a line, which the mcp
// package reads back as the choices' values.
func TestMCPInputCardMultipleChoice(t *testing.T) {
	h, b, c, _ := newMCPHarness(t)
	box := h.m.mcpCards.box
	field := actors.MCPFormField{Name: "fish", Kind: actors.MCPFieldChoices, Options: []string{"f1", "f2", "f3"},
		Labels: []string{"Tuna", "Salmon", "Trout"}, Default: "f1", MinItems: 1}
	b.publish(actors.MCPInputRequested{ConvID: c.ID, ID: "mcp-1", Server: "every", Message: "Pick fish",
		Fields: []actors.MCPFormField{{Name: "name", Kind: actors.MCPFieldString, Required: true}, field}})
	h.waitFor("the card", func() bool { return box.Visible() && len(box.Objects) == 1 })
	var group *widget.CheckGroup
	var entry *widget.Entry
	walk(box, func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.CheckGroup:
			group = w
		case *widget.Entry:
			entry = w
		}
	})
	if group == nil || len(group.Selected) != 1 || group.Selected[0] != "Tuna" {
		t.Fatalf("the multi-select is missing or its default is not ticked: %+v", group)
	}
	test.Type(entry, "Ada")
	group.SetSelected([]string{"Tuna", "Trout"})
	test.Tap(mustButton(t, box, "Submit"))
	h.waitFor("the card to go", func() bool { return !box.Visible() })
	b.amu.Lock()
	picked := b.entries["fish"]
	b.amu.Unlock()
	content, err := mcp.FormContent([]mcp.FormField{field}, map[string]string{"fish": picked})
	if err != nil || len(content["fish"].([]any)) != 2 || content["fish"].([]any)[1] != "f3" {
		t.Fatalf("the picks %q read back as %v (%v)", picked, content, err)
	}
}
