package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// TestExportIsTheSharedDocument stores transcript's sample conversation, images included,
// and checks that `phoenix-desktop export` prints exactly transcript's golden document, the
// one the window's Ctrl+E test compares with too.
func TestExportIsTheSharedDocument(t *testing.T) {
	raw, err := os.ReadFile("../../transcript/testdata/conversation.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
		Images       map[string]string   `json:"images"`
	}
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	store, err := persistence.Open(data, persistence.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for sha, b64 := range sample.Images {
		img, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := store.PutBlob(img); err != nil || got != sha {
			t.Fatalf("store image %s: got %s, %v", sha, got, err)
		}
	}
	conv := sample.Conversation
	next := conv.NextSeq
	conv.NextSeq = 0
	if conv, err = store.Create(conv); err != nil {
		t.Fatal(err)
	}
	conv.NextSeq = next
	if _, _, err := store.Commit(conv, sample.Messages); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, errs := cli(t, "export", conv.ID, "--data-dir", data)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	want, err := os.ReadFile("../../transcript/testdata/export.golden.md")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Fatalf("phoenix-desktop export prints a different document than transcript's golden export:\n%s", out)
	}
}
