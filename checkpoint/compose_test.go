package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestComposeTakesFilesFromAnotherSnapshot: Compose gives base with some files as they are
// in another snapshot (one that snapshot does not hold is left out, and a file in a new
// directory comes with it), and leaves the working tree and the next snapshot alone.
func TestComposeTakesFilesFromAnotherSnapshot(t *testing.T) {
	work := t.TempDir()
	ctx := context.Background()
	write(t, filepath.Join(work, "a.txt"), "a1")
	write(t, filepath.Join(work, "gone.txt"), "g")
	r := open(t, work)
	base := snap(t, r)
	write(t, filepath.Join(work, "a.txt"), "a2")
	write(t, filepath.Join(work, ".claude", "commands", "review.md"), "mine")
	write(t, filepath.Join(work, "other.txt"), "o")
	if err := os.Remove(filepath.Join(work, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	later := snap(t, r)

	got, err := r.Compose(ctx, base, []Overlay{{Tree: later, Paths: []string{".claude/commands/review.md", "gone.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.Changes(ctx, base, got)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: ".claude/commands/review.md", Status: Added}, {Path: "gone.txt", Status: Deleted}}
	if len(ch) != len(want) || ch[0] != want[0] || ch[1] != want[1] {
		t.Fatalf("base → composed = %+v, want %+v", ch, want)
	}
	if same, err := r.Compose(ctx, base, nil); err != nil || same != base {
		t.Fatalf("Compose with nothing = %s, %v; want the base %s", same, err, base)
	}
	if read(t, filepath.Join(work, "a.txt")) != "a2" {
		t.Fatal("Compose touched the working tree")
	}
	if now := snap(t, r); now != later {
		t.Fatalf("the snapshot after Compose is %s, want the tree as it is (%s)", now, later)
	}
}

// TestRestoreRefusesATreeThatMoved: a restore snapshots the tree first and restores nothing
// when it is not the tree the restore was planned against.
func TestRestoreRefusesATreeThatMoved(t *testing.T) {
	work := t.TempDir()
	ctx := context.Background()
	write(t, filepath.Join(work, "a.txt"), "a1")
	r := open(t, work)
	s1 := snap(t, r)
	write(t, filepath.Join(work, "a.txt"), "a2")
	s2 := snap(t, r)
	write(t, filepath.Join(work, "a.txt"), "a3")
	if _, err := r.Restore(ctx, s2, s1, []string{"a.txt"}); !errors.Is(err, ErrMoved) {
		t.Fatalf("restore of a moved tree: %v, want ErrMoved", err)
	}
	if read(t, filepath.Join(work, "a.txt")) != "a3" {
		t.Fatal("a refused restore changed a file")
	}
	s3 := snap(t, r)
	if _, err := r.Restore(ctx, s3, s1, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(work, "a.txt")) != "a1" {
		t.Fatal("the restore did not happen")
	}
}
