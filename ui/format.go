package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/domain"
)

// This file holds the pure text of the window: what the status bar says, how tools, times and
// token counts are written. Keeping it free of widgets lets table tests pin every wording.

// statusText says in words what the agent is doing (the status bar). since is when the
// current state began; now is the clock.
func statusText(c domain.Conversation, since, now time.Time) string {
	switch st := c.State.(type) {
	case nil, domain.Idle:
		return "Ready"
	case domain.LLMRequesting:
		if st.RetryPending {
			left := since.Add(st.RetryDelay).Sub(now)
			return fmt.Sprintf("Retrying (%d of %d) in %s", st.Attempt, domain.MaxAttempts, seconds(left))
		}
		if st.Attempt > 1 {
			return fmt.Sprintf("Thinking… (attempt %d of %d)", st.Attempt, domain.MaxAttempts)
		}
		return "Thinking…"
	case domain.ToolExecuting:
		label := "Running " + st.Current.Name
		if arg := toolKeyArg(st.Current); arg != "" {
			label += ": `" + oneLine(arg, 80) + "`"
		}
		return label + " " + clock(now.Sub(since))
	case domain.AwaitingModeApproval:
		return "Waiting for your approval"
	case domain.AwaitingSubAgents:
		done := len(st.Outcomes) - st.Pending()
		return fmt.Sprintf("Waiting for sub-agents (%d of %d done) %s", done, len(st.Outcomes), clock(now.Sub(since)))
	case domain.AwaitingContinuation:
		if st.RetryPending {
			left := since.Add(st.RetryDelay).Sub(now)
			return fmt.Sprintf("Writing the continuation summary: retrying (%d of %d) in %s", st.Attempt, domain.MaxAttempts, seconds(left))
		}
		return "Writing the continuation summary…"
	case domain.ContextExhausted:
		return "Context exhausted"
	case domain.Error:
		return "Error: " + strings.TrimSuffix(oneLine(st.Message, 120), ".") + " — " + errorAdvice(st.ErrKind)
	case domain.Completed:
		if st.Success {
			return "Finished"
		}
		return "Finished without success"
	case domain.Failed:
		return "Failed: " + oneLine(st.Message, 120)
	}
	return string(c.State.Kind())
}

// errorAdvice is the short "what to do" after an error in the status bar.
func errorAdvice(k domain.ErrorKind) string {
	switch k {
	case domain.ErrorAuth:
		return "check the API key in Settings, then send a message to retry"
	case domain.ErrorInvalidRequest:
		return "check the model and Settings, then send a message to retry"
	case domain.ErrorContextLength:
		return "wrap up and continue in a new conversation"
	}
	return "send a message to retry"
}

// seconds writes a countdown as whole seconds, never below 0 s.
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

// clock writes an elapsed time as m:ss (or h:mm:ss).
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// oneLine collapses whitespace runs (newlines included) and cuts to max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// toolKeyArg is the argument that identifies a tool call at a glance: the full command for
// bash, the path for patch and read_image, the query for keyword_search.
func toolKeyArg(c domain.ToolCall) string {
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(c.Arguments), &args) != nil {
		return oneLine(c.Arguments, 200)
	}
	str := func(key string) string {
		var s string
		if raw, ok := args[key]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	switch c.Name {
	case domain.ToolBash:
		return str("command")
	case domain.ToolPatch:
		var patches []json.RawMessage
		_ = json.Unmarshal(args["patches"], &patches)
		p := str("path")
		if len(patches) > 1 {
			p += fmt.Sprintf(" (%d changes)", len(patches))
		}
		return p
	case domain.ToolReadImage:
		return str("path")
	case domain.ToolKeywordSearch:
		return str("query")
	case domain.ToolThink:
		return oneLine(str("thoughts"), 120)
	case domain.ToolSubmitResult:
		return oneLine(str("result"), 120)
	case domain.ToolRequestModeUpgrade:
		return oneLine(str("reason"), 120)
	case domain.ToolSpawnAgents:
		var tasks []string
		_ = json.Unmarshal(args["tasks"], &tasks)
		return fmt.Sprintf("%d tasks", len(tasks))
	}
	return oneLine(c.Arguments, 120)
}

// spawnTasks lists the tasks of a spawn_agents call, for the card before outcomes are known.
func spawnTasks(c domain.ToolCall) []string {
	var args struct {
		Tasks []string `json:"tasks"`
	}
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	return args.Tasks
}

// tokens writes a token count compactly: 950, 12.3k, 1.05M.
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 100_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
}

// meterText is the context meter's caption (REQ-BED-012).
func meterText(u domain.Usage, window int) string {
	return fmt.Sprintf("%s / %s tokens (%d%%)", tokens(u.Total()), tokens(window), domain.UsagePercent(u, window))
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

// convTitle is what the sidebar and window title show for a conversation.
func convTitle(title, cwd string) string {
	if t := strings.TrimSpace(title); t != "" {
		return oneLine(t, 80)
	}
	if cwd != "" {
		return filepath.Base(cwd)
	}
	return "New conversation"
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
	return "Could not send: " + err.Error()
}

// cutOffText says why a reply stopped early; for the output limit it names the limit, so the
// person knows what was hit (issue 13).
func cutOffText(reason domain.StopReason, limit int) string {
	if reason == domain.StopLength && limit > 0 {
		return fmt.Sprintf("%s (%s tokens). Continue asks it to go on.", reason.Describe(), tokens(limit))
	}
	return reason.Describe() + "."
}
