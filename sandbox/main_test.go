//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// landlockOnlyArg makes the test binary apply only the Landlock half of the policy and then
// become bash, so that a test can show what Landlock catches on its own and what it leaves
// to the seccomp filter. It exists only in the test binary.
const landlockOnlyArg = "__phoenix_test_landlock_only"

// TestMain lets the test binary act as the sandbox helper, as the app binary does.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	if len(os.Args) == 4 && os.Args[1] == landlockOnlyArg {
		if err := applyLandlock(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(ExitSetupFailed)
		}
		bash, err := exec.LookPath("bash")
		if err == nil {
			err = syscall.Exec(bash, []string{"bash", "-c", os.Args[3]}, os.Environ())
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(ExitSetupFailed)
	}
	os.Exit(m.Run())
}
