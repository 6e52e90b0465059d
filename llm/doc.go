// Package llm is the adapter between the pure core and any OpenAI-compatible chat completions
// endpoint (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM, LM Studio, Anthropic's compatible
// endpoint), built on github.com/sashabaranov/go-openai.
//
// One call, Client.Stream, turns a conversation's stored history into a request, streams the
// answer (text and a thinking model's reasoning as deltas of their own kinds, as they arrive)
// and returns one final Response: text, reasoning, tool calls assembled by index, usage, and
// the finish reason with the core's reading of it (domain.StopReason: cut off at the output
// limit, filtered, or ended early otherwise). The request carries the model's output limit as
// max_tokens or max_completion_tokens, as the model table says. What of a stored reasoning
// goes back to the provider is decided per provider by one table (reasoning.go). Every
// failure comes back as an *Error whose
// Kind is one of the core's domain.ErrorKind values, with Retryable and RetryAfter filled in
// (REQ-BED-006), or as the context's own error when the caller cancelled (REQ-BED-005). A
// partial answer is never returned as a success.
//
// The history conversion here is the "history repair before every request": whatever the
// store holds, the provider sees a valid chain (every tool call answered, tool messages right
// after their assistant message, images where the API accepts them).
//
// The package must never log or print the API key, never retry on its own (retries belong to
// the core, which persists and shows them), and never import a package of this module other
// than domain and imaging.
package llm
