package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// A chat request's body is encoded here rather than by go-openai, byte for byte as it would
// (json.Marshal of the request; TestRequestBodyIsGoOpenAIs holds the two together), for two
// costs it pays on every request of a conversation (issue 39):
//
//   - the tool list, the same in every request (about 11 KB of descriptions and schemas), is
//     encoded once per tool set and kept;
//   - a message, and each tool, has a MarshalJSON of its own, whose output json.Marshal
//     scans a second time to compact it; that output is compact already, so it is joined
//     as it is.
//
// go-openai is then handed the request without its messages and tools, and the transport
// (captureTransport) sends this body in place of the one go-openai encoded.

// requestBodies keeps the encoded tool list of the last tool set.
type requestBodies struct {
	mu sync.Mutex
	// toolsKey says which tools toolsJSON encodes (toolSetKey); empty when none is kept.
	toolsKey  string
	toolsJSON []byte
}

// Markers stand in for the messages and the tools while the rest of the request is encoded
// by json.Marshal, so that each field keeps its place and its neighbours' formatting; the
// NUL makes them impossible in a model name or another field a person sets, and encode
// checks that each occurs once.
const (
	messagesMarker = "\x00phoenix-messages"
	toolsMarker    = "\x00phoenix-tools"
)

// encode returns json.Marshal(req)'s bytes.
func (b *requestBodies) encode(req openai.ChatCompletionRequest) ([]byte, error) {
	msgs, tools := req.Messages, req.Tools
	shell := req
	var msgsJSON, toolsJSON []byte
	var err error
	// nil encodes as null and an empty list as []: both are left to json.Marshal.
	if len(msgs) > 0 {
		if msgsJSON, err = joinMarshalled(msgs); err != nil {
			return json.Marshal(req)
		}
		shell.Messages = []openai.ChatCompletionMessage{{Role: messagesMarker}}
	}
	if len(tools) > 0 {
		if toolsJSON, err = b.toolList(tools); err != nil {
			return json.Marshal(req)
		}
		shell.Tools = []openai.Tool{{Type: toolsMarker}}
	}
	body, err := json.Marshal(shell)
	if err != nil {
		return nil, err
	}
	if msgsJSON != nil {
		if body, err = splice(body, `[{"role":`+quoted(messagesMarker)+`}]`, msgsJSON); err != nil {
			return json.Marshal(req)
		}
	}
	if toolsJSON != nil {
		if body, err = splice(body, `[{"type":`+quoted(toolsMarker)+`}]`, toolsJSON); err != nil {
			return json.Marshal(req)
		}
	}
	return body, nil
}

// toolList is the encoded tool list, kept while the tool set stays the same.
func (b *requestBodies) toolList(tools []openai.Tool) ([]byte, error) {
	key, ok := toolSetKey(tools)
	if ok {
		b.mu.Lock()
		kept := b.toolsKey == key
		out := b.toolsJSON
		b.mu.Unlock()
		if kept {
			return out, nil
		}
	}
	out, err := joinMarshalled(tools)
	if err != nil || !ok {
		return out, err
	}
	b.mu.Lock()
	b.toolsKey, b.toolsJSON = key, out
	b.mu.Unlock()
	return out, nil
}

// toolSetKey writes out everything a tool list's encoding depends on; ok is false for a
// tool it cannot key (a schema that is not raw JSON, Responses API fields), which is then
// encoded every time.
func toolSetKey(tools []openai.Tool) (string, bool) {
	var k strings.Builder
	field := func(s string) {
		k.WriteString(strconv.Itoa(len(s)))
		k.WriteByte(':')
		k.WriteString(s)
	}
	for _, t := range tools {
		if t.Parameters != nil || t.Function == nil {
			return "", false
		}
		params, isRaw := t.Function.Parameters.(json.RawMessage)
		if !isRaw {
			return "", false
		}
		field(string(t.Type))
		field(t.Function.Name)
		field(t.Function.Description)
		field(strconv.FormatBool(t.Function.Strict))
		field(string(params))
	}
	return k.String(), true
}

// joinMarshalled encodes a list as json.Marshal does when each element has a MarshalJSON
// that returns compact JSON with HTML characters escaped (json.Marshal's own output), minus
// the second scan json.Marshal gives such output.
func joinMarshalled[T json.Marshaler](list []T) ([]byte, error) {
	var out bytes.Buffer
	out.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			out.WriteByte(',')
		}
		b, err := v.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out.Write(b)
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

// errMarker says a marker was not found exactly once; the caller then encodes the request
// the ordinary way.
type errMarker struct{}

func (errMarker) Error() string { return "the request's marker was not found exactly once" }

// splice replaces the one occurrence of marker in body with with.
func splice(body []byte, marker string, with []byte) ([]byte, error) {
	i := bytes.Index(body, []byte(marker))
	if i < 0 || bytes.Contains(body[i+len(marker):], []byte(marker)) {
		return nil, errMarker{}
	}
	out := make([]byte, 0, len(body)-len(marker)+len(with))
	out = append(out, body[:i]...)
	out = append(out, with...)
	return append(out, body[i+len(marker):]...), nil
}

// quoted is s as json.Marshal writes a string.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
