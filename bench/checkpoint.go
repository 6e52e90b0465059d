package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
)

// checkpointFiles is the size of the tree the checkpoint row snapshots.
const checkpointFiles = 5000

const checkpointRowName = "checkpoint, 5,000-file tree, one file changed"

const checkpointCleanRowName = "checkpoint, 5,000-file tree, nothing changed"

// checkpointSnapshot times the snapshot taken before a tool call that can change files: a
// 5,000-file tree, one file changed since the previous snapshot. The first snapshot copies
// the whole tree and is reported in the note, with the disk the shadow repository takes, the
// largest git process and the CPU time per snapshot (which, unlike the wall time, does not
// grow when other programs load the machine). The second row is the snapshot of the same tree
// when nothing changed, which the change detector answers without starting git: what a
// read-only bash round pays, twice.
func checkpointSnapshot(ctx context.Context, o Options) ([]Row, error) {
	s, err := checkpointSamples(ctx, o)
	if err != nil {
		return nil, err
	}
	row := summarise(checkpointRowName, "ms", 50, s.changed)
	row.Note = "the snapshot taken before a patch, bash or MCP call in Unrestricted mode, after the conversation's first; " + s.note
	// A git process start alone takes longer than 1 ms; a clean snapshot that ran git fails.
	clean := summarise(checkpointCleanRowName, "ms", 1, s.clean)
	clean.Met = clean.Met && s.cleanGitRuns == 0
	clean.Note = fmt.Sprintf("the snapshots before and after a call that changed no file (true, ls, git status, go test): the change detector (inotify) saw no event, so no git runs (%d git processes in %d snapshots)",
		s.cleanGitRuns, len(s.clean))
	return []Row{row, clean}, nil
}

type checkpointFigures struct {
	changed, clean []float64
	cleanGitRuns   int64
	note           string
}

func checkpointSamples(ctx context.Context, o Options) (checkpointFigures, error) {
	var fig checkpointFigures
	if err := checkpoint.Available(); err != nil {
		return fig, err
	}
	root, err := os.MkdirTemp("", "phoenix-bench-checkpoint-")
	if err != nil {
		return fig, err
	}
	defer os.RemoveAll(root)
	work := filepath.Join(root, "work")
	changed, err := checkpoint.WriteSampleTree(work, checkpointFiles)
	if err != nil {
		return fig, fmt.Errorf("write the sample tree: %w", err)
	}
	repo, err := checkpoint.Open(ctx, filepath.Join(root, "shadow.git"), work)
	if err != nil {
		return fig, err
	}
	defer repo.Close()
	change := func(i int) error {
		f, err := os.OpenFile(changed, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(f, "// change %d\n", i)
		return f.Close()
	}
	start := time.Now()
	if _, err := repo.Snapshot(ctx); err != nil {
		return fig, err
	}
	first := time.Since(start)
	if err := change(-1); err != nil {
		return fig, err
	}
	repo.MeasureMemory(true)
	if _, err := repo.Snapshot(ctx); err != nil {
		return fig, err
	}
	repo.MeasureMemory(false)
	cpuBefore := childCPU()
	n := samplesOf(o, 30, 3)
	fig.changed = make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if err := change(i); err != nil {
			return fig, err
		}
		start := time.Now()
		if _, err := repo.Snapshot(ctx); err != nil {
			return fig, err
		}
		fig.changed = append(fig.changed, ms(time.Since(start)))
	}
	cpu := (childCPU() - cpuBefore) / time.Duration(n)
	runs := repo.GitRuns()
	for i := 0; i < samplesOf(o, 100, 10); i++ {
		start := time.Now()
		if _, err := repo.Snapshot(ctx); err != nil {
			return fig, err
		}
		fig.clean = append(fig.clean, ms(time.Since(start)))
	}
	fig.cleanGitRuns = repo.GitRuns() - runs
	shadow, _ := checkpoint.DirSize(repo.GitDir())
	tree, _ := checkpoint.DirSize(work)
	fig.note = fmt.Sprintf("shadow git repository (git add -A && git write-tree, after the change detector's event); first snapshot %.0f ms; CPU %.1f ms per snapshot; disk %.1f MiB for a %.1f MiB tree; git peak RSS %.1f MiB (a snapshot after the first)",
		ms(first), ms(cpu), float64(shadow)/(1<<20), float64(tree)/(1<<20), float64(repo.PeakRSSKiB())/1024)
	return fig, nil
}

// childCPU is the user and system time of the waited-for child processes so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
