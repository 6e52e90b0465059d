package clisock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dirName is the socket's directory: under $XDG_RUNTIME_DIR, or inside the data directory
// where that is unset.
const dirName = "phoenix-desktop"

// maxPath is what fits in sockaddr_un's sun_path, with its terminating NUL.
const maxPath = 107

// RuntimeDir is the directory that holds the sockets under $XDG_RUNTIME_DIR, or "" where it
// is unset (then each socket lives in its data directory). The app hides it from sandboxed
// commands, like its data directory.
func RuntimeDir() string {
	d := os.Getenv("XDG_RUNTIME_DIR")
	if d == "" || !filepath.IsAbs(d) {
		return ""
	}
	return filepath.Join(d, dirName)
}

// Path is the socket of the app that holds dataDir. The same data directory, however it is
// spelled (relative, through a symlink), gives the same path.
func Path(dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	var p string
	if rd := RuntimeDir(); rd != "" {
		sum := sha256.Sum256([]byte(abs))
		p = filepath.Join(rd, hex.EncodeToString(sum[:8])+".sock")
	} else {
		p = filepath.Join(abs, "cli", "app.sock")
	}
	if len(p) > maxPath {
		return "", fmt.Errorf("the socket path %s is longer than a unix socket allows (%d bytes): set XDG_RUNTIME_DIR or use a shorter --data-dir", p, maxPath)
	}
	return p, nil
}

// Listen makes the socket's directory owner-only (0700, refusing one another user owns or
// others can enter), removes a socket left by an app that crashed, and listens with the
// socket 0600. The caller must hold the data directory's lock: then no other app listens
// here, and whatever socket is there is stale.
func Listen(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make the socket's directory: %w", err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("make the socket owner-only: %w", err)
	}
	return ln, nil
}

// checkPrivateDir refuses a directory that someone else owns or can enter: a socket there
// could be replaced or reached by them.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.IsDir() || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the socket's directory %s is not a directory of yours: remove it", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make the socket's directory %s owner-only: %w", dir, err)
		}
	}
	return nil
}

// RemoveStale removes the socket of dataDir's app. Call it only while holding the data
// directory's lock (no app runs then), so a socket an app left when it crashed cannot make
// the next commands wait on it.
func RemoveStale(dataDir string) error {
	p, err := Path(dataDir)
	if err != nil {
		return nil // no socket can be there either
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// dialTimeout bounds the connect: a listening app accepts at once, whatever it is doing.
const dialTimeout = 5 * time.Second

// Dial connects to the app's socket. ErrNoApp means no app listens there (no socket, or one
// a crashed app left): the command should run on its own.
func Dial(path string) (*Conn, error) {
	c, err := net.DialTimeout("unix", path, dialTimeout)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %v", ErrNoApp, err)
		}
		return nil, err
	}
	return NewConn(c), nil
}

// ErrNoApp says that no app listens on the socket.
var ErrNoApp = errors.New("no app is running on this data directory")

// CheckPeer refuses a connection whose process does not run as uid (SO_PEERCRED, which the
// kernel fills in at connect; the peer cannot forge it).
func CheckPeer(c *net.UnixConn, uid int) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("read the peer's credentials: %w", credErr)
	}
	if int(cred.Uid) != uid {
		return fmt.Errorf("refused: the connecting process (pid %d) runs as uid %d, not as uid %d who runs the app", cred.Pid, cred.Uid, uid)
	}
	return nil
}
