package remote

import (
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// netemOneWay is the delay tc netem adds to each direction of the link to the netem rows'
// sshd: a round trip of 20 ms, a machine in another building or a near cloud region.
const netemOneWay = 10 * time.Millisecond

// BenchmarkRemoteBashRoundNetem is BenchmarkRemoteBashRound over a delayed link (sshd in a
// network namespace behind a veth pair with netem on both ends): a remote round still costs
// the local round plus one round trip plus at most remoteRoundExcessTarget — one round trip
// per call, never two — each iteration measuring its own baseline (the local round, a bare
// round trip) beside it. It skips, saying why, where namespaces or netem are unavailable.
func BenchmarkRemoteBashRoundNetem(b *testing.B) {
	benchBashRound(b, remotetest.StartNetem(b, netemOneWay))
}

// BenchmarkRemoteStopNetem is BenchmarkRemoteStop over the delayed link: Stop reaches the
// remote process group within one round trip plus stopExcessTarget.
func BenchmarkRemoteStopNetem(b *testing.B) {
	benchStop(b, remotetest.StartNetem(b, netemOneWay))
}
