package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshot5000OneChanged is the bench row's case: after the first snapshot, one
// file of a 5,000-file tree changes before each snapshot.
func BenchmarkSnapshot5000OneChanged(b *testing.B) {
	work := b.TempDir()
	changed, err := WriteSampleTree(work, 5000)
	if err != nil {
		b.Fatal(err)
	}
	r := open(b, work)
	snap(b, r)
	r.MeasureMemory(true)
	snap(b, r)
	r.MeasureMemory(false)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		f, err := os.OpenFile(changed, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = f.WriteString("// more\n")
		_ = f.Close()
		if _, err := r.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	size, _ := DirSize(filepath.Dir(r.GitDir()))
	b.ReportMetric(float64(size)/(1<<20), "shadow-MiB")
	b.ReportMetric(float64(r.PeakRSSKiB())/1024, "git-peak-RSS-MiB")
}

// BenchmarkSnapshot5000Unchanged is the snapshot before and after a command that changed
// nothing (ls, git status, go test): the change detector answers without git.
func BenchmarkSnapshot5000Unchanged(b *testing.B) {
	work := b.TempDir()
	if _, err := WriteSampleTree(work, 5000); err != nil {
		b.Fatal(err)
	}
	r := open(b, work)
	snap(b, r)
	snap(b, r)
	runs := r.GitRuns()
	for b.Loop() {
		snap(b, r)
	}
	b.ReportMetric(float64(r.GitRuns()-runs)/float64(b.N), "git-runs/op")
}

// BenchmarkWatchList5000 is working out the watch list of the 5,000-file tree: what a
// snapshot adds after a directory was created or removed.
func BenchmarkWatchList5000(b *testing.B) {
	work := b.TempDir()
	if _, err := WriteSampleTree(work, 5000); err != nil {
		b.Fatal(err)
	}
	r := open(b, work)
	snap(b, r)
	w := r.currentWatch()
	if w == nil {
		b.Fatal("not watching")
	}
	for b.Loop() {
		if _, _, err := r.watchList(context.Background(), w, DefaultWatchLimit); err != nil {
			b.Fatal(err)
		}
	}
}
