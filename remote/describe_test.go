package remote

import (
	"context"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestHostsSandboxIsAskedOncePerConnection_REQ_BED_014: the badge's description of a host's
// sandbox is what the agent there said when its connection started: asked over the real SSH
// connection, answered again from the live connection (the same agent, nothing dialled), and
// asked anew after the connection ended.
func TestHostsSandboxIsAskedOncePerConnection_REQ_BED_014(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	hosts := &Hosts{ConfigFile: s.Config}
	defer func() {
		hosts.Close()
		s.WaitNoProcesses(t)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	first, err := hosts.Sandbox(ctx, s.Dest)
	if err != nil {
		t.Fatalf("Sandbox: %v", err)
	}
	// The same kernel as this machine's (the sshd is on loopback): the same Landlock.
	local := sandbox.Describe()
	if first.OS != "Linux" || first.Hello.PID == 0 || first.Hello.Layers.Available != local.Available || first.Hello.Layers.ABI != local.ABI || len(first.Hello.Layers.Layers) == 0 {
		t.Fatalf("the host's sandbox = %+v; this machine's available %v ABI %d", first, local.Available, local.ABI)
	}
	sess := hosts.Session(s.Dest)
	live, _ := sess.Info()
	ssh := len(s.LocalSSH())

	again, err := hosts.Sandbox(ctx, s.Dest)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hello.PID != first.Hello.PID || len(s.LocalSSH()) != ssh {
		t.Errorf("the second question was not answered from the live connection: agent %d then %d, ssh processes %d then %d",
			first.Hello.PID, again.Hello.PID, ssh, len(s.LocalSSH()))
	}
	if live.Hello.PID != first.Hello.PID {
		t.Errorf("the session's connection has agent %d, the answer %d", live.Hello.PID, first.Hello.PID)
	}

	// The connection ends (the master and its sessions): the next question connects again
	// and gets the new agent's answer.
	endMaster(t, s)
	<-sessClient(sess).Lost()
	third, err := hosts.Sandbox(ctx, s.Dest)
	if err != nil {
		t.Fatal(err)
	}
	if third.Hello.PID == first.Hello.PID {
		t.Errorf("after the connection ended, the answer is still the old agent's (%d)", first.Hello.PID)
	}
}

// sessClient is the session's live client (the test waits for its loss).
func sessClient(s *Session) *Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}
