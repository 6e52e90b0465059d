package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// TestOpenConversationsAreStored: the row opens a conversation of 400 turns and 10,000
// messages (each turn a question and twelve tool calls answered) and one of 20.
func TestOpenConversationsAreStored(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := writeOpenConversations(dir); err != nil {
		t.Fatal(err)
	}
	store, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for id, want := range map[string]int{openLongConvID: 10000, openShortConvID: 20} {
		_, msgs, err := store.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		users := 0
		for _, m := range msgs {
			if m.Kind == domain.KindUser {
				users++
			}
		}
		if len(msgs) != want {
			t.Errorf("%s: %d messages, want %d", id, len(msgs), want)
		}
		if id == openLongConvID && users != 400 {
			t.Errorf("%s: %d turns, want 400", id, users)
		}
	}
}

// TestDamageWatcherHearsFrames: on a real Xvfb, the bare window's map is heard, then the
// frames it draws.
func TestDamageWatcherHearsFrames(t *testing.T) {
	xvfb, err := findXvfb("draw the window")
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	display, stop, err := startXvfb(ctx, xvfb)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	w, err := watchDamage(display)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, BareWindowArg)
	cmd.Env = append(appEnv(t.TempDir()), "DISPLAY="+display)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	mapped, err := w.nextWindow(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Whether the bare entry's cursor blinks (frames that never end) depends on whether the
	// window got the focus, which a display without a window manager may not give; either
	// way its first frame is heard.
	last, frames, err := w.settle(openSettle, 3*time.Second)
	if frames < 1 || last.Before(mapped) {
		t.Errorf("%d frames, the last %s after the map (%v)", frames, last.Sub(mapped), err)
	}
}

// TestOpenLongRows: the row's times are heard on a real Xvfb and the difference row is the
// long conversation's time less the short one's. BENCH_OPEN_LONG_FULL=1 takes the full
// samples and logs the rows, for a before/after measurement.
func TestOpenLongRows(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("needs Xvfb")
	}
	quick := os.Getenv("BENCH_OPEN_LONG_FULL") == ""
	rows, err := openLongRows(context.Background(), Options{Quick: quick, App: appBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Samples == 0 {
			t.Errorf("%s: no samples", r.Name)
		}
		t.Logf("%s: median %.1f, p90 %.1f (target %v, met %v)", r.Name, r.Median, r.P90, r.Target, r.Met)
	}
	if rows[0].Median <= 0 || rows[1].Median <= 0 {
		t.Errorf("implausible times: %+v %+v", rows[0], rows[1])
	}
}
