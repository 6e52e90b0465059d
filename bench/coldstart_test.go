package bench

import (
	"context"
	"crypto/sha256"
	"os"
	"testing"
)

// spinArg makes the test binary a child that spends CPU time and writes its peak RSS, as the
// app does (TestRunMeasuredTellsCPUTimeFromWallTime).
const spinArg = "phoenix-bench-test-spin"

// maybeSpin hashes 256 MiB (some 100 ms of CPU on this kind of machine) and exits.
func maybeSpin() {
	if len(os.Args) < 2 || os.Args[1] != spinArg {
		return
	}
	buf := make([]byte, 1<<20)
	h := sha256.New()
	for range 256 {
		h.Write(buf)
	}
	_ = h.Sum(nil)
	WritePeakRSS()
	os.Exit(0)
}

// TestRunMeasuredTellsCPUTimeFromWallTime: the cold-start rows read the child's own CPU time
// (rusage), not only its wall time, so that a change is judged on a busy machine (issue 39).
// The child spends CPU time; a figure of zero, or more than its wall time on one thread,
// would be no account of it.
func TestRunMeasuredTellsCPUTimeFromWallTime(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := runMeasured(context.Background(), exe, dir, appEnv(dir), spinArg)
	if err != nil {
		t.Fatal(err)
	}
	if r.cpu < 10 {
		t.Errorf("CPU time %.1f ms for a child that hashed 256 MiB, want its user time (tens of ms at least)", r.cpu)
	}
	// One thread hashes; the runtime's others do little: the CPU time cannot be much above
	// the wall time.
	if r.cpu > 1.5*r.wall+5 {
		t.Errorf("CPU time %.1f ms above the wall time %.1f ms of a child that ran one busy thread", r.cpu, r.wall)
	}
	if r.rssMiB <= 0 {
		t.Errorf("peak RSS %.1f MiB", r.rssMiB)
	}
}
