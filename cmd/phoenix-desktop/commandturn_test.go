package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/providers"
)

// A command from a public collection, run headless on a provider that names Anthropic's
// models its own way (OpenRouter's "anthropic/…"): its 120 KB prompt loads and counts in the
// context meter, its turn runs on the provider's id for the model its front matter names,
// the conversation keeps its own model for the next turn and nothing says the person
// switched models, and the conversation is titled by what was typed (issue 38).
func TestChatCommandFromACollection(t *testing.T) {
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetModels("anthropic/claude-sonnet-4", "anthropic/claude-sonnet-4.5")
	// A key, as a gateway wants one (without, chat runs the offline demo).
	t.Setenv(providers.EnvAPIKey, "sk-or-test-0001")
	data, cwd := t.TempDir(), t.TempDir()
	if err := os.CopyFS(cwd, os.DirFS("../../custom/testdata/collection")); err != nil {
		t.Fatal(err)
	}
	provider := []string{"--base-url", srv.URL(), "--model", "anthropic/claude-sonnet-4.5", "--data-dir", data}
	code, out, errs := cli(t, append(append([]string{"chat"}, provider...), "--cwd", cwd, "/api-scaffold users service")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"Command: /api-scaffold (project .claude/commands (tools))",
		"! /api-scaffold runs on claude-sonnet-4-0 (which this provider calls anthropic/claude-sonnet-4), as it asks; the conversation stays on anthropic/claude-sonnet-4.5.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	var models []string
	for _, r := range srv.Requests() {
		if r.Chat != nil {
			models = append(models, r.Chat.Model)
		}
	}
	if len(models) != 1 || models[0] != "anthropic/claude-sonnet-4" {
		t.Fatalf("the command's turn asked for %v; want [anthropic/claude-sonnet-4]", models)
	}

	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID, Title string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	if list[0].Title != "/api-scaffold users service" {
		t.Errorf("the conversation is titled %q; want the invocation", list[0].Title)
	}
	code, out, _ = cli(t, "show", list[0].ID, "--data-dir", data, "--json")
	var shown struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil {
		t.Fatalf("show: %d %s", code, out)
	}
	if c := shown.Conversation; c.Model != "anthropic/claude-sonnet-4.5" || c.TurnModel != "" {
		t.Errorf("after the command the conversation is on %q (turn model %q); want its own", c.Model, c.TurnModel)
	}
	if used := shown.Conversation.Usage.Total(); used < 30_000 {
		t.Errorf("the context meter counts %d tokens; the 120 KB prompt alone is about 30,000", used)
	}
	for _, m := range shown.Messages {
		if m.Kind == domain.KindSystem {
			t.Errorf("the history tells the agent %q", m.Text)
		}
	}

	// The next turn is the conversation's model's.
	code, out, errs = cli(t, append(append([]string{"chat"}, provider...), "--continue", list[0].ID, "echo: next")...)
	if code != 0 || !strings.Contains(out, "next") {
		t.Fatalf("continue: exit %d\n%s\n%s", code, out, errs)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Chat == nil || last.Chat.Model != "anthropic/claude-sonnet-4.5" {
		t.Fatalf("the next turn asked for %+v; want anthropic/claude-sonnet-4.5", last.Chat)
	}
}
