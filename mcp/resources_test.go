package mcp

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 26: the person attaches a server's resource from the composer ("@SERVER:URI"): the
// ready servers' resources are listed, one is read as text, and the references in a message
// are found whole (trailing punctuation left out).
func TestResourcesListedAndReadForTheComposer(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	readyTools(set, ctx, env)
	list, err := set.Resources(ctx)
	if err != nil || len(list) != 1 || list[0].Ref() != "@go:test://notes" || list[0].Label() != "notes" {
		t.Fatalf("resources %+v %v", list, err)
	}
	got, err := set.ReadResource(ctx, "go", "test://notes")
	if err != nil || got.Text != "the resource's text" {
		t.Fatalf("read %+v %v", got, err)
	}
	if _, err := set.ReadResource(ctx, "nope", "test://notes"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("an unknown server: %v", err)
	}
	if !set.Has("go") || set.Has("nope") {
		t.Error("Has does not know the configured servers")
	}

	refs := Refs("see @go:test://notes, and @go:test://notes again; mail me@example.org or @x")
	if want := []Resource{{Server: "go", URI: "test://notes"}}; !reflect.DeepEqual(refs, want) {
		t.Errorf("Refs = %+v, want %+v", refs, want)
	}
}

func TestPromptArgsInOrderTheLastTakesTheRest(t *testing.T) {
	p := Prompt{Arguments: []PromptArgument{{Name: "lang"}, {Name: "topic"}}}
	got := PromptArgs(p, "  go   error handling in depth ")
	if want := map[string]string{"lang": "go", "topic": "error handling in depth"}; !reflect.DeepEqual(got, want) {
		t.Errorf("PromptArgs = %v, want %v", got, want)
	}
	if got := PromptArgs(p, ""); len(got) != 0 {
		t.Errorf("no words: %v", got)
	}
}
