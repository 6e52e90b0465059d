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
