package fakellm

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"time"

	"golang.org/x/image/webp"

	"github.com/phoenix-desktop/phoenix/domain"
)

// predict is the predictable model (see doc.go).
func (s *Server) predict(chat *ChatRequest, raw []byte, pace time.Duration) Reply {
	msgs := chat.Messages
	u := lastRealUser(msgs, len(msgs))
	if u < 0 {
		return s.textReply("Hello from the demo model. Send me a message to begin.", pace)
	}
	userText := msgs[u].Content.String()
	if len(chat.Tools) == 0 && strings.Contains(strings.ToLower(userText), "summary") {
		return s.textReply(summary(msgs, u), pace)
	}
	prog := parseProgram(userText)
	k := 0
	assistants := 0
	for i, m := range msgs {
		if m.Role == "assistant" {
			assistants++
			if i > u {
				k++
			}
		}
	}
	var st step
	var reply Reply
	if k < len(prog.steps) {
		st = prog.steps[k]
		reply = s.actionReply(st.actions, assistants+1, pace)
	} else {
		st = prog.final
		reply = s.conclude(chat, u, prog, assistants+1, pace)
	}
	reply.FirstByteDelay = st.delay
	if st.reason != "" {
		// Streamed word by word like the text, so that the demo shows it grow.
		reply.Thinking = &Thinking{Text: st.reason, Chunks: len(strings.Fields(st.reason)), Content: true,
			Tokens: domain.EstimateTokens(st.reason, 0)}
		reply.ChunkDelay = pace
	}
	if f := st.fail; f != nil && s.shouldFail(raw, f) {
		return failReply(f, reply.FirstByteDelay)
	}
	if w := inEffect(msgs, u, prog, k, func(s step) int { return s.window }); w > 0 {
		if est := estimateUsage(chat, raw, Reply{}); est.PromptTokens > w {
			r := ContextLength()
			r.ErrorMessage = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", w, est.PromptTokens)
			r.FirstByteDelay = reply.FirstByteDelay
			return r
		}
	}
	if st.stop != "" {
		reply = endEarly(reply, st.stop)
	}
	reply = cutAtOutputLimit(reply, chat.OutputLimit())
	if n := usageOverride(msgs, u, prog, k); n > 0 {
		est := estimateUsage(chat, raw, reply)
		c := min(est.CompletionTokens, n)
		reply.Usage = &Usage{PromptTokens: n - c, CompletionTokens: c}
	}
	return reply
}

