package actors

import (
	"context"
	"strings"
	"testing"
)

// describingRunner is a remote runner that also describes its hosts' sandboxes.
type describingRunner struct {
	hostRunner
	asked []string
}

func (r *describingRunner) RemoteSandbox(_ context.Context, host string) (RemoteSandbox, error) {
	r.asked = append(r.asked, host)
	var l SandboxStatus
	l.Available, l.ABI = true, 6
	return RemoteSandbox{Host: host, OS: "Linux", Arch: "aarch64", Layers: l}, nil
}

// The runtime hands the question about a host's sandbox to its remote runner, and says in
// words that it did not ask when its runner cannot.
func TestRuntimeRemoteSandboxAsksTheRunner(t *testing.T) {
	d := &describingRunner{}
	r := &Runtime{cfg: Config{Remote: d}}
	rs, err := r.RemoteSandbox(context.Background(), "dev@box")
	if err != nil || rs.Host != "dev@box" || rs.Layers.ABI != 6 || len(d.asked) != 1 {
		t.Errorf("RemoteSandbox = %+v, %v; asked %v", rs, err, d.asked)
	}
	r = &Runtime{cfg: Config{Remote: &hostRunner{}}}
	if _, err := r.RemoteSandbox(context.Background(), "dev@box"); err == nil || !strings.Contains(err.Error(), "did not ask dev@box") {
		t.Errorf("a runner that cannot describe: %v", err)
	}
	r = &Runtime{}
	if _, err := r.RemoteSandbox(context.Background(), "dev@box"); err == nil {
		t.Errorf("no runner: no error")
	}
}
