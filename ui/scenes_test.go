package ui

import (
	"encoding/json"
	"image/color"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Scenes used by the golden images and the behaviour tests.

func bashCall(id, cmd string) domain.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return domain.ToolCall{ID: id, Name: domain.ToolBash, Arguments: string(b)}
}

func patchCall(id, path string) domain.ToolCall {
	b, _ := json.Marshal(map[string]any{"path": path, "patches": []map[string]string{{"operation": "replace", "old_text": "a", "new_text": "b"}}})
	return domain.ToolCall{ID: id, Name: domain.ToolPatch, Arguments: string(b)}
}

func upgradeCall(id, reason string) domain.ToolCall {
	b, _ := json.Marshal(map[string]string{"reason": reason})
	return domain.ToolCall{ID: id, Name: domain.ToolRequestModeUpgrade, Arguments: string(b)}
}

func spawnCall(id string, tasks ...string) domain.ToolCall {
	b, _ := json.Marshal(map[string]any{"tasks": tasks})
	return domain.ToolCall{ID: id, Name: domain.ToolSpawnAgents, Arguments: string(b)}
}

const sampleDiff = `--- a/parse.go
+++ b/parse.go
@@ -12,7 +12,7 @@ func parse(s string) (int, error) {
 	s = strings.TrimSpace(s)
-	return strconv.Atoi(s[1:])
+	return strconv.Atoi(s)
 }`

// richConversation is a finished exchange with every kind of row.
func richConversation(t testing.TB, f *fakeBackend) string {
	img := pngBytes(t, 120, 80, color.NRGBA{R: 0x30, G: 0x90, B: 0xe0, A: 0xff})
	sha := "d1b2" // a fixed reference whose bytes the fake serves
	f.blobs[sha] = img
	c := f.add(domain.NewConversationParams{Title: "Fix the parser test", Cwd: "/home/ada/src/parser", Model: "gpt-4o"},
		domain.Message{Kind: domain.KindUser, Text: "The parser test fails since yesterday. Here is the screenshot of the CI run.",
			Images: []domain.ImageRef{{SHA256: sha, MediaType: "image/png", Width: 120, Height: 80, Name: "ci.png"}}},
		domain.Message{Kind: domain.KindAssistant, Text: "Let me run the **tests** first.", ToolCalls: []domain.ToolCall{bashCall("t1", "go test ./parser/... -run TestParse -count=1")}},
		domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "t1", Name: "bash", Outcome: domain.OutcomeError,
			Content: "--- FAIL: TestParse (0.00s)\n    parse_test.go:14: parse(\"42\") = 2, want 42\nFAIL\nexit status 1", Display: &domain.ToolDisplay{Summary: "exit 1, 4 lines"}}},
		domain.Message{Kind: domain.KindSystem, Text: "Mode changed to Unrestricted (approved by the user): bash commands can write files and use the network, and patch can edit files."},
		domain.Message{Kind: domain.KindAssistant, Text: "The parser drops the first digit. Fixing it:", ToolCalls: []domain.ToolCall{patchCall("t2", "parse.go")}},
		domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "t2", Name: "patch", Outcome: domain.OutcomeSuccess,
			Content: "Applied 1 change to parse.go.", Display: &domain.ToolDisplay{Summary: "1 change applied", Diff: sampleDiff}}},
		domain.Message{Kind: domain.KindError, Text: "rate limited after 3 attempts", ErrorKind: domain.ErrorRateLimit},
		domain.Message{Kind: domain.KindAssistant, Text: "Done. The fix:\n\n- `parse` no longer drops the first digit\n- the test passes:\n\n```\nok  parser 0.004s\n```"},
	)
	f.convs[c.ID].conv.Usage = domain.Usage{InputTokens: 30_500, OutputTokens: 1_200}
	return c.ID
}
