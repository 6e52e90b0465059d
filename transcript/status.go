package transcript

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/domain"
)

// StateWord names a state kind in a few lower-case words: the sidebar's accessibility text
// and tooltip, and the STATE column of `phoenix-desktop list`.
func StateWord(k domain.StateKind) string {
	switch k {
	case domain.StateLLMRequesting:
		return "thinking"
	case domain.StateToolExecuting:
		return "running a tool"
	case domain.StateAwaitingModeApproval:
		return "waiting for approval"
	case domain.StateAwaitingSubAgents:
		return "waiting for sub-agents"
	case domain.StateAwaitingContinuation:
		return "writing a summary"
	case domain.StateContextExhausted:
		return "context exhausted"
	case domain.StateError:
		return "error"
	case domain.StateCompleted:
		return "finished"
	case domain.StateFailed:
		return "failed"
	}
	return "ready"
}

// StoppedWord is StateWord for a conversation nothing runs, as `phoenix-desktop list` sees
// the store it holds: a working state there is a turn the app stopped in whose recovery could
// not be written yet (the disk is full), so it is "interrupted", never "thinking".
func StoppedWord(k domain.StateKind) string {
	switch k {
	case domain.StateLLMRequesting, domain.StateToolExecuting, domain.StateAwaitingModeApproval,
		domain.StateAwaitingSubAgents, domain.StateAwaitingContinuation:
		return "interrupted"
	}
	return StateWord(k)
}

// Status says in words what the agent is doing: the window's status bar and the command
// line's progress lines. since is when the current state began and now is the clock; with a
// zero now (the command line, which prints each state once) the running times are left out
// and a retry's countdown is its whole delay.
func Status(c domain.Conversation, since, now time.Time) string {
	elapsed := func() string {
		if now.IsZero() {
			return ""
		}
		return " " + Clock(now.Sub(since))
	}
	countdown := func(delay time.Duration) string {
		if now.IsZero() {
			return Seconds(delay)
		}
		return Seconds(since.Add(delay).Sub(now))
	}
	switch st := c.State.(type) {
	case nil, domain.Idle:
		return "Ready"
	case domain.LLMRequesting:
		if st.RetryPending {
			return fmt.Sprintf("Retrying (%d of %d) in %s", st.Attempt, domain.MaxAttempts, countdown(st.RetryDelay))
		}
		if st.Attempt > 1 {
			return fmt.Sprintf("Thinking… (attempt %d of %d)", st.Attempt, domain.MaxAttempts)
		}
		return "Thinking…"
	case domain.ToolExecuting:
		label := "Running " + st.Current.Name
		if arg := ToolCallSummary(st.Current); arg != "" {
			label += ": `" + OneLine(arg, 80) + "`"
		}
		return label + elapsed()
	case domain.AwaitingModeApproval:
		return "Waiting for your approval"
	case domain.AwaitingSubAgents:
		done := len(st.Outcomes) - st.Pending()
		return fmt.Sprintf("Waiting for sub-agents (%d of %d done)%s", done, len(st.Outcomes), elapsed())
	case domain.AwaitingContinuation:
		if st.RetryPending {
			return fmt.Sprintf("Writing the continuation summary: retrying (%d of %d) in %s", st.Attempt, domain.MaxAttempts, countdown(st.RetryDelay))
		}
		return "Writing the continuation summary…"
	case domain.ContextExhausted:
		return "Context exhausted"
	case domain.Error:
		return "Error: " + strings.TrimSuffix(OneLine(st.Message, 120), ".") + " — " + ErrorAdvice(st.ErrKind)
	case domain.Completed:
		if st.Success {
			return "Finished"
		}
		return "Finished without success"
	case domain.Failed:
		return "Failed: " + OneLine(st.Message, 120)
	}
	return string(c.State.Kind())
}

// ErrorAdvice is the short "what to do" after an error.
func ErrorAdvice(k domain.ErrorKind) string {
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

// Seconds writes a countdown as whole seconds, never below 0 s.
func Seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

// Clock writes an elapsed time as m:ss (or h:mm:ss).
func Clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// OneLine collapses whitespace runs (newlines included) and cuts to max runes with an
// ellipsis.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// Title is what the sidebar, the window title and the export call a conversation: its title,
// else its working directory's name. A title is one line: its line breaks and tabs, and the
// escaped ones a model sometimes writes ("Fix\\nthe parser"), read as spaces.
func Title(title, cwd string) string {
	if t := strings.TrimSpace(titleEscapes.Replace(title)); t != "" {
		return OneLine(t, 80)
	}
	if cwd != "" {
		return filepath.Base(cwd)
	}
	return "New conversation"
}

// titleEscapes are the escaped line breaks and tabs a title may hold as text.
var titleEscapes = strings.NewReplacer(`\r\n`, " ", `\n`, " ", `\r`, " ", `\t`, " ")

// Progress is a tool's progress report (an MCP server's) as the status line appends it: " · 3 of 120",
// " · 40%" or " · 3" when the total is unknown, then the server's message.
func Progress(progress, total float64, message string) string {
	var s string
	switch {
	case total > 0 && total <= 1:
		s = fmt.Sprintf(" · %.0f%%", 100*progress/total)
	case total > 0:
		s = fmt.Sprintf(" · %g of %g", progress, total)
	default:
		s = fmt.Sprintf(" · %g", progress)
	}
	if m := OneLine(message, 60); m != "" {
		s += ": " + m
	}
	return s
}

// Count is "1 file", "3 files": a number with its noun as a person writes it, never
// "file(s)". The window and the CLI say counts through it.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
