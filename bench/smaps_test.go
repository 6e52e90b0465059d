package bench

import (
	"os"
	"testing"
)

// TestReadSmapsFindsGoHeapAndFiles: this test's own process has a Go heap in its arena range
// and its binary mapped from a file; a reading that put either at zero misclassifies.
func TestReadSmapsFindsGoHeapAndFiles(t *testing.T) {
	keep := make([]byte, 8<<20)
	for i := range keep {
		keep[i] = 1
	}
	s, err := readSmaps(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.goHeap < 8<<10 {
		t.Errorf("Go heap %d KiB with 8 MiB live; want at least 8 MiB: %s", s.goHeap, s)
	}
	if s.files == 0 {
		t.Errorf("no file-backed memory: %s", s)
	}
	_ = keep[len(keep)-1]
}

// TestSmapsRollupSplitsByKind: this process has anonymous pages (its heap) and file pages
// (its binary), and its proportional share is never above what it holds resident.
func TestSmapsRollupSplitsByKind(t *testing.T) {
	r, err := smapsRollup(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r.pssAnon == 0 || r.pssFile == 0 || r.pss > r.rss || r.pssAnon+r.pssFile > r.pss+1 {
		t.Errorf("rollup %+v: want anonymous and file pages, Pss ≤ Rss, and the kinds summing to Pss", r)
	}
}

// TestSpreadOf: least, median (the mean of the middle two for an even count) and most,
// whatever the order the readings came in.
func TestSpreadOf(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{3, 1, 2}, "1.0–2.0–3.0 MiB"},
		{[]float64{4, 1, 3, 2}, "1.0–2.5–4.0 MiB"},
		{nil, "(none)"},
	} {
		if got := spreadOf(c.in); got != c.want {
			t.Errorf("spreadOf(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
