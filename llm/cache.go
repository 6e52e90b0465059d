package llm

import (
	"encoding/json"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Prompt caching (issue 27). Our requests repeat the previous one byte for byte and only
// grow at the end, so providers that cache prefixes by themselves (OpenAI, xAI, DeepSeek,
// Gemini's own API, OpenRouter's routes to them) already discount the repeated part, and
// the client only reads what they report (usage.go). Anthropic's models, and Gemini's
// through a router, cache only up to explicit breakpoints, which an OpenAI-compatible
// request carries as cache_control on a content part. For those routes the request marks:
//   - the system message, which covers the tools too (Anthropic's cache prefix is tools,
//     then system, then messages), so every request of every conversation with the same
//     prompt and tools reads it;
//   - the last message, so the next request — this one plus the reply and what answers
//     it — reads everything up to here.
// That is two of the four breakpoints Anthropic allows (Gemini uses the last). A marked
// message's content becomes a one-part array, which providers read as the same text: the
// cache matches content, not the JSON around it, so the message marked last time and sent
// as a plain string now still matches. No other route's request changes by one byte.

// cacheRule names the routes that need breakpoints: the base URL's host and the model's
// prefix.
type cacheRule struct {
	hosts, models []string
	// why is the evidence, for the person who changes the rule.
	why string
}

// cacheRules is the one table of the routes that get breakpoints.
var cacheRules = []cacheRule{
	{hosts: []string{"openrouter.ai"}, models: []string{"anthropic/", "google/gemini"},
		why: "OpenRouter passes cache_control on content parts to Anthropic and Gemini, which cache nothing without it; " +
			"its other routes cache by themselves and ignore the field"},
}

// usageAccountingHosts get "usage": {"include": true}, which asks OpenRouter for the cost
// and cache figures in the last chunk (as charmbracelet/fantasy's recorded traffic sends).
var usageAccountingHosts = []string{"openrouter.ai"}

// cacheControl is the marker of a breakpoint.
var cacheControl = json.RawMessage(`{"type":"ephemeral"}`)

func hostOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func hostIn(host string, hosts []string) bool {
	for _, h := range hosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// needsBreakpoints reports whether the route caches only at explicit breakpoints.
func needsBreakpoints(baseURL, model string) bool {
	host, model := hostOf(baseURL), strings.ToLower(model)
	for _, r := range cacheRules {
		if !hostIn(host, r.hosts) {
			continue
		}
		for _, m := range r.models {
			if strings.HasPrefix(model, m) {
				return true
			}
		}
	}
	return false
}

// requestTopFields are the top-level fields a route adds to the request body; nil for most.
func requestTopFields(baseURL string) map[string]json.RawMessage {
	if hostIn(hostOf(baseURL), usageAccountingHosts) {
		return map[string]json.RawMessage{"usage": json.RawMessage(`{"include":true}`)}
	}
	return nil
}

// addBreakpoints marks the system message and the last message (when it is not the
// model's own) in fields, the per-message additions of the request body.
func addBreakpoints(msgs []openai.ChatCompletionMessage, fields map[int]map[string]json.RawMessage) map[int]map[string]json.RawMessage {
	mark := func(i int) {
		m := msgs[i]
		if m.Role == openai.ChatMessageRoleAssistant {
			return
		}
		content, ok := markedContent(m)
		if !ok {
			return
		}
		if fields == nil {
			fields = map[int]map[string]json.RawMessage{}
		}
		if fields[i] == nil {
			fields[i] = map[string]json.RawMessage{}
		}
		fields[i]["content"] = content
	}
	if len(msgs) > 0 && msgs[0].Role == openai.ChatMessageRoleSystem {
		mark(0)
	}
	if last := len(msgs) - 1; last > 0 {
		mark(last)
	}
	return fields
}

// markedContent is a message's content as parts, the last one carrying the breakpoint.
func markedContent(m openai.ChatCompletionMessage) (json.RawMessage, bool) {
	var parts []map[string]json.RawMessage
	if len(m.MultiContent) > 0 {
		raw, err := json.Marshal(m.MultiContent)
		if err != nil || json.Unmarshal(raw, &parts) != nil || len(parts) == 0 {
			return nil, false
		}
	} else {
		if m.Content == "" {
			return nil, false
		}
		text, _ := json.Marshal(m.Content) // a string always encodes
		parts = []map[string]json.RawMessage{{"type": json.RawMessage(`"text"`), "text": text}}
	}
	parts[len(parts)-1]["cache_control"] = cacheControl
	out, err := json.Marshal(parts)
	return out, err == nil
}
