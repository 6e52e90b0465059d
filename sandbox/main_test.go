//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/phoenix-desktop/phoenix/sandbox/proctest"
	"golang.org/x/sys/unix"
)

// landlockOnlyArg makes the test binary apply only the Landlock half of the policy and then
// become bash, so that a test can show what Landlock catches on its own and what it leaves
// to the seccomp filter. It exists only in the test binary.
const landlockOnlyArg = "__phoenix_test_landlock_only"

// threadOfItsOwnArg makes the test binary call onThreadOfItsOwn from its main goroutine,
// which at that point runs unlocked on the main thread, so that the new goroutine usually
// starts there (see TestThreadOfItsOwnIsNeverTheMainThread).
const threadOfItsOwnArg = "__phoenix_test_thread_of_its_own"

// TestMain lets the test binary act as the sandbox helper, as the app binary does.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	if len(os.Args) == 2 && os.Args[1] == threadOfItsOwnArg {
		// syscall.Exit: os.Exit pauses for a second in a race-detector build.
		syscall.Exit(checkThreadOfItsOwn())
	}
	if len(os.Args) == 4 && os.Args[1] == appArg {
		syscall.Exit(runAsApp(os.Args[2], os.Args[3]))
	}
	if len(os.Args) == 4 && os.Args[1] == landlockOnlyArg {
		// Restrict this thread and exec from it: execve keeps the calling thread's
		// credentials for the new program.
		runtime.LockOSThread()
		ruleset, _, err := landlockRuleset(os.Args[2], 0)
		if err == nil {
			err = restrictThreadLandlock(ruleset)
		}
		var bash string
		if err == nil {
			bash, err = exec.LookPath("bash")
		}
		if err == nil {
			err = syscall.Exec(bash, []string{"bash", "-c", os.Args[3]}, os.Environ())
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(ExitSetupFailed)
	}
	os.Exit(m.Run())
}

// checkThreadOfItsOwn marks the thread onThreadOfItsOwn gives it, as a restriction would,
// by renaming it, and prints what the test checks: the main thread's id and name, the marked
// thread's id, whether it ended, whether any thread still bears the mark, and whether the
// main thread had to be held.
func checkThreadOfItsOwn() int {
	const mark = "phx-marked"
	before, err := os.ReadFile("/proc/thread-self/comm")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	tids := make(chan int, 1)
	onThreadOfItsOwn(func() {
		_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(unsafe.StringData(mark+"\x00"))), 0, 0, 0)
		tids <- unix.Gettid()
	})
	tid := <-tids
	gone := waitThreadGone(tid)
	marked := 0
	comms, _ := filepath.Glob("/proc/self/task/*/comm")
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && strings.TrimSpace(string(b)) == mark {
			marked++
		}
	}
	after, _ := os.ReadFile("/proc/" + strconv.Itoa(os.Getpid()) + "/comm")
	fmt.Printf("main=%d fn=%d gone=%v marked=%d main-comm-kept=%v held=%d\n", os.Getpid(), tid, gone,
		marked, string(before) == string(after), mainThreadHeld.Load())
	return 0
}

// forEachView runs check with the mount view (where this machine allows it) and without.
func forEachView(t *testing.T, check func(t *testing.T, view bool)) {
	t.Run("mount view", func(t *testing.T) {
		if usable, reason := mountViewUsable(); !usable {
			t.Skipf("no mount view here: %s", reason)
		}
		check(t, true)
	})
	t.Run("no mount view", func(t *testing.T) {
		noMountViewForTests = true
		t.Cleanup(func() { noMountViewForTests = false })
		check(t, false)
	})
}

// hostPIDs turns the pids a command printed ($$, $!) into this process's view of them: in the
// mount view a command has a pid namespace of its own (namespaces.go).
func hostPIDs(t testing.TB, seen []int) []int {
	t.Helper()
	pids, err := proctest.HostPIDs(seen, os.Getpid())
	if err != nil {
		t.Fatalf("find the command's processes: %v", err)
	}
	return pids
}
