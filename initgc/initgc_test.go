package initgc_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/initgc"
)

// envReport makes the test binary report, as its TestMain starts (every package initialised,
// as when main starts), what this package left and what Restore made of it, then exit.
const envReport = "PHOENIX_TEST_INITGC_REPORT"

type report struct {
	PercentInInit, PercentAfter, PercentAfterAgain int
	// CyclesInInit is how many collections ran while the packages initialised.
	CyclesInInit uint64
}

func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestMain(m *testing.M) {
	if os.Getenv(envReport) != "" {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		r := report{CyclesInInit: s[0].Value.Uint64(), PercentInInit: gcPercent()}
		initgc.Restore()
		r.PercentAfter = gcPercent()
		initgc.Restore()
		r.PercentAfterAgain = gcPercent()
		_ = json.NewEncoder(os.Stdout).Encode(r)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCollectorOffWhilePackagesInitialise: the packages initialise with the collector off
// (the garbage this test's own initialisation makes below would otherwise start one) and
// Restore turns it back on at the runtime's default, once; a GOGC or GOMEMLIMIT the person
// set is left alone.
func TestCollectorOffWhilePackagesInitialise(t *testing.T) {
	if len(garbage) != 4096 || len(sink) != 4096 {
		t.Fatal("this test binary's packages made no garbage as they initialised")
	}
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=")
	})
	for _, c := range []struct {
		name string
		env  []string
		want report
	}{
		{"nothing set", nil, report{PercentInInit: -1, PercentAfter: 100, PercentAfterAgain: 100}},
		{"GOGC set", []string{"GOGC=50"}, report{PercentInInit: 50, PercentAfter: 50, PercentAfterAgain: 50}},
		{"GOMEMLIMIT set", []string{"GOMEMLIMIT=1GiB"}, report{PercentInInit: 100, PercentAfter: 100, PercentAfterAgain: 100}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(append(slices.Clip(base), envReport+"=1"), c.env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the test binary as reporter: %v: %s", err, out)
			}
			var got report
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("report %q: %v", out, err)
			}
			if c.want.PercentInInit < 0 && got.CyclesInInit != 0 {
				t.Errorf("%d collections ran while the packages initialised", got.CyclesInInit)
			}
			got.CyclesInInit = 0
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// garbage is made while this test binary's packages initialise, after package initgc (this
// package imports it): 16 MB, four times the runtime's first heap goal, so that collections
// would run during initialisation if initgc's init did not hold them off.
var garbage = func() []byte {
	var last []byte
	for range 4096 {
		last = make([]byte, 4096)
		sink = last
	}
	return last
}()

// sink makes each of garbage's blocks escape to the heap.
var sink []byte
