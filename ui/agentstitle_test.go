package ui

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Stopping sub-agents says they were stopped, not that they finished (issue 41: "3 of 3
// finished").
func TestAgentsTitleSaysStopped(t *testing.T) {
	ok := domain.SubAgentOutcome{Status: domain.SubAgentSucceeded}
	failed := domain.SubAgentOutcome{Status: domain.SubAgentFailed, Kind: domain.ErrorServer}
	stopped := domain.SubAgentOutcome{Status: domain.SubAgentFailed, Kind: domain.ErrorCancelled}
	pending := domain.SubAgentOutcome{Status: domain.SubAgentPending}
	for _, tt := range []struct {
		outs []domain.SubAgentOutcome
		want string
	}{
		{[]domain.SubAgentOutcome{pending, pending}, "Sub-agents: 0 of 2 finished"},
		{[]domain.SubAgentOutcome{ok, failed, pending}, "Sub-agents: 2 of 3 finished"},
		{[]domain.SubAgentOutcome{stopped, stopped, stopped}, "Sub-agents: all 3 stopped"},
		{[]domain.SubAgentOutcome{ok, stopped, stopped}, "Sub-agents: 1 of 3 finished, 2 stopped"},
	} {
		if got := agentsTitle(tt.outs); got != tt.want {
			t.Errorf("agentsTitle(%v) = %q, want %q", tt.outs, got, tt.want)
		}
	}
}

// An error card adds its kind's sentence only when the error's text does not already say it
// (issue 41: the same sentence twice).
func TestErrorHintIsNotRepeated(t *testing.T) {
	said := domain.ErrorServer.Describe()
	if got := errorHint("HTTP 502 from the provider. "+said+".", domain.ErrorServer); got != "" {
		t.Errorf("hint repeated after a text that says it: %q", got)
	}
	if got := errorHint("HTTP 502 from the provider", domain.ErrorServer); got != said+"." {
		t.Errorf("hint = %q, want %q", got, said+".")
	}
	if got := errorHint("something", ""); got != "" {
		t.Errorf("hint without a kind = %q", got)
	}
}
