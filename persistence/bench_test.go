package persistence

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Benchmarks for the numbers a person feels (issue 3): cold start (open + list) with a large
// store, opening a long conversation, and the latency a commit adds to every transition.
// Targets: open+list ≤ 100 ms for 1,000 × 100 messages, load ≤ 50 ms for 10,000 messages,
// commit p50 ≤ 0.5 ms with the durability chosen (SyncWrites off, see Options).

// benchDirs holds the roots of the stores the benchmarks build once per process (b.TempDir
// would rebuild them for every b.N round); TestMain removes them with cleanupBench.
var (
	benchMu   sync.Mutex
	benchDirs = map[string]string{}
)

func cleanupBench() {
	benchMu.Lock()
	defer benchMu.Unlock()
	for _, d := range benchDirs {
		_ = os.RemoveAll(d)
	}
}

// benchDir builds a store once with fill and returns its directory.
func benchDir(b *testing.B, name string, fill func(s *Store) error) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if root, ok := benchDirs[name]; ok {
		return filepath.Join(root, "data")
	}
	root, err := os.MkdirTemp("", "phoenix-bench-")
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "data")
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := fill(s); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	benchDirs[name] = root
	return dir
}

// turnMessages drives a conversation through n messages of a typical coding session: a user
// request, a reply with two tool calls, their results (about 1.5 KB each), and a final reply.
func turnMessages(tb testing.TB, n int) (domain.Conversation, []domain.Message) {
	tb.Helper()
	c, err := domain.NewConversation(domain.NewConversationParams{ID: "template", Cwd: "/home/me/src/project", Model: "gpt-4o", LandlockAvailable: true})
	if err != nil {
		tb.Fatal(err)
	}
	var msgs []domain.Message
	apply := func(ev domain.Event) {
		next, effects, err := domain.Transition(c, ev)
		if err != nil {
			tb.Fatal(err)
		}
		c = next
		msgs = append(msgs, persisted(effects)...)
	}
	output := strings.Repeat("drwxr-xr-x  2 me me 4096 Jan  2 03:04 some-directory-name\n", 25)
	for turn := 0; len(msgs) < n; turn++ {
		if !domain.Busy(c.State) {
			apply(domain.UserMessage{Text: fmt.Sprintf("Please look at the failing test in package %d and fix the off-by-one error; run the tests afterwards.", turn)})
			continue
		}
		cur, _ := domain.CurrentExec(c.State)
		switch c.State.(type) {
		case domain.LLMRequesting:
			if _, ok := lastOf(msgs).(toolResultMsg); ok {
				apply(domain.LLMResponse{Exec: cur, Text: strings.Repeat("The tests pass now. I changed the loop bound and added a regression test. ", 5),
					Usage: domain.Usage{InputTokens: 20_000, OutputTokens: 300}})
			} else {
				apply(domain.LLMResponse{Exec: cur, Text: "Let me look at the package first.",
					ToolCalls: []domain.ToolCall{
						call(fmt.Sprintf("call_%d_a", turn), domain.ToolBash, `{"command":"ls -la && go test ./... 2>&1 | tail -50"}`),
						call(fmt.Sprintf("call_%d_b", turn), domain.ToolBash, `{"command":"grep -rn 'for i := 0; i <= n' --include=*.go ."}`),
					}, Usage: domain.Usage{InputTokens: 18_000, OutputTokens: 120}})
			}
		case domain.ToolExecuting:
			apply(domain.ToolComplete{Exec: cur, Result: domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: output,
				Display: &domain.ToolDisplay{Summary: "exit 0, 25 lines"}}})
		}
	}
	return c, msgs[:n]
}

type toolResultMsg struct{}

func lastOf(msgs []domain.Message) any {
	if len(msgs) > 0 && msgs[len(msgs)-1].Kind == domain.KindToolResult {
		return toolResultMsg{}
	}
	return nil
}

