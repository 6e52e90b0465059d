package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPeakRSSReadsVmHWM(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	if err := os.WriteFile(status, []byte("Name:\tx\nVmPeak:\t  900 kB\nVmHWM:\t   43520 kB\nVmRSS:\t 40000 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := peakRSSKiB(status); err != nil || got != 43520 {
		t.Fatalf("peakRSSKiB = %d, %v; want 43520", got, err)
	}
	if err := os.WriteFile(status, []byte("Name:\tx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := peakRSSKiB(status); err == nil || !strings.Contains(err.Error(), "VmHWM") {
		t.Fatalf("a status without VmHWM: %v", err)
	}
}

// WritePeakRSS writes this process's own VmHWM where the variable says, which readPeakRSS
// reads back in MiB; without the variable it writes nothing.
func TestWritePeakRSSRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peak")
	t.Setenv(EnvPeakRSSFile, "")
	WritePeakRSS()
	if _, err := readPeakRSS(path); err == nil || !strings.Contains(err.Error(), "wrote no peak RSS") {
		t.Fatalf("without the variable: %v", err)
	}
	t.Setenv(EnvPeakRSSFile, path)
	WritePeakRSS()
	got, err := readPeakRSS(path)
	if err != nil {
		t.Fatal(err)
	}
	own, err := peakRSSKiB("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if got <= 0 || got > float64(own)/1024 {
		t.Fatalf("wrote %.1f MiB; this process's peak is %.1f MiB", got, float64(own)/1024)
	}
}
