package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// This file holds the pure text of the window: what the status bar says, how tools, times and
// token counts are written. Keeping it free of widgets lets table tests pin every wording.

// meterText is the context meter's caption (REQ-BED-012).
func meterText(u domain.Usage, window int) string {
	return fmt.Sprintf("%s / %s tokens (%d%%)", transcript.Tokens(u.Total()), transcript.Tokens(window), domain.UsagePercent(u, window))
}

// readOnlyText is the placeholder of a wrapped-up conversation's composer (REQ-BED-021): why
// it is read-only — a full window, or a wrap-up asked for before that — and what to do.
func readOnlyText(c domain.Conversation) string {
	why := "its context window is full"
	if !domain.AtContinuation(c.Usage, c.Window()) {
		why = "it was wrapped up"
	}
	return "This conversation is read-only: " + why + ". Use “Continue in new conversation” above."
}

// errorHint is what an error card adds after the error's own text: what its kind means and
// what to do, unless the text already says it (the card read the same sentence twice).
func errorHint(text string, kind domain.ErrorKind) string {
	if kind == "" {
		return ""
	}
	hint := kind.Describe()
	if strings.Contains(strings.ToLower(text), strings.ToLower(strings.TrimSuffix(hint, "."))) {
		return ""
	}
	return hint + "."
}

// agentsTitle is the title of a spawn_agents card: how many sub-agents finished, and how
// many were stopped (by Stop) rather than finished — stopping three used to read "3 of 3
// finished".
func agentsTitle(outs []domain.SubAgentOutcome) string {
	finished, stopped := 0, 0
	for _, o := range outs {
		switch {
		case o.Status == domain.SubAgentPending:
		case o.Kind == domain.ErrorCancelled:
			stopped++
		default:
			finished++
		}
	}
	switch {
	case stopped == 0:
		return fmt.Sprintf("Sub-agents: %d of %d finished", finished, len(outs))
	case finished == 0 && stopped == len(outs):
		return fmt.Sprintf("Sub-agents: all %d stopped", stopped)
	}
	return fmt.Sprintf("Sub-agents: %d of %d finished, %d stopped", finished, len(outs), stopped)
}

// listTime writes a sidebar time: the clock today, the weekday this week, else the date.
func listTime(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.Local(), now.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return t.Format("15:04")
	case now.Sub(t) < 6*24*time.Hour && t.Before(now):
		return t.Format("Mon")
	case y1 == y2:
		return t.Format("2 Jan")
	}
	return t.Format("2 Jan 2006")
}

// sendErrorText explains a rejected send in words (REQ-BED-002, REQ-BED-021).
func sendErrorText(err error) string {
	switch {
	case errors.Is(err, domain.ErrAgentBusy):
		return "The agent is busy: wait for it to finish, or press Stop (Esc)."
	case errors.Is(err, domain.ErrContextExhausted):
		return "This conversation's context is full: continue in a new conversation."
	case errors.Is(err, domain.ErrEmptyMessage):
		return "Type a message or attach an image first."
	case errors.Is(err, domain.ErrFinished):
		return "This sub-agent has finished."
	}
	return failureText("send", err)
}

// failureText says what could not be done and why. A full disk is said in the store's own
// short words (the banner's), not as the chain of what was being saved: the banner above says
// the rest.
func failureText(what string, err error) string {
	var full interface{ Banner() string }
	if errors.As(err, &full) {
		return "Could not " + what + ": " + full.Banner() + "."
	}
	return "Could not " + what + ": " + strings.TrimSuffix(err.Error(), ".") + "."
}

// cutOffText says why a reply stopped early; for the output limit it names the limit, so the
// person knows what was hit (issue 13).
func cutOffText(reason domain.StopReason, limit int) string {
	if reason == domain.StopLength && limit > 0 {
		return fmt.Sprintf("%s (%s tokens). Continue asks it to go on.", reason.Describe(), transcript.Tokens(limit))
	}
	return reason.Describe() + "."
}
