package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
)

// Issue 26: the older form of a request for input — an elicitation/create request from the
// server in the middle of a call, as servers on revisions before 2026-07-28 send it (here the
// reference server from npm, whose SDK negotiates an older revision) — reaches the set's
// Asker, the same one that answers the 2026-07-28 input_required round trip, and the answer
// arrives at the server: accepted with the person's content, then declined.
func TestOlderElicitationRequestIsAnswered(t *testing.T) {
	bin := npmServer(t, mcptest.Everything)
	ctx := context.Background()
	// Unrestricted: what is tested is the protocol, not the sandbox (TestEverythingServer runs
	// this server Restricted).
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"every": {Command: bin}}, Options{})
	asker := &recordingAsker{}
	set.Ask(asker)
	// The answer is the form as the window sends it: the defaults left, the name typed and
	// the box ticked.
	formAnswer := func(t *testing.T, schema any) ElicitAnswer {
		fields, err := FormFields(schema)
		if err != nil {
			t.Fatalf("the form of the request cannot be shown: %v", err)
		}
		entries := map[string]string{"name": "Ada Lovelace", "check": "true"}
		for _, f := range fields {
			if _, set := entries[f.Name]; !set {
				entries[f.Name] = f.Default
			}
		}
		content, err := FormContent(fields, entries)
		if err != nil {
			t.Fatal(err)
		}
		return ElicitAnswer{Action: ElicitAccept, Content: content}
	}
	specs, notes, _ := readyTools(set, ctx, env)
	const tool = "mcp__every__trigger-elicitation-request"
	if !strings.Contains(strings.Join(specNames(specs), " "), tool) {
		t.Fatalf("the server does not offer %s (it does only to a client that declares elicitation): %v %v", tool, specNames(specs), notes)
	}
	asker.onElicit = func(req Elicitation) ElicitAnswer { return formAnswer(t, req.Schema) }
	out := set.Call(ctx, env, call(tool, `{}`), nil)
	if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "- Name: Ada Lovelace") || !strings.Contains(out.Content, "- Agreed to terms: true") {
		t.Fatalf("accepted: %s %q", out.Outcome, out.Content)
	}
	asker.mu.Lock()
	asked := append([]Elicitation(nil), asker.elicited...)
	asker.mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, "Please provide inputs") || asked[0].Schema == nil {
		t.Fatalf("asked %+v", asked)
	}
	if !strings.Contains(out.Content, "Guitar") || !strings.Contains(out.Content, "fish-1") {
		t.Errorf("the multiple choices' defaults did not arrive: %q", out.Content)
	}
	fields, _ := FormFields(asked[0].Schema)
	kinds := map[string]FieldKind{}
	for _, f := range fields {
		kinds[f.Name] = f.Kind
	}
	if kinds["name"] != FieldString || kinds["untitledMultipleSelectEnum"] != FieldChoices || kinds["titledMultipleSelectEnum"] != FieldChoices {
		t.Fatalf("field kinds %v", kinds)
	}

	asker.onElicit = nil
	asker.answer = ElicitAnswer{Action: ElicitDecline}
	if out := set.Call(ctx, env, call(tool, `{}`), nil); !strings.Contains(strings.ToLower(out.Content), "decline") {
		t.Fatalf("declined: %s %q", out.Outcome, out.Content)
	}
}

// A multi-select field reads its picks one a line, by label or value, within its bounds.
func TestMultipleChoiceField(t *testing.T) {
	fields, err := FormFields(map[string]any{"type": "object", "required": []any{"fish"}, "properties": map[string]any{
		"fish": map[string]any{"type": "array", "minItems": 1, "maxItems": 2, "default": []any{"f1"},
			"items": map[string]any{"anyOf": []any{map[string]any{"const": "f1", "title": "Tuna"}, map[string]any{"const": "f2", "title": "Salmon"}, map[string]any{"const": "f3"}}}},
	}})
	if err != nil || len(fields) != 1 {
		t.Fatalf("%+v %v", fields, err)
	}
	f := fields[0]
	if f.Kind != FieldChoices || f.Default != "f1" || strings.Join(f.Labels, ",") != "Tuna,Salmon,f3" {
		t.Fatalf("%+v", f)
	}
	for _, tc := range []struct {
		text, want string
	}{
		{"Tuna\nf3", "[f1 f3]"},
		{"", "error"},
		{"Tuna\nSalmon\nf3", "error"},
		{"Cod", "error"},
	} {
		v, _, err := f.Value(tc.text)
		got := fmt.Sprint(v)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%q: %s (%v), want %s", tc.text, got, err, tc.want)
		}
	}
}
