package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// lazyInitPackages are packages whose initialisation once built, in every start of the app
// (--version and a headless chat too), what only some commands use; each now builds it on
// first use (issue 39): goldmark's patterns and case-folding map (third_party/goldmark), the
// tool descriptions (domain.descriptions). What each may still allocate in its
// initialisation: the most any of them needs now (goldmark's renderer, untouched, 17 KB), with
// room, and far below what the old builds took (domain 125 KB, goldmark's extension 264 KB).
var lazyInitPackages = []string{
	"github.com/phoenix-desktop/phoenix/domain",
	"github.com/yuin/goldmark",
	"github.com/yuin/goldmark/extension",
	"github.com/yuin/goldmark/parser",
	"github.com/yuin/goldmark/util",
}

const lazyInitMaxBytes = 32 << 10

// TestPackageInitialisationBuildsWhatItCanLater_Issue39 reads the runtime's own account of
// package initialisation (GODEBUG=inittrace=1: each package's allocations, a count, not a
// time) in a start of this test binary, which links the app's packages.
func TestPackageInitialisationBuildsWhatItCanLater_Issue39(t *testing.T) {
	stderr := initTrace(t)
	seen := map[string]int64{}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		// init PKG @0.5 ms, 0.1 ms clock, 1024 bytes, 12 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.ParseInt(f[7], 10, 64)
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		seen[f[1]] = n
	}
	for _, p := range lazyInitPackages {
		n, ok := seen[p]
		if !ok {
			t.Errorf("inittrace has no line for %s: the package is no longer linked, or has no initialisation left (then drop it from the list)", p)
			continue
		}
		if n > lazyInitMaxBytes {
			t.Errorf("%s allocates %d bytes in its package initialisation, more than %d: something it builds there can be built on first use", p, n, lazyInitMaxBytes)
		}
	}
}

// initTrace is the runtime's account of package initialisation (GODEBUG=inittrace=1: one line
// per package, in the order they ran, with its allocations) in a start of this test binary,
// which links the app's packages and runs none of its tests.
func initTrace(t *testing.T) *bytes.Buffer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the test binary with GODEBUG=inittrace=1: %v\n%s", err, stderr.String())
	}
	return &stderr
}
