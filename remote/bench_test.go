package remote

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The targets of issue 37, on loopback (sshd on 127.0.0.1 as another user).
const (
	// remoteRoundExcessTarget bounds a remote bash round beyond the local round plus one
	// round trip of the connection.
	remoteRoundExcessTarget = 2 * time.Millisecond
	firstConnectTarget      = 3 * time.Second
	laterConnectTarget      = 300 * time.Millisecond
)

func quantile(d []time.Duration, f float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(f*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkRemoteBashRound runs bash `true` through the remote agent and here, and a bare
// round trip of the connection, in the same iteration, so load hits all three alike; the row
// is what a remote round costs beyond the local one and the network.
func BenchmarkRemoteBashRound(b *testing.B) { benchBashRound(b, remotetest.Start(b)) }

// benchBashRound is the bash round's row against the server s (on loopback, or behind netem).
func benchBashRound(b *testing.B, s *remotetest.Server) {
	c := dial(b, s)
	defer c.Close()
	proj := s.ProjectDir(b)
	ctx := context.Background()
	call := toolCall(b, domain.ToolBash, map[string]any{"command": "true"})
	reg := tools.NewRegistry()
	localEnv := tools.Env{Cwd: b.TempDir(), Mode: domain.ModeUnrestricted, TempDir: b.TempDir()}
	where := Call{Conversation: "bench", Cwd: proj, Mode: domain.ModeUnrestricted}
	// Warm both supervisors.
	reg.Run(ctx, localEnv, call)
	if _, err := c.Run(ctx, where, call); err != nil {
		b.Fatal(err)
	}
	var remote, local, rtt, excess []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if out := reg.Run(ctx, localEnv, call); out.Outcome != domain.OutcomeSuccess {
			b.Fatalf("local: %+v", out)
		}
		t1 := time.Now()
		if err := c.Ping(ctx); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if out, err := c.Run(ctx, where, call); err != nil || out.Outcome != domain.OutcomeSuccess {
			b.Fatalf("remote: %v %+v", err, out)
		}
		t3 := time.Now()
		local, rtt, remote = append(local, t1.Sub(t0)), append(rtt, t2.Sub(t1)), append(remote, t3.Sub(t2))
		excess = append(excess, t3.Sub(t2)-t1.Sub(t0)-t2.Sub(t1))
	}
	b.ReportMetric(ms(quantile(local, 0.5)), "local-p50-ms")
	b.ReportMetric(ms(quantile(rtt, 0.5)), "rtt-p50-ms")
	b.ReportMetric(ms(quantile(remote, 0.5)), "remote-p50-ms")
	b.ReportMetric(ms(quantile(excess, 0.5)), "excess-p50-ms")
	if e := quantile(excess, 0.5); e > remoteRoundExcessTarget {
		b.Errorf("a remote bash round takes %v more than the local round plus a round trip; the target is %v", e, remoteRoundExcessTarget)
	}
	c.Close()
	endMaster(b, s)
}

// BenchmarkRemoteConnect measures a first connection to a host — a new SSH connection and
// the copy of the agent — and a later one, over the master connection a first one left, to a
// host that has the agent.
func BenchmarkRemoteConnect(b *testing.B) {
	s := remotetest.Start(b)
	for _, first := range []bool{true, false} {
		name, target := "later", laterConnectTarget
		if first {
			name, target = "first with copy", firstConnectTarget
		}
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				if first {
					// A host never reached: no master connection, no agent.
					b.StopTimer()
					endMaster(b, s)
					s.ForgetAgent(b)
					b.StartTimer()
				}
				start := time.Now()
				c := dial(b, s)
				lat = append(lat, time.Since(start))
				if c.Info().Copied != first {
					b.Fatalf("copied = %v", c.Info().Copied)
				}
				b.StopTimer()
				c.Close()
				b.StartTimer()
			}
			b.ReportMetric(ms(quantile(lat, 0.5)), "p50-ms")
			endMaster(b, s)
			if p := quantile(lat, 0.5); p > target {
				b.Errorf("connecting (%s) takes %v; the target is %v", name, p, target)
			}
		})
	}
}

// stopExcessTarget bounds Stop on a remote command beyond one round trip of the connection.
const stopExcessTarget = 50 * time.Millisecond

// BenchmarkRemoteStop measures Stop on a running remote command — cancel sent → the agent has
// killed the command's process group and answered — against a bare round trip measured in the
// same iteration.
func BenchmarkRemoteStop(b *testing.B) { benchStop(b, remotetest.Start(b)) }

// benchStop is the Stop row against the server s (on loopback, or behind netem).
func benchStop(b *testing.B, s *remotetest.Server) {
	c := dial(b, s)
	defer c.Close()
	proj := s.ProjectDir(b)
	where := Call{Conversation: "bench", Cwd: proj, Mode: domain.ModeUnrestricted}
	var excess, rtts []time.Duration
	for b.Loop() {
		b.StopTimer()
		pidFile := filepath.Join(proj, "pid")
		_ = os.Remove(pidFile)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = c.Run(ctx, where, toolCall(b, domain.ToolBash, map[string]any{"command": "sleep 100 & echo $! > pid; wait"}))
		}()
		waitForFile(b, pidFile)
		t0 := time.Now()
		if err := c.Ping(context.Background()); err != nil {
			b.Fatal(err)
		}
		rtt := time.Since(t0)
		b.StartTimer()
		t1 := time.Now()
		cancel()
		<-done
		excess, rtts = append(excess, time.Since(t1)-rtt), append(rtts, rtt)
	}
	b.ReportMetric(ms(quantile(rtts, 0.5)), "rtt-p50-ms")
	b.ReportMetric(ms(quantile(excess, 0.5)), "excess-p50-ms")
	if e := quantile(excess, 0.5); e > stopExcessTarget {
		b.Errorf("Stop on a remote command takes %v beyond a round trip; the target is %v", e, stopExcessTarget)
	}
	c.Close()
	endMaster(b, s)
}
