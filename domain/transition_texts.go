package domain

import (
	"fmt"
	"strings"
)

// Texts of synthetic tool results. Tests and the UI refer to them.
const (
	CancelledResultText   = "Cancelled by user."
	SkippedResultText     = "Skipped: the user cancelled before this tool ran."
	InterruptedResultText = "The app stopped before this tool finished. Nothing is known about its effects; check before repeating it."
	ContextRejectedText   = "Not executed: the context window is nearly full, so the conversation is being wrapped up."
	SubmittedResultText   = "Result submitted."
	FallbackSummary       = "Context limit reached. The continuation summary could not be generated. Please start a new conversation."
	CancelledSummary      = "Continuation cancelled by user."
	InterruptedSummary    = "Context limit reached. The continuation summary was interrupted by a restart. Please start a new conversation."
	// SubmitReminderText is the one reminder a sub-agent gets when it answers in plain text
	// (REQ-BED-008): only submit_result reaches its parent.
	SubmitReminderText = "You ended your turn without calling submit_result, so your parent conversation has received nothing. Call submit_result with your result now (set success to false if you could not complete the task); a plain-text answer is not delivered."
)

// DowngradeStoppedText answers a bash command or MCP call that was running when the person
// switched the conversation down from one mode to a lower one (REQ-BED-016).
func DowngradeStoppedText(from, to Mode) string {
	return fmt.Sprintf("Stopped: the user switched the conversation to %s mode while this ran, so it was killed at once. "+
		"It ran in %s mode until then (%s); check what it did before relying on it. "+
		"If it is still needed, call it again: it will run in %s mode (%s).",
		to.Title(), from.Title(), from.Allows(), to.Title(), to.Allows())
}

// How a mode change came about, for ModeChangeNotice.
const (
	// ChangedByApproval: the person approved the agent's request_mode_upgrade.
	ChangedByApproval = "approved by the user"
	// ChangedBySwitch: the person switched the conversation down themselves.
	ChangedBySwitch = "switched by the user"
)

// ModeChangeNotice is the announcement of a mode change (REQ-BED-017): the one message that
// says which mode the conversation is in now and what it allows, written as a system message
// for the agent and shown as a notice in the window and the export. Nothing else repeats it
// (issue 28: a change was said three times): the answer to request_mode_upgrade is
// ApprovedResultText or DeniedResultText, and a downgrade writes only this.
func ModeChangeNotice(to Mode, how string) string {
	text := fmt.Sprintf("Mode changed to %s (%s): %s.", to.Title(), how, to.Allows())
	if how == ChangedBySwitch {
		text += " Call request_mode_upgrade if you need more access again."
	}
	return text
}

// ModeChangeNoticeForPerson is the window's (and the export's) reading of a stored message:
// a mode notice (ModeChangeNotice, the model's words, kept as stored) in the person's words,
// any other text unchanged. ok reports whether it was a mode notice.
func ModeChangeNoticeForPerson(text string) (person string, ok bool) {
	for _, to := range Modes {
		for how, said := range map[string]string{ChangedByApproval: "you approved it", ChangedBySwitch: "you switched it"} {
			if text != ModeChangeNotice(to, how) {
				continue
			}
			person = fmt.Sprintf("Now in %s mode (%s): %s.", to.Title(), said, to.AllowsForPerson())
			if how == ChangedBySwitch {
				person += " The agent can ask you for more access again."
			}
			return person, true
		}
	}
	return text, false
}

// ApprovedResultText answers an approved request_mode_upgrade; the mode notice after the
// round's results says what the new mode allows.
const ApprovedResultText = "Approved by the user."

// DeniedResultText answers a denied request_mode_upgrade: the mode stays, so this is the only
// message about it.
func DeniedResultText(kept Mode) string {
	return fmt.Sprintf("Denied: the user kept %s mode (%s). Continue within it, or explain what you would change and why so the user can decide.",
		kept.Title(), kept.Allows())
}

// CutCallText answers a tool call whose arguments an early end of the reply cut off. It is
// not run, because incomplete arguments would run something the model did not ask for.
func CutCallText(reason StopReason) string {
	switch reason {
	case StopLength:
		return "Not run: your reply was cut off at the model's output limit while you were writing this call, so its arguments are incomplete. Make the call smaller and call it again: for example write a large file with several patch calls, each adding a part, or shorten the command."
	case StopContentFilter:
		return "Not run: the provider's content filter stopped your reply while you were writing this call, so its arguments are incomplete."
	}
	return fmt.Sprintf("Not run: the provider ended your reply early (finish reason %q) while you were writing this call, so its arguments are incomplete. Call it again.", string(reason))
}

// continuationPrompt is the tool-less request that asks for a summary (REQ-BED-020).
const continuationPrompt = `The conversation context is nearly full. Please provide a brief continuation summary that could seed a new conversation.

Include:
1. Current task status (if any)
2. Key files or concepts discussed
3. Suggested next steps

Keep your response concise.`

// ContinuationPrompt names the tool calls that were requested but not run (REQ-BED-020).
func ContinuationPrompt(rejected []ToolCall) string {
	if len(rejected) == 0 {
		return continuationPrompt
	}
	var b strings.Builder
	b.WriteString(continuationPrompt)
	b.WriteString("\n\nNote: The following tool calls were requested but not executed due to context limits:\n")
	for _, c := range rejected {
		fmt.Fprintf(&b, "- %s\n", c.Name)
	}
	return b.String()
}
