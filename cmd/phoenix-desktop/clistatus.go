package main

import (
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// cliStatus is the line chat prints when a conversation's state changes. While the model is
// asked, the terminal cannot yet know whether the reply will think (the window shows the
// thinking when it comes), so it says it waits instead of "Thinking…" (issue 36).
func cliStatus(c domain.Conversation) string {
	if st, ok := c.State.(domain.LLMRequesting); ok && !st.RetryPending {
		if st.Attempt > 1 {
			return fmt.Sprintf("Waiting for the model's reply (attempt %d of %d)…", st.Attempt, domain.MaxAttempts)
		}
		return "Waiting for the model's reply…"
	}
	return transcript.Status(c, time.Time{}, time.Time{})
}