// fillConversations stores count conversations of perConv messages each, one commit per
// conversation.
func fillConversations(s *Store, tb testing.TB, count, perConv int) error {
	template, msgs := turnMessages(tb, perConv)
	template.NextSeq = uint64(perConv)
	template.State = domain.Idle{}
	for i := range count {
		c, err := domain.NewConversation(domain.NewConversationParams{ID: fmt.Sprintf("conv-%05d", i), Title: fmt.Sprintf("Conversation %d", i),
			Cwd: template.Cwd, Model: template.Model, LandlockAvailable: true})
		if err != nil {
			return err
		}
		if c, err = s.Create(c); err != nil {
			return err
		}
		next := template
		next.ID, next.Title, next.CreatedAt = c.ID, c.Title, c.CreatedAt
		if _, _, err := s.Commit(next, slices.Clone(msgs)); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkOpenList is the cold start of the sidebar: open the store with 1,000
// conversations of 100 messages, recover, and list (target ≤ 100 ms for open + list).
func BenchmarkOpenList(b *testing.B) {
	dir := benchDir(b, "1000x100", func(s *Store) error { return fillConversations(s, b, 1000, 100) })
	b.Run("open+list", func(b *testing.B) { benchOpen(b, dir, false) })
	b.Run("open+recover+list", func(b *testing.B) { benchOpen(b, dir, true) })
}

func benchOpen(b *testing.B, dir string, recover bool) {
	for b.Loop() {
		s, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if recover {
			if _, err := s.Recover(); err != nil {
				b.Fatal(err)
			}
		}
		list, err := s.List(false)
		if err != nil || len(list) != 1000 {
			b.Fatalf("listed %d, %v", len(list), err)
		}
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkLoad opens a 10,000-message conversation from disk (target ≤ 50 ms).
func BenchmarkLoad(b *testing.B) {
	dir := benchDir(b, "10k", func(s *Store) error {
		c, msgs := turnMessages(b, 10_000)
		c.NextSeq, c.State, c.ID = 10_000, domain.Idle{}, "long"
		created, err := s.Create(domain.Conversation{ID: "long", Cwd: c.Cwd, Model: c.Model, State: domain.Idle{}})
		if err != nil {
			return err
		}
		c.CreatedAt = created.CreatedAt
		// Commit in turns, as the conversation grew: 100 messages fit in one commit of the
		// store's 2 MiB memtables (500 did with 4 MiB ones).
		for from := 0; from < len(msgs); from += 100 {
			part := msgs[from:min(from+100, len(msgs))]
			step := c
			step.NextSeq = uint64(from + len(part))
			if _, _, err := s.Commit(step, slices.Clone(part)); err != nil {
				return err
			}
		}
		return nil
	})
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		_, msgs, err := s.Load("long")
		if err != nil || len(msgs) != 10_000 {
			b.Fatalf("loaded %d, %v", len(msgs), err)
		}
	}
}

// BenchmarkCommit measures the latency Commit adds to a transition, one message per commit
// as most transitions produce, with SyncWrites off and on; the figures decide
// Options.SyncWrites. "agent" commits what the agent's own work produces (replies, tool
// results); "user" commits user messages, which are flushed to disk even with SyncWrites off;
// "typical" mixes them as a session does (a sixth are user messages).
func BenchmarkCommit(b *testing.B) {
	kinds := []struct {
		name string
		keep func(domain.Message) bool
	}{
		{"agent", func(m domain.Message) bool { return m.Kind != domain.KindUser }},
		{"user", func(m domain.Message) bool { return m.Kind == domain.KindUser }},
		{"typical", func(domain.Message) bool { return true }},
	}
	for _, kind := range kinds {
		for _, sync := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sync=%t", kind.name, sync), func(b *testing.B) {
				benchCommit(b, sync, kind.keep)
			})
		}
	}
}

func benchCommit(b *testing.B, sync bool, keep func(domain.Message) bool) {
	s, err := Open(filepath.Join(b.TempDir(), "data"), Options{SyncWrites: sync})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	template, msgs := turnMessages(b, 600)
	msgs = slices.DeleteFunc(msgs, func(m domain.Message) bool { return !keep(m) })
	c, err := s.Create(domain.Conversation{ID: "c", Cwd: template.Cwd, Model: template.Model, State: domain.Idle{}})
	if err != nil {
		b.Fatal(err)
	}
	conv := template
	conv.ID, conv.CreatedAt = c.ID, c.CreatedAt
	lat := make([]time.Duration, 0, 4096)
	i := 0
	for b.Loop() {
		// One message per commit, as most transitions have; the sequence carries on
		// past the template by renumbering.
		m := msgs[i%len(msgs)]
		m.Seq = uint64(i)
		conv.NextSeq = uint64(i + 1)
		t0 := time.Now()
		if _, _, err := s.Commit(conv, []domain.Message{m}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e6
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
