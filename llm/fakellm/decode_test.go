package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// decodeChat reads a body as a plain decode of ChatRequest does, and its prompt is the tools
// then the messages as they were sent.
func TestDecodeChatMatchesPlainDecode(t *testing.T) {
	s := start(t)
	for _, body := range []string{
		`{"model":"demo","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":7}`,
		`{"model":"demo","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"tools":null}`,
		`{"tools":[],"model":"m","messages":null,"max_completion_tokens":3}`,
	} {
		var want ChatRequest
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		got, prompt, err := s.decodeChat([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", body, *got, want)
		}
		var parts struct{ Tools, Messages json.RawMessage }
		_ = json.Unmarshal([]byte(body), &parts)
		if w := append(append([]byte(nil), parts.Tools...), parts.Messages...); !bytes.Equal(prompt, w) {
			t.Errorf("%s: prompt %s, want %s", body, prompt, w)
		}
	}
	for _, bad := range []string{`{"messages":"x"}`, `{"tools":{}}`, `[1]`, `{`} {
		if _, _, err := s.decodeChat([]byte(bad)); err == nil {
			t.Errorf("%s decoded; want an error", bad)
		}
	}
}

// The tools of the last request are reused only while their bytes are the same: a request
// that offers other tools is answered with those, and what one request's tools became is not
// changed by the next.
func TestDecodedToolsFollowTheirBytes(t *testing.T) {
	s := start(t)
	for _, names := range [][]string{{"bash"}, {"bash"}, {"patch", "think"}, {"bash"}} {
		if status, _, _ := post(t, s, ChatRequest{Model: "demo", Messages: []Message{user("echo: hi")}, Tools: tools(names...)}); status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
	}
	chats := s.Chats()
	var got []string
	for _, c := range chats {
		var ns []string
		for _, tl := range c.Tools {
			ns = append(ns, tl.Function.Name)
		}
		got = append(got, strings.Join(ns, "+"))
	}
	if want := []string{"bash", "bash", "patch+think", "bash"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools seen: %v, want %v", got, want)
	}
	chats[1].Tools[0].Function.Name = "changed"
	if chats[0].Tools[0].Function.Name != "bash" || chats[3].Tools[0].Function.Name != "bash" {
		t.Fatal("one request's decoded tools are shared with another's")
	}
}

// A body decoded with what the last one left (the bytes around its messages, and its
// messages) reads as a plain decode of it does, whatever changed since: messages added,
// edited, removed, the same again, the model or the tools, a messages array that is not JSON
// (a trailing comma), a second messages key, space inside. Each body is checked against a
// plain decode, and each prompt against the tools then the messages as sent.
func TestDecodeChatAfterAnotherMatchesPlainDecode(t *testing.T) {
	s := start(t)
	const tl = `[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}]`
	m := func(i int) string {
		return fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"ok %d","tool_call_id":"c%d"}`, i, i, i)
	}
	body := func(model, msgs, tools string) string {
		return `{"model":"` + model + `","messages":` + msgs + `,"max_tokens":7,"stream":true,"stream_options":{"include_usage":true},"tools":` + tools + `}`
	}
	first := `{"role":"user","content":"bash: true"}`
	bodies := []string{
		body("demo", "["+first+"]", tl),
		body("demo", "["+first+","+m(1)+"]", tl),                     // added
		body("demo", "["+first+","+m(1)+","+m(2)+","+m(3)+"]", tl),   // added, several
		body("demo", "["+first+","+m(1)+","+m(2)+","+m(3)+"]", tl),   // the same
		body("demo", "["+first+","+m(9)+","+m(2)+","+m(3)+"]", tl),   // edited
		body("demo", "["+first+","+m(9)+"]", tl),                     // fewer
		body("demo", "["+first+","+m(9)+",]", tl),                    // trailing comma: not JSON
		body("demo", "["+first+","+m(9)+", ]", tl),                   // the same, with a space
		body("demo", "["+first+","+m(9)+",1]", tl),                   // not a message
		body("demo", "["+first+","+m(9)+" , "+m(4)+" ]", tl),         // space inside
		body("demo", "["+first+","+m(9)+" , "+m(4)+" ],\"x\":[", tl), // not JSON around
		body("demo", `"x"`, tl),
		body("demo", "[]", tl),
		body("demo", "["+first+"]", tl), // after an empty array
		body("other", "["+first+","+m(1)+"]", tl),
		body("other", "["+first+","+m(1)+","+m(2)+"]", `[{"type":"function","function":{"name":"patch"}}]`),
		`{"messages":[{"role":"user","content":"a"}],"model":"m","messages":[` + first + `]}`,
		`{"messages":[{"role":"user","content":"a"}],"model":"m","messages":[` + first + `,` + m(1) + `]}`,
		body("demo", "null", tl),
	}
	for i, b := range bodies {
		var want ChatRequest
		wantErr := json.Unmarshal([]byte(b), &want)
		got, prompt, err := s.decodeChat([]byte(b))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("body %d %s: error %v, want %v", i, b, err, wantErr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("body %d %s:\n got %+v\nwant %+v", i, b, *got, want)
		}
		var parts struct{ Tools, Messages json.RawMessage }
		_ = json.Unmarshal([]byte(b), &parts)
		if w := append(append([]byte(nil), parts.Tools...), parts.Messages...); !bytes.Equal(prompt, w) {
			t.Errorf("body %d: prompt %s, want %s", i, prompt, w)
		}
		// What the caller does with a request it was given does not reach the next one.
		if len(got.Messages) > 0 {
			got.Messages[0].Role = "changed"
		}
		if got.StreamOptions != nil {
			got.StreamOptions.IncludeUsage = false
		}
	}
}

// A conversation's requests, as the app sends them, reuse what the last one decoded: only
// the new messages are decoded (the test counts the decoder's work in allocations).
func TestDecodeChatDecodesOnlyTheNewMessages(t *testing.T) {
	s := start(t)
	msgs := []Message{user(strings.Repeat("bash: true\n", 40))}
	for i := range 40 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, assistantCalls(ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: "bash", Arguments: `{"command":"true"}`}}), toolMsg(id, "(no output)"))
	}
	enc := func(n int) []byte {
		b, err := json.Marshal(ChatRequest{Model: "demo", Messages: msgs[:n], Tools: tools("bash", "patch"), Stream: true})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	long, longer := enc(len(msgs)-2), enc(len(msgs))
	decode := func(bodies ...[]byte) float64 {
		return testing.AllocsPerRun(5, func() {
			s.mu.Lock()
			s.body = bodyMemo{}
			s.mu.Unlock()
			for _, b := range bodies {
				if _, _, err := s.decodeChat(b); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	whole := decode(longer)
	next := decode(long, longer) - decode(long)
	// next is longer's two new messages decoded, whole all of its 81 messages.
	if next*4 > whole {
		t.Fatalf("a request after the last one took %.0f allocations, the whole body %.0f: the last one's messages were decoded again", next, whole)
	}
}
