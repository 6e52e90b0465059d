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
