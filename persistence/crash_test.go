package persistence

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The crash test (REQ-BED-007): a child process commits transitions in a loop and reports
// each commit on stdout only after Commit has returned; the parent SIGKILLs it at a random
// moment, reopens the store, and checks that everything acknowledged is there, intact, with
// gap-free sequences and states that refer only to stored messages. Then it recovers, and the
// next child carries on from there, so crashes accumulate in one directory as they would on a
// person's machine.

// crashChildConversations is how many conversations the child interleaves.
const crashChildConversations = 3

// crashChildLimit stops a child that the parent failed to kill.
const crashChildLimit = 30 * time.Second

// digest identifies a stored message exactly, commit time included.
func digest(m domain.Message) uint32 {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a domain.Message always encodes
	}
	return crc32.ChecksumIEEE(b)
}

// runCrashChild is the child's main. Protocol, one line per write:
//
//	ready
//	ack <id> <next-seq> <seq>:<crc32>,...   after a commit returned
//	gone <id>                               after a Delete returned
func runCrashChild(dir string, out io.Writer) error {
	s, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Recover(); err != nil {
		return err
	}
	convs := make([]domain.Conversation, crashChildConversations)
	for i := range convs {
		id := fmt.Sprintf("c%d", i)
		c, err := s.Get(id)
		if errors.Is(err, ErrNotFound) {
			c, err = domain.NewConversation(domain.NewConversationParams{ID: id, Cwd: "/w", Model: "gpt-4o"})
			if err == nil {
				c, err = s.Create(c)
			}
		}
		if err != nil {
			return err
		}
		convs[i] = c
	}
	if _, err := io.WriteString(out, "ready\n"); err != nil {
		return err
	}
	deadline := time.Now().Add(crashChildLimit)
	for n := 0; time.Now().Before(deadline); n++ {
		if n%97 == 96 {
			if err := churn(s, n, out); err != nil {
				return err
			}
		}
		i := n % len(convs)
		c := convs[i]
		ev, err := crashEvent(s, c, n)
		if err != nil {
			return err
		}
		next, effects, err := domain.Transition(c, ev)
		if err != nil {
			return fmt.Errorf("transition %T in %s: %w", ev, c.State.Kind(), err)
		}
		next, msgs, err := s.Commit(next, persisted(effects))
		if err != nil {
			return err
		}
		convs[i] = next
		var b strings.Builder
		fmt.Fprintf(&b, "ack %s %d ", next.ID, next.NextSeq)
		for j, m := range msgs {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d:%d", m.Seq, digest(m))
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(out, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// crashEvent is what the actors would deliver next: a conversation goes round user message,
// reply with tool calls, tool results, final reply.
func crashEvent(s *Store, c domain.Conversation, n int) (domain.Event, error) {
	cur, _ := domain.CurrentExec(c.State)
	switch c.State.(type) {
	case domain.LLMRequesting:
		var calls []domain.ToolCall
		for k := range n % 3 {
			calls = append(calls, bash(fmt.Sprintf("call-%d-%d", n, k)))
		}
		return domain.LLMResponse{Exec: cur, Text: fmt.Sprintf("reply %d", n), ToolCalls: calls,
			Usage: domain.Usage{InputTokens: 1000 + n, OutputTokens: 50}}, nil
	case domain.ToolExecuting:
		return domain.ToolComplete{Exec: cur, Result: okResult(strings.Repeat(fmt.Sprintf("line %d\n", n), 20))}, nil
	case domain.Idle, domain.Error:
		ev := domain.UserMessage{Text: fmt.Sprintf("message %d", n)}
		if n%5 == 0 {
			data := fmt.Appendf(nil, "image bytes %d", n%4)
			sha, err := s.PutBlob(data)
			if err != nil {
				return nil, err
			}
			ev.Images = []domain.ImageRef{{SHA256: sha, MediaType: "image/png", Size: len(data)}}
		}
		return ev, nil
	}
	return domain.UserCancel{}, nil
}

// churn creates a conversation with a sub-agent and history and deletes it, so that crashes
// also land inside Delete.
func churn(s *Store, n int, out io.Writer) error {
	id := fmt.Sprintf("tmp%d-%d", os.Getpid(), n)
	c, err := domain.NewConversation(domain.NewConversationParams{ID: id, Cwd: "/w", Model: "gpt-4o"})
	if err != nil {
		return err
	}
	if c, err = s.Create(c); err != nil {
		return err
	}
	for k := range 20 {
		next, effects, err := domain.Transition(c, domain.UserMessage{Text: fmt.Sprintf("tmp %d", k)})
		if err != nil {
			return err
		}
		if c, _, err = s.Commit(next, persisted(effects)); err != nil {
			return err
		}
		if c, effects, err = domain.Transition(c, domain.UserCancel{}); err != nil {
			return err
		}
		if c, _, err = s.Commit(c, persisted(effects)); err != nil {
			return err
		}
	}
	kid, err := domain.NewConversation(domain.NewConversationParams{ID: id + "-sub-1-1", Cwd: "/w", Model: "gpt-4o", ParentID: id, Task: "t"})
	if err != nil {
		return err
	}
	if _, err := s.Create(kid); err != nil {
		return err
	}
	if err := s.Delete(id); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "gone %s\n", id)
	return err
}

// ackLog is what the children acknowledged.
type ackLog struct {
	next    map[string]uint64            // conversation -> highest acknowledged NextSeq
	digests map[string]map[uint64]uint32 // conversation -> seq -> digest
	gone    []string
	acks    int
}

func (a *ackLog) parse(line string) error {
	f := strings.Fields(line)
	switch {
	case len(f) == 1 && f[0] == "ready":
	case len(f) == 2 && f[0] == "gone":
		a.gone = append(a.gone, f[1])
	case len(f) >= 3 && f[0] == "ack":
		next, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			return err
		}
		id := f[1]
		a.next[id] = max(a.next[id], next)
		if a.digests[id] == nil {
			a.digests[id] = map[uint64]uint32{}
		}
		if len(f) == 4 {
			for _, pair := range strings.Split(f[3], ",") {
				seqS, crcS, ok := strings.Cut(pair, ":")
				seq, err1 := strconv.ParseUint(seqS, 10, 64)
				crc, err2 := strconv.ParseUint(crcS, 10, 32)
				if !ok || err1 != nil || err2 != nil {
					return fmt.Errorf("bad pair %q", pair)
				}
				a.digests[id][seq] = uint32(crc)
			}
		}
		a.acks++
	default:
		return fmt.Errorf("unexpected line %q", line)
	}
	return nil
}

func TestCrashDurability_REQ_BED_007(t *testing.T) {
	reps := 50
	if testing.Short() {
		reps = 10
	}
	// A soak run: PHOENIX_CRASH_REPS=1000 go test -run TestCrash ./persistence/
	if n, err := strconv.Atoi(os.Getenv("PHOENIX_CRASH_REPS")); err == nil && n > 0 {
		reps = n
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PHOENIX_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set PHOENIX_CRASH_SEED to repeat)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	dir := t.TempDir()
	acks := &ackLog{next: map[string]uint64{}, digests: map[string]map[uint64]uint32{}}
	duringOpen := 0
	for rep := range reps {
		killedEarly := runAndKill(t, dir, rng, acks)
		if killedEarly {
			duringOpen++
		}
		verifyAfterCrash(t, dir, acks, rep)
		if t.Failed() {
			t.Fatalf("repetition %d failed (seed %d)", rep, seed)
		}
	}
	t.Logf("%d crashes (%d before the child was ready), %d acknowledged commits, %d deletions, all intact",
		reps, duringOpen, acks.acks, len(acks.gone))
	if acks.acks == 0 {
		t.Fatal("no commit was ever acknowledged: the test tested nothing")
	}
}

// runAndKill starts a child and SIGKILLs it at a random moment: usually while it commits,
// sometimes while it is still opening and recovering. It reports whether the kill came
// before the child was ready.
func runAndKill(t *testing.T, dir string, rng *rand.Rand, acks *ackLog) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	early := rng.IntN(5) == 0
	var kill <-chan time.Time
	if early {
		kill = time.After(time.Duration(rng.Int64N(int64(80 * time.Millisecond))))
	}
	ready := false
	deadline := time.After(crashChildLimit)
	killed := false
	for !killed {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("child exited before it was killed: %s", stderr.String())
			}
			if err := acks.parse(line); err != nil {
				t.Fatal(err)
			}
			if line == "ready" {
				ready = true
				if !early {
					kill = time.After(time.Duration(rng.Int64N(int64(150 * time.Millisecond))))
				}
			}
		case <-kill:
			killed = true
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("child not ready within %s: %s", crashChildLimit, stderr.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Everything the child wrote before it died is acknowledged; drain it.
	for line := range lines {
		if err := acks.parse(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child ended with %v, want killed: %s", err, stderr.String())
	}
	return !ready
}

func verifyAfterCrash(t *testing.T, dir string, acks *ackLog, rep int) {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("repetition %d: reopen after SIGKILL: %v", rep, err)
	}
	defer s.Close()
	for id, next := range acks.next {
		c, msgs, err := s.Load(id)
		if err != nil {
			t.Errorf("repetition %d: acknowledged conversation %s: %v", rep, id, err)
			continue
		}
		if c.NextSeq < next {
			t.Errorf("repetition %d: %s has NextSeq %d, but %d was acknowledged", rep, id, c.NextSeq, next)
		}
		for seq, want := range acks.digests[id] {
			if seq >= uint64(len(msgs)) {
				t.Errorf("repetition %d: %s: acknowledged message %d is missing", rep, id, seq)
				continue
			}
			if got := digest(msgs[seq]); got != want {
				t.Errorf("repetition %d: %s: message %d differs from the acknowledged one", rep, id, seq)
			}
		}
		if err := checkConsistent(s, c, msgs); err != nil {
			t.Errorf("repetition %d: %v", rep, err)
		}
	}
	for _, id := range acks.gone {
		if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("repetition %d: deleted %s is back: %v", rep, id, err)
		}
		if keys, _ := s.keysWithPrefix(msgPrefix(id), 1); len(keys) != 0 {
			t.Errorf("repetition %d: messages of deleted %s remain", rep, id)
		}
	}
	if _, err := s.Recover(); err != nil {
		t.Fatal(err)
	}
	checkAllResting(t, s)
}
