package domain

import (
	"strings"
	"testing"
)

// toolWords are words of the agent's vocabulary that mean nothing to the person: tool names
// and the third person the agent is told about them in.
var toolWords = []string{ToolRequestModeUpgrade, "patch", "bash", "the person", "the user"}

// TestModeNoticeForPerson_REQ_BED_017 (issue 36): the window shows a mode notice in the
// person's words, and the stored notice keeps the model's.
func TestModeNoticeForPerson_REQ_BED_017(t *testing.T) {
	for _, to := range Modes {
		for _, how := range []string{ChangedByApproval, ChangedBySwitch} {
			model := ModeChangeNotice(to, how)
			if how == ChangedBySwitch && !strings.Contains(model, ToolRequestModeUpgrade) {
				t.Errorf("the model's notice %q lost how to ask again", model)
			}
			person, ok := ModeChangeNoticeForPerson(model)
			if !ok || person == model || !strings.Contains(person, to.Title()) || !strings.Contains(person, to.AllowsForPerson()) {
				t.Errorf("%s/%s: the person reads %q (a notice: %v)", to, how, person, ok)
			}
			for _, w := range toolWords {
				if strings.Contains(person, w) {
					t.Errorf("%s/%s: the person's notice %q says %q", to, how, person, w)
				}
			}
		}
	}
	for _, other := range []string{"", "Mode changed to Project.", "Restored 2 files."} {
		if got, ok := ModeChangeNoticeForPerson(other); ok || got != other {
			t.Errorf("%q is read as a mode notice: %q", other, got)
		}
	}
}

// TestModeWordsForPersonNameNoTools: every mode says what it allows in the person's words.
func TestModeWordsForPersonNameNoTools(t *testing.T) {
	for _, m := range Modes {
		words := m.AllowsForPerson()
		if words == "" || strings.HasSuffix(words, ".") || words == m.Allows() {
			t.Errorf("mode %s: %q", m, words)
		}
		for _, w := range toolWords {
			if strings.Contains(words, w) {
				t.Errorf("mode %s: the person's words %q say %q", m, words, w)
			}
		}
	}
}
