package clisock

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pair is a connected pair over a real unix socket in dir, the server side accepted.
func pair(t *testing.T, dir string) (client *Conn, server *net.UnixConn) {
	t.Helper()
	ln, err := Listen(filepath.Join(dir, "s", "app.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	c, err := Dial(filepath.Join(dir, "s", "app.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c, s
}

func TestFramesRoundTripAndSplit(t *testing.T) {
	c, s := pair(t, t.TempDir())
	srv := NewConn(s)
	big := bytes.Repeat([]byte("x"), MaxPayload+10)
	go func() {
		_ = c.Write(Stdout, []byte("hello"))
		_ = c.Write(Stdin, nil)
		_ = c.Write(Stderr, big)
		_ = c.WriteInt(Exit, 130)
	}()
	want := []struct {
		k Kind
		n int
	}{{Stdout, 5}, {Stdin, 0}, {Stderr, MaxPayload}, {Stderr, 10}, {Exit, 4}}
	for _, w := range want {
		k, p, err := srv.Read()
		if err != nil || k != w.k || len(p) != w.n {
			t.Fatalf("read %c %d bytes (%v), want %c %d", k, len(p), err, w.k, w.n)
		}
		if k == Exit {
			if n, err := Int(p); err != nil || n != 130 {
				t.Fatalf("exit %d %v", n, err)
			}
		}
	}
}

func TestReadRefusesAnOversizedFrame(t *testing.T) {
	c, s := pair(t, t.TempDir())
	go func() { _, _ = c.Raw().Write([]byte{'O', 0xff, 0xff, 0xff, 0xff}) }()
	if _, _, err := NewConn(s).Read(); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("err = %v", err)
	}
}

func TestListenIsOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	sockDir := filepath.Join(dir, "s")
	if err := os.Mkdir(sockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pair(t, dir)
	for path, want := range map[string]os.FileMode{sockDir: 0o700, filepath.Join(sockDir, "app.sock"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
}

func TestCheckPeerAcceptsTheSameUserOnly(t *testing.T) {
	_, s := pair(t, t.TempDir())
	if err := CheckPeer(s, os.Getuid()); err != nil {
		t.Fatalf("own uid refused: %v", err)
	}
	if err := CheckPeer(s, os.Getuid()+1); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("another uid: %v", err)
	}
}

func TestDialAStaleSocketSaysNoApp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s", "app.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(path); !errors.Is(err, ErrNoApp) {
		t.Fatalf("stale socket: %v", err)
	}
	if _, err := Dial(filepath.Join(t.TempDir(), "none.sock")); !errors.Is(err, ErrNoApp) {
		t.Fatalf("no socket: %v", err)
	}
}

func TestPathIsOneForOneDirectory(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	a, err1 := Path(dir)
	b, err2 := Path(link)
	if err1 != nil || err2 != nil || a != b || !strings.HasPrefix(a, dir) {
		t.Fatalf("%q %v, %q %v", a, err1, b, err2)
	}
	if _, err := Path("/" + strings.Repeat("d", 120)); err == nil {
		t.Fatal("a path too long for a unix socket was accepted")
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1")
	if p, err := Path(dir); err != nil || !strings.HasPrefix(p, "/run/user/1/phoenix-desktop/") {
		t.Fatalf("under XDG_RUNTIME_DIR: %q %v", p, err)
	}
}
