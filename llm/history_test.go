package llm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// render gives a compact picture of converted messages: role, and what they carry.
func render(msgs []openai.ChatCompletionMessage) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		s := m.Role
		if m.ToolCallID != "" {
			s += "(" + m.ToolCallID + ")"
		}
		for _, c := range m.ToolCalls {
			s += fmt.Sprintf(" call:%s:%s:%s", c.ID, c.Function.Name, c.Function.Arguments)
		}
		if m.Content != "" {
			s += " " + m.Content
		}
		for _, p := range m.MultiContent {
			if p.ImageURL != nil {
				s += " [img " + p.ImageURL.URL + "]"
			} else {
				s += " " + p.Text
			}
		}
		out = append(out, s)
	}
	return out
}

func fakeLoad(ref domain.ImageRef) (string, error) { return "url:" + ref.SHA256, nil }

func asst(seq uint64, text string, calls ...domain.ToolCall) domain.Message {
	return domain.Message{Seq: seq, Kind: domain.KindAssistant, Text: text, ToolCalls: calls}
}

func call(id, name string) domain.ToolCall {
	return domain.ToolCall{ID: id, Name: name, Arguments: `{"a":1}`}
}

func result(seq uint64, id, content string, outcome domain.Outcome, images ...domain.ImageRef) domain.Message {
	return domain.Message{Seq: seq, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{
		CallID: id, Name: "bash", Outcome: outcome, Content: content, Images: images}}
}

func sys(seq uint64, text string) domain.Message {
	return domain.Message{Seq: seq, Kind: domain.KindSystem, Text: text}
}

