package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/checkpoint"
)

// changedTree is a working tree of 200 files of 100 lines, snapshotted, then every file
// changed in 50 of its lines (20,000 changed lines in all with their removed twins): the
// Changes view's large case. It returns the repository and the two snapshots.
func changedTree(b *testing.B) (*checkpoint.Repo, string, string) {
	if err := checkpoint.Available(); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	work := filepath.Join(dir, "work")
	write := func(changed bool) {
		for f := range 200 {
			var s strings.Builder
			for l := range 100 {
				if changed && l%2 == 0 {
					fmt.Fprintf(&s, "\tvalue%d, err := computeChecked(ctx, %d)\n", l, f)
					continue
				}
				fmt.Fprintf(&s, "\tvalue%d := compute(ctx, %d)\n", l, f)
			}
			p := filepath.Join(work, fmt.Sprintf("d%02d", f/20), fmt.Sprintf("f%03d.go", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	write(false)
	repo, err := checkpoint.Open(ctx, filepath.Join(dir, "shadow.git"), work)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(repo.Close)
	from, err := repo.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	write(true)
	to, err := repo.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return repo, from, to
}

// BenchmarkDiffTrees200Files is git's diff of the large case alone: the baseline of
// BenchmarkChanges200Files.
func BenchmarkDiffTrees200Files(b *testing.B) {
	repo, from, to := changedTree(b)
	b.ResetTimer()
	for range b.N {
		if _, err := repo.DiffTrees(context.Background(), "", from, to); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChanges200Files is what the Changes view waits for: git's diff and its parsing
// into files and numbered hunks (20,000 added and 20,000 removed lines).
func BenchmarkChanges200Files(b *testing.B) {
	repo, from, to := changedTree(b)
	b.ResetTimer()
	for range b.N {
		d, err := repo.DiffTrees(context.Background(), "", from, to)
		if err != nil {
			b.Fatal(err)
		}
		files, err := Parse(d)
		if err != nil || len(files) != 200 {
			b.Fatalf("%d files, %v", len(files), err)
		}
	}
}
