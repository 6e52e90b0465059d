package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestModeChangeShownOnce_REQ_BED_017 (issue 28: the mode change was announced three times):
// after an approval the window says what the new mode allows in one row, the mode notice;
// the request's tool row says only that the person approved.
func TestModeChangeShownOnce_REQ_BED_017(t *testing.T) {
	h, _ := upgradeScene(t)
	test.Tap(h.approvalPart().full)
	h.waitFor("Unrestricted mode", func() bool { return h.m.header.mode.text == "Unrestricted" })
	h.settle()
	allows := domain.ModeUnrestricted.Allows()
	var saying []string
	for _, r := range h.rows() {
		var text string
		switch r.kind {
		case rowTool:
			if r.call.Name != domain.ToolRequestModeUpgrade || r.result == nil {
				continue
			}
			_, sum := toolStatus(r)
			if !strings.HasPrefix(sum, "Approved by the user") {
				t.Errorf("the request's row says %q; want that the person approved", sum)
			}
			text = sum + "\n" + r.result.Content
		case rowSystem:
			text = r.msg.Text
		default:
			continue
		}
		if strings.Contains(text, allows) || strings.Contains(text, "Mode changed") {
			saying = append(saying, text)
		}
	}
	if len(saying) != 1 || saying[0] != domain.ModeChangeNotice(domain.ModeUnrestricted, domain.ChangedByApproval) {
		t.Fatalf("the change is said in %d rows, want once by the notice: %q", len(saying), saying)
	}
}
