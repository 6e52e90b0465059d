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

// checkpointSnapshot times the snapshot taken before a tool call that can change files: a
// 5,000-file tree, one file changed since the previous snapshot. The first snapshot copies
// the whole tree and is reported in the note, with the disk the shadow repository takes, the
// largest git process and the CPU time per snapshot (which, unlike the wall time, does not
// grow when other programs load the machine).
func checkpointSnapshot(ctx context.Context, o Options) ([]Row, error) {
	samples, measured, err := checkpointSamples(ctx, o)
	if err != nil {
		return nil, err
	}
	row := summarise(checkpointRowName, "ms", 50, samples)
	row.Note = "the snapshot taken before a patch, bash or MCP call in Unrestricted mode, after the conversation's first; " + measured
	return []Row{row}, nil
}

func checkpointSamples(ctx context.Context, o Options) ([]float64, string, error) {
	if err := checkpoint.Available(); err != nil {
		return nil, "", err
	}
	root, err := os.MkdirTemp("", "phoenix-bench-checkpoint-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(root)
	work := filepath.Join(root, "work")
	changed, err := checkpoint.WriteSampleTree(work, checkpointFiles)
	if err != nil {
		return nil, "", fmt.Errorf("write the sample tree: %w", err)
	}
	repo, err := checkpoint.Open(ctx, filepath.Join(root, "shadow.git"), work)
	if err != nil {
		return nil, "", err
	}
	start := time.Now()
	if _, err := repo.Snapshot(ctx); err != nil {
		return nil, "", err
	}
	first := time.Since(start)
	repo.MeasureMemory(true)
	if _, err := repo.Snapshot(ctx); err != nil {
		return nil, "", err
	}
	repo.MeasureMemory(false)
	cpuBefore := childCPU()
	n := samplesOf(o, 30, 3)
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		f, err := os.OpenFile(changed, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, "", err
		}
		_, _ = fmt.Fprintf(f, "// change %d\n", i)
		_ = f.Close()
		start := time.Now()
		if _, err := repo.Snapshot(ctx); err != nil {
			return nil, "", err
		}
		out = append(out, ms(time.Since(start)))
	}
	cpu := (childCPU() - cpuBefore) / time.Duration(n)
	shadow, _ := checkpoint.DirSize(repo.GitDir())
	tree, _ := checkpoint.DirSize(work)
	note := fmt.Sprintf("shadow git repository (git add -A && git write-tree); first snapshot %.0f ms; CPU %.1f ms per snapshot; disk %.1f MiB for a %.1f MiB tree; git peak RSS %.1f MiB (a snapshot after the first)",
		ms(first), ms(cpu), float64(shadow)/(1<<20), float64(tree)/(1<<20), float64(repo.PeakRSSKiB())/1024)
	return out, note, nil
}

// childCPU is the user and system time of the waited-for child processes so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
