package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestInitGCComesBeforeTheHeavyInits: package initgc, which holds the collector off while the
// packages initialise, is initialised before those that allocate the most as they do (Fyne's
// translations, prometheus, goldmark's extensions). Go's order (at each step, the first
// package by import path whose imports are all initialised) is read from the runtime's own
// trace of this test binary, which links the app's packages: an import added to initgc could
// move it after them, and a collection would run in every start again (issue 39).
func TestInitGCComesBeforeTheHeavyInits(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test binary with GODEBUG=inittrace=1: %v\n%s", err, out)
	}
	var order []string // the packages with initialisation work, in the order they ran
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := func(p string) int {
		i := slices.Index(order, p)
		if i < 0 {
			t.Fatalf("no initialisation of %s in the trace; update this test:\n%s", p, out)
		}
		return i
	}
	initgc := at("github.com/phoenix-desktop/phoenix/initgc")
	for _, heavy := range []string{"fyne.io/fyne/v2/lang", "github.com/prometheus/client_golang/prometheus", "github.com/yuin/goldmark/extension"} {
		if h := at(heavy); h < initgc {
			t.Errorf("%s is initialised before initgc (%d, %d of %d), with the collector on", heavy, h, initgc, len(order))
		}
	}
}
