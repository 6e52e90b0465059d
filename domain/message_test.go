package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

func asst(seq uint64, ids ...string) Message {
	calls := make([]ToolCall, len(ids))
	for i, id := range ids {
		calls[i] = bashCall(id)
	}
	return Message{Seq: seq, Kind: KindAssistant, ToolCalls: calls}
}

func res(seq uint64, id string) Message {
	return Message{Seq: seq, Kind: KindToolResult, ToolResult: &ToolResult{CallID: id, Name: ToolBash, Outcome: OutcomeSuccess}}
}

func TestValidateHistory(t *testing.T) {
	user := func(seq uint64) Message { return Message{Seq: seq, Kind: KindUser, Text: "hi"} }
	system := func(seq uint64) Message { return Message{Seq: seq, Kind: KindSystem, Text: "mode"} }
	errMsg := func(seq uint64) Message { return Message{Seq: seq, Kind: KindError, Text: "failed"} }
	tests := []struct {
		name     string
		msgs     []Message
		openTail bool
		wantErr  string
	}{
		{name: "empty", msgs: nil},
		{name: "plain chat", msgs: []Message{user(3), asst(4), user(5), asst(6)}},
		{name: "round answered", msgs: []Message{user(0), asst(1, "a", "b"), res(2, "a"), res(3, "b"), asst(4)}},
		{name: "results in any order", msgs: []Message{asst(0, "a", "b"), res(1, "b"), res(2, "a")}},
		{name: "system after the round", msgs: []Message{asst(0, "a"), res(1, "a"), system(2), asst(3)}},
		{name: "error messages are not sent", msgs: []Message{user(0), errMsg(1), user(2)}},
		{name: "open tail allowed", msgs: []Message{asst(0, "a", "b"), res(1, "a")}, openTail: true},
		{name: "open tail refused", msgs: []Message{asst(0, "a", "b"), res(1, "a")}, wantErr: "tool call b has no result"},
		{name: "reply before result", msgs: []Message{asst(0, "a"), asst(1)}, wantErr: "no result before the next reply"},
		{name: "second result", msgs: []Message{asst(0, "a"), res(1, "a"), res(2, "a")}, wantErr: "second result"},
		{name: "unknown result", msgs: []Message{asst(0, "a"), res(1, "z")}, wantErr: "unknown tool call z"},
		{name: "result of an older reply", msgs: []Message{asst(0, "a"), res(1, "a"), asst(2, "b"), res(3, "a")}, wantErr: "unknown tool call a"},
		{name: "duplicate call id", msgs: []Message{asst(0, "a", "a")}, wantErr: "duplicate tool call id"},
		{name: "sequence gap", msgs: []Message{user(0), asst(2)}, wantErr: "sequence gap"},
		{name: "invalid message", msgs: []Message{{Seq: 0, Kind: KindUser}}, wantErr: "neither text nor images"},
		// The APIs require a reply's results to follow it directly (OpenAI: "An assistant
		// message with 'tool_calls' must be followed by tool messages"; Anthropic: the results
		// open the next message), so nothing sent to the model may sit between them.
		{name: "system inside a round", msgs: []Message{asst(0, "a", "b"), res(1, "a"), system(2), res(3, "b")}, wantErr: "between a tool call and its result"},
		{name: "system inside an open round", msgs: []Message{asst(0, "a", "b"), res(1, "a"), system(2)}, openTail: true, wantErr: "between a tool call and its result"},
		{name: "user inside a round", msgs: []Message{asst(0, "a"), user(1), res(2, "a")}, wantErr: "between a tool call and its result"},
		{name: "error inside a round is not sent", msgs: []Message{asst(0, "a"), errMsg(1), res(2, "a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateHistory(tt.msgs, tt.openTail)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidateHistory = %v; want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ValidateHistory = %v; want %q", err, tt.wantErr)
			}
		})
	}
}

func TestUnansweredCalls(t *testing.T) {
	msgs := []Message{asst(0, "old"), asst(1, "a", "b", "c"), res(2, "b")}
	got := UnansweredCalls(msgs)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" {
		t.Fatalf("UnansweredCalls = %+v; want [a c] in request order", got)
	}
	if got := UnansweredCalls(append(msgs, res(3, "a"), res(4, "c"))); len(got) != 0 {
		t.Fatalf("UnansweredCalls = %+v; want none", got)
	}
}

