//go:build linux

package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// TestDescribeFollowsTheABITable_REQ_BED_014: at each ABI the report says what Landlock
// covers and, for each newer ABI, what covers its part instead or that it stays open; the
// holes follow the table, the mount view and the parent-death signal.
func TestDescribeFollowsTheABITable_REQ_BED_014(t *testing.T) {
	for abi := MinABI; abi <= len(landlockABIs); abi++ {
		for _, view := range []bool{false, true} {
			l := describe(Status{Available: true, ABI: abi}, nil, true, view, "user namespaces are off")
			text := l.String()
			for _, a := range landlockABIs {
				has := strings.Contains(text, a.adds)
				if !has {
					t.Errorf("ABI %d: the report does not mention %q", abi, a.adds)
				}
				if abi < a.abi && a.without != "" && !strings.Contains(text, a.without) {
					t.Errorf("ABI %d: the report does not say what stands in for ABI %d: %q", abi, a.abi, a.without)
				}
			}
			signalHole := false
			timeHole := false
			for _, h := range l.Holes {
				signalHole = signalHole || strings.Contains(h, "signal your other processes")
				timeHole = timeHole || strings.Contains(h, "timestamps")
			}
			if signalHole == signalsScopedAt(abi) {
				t.Errorf("ABI %d: signal hole reported %v", abi, signalHole)
			}
			if timeHole == view {
				t.Errorf("ABI %d, mount view %v: timestamp hole reported %v", abi, view, timeHole)
			}
			if !view && !strings.Contains(text, "user namespaces are off") {
				t.Errorf("the report does not say why the mount view is off:\n%s", text)
			}
		}
	}
	off := describe(Status{ABI: 0, Reason: "no Landlock here"}, errors.New("no seccomp"), false, false, "")
	text := off.String()
	for _, want := range []string{"Restricted mode: unavailable: no Landlock here", "[off] seccomp: not available (no seccomp)", "[off] parent-death signal"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Known limits") {
		t.Errorf("limits are listed for a machine without Restricted mode:\n%s", text)
	}
}
