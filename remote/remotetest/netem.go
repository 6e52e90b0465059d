package remotetest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// netemPort is the server's port in its namespace, where nothing else listens (not 22:
// known_hosts names a host on port 22 without its port).
const netemPort = 2222

var netemSeq atomic.Int32

// StartNetem starts the server as Start does, with every packet between the app and the
// remote side delayed by oneWay in each direction: a round trip costs 2×oneWay more than on
// loopback, as over a real network. Where it can, the server runs in a network namespace of
// its own, reached over a veth pair whose two ends each delay every packet (tc qdisc … netem
// delay); where that cannot be made (a kernel without sch_netem, no iproute2, no right to make
// namespaces) it runs on loopback behind a relay of the test's own that holds each chunk of
// bytes for oneWay each way (relay.go). Server.Link says which ("netem" or "relay"): the rows
// it serves compare with a baseline measured in the same run, over the same link.
func StartNetem(t testing.TB, oneWay time.Duration) *Server {
	t.Helper()
	needSSHD(t)
	w, err := netemLink(t, oneWay)
	if err != nil {
		t.Logf("tc's netem cannot delay the link here, so a relay of the test delays it instead: %v", err)
		return start(t, where{relay: oneWay})
	}
	return start(t, w)
}

// netemLink makes the namespace and its delayed veth pair; its error says what is missing.
// What it made goes when the test ends.
func netemLink(t testing.TB, oneWay time.Duration) (where, error) {
	t.Helper()
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return where{}, fmt.Errorf("%s (iproute2) is not installed", tool)
		}
	}
	id := os.Getpid()%100000*10 + int(netemSeq.Add(1)%10)
	ns := fmt.Sprintf("phoenix-netem-%d", id)
	here, there := fmt.Sprintf("phx%da", id), fmt.Sprintf("phx%db", id)
	// A /30 of 10.213.0.0/16 of its own, so that runs side by side do not share addresses.
	base := (id % 16384) * 4
	hereIP := fmt.Sprintf("10.213.%d.%d", base/256, base%256+1)
	thereIP := fmt.Sprintf("10.213.%d.%d", base/256, base%256+2)

	try := func(what string, args ...string) error {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s (%s): %v: %s", what, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := try("make a network namespace", "ip", "netns", "add", ns); err != nil {
		return where{}, err
	}
	// Deleting the namespace deletes its end of the pair, which deletes ours; the link is
	// deleted by name too in case the namespace never got it. Registered before the server
	// starts, these run after it stopped.
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", here).Run()
		_ = exec.Command("ip", "netns", "del", ns).Run()
	})
	if err := try("make a veth pair", "ip", "link", "add", here, "type", "veth", "peer", "name", there); err != nil {
		return where{}, err
	}
	delay := fmt.Sprintf("%dus", oneWay.Microseconds())
	steps := [][]string{
		{"ip", "link", "set", there, "netns", ns},
		{"ip", "addr", "add", hereIP + "/30", "dev", here},
		{"ip", "link", "set", here, "up"},
		{"ip", "netns", "exec", ns, "ip", "addr", "add", thereIP + "/30", "dev", there},
		{"ip", "netns", "exec", ns, "ip", "link", "set", there, "up"},
		{"ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"},
		{"tc", "qdisc", "add", "dev", here, "root", "netem", "delay", delay},
		{"ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", there, "root", "netem", "delay", delay},
	}
	for _, s := range steps {
		if err := try("set up the delayed veth pair", s...); err != nil {
			return where{}, err
		}
	}
	return where{netns: ns, addr: thereIP, port: netemPort}, nil
}
