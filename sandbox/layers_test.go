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
			l := describe(Status{Available: true, ABI: abi}, nil, nil, true, view, "user namespaces are off")
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
			timeHole := false
			for _, h := range l.Holes {
				if strings.Contains(h, "signal") {
					t.Errorf("ABI %d: a signal hole is reported, though the supervisor decides every signal below ABI 6: %q", abi, h)
				}
				timeHole = timeHole || strings.Contains(h, "timestamps")
			}
			if !strings.Contains(text, "lets through only those meant for the command's own processes") {
				t.Errorf("ABI %d: the report does not say that the supervisor decides calls to other processes:\n%s", abi, text)
			}
			if timeHole {
				t.Errorf("ABI %d, mount view %v: a timestamp hole is reported, though the supervisor decides timestamps without the mount view", abi, view)
			}
			if !view && !strings.Contains(text, "the supervisor carries out changes of modes, timestamps") {
				t.Errorf("ABI %d: the report does not say who decides modes and timestamps without the mount view:\n%s", abi, text)
			}
			if !view && !strings.Contains(text, "user namespaces are off") {
				t.Errorf("the report does not say why the mount view is off:\n%s", text)
			}
		}
	}
	noListener := describe(Status{Available: true, ABI: 2}, nil, errors.New("not supported"), true, false, "user namespaces are off")
	if text := noListener.String(); !strings.Contains(text, "the supervisor cannot decide calls for it here (not supported)") {
		t.Errorf("the report does not say that calls to other processes are refused without a listener:\n%s", text)
	}
	if holes := strings.Join(noListener.Holes, "\n"); !strings.Contains(holes, "timestamps") || !strings.Contains(holes, "chmod is denied in the temp dir") {
		t.Errorf("without a listener or the mount view the report does not name the timestamp and chmod limits: %q", holes)
	}
	off := describe(Status{ABI: 0, Reason: "no Landlock here"}, errors.New("no seccomp"), nil, false, false, "")
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

// TestDescribeOpensWithPlainWords: the report a person reads (doctor, the badge's details)
// starts with what the mode means, lists the secrets table and, for Project mode, every
// protected file of the one table.
func TestDescribeOpensWithPlainWords(t *testing.T) {
	l := Describe()
	text := l.String()
	if !strings.HasPrefix(text, l.Summary) || l.Summary == "" {
		t.Errorf("the report does not open with the summary:\n%s", text)
	}
	if l.Available {
		for _, s := range l.Secrets {
			if s.Present && !strings.Contains(text, s.Path) {
				t.Errorf("the secret %s is not listed", s.Path)
			}
		}
	}
	if l.Project.Available {
		for _, p := range ProtectedFiles {
			if !strings.Contains(text, p) {
				t.Errorf("the protected file %s is not listed", p)
			}
		}
	}
	if got := ProjectSummary(3); !strings.Contains(got, "3 so far") {
		t.Errorf("ProjectSummary(3) = %q", got)
	}
}
