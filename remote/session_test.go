package remote

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// statusLog records a session's states.
type statusLog struct {
	mu     sync.Mutex
	states []State
	words  []string
}

func (l *statusLog) record(s Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.states = append(l.states, s.State)
	l.words = append(l.words, s.String())
}

func (l *statusLog) take() ([]State, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, w := l.states, l.words
	l.states, l.words = nil, nil
	return st, w
}

func TestSessionReconnectsAfterADrop(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	var log statusLog
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, log.record)
	defer sess.Close()
	proj := s.ProjectDir(t)
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted}
	echo := toolCall(t, domain.ToolBash, map[string]any{"command": "echo one"})

	out, err := sess.Run(context.Background(), where, echo, nil)
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("first call: %v %+v", err, out)
	}
	if st, _ := log.take(); !equalStates(st, []State{Connecting, Connected}) {
		t.Errorf("first connection's states = %v", st)
	}

	// The network drops while nothing runs.
	sess.mu.Lock()
	c := sess.cur
	sess.mu.Unlock()
	killMaster(t, s)
	<-c.Lost()

	out, err = sess.Run(context.Background(), where, echo, nil)
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("call after the drop: %v %+v", err, out)
	}
	st, words := log.take()
	if !equalStates(st, []State{Reconnecting, Connected}) {
		t.Errorf("reconnection's states = %v", st)
	}
	if len(words) == 0 || words[0] != "Reconnecting to "+s.Dest+"…" {
		t.Errorf("the person read %q", words)
	}
	if info, ok := sess.Info(); !ok || info.Copied {
		t.Errorf("the reconnection copied the binary again or has no info: %+v %v", info, ok)
	}
	sess.Close()
	if _, err := sess.Run(context.Background(), where, echo, nil); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("a call after Close: %v", err)
	}
	s.WaitNoProcesses(t)
}

func TestSessionGivesUpOnAHostThatIsDown(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	// The same host on a port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg, err := os.ReadFile(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	down := filepath.Join(t.TempDir(), "ssh_config")
	remotetest.WriteFile(t, down, regexp.MustCompile(`Port \d+`).ReplaceAllString(string(cfg), "Port "+strconv.Itoa(port)))

	var log statusLog
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: down}, log.record)
	sess.backoff = []time.Duration{0, time.Millisecond, 2 * time.Millisecond}
	defer sess.Close()
	out, err := sess.Run(context.Background(), Call{Conversation: "conv", Cwd: "/", Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolBash, map[string]any{"command": "echo never"}), nil)
	if !errors.Is(err, ErrConnectionLost) || out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "Could not reach "+s.Dest) {
		t.Fatalf("call to a host that is down: %v %+v", err, out)
	}
	if !strings.Contains(out.Content, "Connection refused") {
		t.Errorf("the error does not carry ssh's reason: %q", out.Content)
	}
	if st, _ := log.take(); !equalStates(st, []State{Connecting, Connecting, Connecting, Disconnected}) {
		t.Errorf("states = %v, want three tries and a give-up", st)
	}
}

func equalStates(a, b []State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSessionClosedWhileConnectingLeavesNothing: the person closes the conversation (or the
// app quits) while its first connection to a host is being made — ssh started, the agent
// being copied: the connection is ended, not finished, and neither its ssh nor a master
// connection it started outlives the session, here or on the host.
func TestSessionClosedWhileConnectingLeavesNothing(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	s.ForgetAgent(t) // the first connection copies the agent: it takes a while
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	connected := make(chan error, 1)
	go func() {
		_, err := sess.Connect(context.Background())
		connected <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); len(s.LocalSSH()) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ssh started within 30 s")
		}
	}
	sess.Close()
	select {
	case err := <-connected:
		if !errors.Is(err, ErrSessionClosed) {
			t.Errorf("the connection being made when the session closed: %v, want ErrSessionClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the connection being made went on for 10 s after the session closed")
	}
	s.WaitNoProcesses(t)
}
