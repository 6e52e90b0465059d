package bench

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestWindowMapRows: the app's and the bare window's exec → mapped times are heard on a real
// Xvfb, and the difference row is their difference. BENCH_WINDOW_MAP_FULL=1 takes the full
// samples and logs the rows, for a before/after measurement.
func TestWindowMapRows(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("needs Xvfb")
	}
	quick := os.Getenv("BENCH_WINDOW_MAP_FULL") == ""
	rows, err := windowMapRows(context.Background(), Options{Quick: quick, App: appBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows[:2] {
		if r.Samples == 0 || r.Median <= 0 || r.Median > 30000 {
			t.Errorf("%s: implausible %+v", r.Name, r)
		}
		t.Logf("%s: median %.1f ms, p90 %.1f ms", r.Name, r.Median, r.P90)
	}
	t.Logf("%s: median %.1f ms (target %v, met %v)", rows[2].Name, rows[2].Median, rows[2].Target, rows[2].Met)
}

// TestWindowMapStartsBothInTheHomeFolder (issue 36): the app and the bare window start in
// the home folder, as a launcher starts them, not in the bench's working folder, whose
// FyneApp.toml (this source tree's) Fyne reads for a binary under the temporary folder and
// whose icon it then decodes before the map.
func TestWindowMapStartsBothInTheHomeFolder(t *testing.T) {
	home := t.TempDir()
	out, err := launched(context.Background(), "/bin/sh", home, nil, "-c", "pwd").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != home {
		t.Errorf("started in %q; want the home folder %q", got, home)
	}
}
