package sandbox

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestShellGateHoldsForAShellStartedBySSHD: a bash that sees SSH_CLIENT with SHLVL below 1 —
// a command of a program that sshd started through `exec` — takes itself for sshd's own
// shell, sources ~/.bashrc and skips $BASH_ENV, where the gate waits until the restricting
// thread is gone. The gate must hold all the same: it unsets BASH_ENV once it has run.
func TestShellGateHoldsForAShellStartedBySSHD(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	for _, shlvl := range []string{"SHLVL=junk", "SHLVL=-1", "", "SHLVL=0"} {
		env := []string{"PATH=" + os.Getenv("PATH"), "SSH_CLIENT=192.0.2.1 50000 22", "SSH2_CLIENT=x"}
		if shlvl != "" {
			env = append(env, shlvl)
		}
		var out, errs bytes.Buffer
		code, err := Run(context.Background(), Policy{TempDir: t.TempDir()}, `echo "[${BASH_ENV-unset}]"`,
			RunOptions{Dir: t.TempDir(), Env: env, Stdout: &out, Stderr: &errs})
		if err != nil || code != 0 || !strings.Contains(out.String(), "[unset]") {
			t.Errorf("%q: the command ran without passing the gate (exit %d, %v): %q %q", shlvl, code, err, out.String(), errs.String())
		}
	}
}
