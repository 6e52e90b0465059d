package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 27: the person's prices are read by lower-case model name; a bad file is refused
// with what to fix and left untouched; a missing one is no prices.
func TestReadPrices(t *testing.T) {
	dir := t.TempDir()
	if p, err := readPrices(dir); err != nil || p != nil {
		t.Fatalf("missing file: %v %v", p, err)
	}
	path := filepath.Join(dir, pricesFile)
	if err := os.WriteFile(path, []byte(`{"My-Model": {"input": 1, "cached_input": 0.1, "output": 2}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := readPrices(dir)
	if err != nil || p["my-model"] != (domain.Price{Input: 1, CachedInput: 0.1, Output: 2}) {
		t.Fatalf("prices = %v, %v", p, err)
	}
	for _, bad := range []string{`[1,2]`, `{"m": {"input": -1}}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readPrices(dir); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v; want one naming the file", bad, err)
		}
		if b, _ := os.ReadFile(path); string(b) != bad {
			t.Errorf("the bad file was changed to %s", b)
		}
	}
}
