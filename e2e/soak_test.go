package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// soakTurns is the length of the soak conversation. Every request carries the whole
// history, so a turn costs more the longer the conversation, and under the race detector
// several times more again. Measured on the 2-core development VM: 1,000 turns take about
// 30 s without the race detector and 4 min 37 s with it, while 500 take 70 s with it; so the
// race build runs 500 and the plain one the 1,000.
// E2E_SOAK_TURNS overrides it, for a longer run by hand.
func soakTurns() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_SOAK_TURNS")); err == nil && n >= 100 {
		return n
	}
	if raceEnabled {
		return 500
	}
	return 1000
}

// soakSampleEvery is the sampling period of the curve, in turns.
const soakSampleEvery = 50

// soakSample is one point of the curve.
type soakSample struct {
	turn       int
	heapInuse  uint64
	heapAlloc  uint64
	goroutines int
	messages   int
	diskBytes  int64 // apparent size of the data directory
	diskAlloc  int64 // blocks actually allocated on disk
	elapsed    time.Duration
}

// TestSoak runs one long conversation through the runtime — a tool call and a streamed
// reply every turn, bash every tenth turn — and samples memory and goroutines every 50
// turns. Heap in use after GC must not keep growing (at the end at most twice what it was at
// turn 100, while the history grows tenfold) and goroutines must come back to where they
// started (at most 10 more); the curve and the store's size are logged for the issue note.
//
// The fake server keeps a copy of every request it receives, which would grow with the
// history and hide the app's own curve; so the runtime is handed a fresh server (through
// Runtime.SetLLM, as a settings change does) at every sample, and the old one is closed.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs without -short")
	}
	turns := soakTurns()
	r := mustRig(t, rigOptions{})
	// A window far larger than the demo model's keeps the growing history from triggering
	// the continuation flow: this test is about a long conversation, not a full one.
	conv, err := r.create(actors.NewConversation{Unrestricted: true, ContextWindow: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	sample := func(turn int, start time.Time) soakSample {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		app, alloc := dirSize(t, r.dir)
		_, msgs, err := r.store.Load(conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		return soakSample{turn: turn, heapInuse: ms.HeapInuse, heapAlloc: ms.HeapAlloc,
			goroutines: runtime.NumGoroutine(), messages: len(msgs), diskBytes: app, diskAlloc: alloc,
			elapsed: time.Since(start)}
	}
	start := time.Now()
	// The first turn opens the HTTP connection and the conversation actor; the baseline
	// is taken after it, so that it counts what every turn needs.
	r.mustTurn(conv.ID, "echo: warm up")
	r.swapServer()
	curve := []soakSample{sample(1, start)}
	for turn := 2; turn <= turns; turn++ {
		step := fmt.Sprintf("think: step %d of the soak", turn)
		if turn%10 == 0 {
			step = "bash: true"
		}
		end := r.mustTurn(conv.ID, fmt.Sprintf("%s\necho: turn %d is done; these words arrive one by one", step, turn))
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("turn %d ended %+v", turn, end.State)
		}
		if turn%soakSampleEvery == 0 {
			r.swapServer()
			curve = append(curve, sample(turn, start))
		}
	}
	// Goroutines that end asynchronously (the closed server's connections, a finished
	// command's pipes) are given a moment before the final count.
	settle := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > curve[0].goroutines+10 && time.Now().Before(settle) {
		time.Sleep(20 * time.Millisecond)
	}
	final := sample(turns, start)
	if final.turn != curve[len(curve)-1].turn {
		curve = append(curve, final)
	} else {
		curve[len(curve)-1] = final
	}
	msgs := r.mustHistory(conv.ID)
	payload := 0
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		payload += len(b)
	}
	if want := 2 + 4*(turns-1); len(msgs) != want {
		t.Fatalf("the conversation holds %d messages, want %d (2 for the first turn, then 4 a turn)", len(msgs), want)
	}
	if last, _ := lastOf(msgs, domain.KindAssistant); !strings.Contains(last.Text, fmt.Sprintf("turn %d is done", turns)) {
		t.Fatalf("last reply %q", last.Text)
	}

	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "turn\tmessages\theap in use (MiB)\theap alloc (MiB)\tgoroutines\tstore (MiB)\tstore on disk (MiB)\telapsed\t")
	for _, s := range curve {
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%d\t%.1f\t%.1f\t%s\t\n", s.turn, s.messages, mib(s.heapInuse), mib(s.heapAlloc),
			s.goroutines, mib(uint64(s.diskBytes)), mib(uint64(s.diskAlloc)), s.elapsed.Round(100*time.Millisecond))
	}
	_ = tw.Flush()
	last := curve[len(curve)-1]
	t.Logf("soak: %d turns in %s (race detector: %v); the messages are %.1f MiB of JSON, the store takes %.1f MiB on disk "+
		"(its apparent size counts Badger's sparse, preallocated value log)\n%s",
		turns, time.Since(start).Round(time.Second), raceEnabled, mib(uint64(payload)), mib(uint64(last.diskAlloc)), b.String())

	first := curve[0]
	if last.goroutines > first.goroutines+10 {
		t.Errorf("goroutines grew from %d to %d", first.goroutines, last.goroutines)
	}
	var at100 soakSample
	for _, s := range curve {
		if s.turn == 100 {
			at100 = s
		}
	}
	if last.heapInuse > 2*at100.heapInuse {
		t.Errorf("heap in use grew from %.1f MiB at turn 100 to %.1f MiB at turn %d", mib(at100.heapInuse), mib(last.heapInuse), last.turn)
	}
	if last.heapAlloc > 2*at100.heapAlloc {
		t.Errorf("live heap grew from %.1f MiB at turn 100 to %.1f MiB at turn %d", mib(at100.heapAlloc), mib(last.heapAlloc), last.turn)
	}
	// Compact: a small multiple of what it holds, beside the space the store holds on
	// purpose for a full disk. Rewriting the history on every commit, say, would take
	// gigabytes here.
	if limit := int64(10*payload + 32<<20 + persistence.Preallocated); last.diskAlloc > limit {
		t.Errorf("the store takes %.1f MiB on disk for %.1f MiB of messages", mib(uint64(last.diskAlloc)), mib(uint64(payload)))
	}
}

// swapServer hands the runtime a new fake server and closes the old one, dropping the
// request log the old one kept. It is called between turns, with nothing in flight.
func (r *rig) swapServer() {
	r.t.Helper()
	srv, err := fakellm.Start()
	if err != nil {
		r.t.Fatal(err)
	}
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "test", Model: domain.DemoModel,
		IdleTimeout: 10 * time.Second}, r.store)
	if err != nil {
		srv.Close()
		r.t.Fatal(err)
	}
	r.rt.SetLLM(client)
	old := r.srv
	r.srv = srv
	old.Close()
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// dirSize returns the apparent size of the files under dir and the space they take on disk
// (Badger preallocates and memory-maps sparse files, so the two differ).
func dirSize(t testing.TB, dir string) (apparent, allocated int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		apparent += info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			allocated += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatalf("size of %s: %v", dir, err)
	}
	return apparent, allocated
}
