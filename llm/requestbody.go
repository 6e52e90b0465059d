package llm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// A chat request's body is encoded here rather than by go-openai, byte for byte as it would
// (json.Marshal of the request; TestRequestBodyIsGoOpenAIs holds the two together), for two
// costs it pays on every request of a conversation (issue 39):
//
//   - the tool list, the same in every request (about 11 KB of descriptions and schemas), is
//     encoded once per tool set and kept;
//   - a message is encoded once and kept for the next request, which repeats this one and
//     adds to its end, so a request encodes only its new messages, not the whole
//     conversation again;
//   - a message, and each tool, has a MarshalJSON of its own, whose output json.Marshal
//     scans a second time to compact it; that output is compact already, so it is joined
//     as it is.
//
// go-openai is then handed the request without its messages and tools, and the transport
// (captureTransport) sends this body in place of the one go-openai encoded.

// requestBodies keeps the encoded tool list of the last tool set, and the encoded messages
// of the last requests.
type requestBodies struct {
	mu sync.Mutex
	// tools is the tool set toolsJSON encodes, as copies; nil when none is kept.
	tools     []keptTool
	toolsJSON []byte
	// current and previous map a message's messageHash to the message and its encoding:
	// the messages of this request and of the one before, each up to maxKeptPerRequest
	// bytes. A conversation's next request repeats its last one and adds to its end, so it
	// finds all but its newest messages; what is kept is never more than two requests'
	// encodings, so a client that serves many conversations (the app's one client) holds no
	// more (the heap rows of the bench read it).
	current, previous map[uint64]keptMessage
	currentBytes      int
}

// keptMessage is a message's fields (messageKey) and its encoding. The message is compared
// in full on a hit, so a hash collision costs an encoding, never a wrong body. Its fields
// are listed once, when it is kept: every later request compares its own copy of the
// message against the list without allocating (issue 39: before, each comparison listed
// both sides again, two slices per message of the history on every request).
type keptMessage struct {
	key messageKey
	enc []byte
}

// keptTool is a tool of the kept set: what its encoding depends on.
type keptTool struct {
	typ               openai.ToolType
	name, description string
	strict            bool
	params            json.RawMessage
}

// maxKeptPerRequest bounds the messages kept of one request, in bytes of encoding and an
// estimate of each entry's own size (keptEntryBytes); a longer request's later messages are
// encoded every time.
const maxKeptPerRequest = 2 << 20

// keptEntryBytes is about what an entry costs beyond its encoding: the map's slot, the
// message's fields, the encoding's header.
const keptEntryBytes = 320

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
	shell := req
	var subs []substitution
	// nil encodes as null and an empty list as []: both are left to json.Marshal.
	if len(req.Messages) > 0 {
		parts, err := b.messageList(req.Messages)
		if err != nil {
			return json.Marshal(req)
		}
		subs = append(subs, substitution{marker: `[{"role":` + quoted(messagesMarker) + `}]`, parts: parts})
		shell.Messages = []openai.ChatCompletionMessage{{Role: messagesMarker}}
	}
	if len(req.Tools) > 0 {
		list, err := b.toolList(req.Tools)
		if err != nil {
			return json.Marshal(req)
		}
		subs = append(subs, substitution{marker: `[{"type":` + quoted(toolsMarker) + `}]`, parts: [][]byte{list}})
		shell.Tools = []openai.Tool{{Type: toolsMarker}}
	}
	body, err := json.Marshal(shell)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return body, nil
	}
	out, ok := substitute(body, subs)
	if !ok {
		return json.Marshal(req)
	}
	return out, nil
}

// substitution is a marker's text in the encoded shell and the pieces that replace it.
type substitution struct {
	marker string
	parts  [][]byte
	at     int
}

// substitute replaces each marker, found exactly once in body, with its parts, in one
// allocation; ok is false when a marker is not found exactly once.
func substitute(body []byte, subs []substitution) ([]byte, bool) {
	size := len(body)
	for i := range subs {
		m := []byte(subs[i].marker)
		at := bytes.Index(body, m)
		if at < 0 || bytes.Contains(body[at+len(m):], m) {
			return nil, false
		}
		subs[i].at = at
		size -= len(m)
		for _, p := range subs[i].parts {
			size += len(p)
		}
	}
	slices.SortFunc(subs, func(a, b substitution) int { return a.at - b.at })
	out := make([]byte, 0, size)
	from := 0
	for _, s := range subs {
		if s.at < from {
			return nil, false // overlapping markers
		}
		out = append(out, body[from:s.at]...)
		for _, p := range s.parts {
			out = append(out, p...)
		}
		from = s.at + len(s.marker)
	}
	return append(out, body[from:]...), true
}

// toolList is the encoded tool list, kept while the tool set stays the same.
func (b *requestBodies) toolList(tools []openai.Tool) ([]byte, error) {
	kept, ok := keepableTools(tools)
	if ok {
		b.mu.Lock()
		same := slices.EqualFunc(b.tools, kept, sameTool)
		out := b.toolsJSON
		b.mu.Unlock()
		if same && out != nil {
			return out, nil
		}
	}
	out, err := joinMarshalled(tools)
	if err != nil || !ok {
		return out, err
	}
	b.mu.Lock()
	b.tools, b.toolsJSON = kept, out
	b.mu.Unlock()
	return out, nil
}