// shouldFail counts attempts of this exact request (a retry sends the same bytes), so that
// "fail: 429" fails once and lets the retry through.
func (s *Server) shouldFail(raw []byte, f *failSpec) bool {
	sum := sha256.Sum256(raw)
	key := hex.EncodeToString(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.times >= 0 && s.attempts[key] >= f.times {
		return false
	}
	s.attempts[key]++
	return true
}

func failReply(f *failSpec, delay time.Duration) Reply {
	var r Reply
	switch {
	case f.context:
		r = ContextLength()
	case f.status == http.StatusTooManyRequests:
		r = RateLimited("1")
		r.ErrorMessage = "Rate limit reached (the demo model was told to fail: 429)"
	case f.status == http.StatusUnauthorized:
		r = Failure(f.status, "Incorrect API key provided (the demo model was told to fail: 401)")
	default:
		r = Failure(f.status, fmt.Sprintf("The demo model was told to fail with %d", f.status))
	}
	r.FirstByteDelay = delay
	return r
}

// usageOverride finds the last "usage: N" in effect.
func usageOverride(msgs []Message, u int, prog program, k int) int {
	return inEffect(msgs, u, prog, k, func(s step) int { return s.usage })
}

// inEffect finds the last value of a lasting modifier (usage:, window:) in effect: every one
// in earlier user messages, and those of the current program up to the step being answered.
func inEffect(msgs []Message, u int, prog program, k int, of func(step) int) int {
	n := 0
	for i := range u {
		if msgs[i].Role != "user" || isSynthetic(msgs[i]) {
			continue
		}
		p := parseProgram(msgs[i].Content.String())
		for _, st := range append(p.steps, p.final) {
			if v := of(st); v > 0 {
				n = v
			}
		}
	}
	for i, st := range prog.steps {
		if v := of(st); i <= k && v > 0 {
			n = v
		}
	}
	if v := of(prog.final); k >= len(prog.steps) && v > 0 {
		n = v
	}
	return n
}

// endEarly makes an answer end with another finish reason. For "length" with tool calls, the
// last call's arguments are cut in half, as a real cut at the output limit leaves them.
func endEarly(r Reply, reason string) Reply {
	r.FinishReason = reason
	if reason == "length" && len(r.ToolCalls) > 0 {
		r.ToolCalls = append([]ToolCall(nil), r.ToolCalls...)
		last := &r.ToolCalls[len(r.ToolCalls)-1]
		last.Function.Arguments = last.Function.Arguments[:len(last.Function.Arguments)/2]
	}
	return r
}

// cutAtOutputLimit cuts an answer longer than the request's max_tokens (estimated at four
// characters a token, as everywhere here) and ends it with "length", as a provider does: the
// text first, then the tool calls in order, the one that crosses the limit cut inside its
// arguments and the later ones dropped.
func cutAtOutputLimit(r Reply, limit int) Reply {
	if limit <= 0 {
		return r
	}
	budget := limit * 4
	if len([]rune(r.Text)) > budget {
		r.Text = string([]rune(r.Text)[:budget])
		r.ToolCalls, r.FinishReason = nil, "length"
		return r
	}
	budget -= len([]rune(r.Text))
	for i, c := range r.ToolCalls {
		size := len(c.Function.Name) + len(c.Function.Arguments)
		if size <= budget {
			budget -= size
			continue
		}
		calls := append([]ToolCall(nil), r.ToolCalls[:i+1]...)
		calls[i].Function.Arguments = c.Function.Arguments[:max(0, min(len(c.Function.Arguments), budget-len(c.Function.Name)))]
		r.ToolCalls, r.FinishReason = calls, "length"
		return r
	}
	return r
}

func (s *Server) textReply(text string, pace time.Duration) Reply {
	return Reply{Text: text, Chunks: min(20, max(1, len(strings.Fields(text)))), ChunkDelay: pace}
}

// actionReply renders a step: echo texts joined as the reply's text, tools as calls with ids
// unique in the conversation (demo_<reply number>_<call number>).
func (s *Server) actionReply(acts []action, replyNo int, pace time.Duration) Reply {
	var texts []string
	var calls []ToolCall
	for _, a := range acts {
		if a.tool == "" {
			texts = append(texts, a.text)
			continue
		}
		args, _ := json.Marshal(a.args) // maps of strings and string slices always encode
		calls = append(calls, Call(fmt.Sprintf("demo_%d_%d", replyNo, len(calls)+1), a.tool, string(args)))
	}
	r := s.textReply(strings.Join(texts, "\n"), pace)
	if len(texts) == 0 {
		r = Reply{}
	}
	r.ToolCalls = calls
	r.Fragments = 2
	return r
}

// toolOutcome is a tool result as the model sees it.
type toolOutcome struct{ name, content string }

// trailingResults returns the tool results at the end of the request (ignoring the client's
// synthetic messages after them) and the images those synthetic messages carry.
func trailingResults(msgs []Message) ([]toolOutcome, []string) {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Function.Name
		}
	}
	var images []string
	i := len(msgs) - 1
	for ; i >= 0 && msgs[i].Role == "user" && isSynthetic(msgs[i]); i-- {
		images = append(msgs[i].Content.ImageURLs(), images...)
	}
	var out []toolOutcome
	for ; i >= 0 && msgs[i].Role == "tool"; i-- {
		out = append([]toolOutcome{{names[msgs[i].ToolCallID], msgs[i].Content.String()}}, out...)
	}
	return out, images
}

// lastToolOutput is the most recent tool result after message u.
func lastToolOutput(msgs []Message, u int) (toolOutcome, bool) {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Function.Name
		}
	}
	for i := len(msgs) - 1; i > u; i-- {
		if msgs[i].Role == "tool" {
			return toolOutcome{names[msgs[i].ToolCallID], msgs[i].Content.String()}, true
		}
	}
	return toolOutcome{}, false
}

