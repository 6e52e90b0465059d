package remote

import (
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// netemOneWay is the delay added to each direction of the link to the netem rows' sshd: a
// round trip of 20 ms, a machine in another building or a near cloud region.
const netemOneWay = 10 * time.Millisecond

// BenchmarkRemoteBashRoundNetem is BenchmarkRemoteBashRound over a delayed link: a remote
// round still costs the local round plus one round trip plus at most remoteRoundExcessTarget —
// one round trip per call, never two — each iteration measuring its own baseline (the local
// round, a bare round trip) beside it. The row's last name says how the link is delayed:
// "netem" (sshd in a network namespace behind a veth pair with tc netem on both ends) or
// "relay" (the test's relay between ssh and sshd, where the kernel has no sch_netem).
func BenchmarkRemoteBashRoundNetem(b *testing.B) {
	s := remotetest.StartNetem(b, netemOneWay)
	b.Run(s.Link, func(b *testing.B) { benchBashRound(b, s) })
}

// BenchmarkRemoteStopNetem is BenchmarkRemoteStop over the delayed link: Stop reaches the
// remote process group within one round trip plus stopExcessTarget.
func BenchmarkRemoteStopNetem(b *testing.B) {
	s := remotetest.StartNetem(b, netemOneWay)
	b.Run(s.Link, func(b *testing.B) { benchStop(b, s) })
}
