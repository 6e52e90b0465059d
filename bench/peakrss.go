package bench

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvPeakRSSFile names a file into which the app writes its peak resident set (the kernel's
// VmHWM, in KiB) as it exits: how the cold-start rows learn the app's peak. The kernel's
// other accounting cannot tell it: Go starts a child with vfork, and exec then carries the
// parent's peak into the child's (wait4's ru_maxrss is the larger of the two), so every
// child of the bench reported the bench's own 47.5 MiB. The new program's memory map starts
// its own VmHWM at exec, which is what a person's process costs.
const EnvPeakRSSFile = "PHOENIX_BENCH_PEAK_RSS_FILE"

// WritePeakRSS writes this process's peak resident set to the file EnvPeakRSSFile names; main
// calls it last. Without the variable it does nothing; a failure is said on stderr, for the
// row that reads the file then fails with its own message.
func WritePeakRSS() {
	path := os.Getenv(EnvPeakRSSFile)
	if path == "" {
		return
	}
	kib, err := peakRSSKiB("/proc/self/status")
	if err == nil {
		err = os.WriteFile(path, []byte(strconv.FormatInt(kib, 10)+"\n"), 0o600)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "phoenix-desktop: %s: %v\n", EnvPeakRSSFile, err)
	}
}

// peakRSSKiB reads VmHWM from a /proc status file.
func peakRSSKiB(status string) (int64, error) {
	f, err := os.Open(status)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmHWM line in %s", status)
}

// readPeakRSS reads what WritePeakRSS wrote, in MiB.
func readPeakRSS(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("the app wrote no peak RSS into %s (is it older than %s?)", filepath.Base(path), EnvPeakRSSFile)
	}
	if err != nil {
		return 0, err
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the app's peak RSS file holds %q: %w", data, err)
	}
	return float64(kib) / 1024, nil
}