func TestConvertHistory(t *testing.T) {
	img := domain.ImageRef{SHA256: "abc", MediaType: "image/png"}
	tests := []struct {
		name    string
		history []domain.Message
		extra   string
		want    []string
		images  int
	}{
		{
			name:    "user, assistant with calls, results",
			history: []domain.Message{userMsg(1, "hi"), asst(2, "looking", call("c1", "bash"), call("c2", "think")), result(3, "c1", "out", domain.OutcomeSuccess), result(4, "c2", "ok", domain.OutcomeSuccess), asst(5, "done")},
			want:    []string{"system SYS", "user hi", `assistant call:c1:bash:{"a":1} call:c2:think:{"a":1} looking`, "tool(c1) out", "tool(c2) ok", "assistant done"},
		},
		{
			name:    "user images become data URL parts",
			history: []domain.Message{userMsg(1, "see", img, img)},
			want:    []string{"system SYS", "user see [img url:abc] [img url:abc]"},
			images:  2,
		},
		{
			name:    "system notice inside a tool group is deferred after it",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", call("c1", "bash"), call("c2", "bash")), result(3, "c1", "a", domain.OutcomeSuccess), sys(4, "mode is now unrestricted"), result(5, "c2", "b", domain.OutcomeSuccess)},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{"a":1} call:c2:bash:{"a":1}`, "tool(c1) a", "tool(c2) b", "user System notice: mode is now unrestricted"},
		},
		{
			name:    "system notice outside a group stays in place",
			history: []domain.Message{userMsg(1, "go"), sys(2, "restricted"), asst(3, "ok")},
			want:    []string{"system SYS", "user go", "user System notice: restricted", "assistant ok"},
		},
		{
			name:    "tool result images follow the group as a user message",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", call("c1", "read_image"), call("c2", "bash")), result(3, "c1", "read 1 image", domain.OutcomeSuccess, img), result(4, "c2", "x", domain.OutcomeSuccess)},
			want:    []string{"system SYS", "user go", `assistant call:c1:read_image:{"a":1} call:c2:bash:{"a":1}`, "tool(c1) read 1 image", "tool(c2) x", "user Images returned by tool call c1 (bash): [img url:abc]"},
			images:  1,
		},
		{
			name:    "unanswered calls get a synthetic result before the next message",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", call("c1", "bash"), call("c2", "bash")), result(3, "c2", "b", domain.OutcomeSuccess), userMsg(4, "next")},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{"a":1} call:c2:bash:{"a":1}`, "tool(c2) b", "tool(c1) (no result was recorded)", "user next"},
		},
		{
			name:    "unanswered calls at the end are answered",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", call("c1", "bash"))},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{"a":1}`, "tool(c1) (no result was recorded)"},
		},
		{
			name:    "error and continuation messages are not sent",
			history: []domain.Message{userMsg(1, "go"), {Seq: 2, Kind: domain.KindError, Text: "auth failed", ErrorKind: domain.ErrorAuth}, {Seq: 3, Kind: domain.KindContinuation, Text: "summary"}, userMsg(4, "again")},
			want:    []string{"system SYS", "user go", "user again"},
		},
		{
			name:    "orphan and duplicate results are dropped",
			history: []domain.Message{userMsg(1, "go"), result(2, "zz", "orphan", domain.OutcomeSuccess), asst(3, "", call("c1", "bash")), result(4, "c1", "one", domain.OutcomeSuccess), result(5, "c1", "two", domain.OutcomeSuccess)},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{"a":1}`, "tool(c1) one"},
		},
		{
			name:    "failed outcomes are flagged and empty output is named",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", call("c1", "bash"), call("c2", "bash")), result(3, "c1", "exit 1", domain.OutcomeError), result(4, "c2", "", domain.OutcomeSuccess)},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{"a":1} call:c2:bash:{"a":1}`, "tool(c1) [error] exit 1", "tool(c2) (no output)"},
		},
		{
			name:    "malformed arguments in history are sent as an empty object",
			history: []domain.Message{userMsg(1, "go"), asst(2, "", domain.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command": "ls`}), result(3, "c1", "malformed", domain.OutcomeError)},
			want:    []string{"system SYS", "user go", `assistant call:c1:bash:{}`, "tool(c1) [error] malformed"},
		},
		{
			name:    "extra user text comes last",
			history: []domain.Message{userMsg(1, "go"), asst(2, "answer")},
			extra:   "Please summarise.",
			want:    []string{"system SYS", "user go", "assistant answer", "user Please summarise."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, images, err := convertHistory("SYS", tc.history, tc.extra, fakeLoad, returnNothing)
			if err != nil {
				t.Fatal(err)
			}
			got := render(msgs)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if images != tc.images {
				t.Fatalf("counted %d images, want %d", images, tc.images)
			}
			assertValidChain(t, msgs)
		})
	}
}

// assertValidChain checks the rule providers enforce: after an assistant message with tool
// calls come exactly its tool messages, one per call, before anything else.
func assertValidChain(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		if len(msgs[i].ToolCalls) == 0 {
			if msgs[i].Role == openai.ChatMessageRoleTool {
				t.Fatalf("message %d: tool message without a preceding call", i)
			}
			continue
		}
		want := map[string]bool{}
		for _, c := range msgs[i].ToolCalls {
			want[c.ID] = true
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == openai.ChatMessageRoleTool; j++ {
			if !want[msgs[j].ToolCallID] {
				t.Fatalf("message %d answers %s, not a call of message %d", j, msgs[j].ToolCallID, i)
			}
			delete(want, msgs[j].ToolCallID)
		}
		if len(want) > 0 {
			t.Fatalf("message %d: calls %v unanswered", i, want)
		}
		i = j - 1
	}
}

func TestConvertHistoryImageLoadError(t *testing.T) {
	load := func(domain.ImageRef) (string, error) { return "", errors.New("blob gone") }
	_, _, _, err := convertHistory("", []domain.Message{userMsg(7, "x", domain.ImageRef{SHA256: "abc"})}, "", load, returnNothing)
	if err == nil || !strings.Contains(err.Error(), "message 7") || !strings.Contains(err.Error(), "blob gone") {
		t.Fatalf("got %v", err)
	}
}

// TestImageRoundTrip_REQ_BED_013: a stored screenshot reaches the server as a data URL,
// downscaled to the model's limits.
func TestImageRoundTrip_REQ_BED_013(t *testing.T) {
	t.Parallel()
	blobs := &memBlobs{}
	big := blobs.put(pngBytes(t, 1600, 400), "wide.png")
	small := blobs.put(pngBytes(t, 64, 32), "icon.png")
	s := startServer(t)
	s.Enqueue(fakellm.Text("I see them", 1))
	c := newTestClient(t, s, blobs, func(cfg *Config) { cfg.Model = "claude-sonnet-4-5" })
	history := []domain.Message{
		userMsg(1, "look at these", big),
		asst(2, "", call("c1", domain.ToolReadImage)),
		result(3, "c1", "read icon.png", domain.OutcomeSuccess, small),
	}
	if _, _, err := collect(t.Context(), c, Request{History: history, Tools: domain.ToolsFor(false)}); err != nil {
		t.Fatal(err)
	}
	req := s.LastChat()
	urls := req.Messages[0].Content.ImageURLs()
	if len(urls) != 1 || req.Messages[0].Content.String() != "look at these" {
		t.Fatalf("user message not sent with its image: %+v", req.Messages[0])
	}
	lim := imaging.LimitsForModel("claude-sonnet-4-5")
	mt, w, h := decodeDataURL(t, urls[0])
	if w != lim.MaxLongSide || h != lim.MaxLongSide/4 || mt != imaging.MediaPNG {
		t.Fatalf("server saw %s %dx%d, want png %dx%d", mt, w, h, lim.MaxLongSide, lim.MaxLongSide/4)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" || !strings.HasPrefix(last.Content.String(), ToolImagesPrefix) || len(last.Content.ImageURLs()) != 1 {
		t.Fatalf("tool result image not sent after the tool message: %+v", last)
	}
	if _, w, h := decodeDataURL(t, last.Content.ImageURLs()[0]); w != 64 || h != 32 {
		t.Fatalf("small image changed to %dx%d", w, h)
	}
	if req.Messages[len(req.Messages)-2].Role != "tool" {
		t.Fatal("the tool message must come right after its assistant message")
	}
}

// TestImageRefusedBeforeSending: a text-only model and unusable images fail before any
// request is made, with a message that says what to do.
func TestImageRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	good := pngBytes(t, 20, 20)
	// A header claiming 30000×30000, with a correct CRC so that only the pixel guard can
	// refuse it.
	bomb := patchPNGSize(good, 30000, 30000)
	tests := []struct {
		name  string
		model string
		data  []byte
		want  string
	}{
		{"text file named png", "gpt-4o", []byte("just some text\n"), "not a supported image"},
		{"truncated png", "gpt-4o", good[:len(good)-20], "corrupt or truncated"},
		{"30000x30000 header", "gpt-4o", bomb, "megapixels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			blobs := &memBlobs{}
			ref := blobs.put(tc.data, "x.png")
			s := startServer(t)
			c := newTestClient(t, s, blobs, func(cfg *Config) { cfg.Model = tc.model })
			_, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "see", ref)}})
			e := asError(t, err)
			if e.Kind != domain.ErrorInvalidRequest || e.Retryable() || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("got %s: %v", e.Kind, e)
			}
			if n := len(s.Requests()); n != 0 {
				t.Fatalf("%d requests reached the server", n)
			}
		})
	}
}

// TestTextOnlyModelGetsPlaceholders: after a switch to a model without vision, the images in
// the history reach it as placeholders naming them, never as images (REQ-BED-013), and an
// unusable image does not matter because it is never loaded.
func TestTextOnlyModelGetsPlaceholders_REQ_BED_013(t *testing.T) {
	t.Parallel()
	blobs := &countingBlobs{memBlobs: memBlobs{}}
	ref := blobs.put(pngBytes(t, 20, 20), "screen.png")
	bad := blobs.put([]byte("not an image"), "bad.png")
	s := startServer(t)
	c := newTestClient(t, s, blobs, func(cfg *Config) { cfg.Model = "deepseek-chat" })
	s.Enqueue(fakellm.Text("ok", 1))
	if _, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "see", ref, bad)}}); err != nil {
		t.Fatal(err)
	}
	m := s.LastChat().Messages[0]
	if len(m.Content.ImageURLs()) != 0 || blobs.calls != 0 {
		t.Fatalf("a text-only model was sent images (%d loaded)", blobs.calls)
	}
	want := "see\n" + ImagePlaceholder(ref) + "\n" + ImagePlaceholder(bad)
	if m.Content.String() != want {
		t.Fatalf("content = %q, want %q", m.Content.String(), want)
	}
}

func TestMissingBlobIsInvalidRequest(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, &memBlobs{}, nil)
	_, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "see", domain.ImageRef{SHA256: "feed", Name: "gone.png"})}})
	if e := asError(t, err); e.Kind != domain.ErrorInvalidRequest || !strings.Contains(e.Message, "gone.png") {
		t.Fatalf("got %s: %v", e.Kind, e)
	}
}

func TestImageCacheReusesPreparedURL(t *testing.T) {
	blobs := &countingBlobs{memBlobs: memBlobs{}}
	ref := blobs.put(pngBytes(t, 40, 40), "a.png")
	s := startServer(t)
	c := newTestClient(t, s, blobs, nil)
	for range 3 {
		s.Enqueue(fakellm.Text("ok", 1))
		if _, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "see", ref)}}); err != nil {
			t.Fatal(err)
		}
	}
	if blobs.calls != 1 {
		t.Fatalf("blob loaded %d times for three requests", blobs.calls)
	}
}

type countingBlobs struct {
	memBlobs
	calls int
}

func (c *countingBlobs) Blob(sha string) ([]byte, error) {
	c.calls++
	return c.memBlobs.Blob(sha)
}

// TestConvertHistoryAllocatesItsListOnce: the message list of a long history is made at its
// size, not grown by doubling (issue 39: every request converts the whole history), and an
// empty one stays nil, which the body encodes as before.
func TestConvertHistoryAllocatesItsListOnce(t *testing.T) {
	var history []domain.Message
	for i := range 200 {
		history = append(history, domain.Message{Seq: uint64(i + 1), Kind: domain.KindUser, Text: "hi"})
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, _, _, err := convertHistory("system", history, "", nil, returnNothing); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("converting 200 messages allocates %v times; want the list once (and the converter)", allocs)
	}
	if msgs, _, _, _ := convertHistory("", nil, "", nil, returnNothing); msgs != nil {
		t.Errorf("an empty history converts to %#v; want nil", msgs)
	}
}
