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