// conclude answers once every step is done.
func (s *Server) conclude(chat *ChatRequest, u int, prog program, replyNo int, pace time.Duration) Reply {
	msgs := chat.Messages
	results, images := trailingResults(msgs)
	task := msgs[u].Content.String()
	if chat.offers(domain.ToolSubmitResult) {
		if len(results) > 0 && results[len(results)-1].name == domain.ToolSubmitResult {
			return s.textReply("Done.", pace)
		}
		result := fmt.Sprintf("Finished the task %q.", firstLine(task))
		if last, ok := lastToolOutput(msgs, u); ok {
			result = fmt.Sprintf("Finished the task %q. %s: %s", firstLine(task), last.name, firstLine(last.content))
		}
		args, _ := json.Marshal(map[string]any{"result": result, "success": true}) // always encodes
		return Reply{ToolCalls: []ToolCall{Call(fmt.Sprintf("demo_%d_1", replyNo), domain.ToolSubmitResult, string(args))}, Fragments: 2}
	}
	if len(results) > 0 {
		parts := make([]string, 0, len(results))
		for _, r := range results {
			parts = append(parts, fmt.Sprintf("%s: %s", r.name, firstLine(r.content)))
		}
		text := "Done. " + strings.Join(parts, "; ")
		if len(images) > 0 {
			text += " " + describeImages(images)
		}
		return s.textReply(text, pace)
	}
	if urls := msgs[u].Content.ImageURLs(); len(urls) > 0 && len(prog.steps) == 0 {
		return s.textReply(describeImages(urls), pace)
	}
	return s.textReply(helpText(task), pace)
}

func helpText(userText string) string {
	return fmt.Sprintf("I am the offline demo model, so I follow simple scripts rather than reason. "+
		"Write one step per line: echo: TEXT, bash: COMMAND, patch: PATH <<< TEXT, think: TEXT, "+
		"search: WORDS, image: PATH, upgrade: REASON, agents: TASK | TASK, todo: [x] TASK | [>] TASK | [ ] TASK, mcp: SERVER TOOL {JSON}; and delay: MS, fail: STATUS, stop: REASON, window: TOKENS "+
		"or usage: TOKENS before a step to change it. You wrote: %q.", firstLine(userText))
}

// summary answers the continuation request (REQ-BED-020) from what the history holds.
func summary(msgs []Message, u int) string {
	users, calls := 0, 0
	for _, m := range msgs[:u] {
		if m.Role == "user" && !isSynthetic(m) {
			users++
		}
		calls += len(m.ToolCalls)
	}
	last := "nothing yet"
	if p := lastRealUser(msgs, u); p >= 0 {
		last = fmt.Sprintf("%q", firstLine(msgs[p].Content.String()))
	}
	return fmt.Sprintf("Summary (demo model): you sent %d messages and I made %d tool calls. The last request was %s.",
		users, calls, last)
}

// describeImages tells the count, type, size and dimensions of data-URL images.
func describeImages(urls []string) string {
	var b strings.Builder
	if len(urls) == 1 {
		b.WriteString("I see 1 image:")
	} else {
		fmt.Fprintf(&b, "I see %d images:", len(urls))
	}
	for i, u := range urls {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %d) %s", i+1, describeImage(u))
	}
	b.WriteString(".")
	return b.String()
}

func describeImage(url string) string {
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok || !strings.HasPrefix(url, "data:") || !strings.HasSuffix(meta, ";base64") {
		return "an image by URL, which I cannot open"
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "an image whose data is not valid base64"
	}
	mt := strings.TrimSuffix(meta, ";base64")
	var cfg image.Config
	r := bytes.NewReader(raw)
	switch mt {
	case "image/png":
		cfg, err = png.DecodeConfig(r)
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(r)
	case "image/gif":
		cfg, err = gif.DecodeConfig(r)
	case "image/webp":
		cfg, err = webp.DecodeConfig(r)
	default:
		return fmt.Sprintf("%s, %d bytes, a type I cannot read", mt, len(raw))
	}
	if err != nil {
		return fmt.Sprintf("%s, %d bytes, unreadable (%v)", mt, len(raw), err)
	}
	return fmt.Sprintf("%s %dx%d, %d bytes", mt, cfg.Width, cfg.Height, len(raw))
}