// keepableTools is what the tools' encoding depends on; ok is false for a tool that cannot
// be compared so (a schema that is not raw JSON, Responses API fields), which is then
// encoded every time.
func keepableTools(tools []openai.Tool) ([]keptTool, bool) {
	out := make([]keptTool, 0, len(tools))
	for _, t := range tools {
		if t.Parameters != nil || t.Function == nil {
			return nil, false
		}
		params, isRaw := t.Function.Parameters.(json.RawMessage)
		if !isRaw {
			return nil, false
		}
		out = append(out, keptTool{typ: t.Type, name: t.Function.Name, description: t.Function.Description,
			strict: t.Function.Strict, params: params})
	}
	return out, true
}

func sameTool(a, b keptTool) bool {
	return a.typ == b.typ && a.name == b.name && a.description == b.description && a.strict == b.strict &&
		bytes.Equal(a.params, b.params)
}

// messageList is the messages' list as joinMarshalled encodes it, in pieces: the
// brackets, the commas and each message's encoding, kept or new.
func (b *requestBodies) messageList(msgs []openai.ChatCompletionMessage) ([][]byte, error) {
	b.mu.Lock()
	b.previous, b.current, b.currentBytes = b.current, make(map[uint64]keptMessage, len(msgs)), 0
	b.mu.Unlock()
	parts := make([][]byte, 0, 2*len(msgs)+1)
	parts = append(parts, []byte("["))
	for i, m := range msgs {
		if i > 0 {
			parts = append(parts, []byte(","))
		}
		h := messageHash(m)
		b.mu.Lock()
		k, ok := b.current[h]
		if !ok {
			k, ok = b.previous[h]
		}
		b.mu.Unlock()
		if !ok || !k.key.matches(m) {
			enc, err := m.MarshalJSON()
			if err != nil {
				return nil, err
			}
			k = keptMessage{key: keyOf(m), enc: enc}
		}
		b.mu.Lock()
		if size := len(k.enc) + keptEntryBytes; b.currentBytes+size <= maxKeptPerRequest {
			b.current[h] = k
			b.currentBytes += size
		}
		b.mu.Unlock()
		parts = append(parts, k.enc)
	}
	return append(parts, []byte("]")), nil
}

// messageFields calls str for every string of a message and flag for every presence, count
// and number, in one fixed order, so that messageHash and sameMessage read the same
// fields. TestMessageKeyCoversEveryField fails when go-openai adds a field this
// does not read.
func messageFields(m openai.ChatCompletionMessage, str func(string), flag func(int)) {
	present := func(yes bool) {
		if yes {
			flag(1)
		} else {
			flag(0)
		}
	}
	str(m.Role)
	str(m.Content)
	str(m.Refusal)
	str(m.Name)
	str(m.ReasoningContent)
	str(m.ToolCallID)
	present(m.MultiContent != nil)
	flag(len(m.MultiContent))
	for _, p := range m.MultiContent {
		str(string(p.Type))
		str(p.Text)
		present(p.ImageURL != nil)
		if p.ImageURL != nil {
			str(p.ImageURL.URL)
			str(string(p.ImageURL.Detail))
		}
	}
	present(m.FunctionCall != nil)
	if m.FunctionCall != nil {
		str(m.FunctionCall.Name)
		str(m.FunctionCall.Arguments)
	}
	present(m.ToolCalls != nil)
	flag(len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		present(c.Index != nil)
		if c.Index != nil {
			flag(*c.Index)
		}
		str(c.ID)
		str(string(c.Type))
		str(c.Function.Name)
		str(c.Function.Arguments)
	}
}

// hashSeed is this process's seed of the messages' hashes.
var hashSeed = maphash.MakeSeed()

// messageHash hashes every field of a message, each string with its length.
func messageHash(m openai.ChatCompletionMessage) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	var n [8]byte
	num := func(v int) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		_, _ = h.Write(n[:])
	}
	messageFields(m, func(s string) {
		num(len(s))
		_, _ = h.WriteString(s)
	}, num)
	return h.Sum64()
}

// messageKey is every field of a message as messageFields reads them, in its order.
type messageKey struct {
	strs  []string
	flags []int
}

func keyOf(m openai.ChatCompletionMessage) messageKey {
	var k messageKey
	messageFields(m, func(s string) { k.strs = append(k.strs, s) }, func(v int) { k.flags = append(k.flags, v) })
	return k
}

// matches reports whether m has the fields k lists, and so the encoding of the message k
// was made of. The strings of a message repeated from the last request share their bytes
// with the kept ones, so most comparisons end at the pointers.
func (k messageKey) matches(m openai.ChatCompletionMessage) bool {
	i, j, same := 0, 0, true
	messageFields(m, func(s string) {
		same = same && i < len(k.strs) && k.strs[i] == s
		i++
	}, func(v int) {
		same = same && j < len(k.flags) && k.flags[j] == v
		j++
	})
	return same && i == len(k.strs) && j == len(k.flags)
}

// sameMessage reports whether two messages have the same fields, and so the same encoding.
func sameMessage(a, b openai.ChatCompletionMessage) bool { return keyOf(a).matches(b) }

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

// quoted is s as json.Marshal writes a string.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
