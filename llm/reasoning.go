package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// This file is everything the client knows about thinking models: how their reasoning
// arrives in a stream, and what of it each provider wants back on the next request.
//
// Reasoning arrives in three fields of a chunk's delta, often several at once:
//   - reasoning_content: a string (DeepSeek, xAI, Z.ai's GLM, Kimi, llama.cpp, vLLM);
//   - reasoning: a string (OpenRouter, Vercel's AI Gateway, Ollama);
//   - reasoning_details: structured entries (OpenRouter, Vercel): "reasoning.text" with a
//     text and, at the end, a signature (Anthropic); "reasoning.summary" pieces (OpenAI,
//     xAI); one "reasoning.encrypted" blob (OpenAI, xAI, Gemini), which is all some models
//     send. Entries arrive in pieces that share a type and an index.
// Providers that send two of them send the same text twice, so the readable text is taken
// from the first field present, in that order.

// reasoningReturn is what of a stored reasoning goes back to the provider with the
// assistant message it belongs to.
type reasoningReturn int

const (
	// returnNothing sends no reasoning: the provider rejects it or has no use for it.
	returnNothing reasoningReturn = iota
	// returnContent sends the text as "reasoning_content".
	returnContent
	// returnDetails sends the merged reasoning_details entries verbatim (signatures and
	// encrypted blobs included), or the text as "reasoning" when there are no entries.
	returnDetails
)

func (r reasoningReturn) String() string {
	switch r {
	case returnContent:
		return "reasoning_content"
	case returnDetails:
		return "reasoning_details"
	}
	return "nothing"
}

// reasoningRule says what one provider, known by the host of its base URL, gets back.
type reasoningRule struct {
	hosts []string
	send  reasoningReturn
	// why is the evidence, for the person who changes the rule.
	why string
}

// reasoningRules is the one table of what goes back to whom. The evidence is the traffic
// of a mature client (charmbracelet/fantasy's recorded provider tests): on the request
// after a tool call it sent exactly this, and the provider answered 200.
var reasoningRules = []reasoningRule{
	{hosts: []string{"openrouter.ai", "ai-gateway.vercel.sh"}, send: returnDetails,
		why: "OpenRouter and Vercel's gateway accept reasoning_details back as they were streamed: Anthropic's signed text, " +
			"OpenAI's and xAI's summaries with their encrypted blob, Gemini's encrypted signature; without them the " +
			"upstream model loses its thinking across tool calls (Anthropic requires the signed block)"},
	{hosts: []string{"api.x.ai", "api.z.ai", "open.bigmodel.cn", "api.moonshot.ai", "api.moonshot.cn", "api.avian.io"},
		send: returnContent,
		why: "xAI (grok-3-mini), Z.ai (GLM 4.7) and Kimi K2.5 take reasoning_content on assistant messages; Kimi " +
			"requires it on tool-call messages while thinking is on"},
	{hosts: []string{"api.deepseek.com"}, send: returnNothing,
		why: "DeepSeek answers 400 when an input message carries reasoning_content"},
	{hosts: []string{"api.openai.com", "api.anthropic.com"}, send: returnNothing,
		why: "their chat completions endpoints stream no reasoning and define no field to send it back"},
	{hosts: []string{"api.groq.com", "api.cerebras.ai"}, send: returnNothing,
		why: "Groq and Cerebras stream reasoning for gpt-oss, qwen3 and GLM but answer 400 \"property " +
			"'reasoning_content' is unsupported\" when an input message carries it"},
}

// localReturn applies to a host the table does not name that is this machine or the
// local network (localhost, a loopback, private or link-local address, a name without a
// dot or under .local): self-hosted servers (llama.cpp, vLLM, Ollama, LM Studio).
// llama.cpp renders reasoning_content into the template of gpt-oss, which needs its
// reasoning across tool calls; the others ignore a field they do not know.
const localReturn = returnContent

// remoteReturn applies to every other host: a remote provider the table does not know may
// reject the field (Groq and Cerebras did), and a rejected field fails every later request
// of the conversation, since the reasoning is stored; sending nothing costs a model only
// its earlier thinking.
const remoteReturn = returnNothing

