package desktopnotify

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// testServer is a notification service written for the test: it records each Notify and
// can say that one was clicked or closed, as a desktop's would.
type testServer struct {
	conn *dbus.Conn
	mu   sync.Mutex
	got  []sent
	next uint32
}

type sent struct {
	app, title, body string
	actions          []string
	hints            map[string]dbus.Variant
}

func (s *testServer) Notify(app string, replaces uint32, icon, title, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.got = append(s.got, sent{app: app, title: title, body: body, actions: actions, hints: hints})
	return s.next, nil
}

func (s *testServer) emit(member string, id uint32, arg any) error {
	return s.conn.Emit(Path, Interface+"."+member, id, arg)
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &testServer{conn: conn}
	if err := conn.Export(s, Path, Interface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(Service, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v, %v", Service, reply, err)
	}
	return s
}

// TestInsideSession runs only inside the private session TestNotificationsOnARealSessionBus
// starts.
func TestInsideSession(t *testing.T) {
	if os.Getenv("PHOENIX_TEST_INSIDE_DBUS") != "1" {
		t.Skip("runs inside TestNotificationsOnARealSessionBus's session")
	}
	c, err := Connect("phoenix-desktop")
	if err != nil {
		t.Fatal(err)
	}
	// No service yet: Send says so.
	if _, err := c.Send("t", "b", nil); err == nil || !strings.Contains(err.Error(), "no notification service") {
		t.Fatalf("send without a service: %v", err)
	}
	s := startServer(t)
	clicked := make(chan string, 2)
	id, err := c.Send("Fix the bug", "The agent has finished.", func() { clicked <- "first" })
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Send("Other", "Waiting for approval", func() { clicked <- "other" })
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	got := s.got
	s.mu.Unlock()
	if len(got) != 2 || got[0].title != "Fix the bug" || got[0].body != "The agent has finished." || got[0].app != "phoenix-desktop" ||
		len(got[0].actions) != 2 || got[0].actions[0] != DefaultAction {
		t.Fatalf("the service got %+v", got)
	}
	// Another action than the default, and a closed notification, run nothing.
	if err := s.emit("ActionInvoked", id, "other-action"); err != nil {
		t.Fatal(err)
	}
	if err := s.emit("NotificationClosed", other, uint32(2)); err != nil {
		t.Fatal(err)
	}
	if err := s.emit("ActionInvoked", other, DefaultAction); err != nil {
		t.Fatal(err)
	}
	if err := s.emit("ActionInvoked", id, DefaultAction); err != nil {
		t.Fatal(err)
	}
	select {
	case which := <-clicked:
		if which != "first" {
			t.Fatalf("the click ran %s's function", which)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the click did not arrive")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case which := <-clicked:
		t.Fatalf("a second click ran %s", which)
	default:
	}
}

// TestNotificationsOnARealSessionBus sends notifications over a private, real session bus
// (dbus-run-session) to a notification service written in the test, which clicks one.
func TestNotificationsOnARealSessionBus(t *testing.T) {
	if _, err := exec.LookPath("dbus-run-session"); err != nil {
		t.Skip("dbus-run-session is not installed (scripts/setup.sh installs dbus)")
	}
	cmd := exec.Command("dbus-run-session", "--", os.Args[0], "-test.run", "^TestInsideSession$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "PHOENIX_TEST_INSIDE_DBUS=1")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the session did not end within 2 minutes:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestInsideSession") {
		t.Fatalf("inside the session: %v\n%s", err, out)
	}
}
