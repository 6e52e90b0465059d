package fakellm

// rejectReasoningMessage is what DeepSeek answers to reasoning_content in a request.
const rejectReasoningMessage = "The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic."

// carriesReasoningContent reports whether a message of the request has reasoning_content.
func carriesReasoningContent(chat *ChatRequest) bool {
	for _, m := range chat.Messages {
		if m.ReasoningContent != nil {
			return true
		}
	}
	return false
}

// thinkingDeltas renders a scripted reasoning as the deltas of its stream chunks.
func thinkingDeltas(th *Thinking) []deltaJSON {
	if th == nil {
		return nil
	}
	var out []deltaJSON
	for _, piece := range split(th.Text, max(1, th.Chunks)) {
		var d deltaJSON
		if th.Content {
			d.ReasoningContent = &piece
		}
		if th.Plain {
			d.Reasoning = &piece
		}
		if th.Details {
			e := ReasoningEntry{Type: "reasoning.text", Text: piece, Format: th.Format}
			if th.Summary {
				e = ReasoningEntry{Type: "reasoning.summary", Summary: piece, Format: th.Format}
			}
			d.ReasoningDetails = []ReasoningEntry{e}
		}
		out = append(out, d)
	}
	if th.Signature != "" {
		out = append(out, deltaJSON{ReasoningFields: ReasoningFields{ReasoningDetails: []ReasoningEntry{{Type: "reasoning.text", Signature: th.Signature, Format: th.Format}}}})
	}
	if th.Encrypted != "" {
		out = append(out, deltaJSON{ReasoningFields: ReasoningFields{ReasoningDetails: []ReasoningEntry{{Type: "reasoning.encrypted", Data: th.Encrypted, ID: th.EncryptedID, Format: th.Format}}}})
	}
	return out
}