// rejectingModels name, in a model id, the models whose provider rejects reasoning in
// input, for hosts the table does not know (DeepSeek served on the local network).
// Sending nothing costs such a model nothing elsewhere: DeepSeek's reasoning models drop
// earlier reasoning from their context anyway.
var rejectingModels = []string{"deepseek"}

// reasoningReturnFor looks the base URL's host up in reasoningRules (a subdomain matches its
// domain's rule); for any other host, a model that rejects reasoning gets nothing, a local
// server localReturn and a remote one remoteReturn.
func reasoningReturnFor(baseURL, model string) reasoningReturn {
	u, err := url.Parse(baseURL)
	if err != nil {
		return remoteReturn
	}
	host := strings.ToLower(u.Hostname())
	for _, r := range reasoningRules {
		for _, h := range r.hosts {
			if host == h || strings.HasSuffix(host, "."+h) {
				return r.send
			}
		}
	}
	for _, m := range rejectingModels {
		if strings.Contains(strings.ToLower(model), m) {
			return returnNothing
		}
	}
	if isLocalHost(host) {
		return localReturn
	}
	return remoteReturn
}

// isLocalHost reports whether a (lower-case) host names this machine or the local network.
func isLocalHost(host string) bool {
	if host == "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") ||
		!strings.Contains(host, ".")
}

// gatewayFields are what a gateway (returnDetails) gets with an assistant message: the
// entries as they were streamed, or the text when there were none.
func gatewayFields(r *domain.Reasoning) map[string]json.RawMessage {
	if len(r.Details) > 0 {
		return map[string]json.RawMessage{"reasoning_details": r.Details}
	}
	text, _ := json.Marshal(r.Text) // a string always encodes
	return map[string]json.RawMessage{"reasoning": text}
}

// reasoningDelta is the part of a stream chunk that go-openai does not decode.
type reasoningDelta struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Reasoning        *string          `json:"reasoning"`
			ReasoningDetails []map[string]any `json:"reasoning_details"`
		} `json:"delta"`
	} `json:"choices"`
}

// mayCarryReasoning is a cheap test that spares most chunks a second decoding.
func mayCarryReasoning(raw []byte) bool { return bytes.Contains(raw, []byte(`"reasoning`)) }

// reasoningAssembler accumulates the reasoning of one answer.
type reasoningAssembler struct {
	text strings.Builder
	// entries are the merged reasoning_details, in order of first appearance; byKey finds
	// an entry by type and index.
	entries []map[string]any
	byKey   map[string]map[string]any
}

// add folds one delta's reasoning in and returns the readable text it carried. content is
// the delta's reasoning_content; plain and details its reasoning and reasoning_details.
func (a *reasoningAssembler) add(content string, plain *string, details []map[string]any) string {
	for _, d := range details {
		a.merge(d)
	}
	text := content
	if text == "" && plain != nil {
		text = *plain
	}
	if text == "" {
		for _, d := range details {
			for _, k := range []string{"text", "summary"} {
				if s, ok := d[k].(string); ok {
					text += s
				}
			}
		}
	}
	a.text.WriteString(text)
	return text
}

// merge joins a reasoning_details piece to the entry of the same type and index: text and
// summary pieces are concatenated; any other field (signature, data, id, format) keeps the
// last value that is not empty.
func (a *reasoningAssembler) merge(d map[string]any) {
	typ, _ := d["type"].(string)
	key := typ + "\x00" + fmt.Sprint(d["index"])
	e, ok := a.byKey[key]
	if !ok {
		if a.byKey == nil {
			a.byKey = map[string]map[string]any{}
		}
		e = map[string]any{}
		a.byKey[key] = e
		a.entries = append(a.entries, e)
	}
	for k, v := range d {
		s, isString := v.(string)
		switch {
		case isString && (k == "text" || k == "summary"):
			prev, _ := e[k].(string)
			e[k] = prev + s
		case isString && s == "":
			if _, has := e[k]; !has {
				e[k] = s
			}
		case v != nil:
			e[k] = v
		}
	}
}

// result is the reasoning of the answer, or nil when there was none.
func (a *reasoningAssembler) result() *domain.Reasoning {
	r := &domain.Reasoning{Text: a.text.String()}
	if len(a.entries) > 0 {
		// Decoded JSON values always encode.
		r.Details, _ = json.Marshal(a.entries)
	}
	if r.Empty() {
		return nil
	}
	return r
}

