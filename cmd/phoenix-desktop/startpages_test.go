package main

import (
	"bufio"
	"strings"
	"testing"
)

// TestReleasesRunAtTwoFifthsAndFourFifthsOfInitialisation_Issue39: the two releases of the
// binary's start-up pages during package initialisation (startpages and startpages/late) run
// where they split it, read from the runtime's account of the order (GODEBUG=inittrace=1) in a
// start of this test binary, which links the app's packages. Where either moved to an end,
// --version's peak would be near the 21 MB of the binary that initialisation touches again.
func TestReleasesRunAtTwoFifthsAndFourFifthsOfInitialisation_Issue39(t *testing.T) {
	var order []string
	sc := bufio.NewScanner(initTrace(t))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 2 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := func(pkg string) float64 {
		for i, p := range order {
			if p == pkg {
				return float64(i) / float64(len(order))
			}
		}
		t.Fatalf("%s is not in the %d package initialisations", pkg, len(order))
		return 0
	}
	first, second := at("github.com/phoenix-desktop/phoenix/startpages"), at("github.com/phoenix-desktop/phoenix/startpages/late")
	if first < 0.25 || first > 0.55 || second < 0.65 || second > 0.9 {
		t.Errorf("the releases run at %.2f and %.2f of package initialisation, want about 0.4 and 0.8", first, second)
	}
}