func TestMessageValidate(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		ok   bool
	}{
		{"user text", Message{Kind: KindUser, Text: "x"}, true},
		{"user image", Message{Kind: KindUser, Images: []ImageRef{{SHA256: "ab"}}}, true},
		{"user empty", Message{Kind: KindUser}, false},
		{"assistant empty", Message{Kind: KindAssistant}, true},
		{"assistant call without id", Message{Kind: KindAssistant, ToolCalls: []ToolCall{{Name: "bash"}}}, false},
		{"assistant call without name", Message{Kind: KindAssistant, ToolCalls: []ToolCall{{ID: "a"}}}, false},
		{"result without body", Message{Kind: KindToolResult}, false},
		{"result without call id", Message{Kind: KindToolResult, ToolResult: &ToolResult{}}, false},
		{"system", Message{Kind: KindSystem, Text: "x"}, true},
		{"continuation", Message{Kind: KindContinuation, Text: "x"}, true},
		{"unknown kind", Message{Kind: "weird"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.msg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate = %v; want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestMessageKind_SentToModel(t *testing.T) {
	for kind, want := range map[MessageKind]bool{
		KindUser: true, KindAssistant: true, KindToolResult: true, KindSystem: true,
		KindError: false, KindContinuation: false,
	} {
		if kind.SentToModel() != want {
			t.Errorf("%s.SentToModel() = %v; want %v", kind, !want, want)
		}
	}
}

func TestValidJSONObject(t *testing.T) {
	for s, want := range map[string]bool{
		`{}`: true, `{"a":1}`: true, ` {"a":[1,2]} `: true,
		``: false, `null`: false, `[]`: false, `"x"`: false, `1`: false, `{`: false, `{"a":1}x`: false,
	} {
		if got := ValidJSONObject(s); got != want {
			t.Errorf("ValidJSONObject(%q) = %v; want %v", s, got, want)
		}
	}
}

// FuzzValidJSONObjectDecodes: ValidJSONObject answers as decoding into a map does (a JSON
// object, not null), the definition it stands in for without building the map. The seeds
// run as a test; `go test -fuzz FuzzValidJSONObjectDecodes ./domain` looks further.
func FuzzValidJSONObjectDecodes(f *testing.F) {
	for _, s := range []string{``, ` `, `{}`, ` {} `, "\t\n\r{\"a\":1}\n", `{"a":1}`, `{"a":{"b":[1,2,null]}}`,
		`null`, ` null`, `[]`, `[{}]`, `"{}"`, `1`, `true`, `{`, `}`, `{"a":1}x`, `{"a":1}{}`, `{"a":}`,
		`{"a":1,}`, `{'a':1}`, `{"a":"\xff"}`, `{"a":1,"a":2}`, "\v{}", "\u00a0{}", `{"a":1e999}`, `{} null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v map[string]json.RawMessage
		want := json.Unmarshal([]byte(s), &v) == nil && v != nil
		if got := ValidJSONObject(s); got != want {
			t.Errorf("ValidJSONObject(%q) = %v; decoding into a map says %v", s, got, want)
		}
	})
}

func TestNormalizeToolCalls(t *testing.T) {
	tests := []struct {
		name    string
		calls   []ToolCall
		wantIDs []string
	}{
		{"kept", []ToolCall{{ID: "a", Name: "bash"}, {ID: "b", Name: "think"}}, []string{"a", "b"}},
		{"missing ids", []ToolCall{{Name: "bash"}, {Name: "think"}}, []string{"call_9_0", "call_9_1"}},
		{"duplicate id", []ToolCall{{ID: "a", Name: "bash"}, {ID: "a", Name: "think"}}, []string{"a", "call_9_1"}},
		// A generated id must not collide with an id the model chose itself, wherever it is.
		{"generated collides with a later id", []ToolCall{{Name: "bash"}, {ID: "call_9_0", Name: "think"}}, nil},
		{"generated collides with an earlier id", []ToolCall{{ID: "call_9_1", Name: "bash"}, {Name: "think"}}, nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]ToolCall(nil), tt.calls...)
			got := NormalizeToolCalls(9, tt.calls)
			if len(got) != len(tt.calls) {
				t.Fatalf("got %d calls; want %d", len(got), len(tt.calls))
			}
			seen := map[string]bool{}
			for i, c := range got {
				if c.ID == "" || seen[c.ID] {
					t.Fatalf("call %d id %q is empty or repeated in %+v", i, c.ID, got)
				}
				seen[c.ID] = true
				if c.Name == "" {
					t.Fatalf("call %d has no name", i)
				}
				if tt.wantIDs != nil && c.ID != tt.wantIDs[i] {
					t.Fatalf("ids = %+v; want %v", got, tt.wantIDs)
				}
			}
			for i := range in {
				if in[i] != tt.calls[i] {
					t.Fatalf("NormalizeToolCalls mutated its input")
				}
			}
			// Unique ids the model chose are kept.
			for i, c := range tt.calls {
				if c.ID == "" {
					continue
				}
				unique := true
				for j, d := range tt.calls {
					if j < i && d.ID == c.ID {
						unique = false
					}
				}
				if unique && got[i].ID != c.ID {
					t.Fatalf("call %d: the model's id %q was replaced by %q", i, c.ID, got[i].ID)
				}
			}
			if again := NormalizeToolCalls(9, tt.calls); len(again) > 0 && again[0] != got[0] {
				t.Fatalf("NormalizeToolCalls is not deterministic")
			}
		})
	}
	if got := NormalizeToolCalls(1, []ToolCall{{ID: "a"}}); got[0].Name != "(unnamed)" {
		t.Fatalf("unnamed call = %+v", got[0])
	}
}

func TestTitleFrom(t *testing.T) {
	long := strings.Repeat("é", 80)
	for in, want := range map[string]string{
		"  fix   the\tbuild \nmore": "fix the build",
		"":                          "Images",
		long:                        strings.Repeat("é", 59) + "…",
	} {
		if got := TitleFrom(in); got != want {
			t.Errorf("TitleFrom(%q) = %q; want %q", in, got, want)
		}
	}
}