// outputTokens is the completion's size including its reasoning. Most providers count the
// reasoning tokens inside completion_tokens; xAI counts them beside it, which shows as a
// total_tokens that is the sum of all three.
func outputTokens(prompt, completion, total, reasoning int) int {
	if reasoning > 0 && total >= prompt+completion+reasoning {
		return completion + reasoning
	}
	return completion
}

// withMessageFields returns a copy of the chat request with fields added to the messages of
// its body, by index, and topFields to the body itself. It closes the original body, as a
// transport must.
func withMessageFields(req *http.Request, fields map[int]map[string]json.RawMessage, topFields map[string]json.RawMessage) (*http.Request, error) {
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close() // fully read; closing cannot lose anything
	if err != nil {
		return nil, fmt.Errorf("read the request body to add the reasoning: %w", err)
	}
	var top map[string]json.RawMessage
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("add the reasoning to the request: %w", err)
	}
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("add the reasoning to the request's messages: %w", err)
	}
	for i, f := range fields {
		if i < 0 || i >= len(msgs) {
			return nil, fmt.Errorf("add the reasoning to message %d of a request with %d", i, len(msgs))
		}
		maps.Copy(msgs[i], f)
	}
	// Maps of raw JSON always encode.
	top["messages"], _ = json.Marshal(msgs)
	maps.Copy(top, topFields)
	body, _ = json.Marshal(top)
	return withBody(req, body), nil
}

// withBody is req with body in place of its own.
func withBody(req *http.Request, body []byte) *http.Request {
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return out
}

// Some servers leave a thinking model's reasoning in the answer itself, as a block that
// opens it: "<think>…</think>" (llama.cpp, Ollama and vLLM without a reasoning parser, LM
// Studio, DeepSeek-R1 and Qwen3 through plain chat templates). inlineThink moves that block
// into the reasoning as the stream arrives; tags split across deltas are held back until
// they can be told apart. Only a block at the very start counts: "<think>" later in an
// answer is the answer's own text.
type inlineThink struct {
	state thinkState
	// held is text that may still turn out to be (part of) a tag.
	held string
}

type thinkState int

const (
	// thinkUndecided: only whitespace, or a prefix of the opening tag, has arrived.
	thinkUndecided thinkState = iota
	// thinkInside: within the block, until the closing tag.
	thinkInside
	// thinkAfter: the block has closed; whitespace before the answer is dropped.
	thinkAfter
	// thinkNone: the rest is answer.
	thinkNone
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// split takes one piece of content and returns what of it, with what was held back, is
// reasoning and what is answer.
func (t *inlineThink) split(s string) (reasoning, text string) {
	switch t.state {
	case thinkUndecided:
		t.held += s
		rest := strings.TrimLeft(t.held, " \t\r\n")
		switch {
		case strings.HasPrefix(rest, thinkOpen):
			t.state, t.held = thinkInside, ""
			return t.split(rest[len(thinkOpen):])
		case strings.HasPrefix(thinkOpen, rest):
			return "", ""
		}
		t.state = thinkNone
		text, t.held = t.held, ""
		return "", text
	case thinkInside:
		buf := t.held + s
		if i := strings.Index(buf, thinkClose); i >= 0 {
			t.state, t.held = thinkAfter, ""
			_, text = t.split(buf[i+len(thinkClose):])
			return buf[:i], text
		}
		// Hold back a tail that could be the start of the closing tag.
		keep := 0
		for k := min(len(thinkClose)-1, len(buf)); k > 0; k-- {
			if strings.HasSuffix(buf, thinkClose[:k]) {
				keep = k
				break
			}
		}
		t.held = buf[len(buf)-keep:]
		return buf[:len(buf)-keep], ""
	case thinkAfter:
		text = strings.TrimLeft(s, " \t\r\n")
		if text != "" {
			t.state = thinkNone
		}
		return "", text
	}
	return "", s
}

// flush returns what is held back at the end of the answer: a block that never closed is
// reasoning (the output limit cut the thinking short); anything else is answer.
func (t *inlineThink) flush() (reasoning, text string) {
	held := t.held
	t.held = ""
	if t.state == thinkInside {
		return held, ""
	}
	return "", held
}
