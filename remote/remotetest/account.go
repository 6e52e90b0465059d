package remotetest

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The servers of every test process on this machine let the same account in (TestUser), and
// what the tests read and do of it is machine-wide: WaitNoProcesses and a server's clean-up
// read, and end, every process of the account; ForgetAgent removes the account's cache of
// agents. `go test ./...` runs test packages side by side (remote, cmd/phoenix-desktop and
// cmd/phoenix-remote-agent all start servers), so a test of one package would see, kill or
// pull the agent from under what a test of another runs there. The account is therefore
// used by one test process at a time: the first server a process starts takes an exclusive
// lock of the machine's, and the clean-up of the last one it holds gives the lock back. The
// kernel gives it back too when the process dies.

// accountLock is the lock's file. The tests that start servers run as root (needSSHD).
const accountLock = "/run/phoenix-remotetest.lock"

var account struct {
	mu      sync.Mutex
	servers int // servers of this process that hold the account
	lock    *os.File
}

// holdAccount waits until this process has the account, and keeps it until the end of t
// (its clean-up, registered first, runs after those of the server start registers after it).
func holdAccount(t testing.TB) {
	t.Helper()
	account.mu.Lock()
	defer account.mu.Unlock()
	if account.servers == 0 {
		f, err := os.OpenFile(accountLock, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatalf("open the lock the remote tests of every package share (%s): %v", accountLock, err)
		}
		err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			t.Logf("waiting for another test process's remote test to end (it holds %s)", accountLock)
			err = flock(f, syscall.LOCK_EX)
		}
		if err != nil {
			f.Close()
			t.Fatalf("take the lock the remote tests of every package share (%s): %v", accountLock, err)
		}
		account.lock = f
	}
	account.servers++
	t.Cleanup(releaseAccount)
}

func releaseAccount() {
	account.mu.Lock()
	defer account.mu.Unlock()
	if account.servers--; account.servers == 0 {
		// Closing the file releases the lock.
		account.lock.Close()
		account.lock = nil
	}
}

func flock(f *os.File, how int) error {
	for {
		if err := syscall.Flock(int(f.Fd()), how); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// waitAccountIdle waits, for at most limit, until the account runs nothing: processes a
// clean-up has just killed are gone only once the kernel has ended them and their new
// parent has reaped them, and the next holder of the account reads them all.
func waitAccountIdle(s *Server, limit time.Duration) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(limit); len(s.UserProcesses()) > 0 && time.Now().Before(deadline); {
		<-tick.C
	}
}
