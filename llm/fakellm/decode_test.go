package fakellm

import (
	"bytes"
	"encoding/json"
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
