// Package fakellm is an OpenAI-compatible chat completions server on 127.0.0.1, for tests,
// benchmarks and the offline demo model ("Demo (offline)"). It speaks the same protocol as
// a real provider over real HTTP: POST /v1/chat/completions, streamed (server-sent events,
// with stream_options.include_usage honoured) or not, and GET /v1/models (domain.DemoModel,
// or the ids SetModels gives; a chat request is answered whatever model it names). The /v1
// prefix is optional.
//
// # Scripted replies (tests)
//
// Enqueue(replies...) queues Reply values; each chat request takes the first one left. A
// Reply streams text in N chunks and tool calls in fragments, reports usage, thinks first
// (Thinking: reasoning in each field real providers use, signed and encrypted entries
// included, and a DeepSeek-like refusal of reasoning sent back), or misbehaves:
// an error status with an OpenAI-style body (429 with Retry-After, 401, 400, a context-length
// 400, 500), a stall after N chunks (until the client disconnects), a connection cut
// mid-stream, an error event mid-stream, a missing finish reason, an empty reply, malformed
// tool-call JSON, a slow first byte, slow chunks, SSE keep-alive comments before the first
// chunk. Requests() records every request (decoded and raw; the demo server of StartDemo records none); Disconnected() and
// DisconnectCount() tell when a client abandoned a reply.
//
// # The predictable model (demo and end-to-end tests)
//
// When the queue is empty, the server answers with a deterministic model that reads the
// LAST user message as a small program, one step per line. Messages the client made itself
// (starting "System notice: " or "Images returned by tool call ") are not user messages for
// this purpose. The model performs step k, where k is the number of assistant messages after
// that user message, so every turn of a multi-turn flow is determined by the history alone.
// Lines that are not steps are prose and are ignored. In arguments, \n, \t and \\ stand for
// a newline, a tab and a backslash (except in bash:, which passes the command as written).
//
// Steps (each answers one request):
//
//	echo: TEXT                   answer with TEXT
//	bash: COMMAND                call bash {"command": COMMAND}
//	patch: PATH <<< TEXT         call patch, overwriting PATH with TEXT
//	patch: PATH >>> TEXT         call patch, appending TEXT to PATH
//	patch: PATH ::: OLD ==> NEW  call patch, replacing OLD by NEW in PATH
//	think: TEXT                  call think {"thoughts": TEXT}
//	search: WORD WORD ...        call keyword_search {"query": "WORD WORD", "search_terms": [WORD, WORD]}
//	image: PATH                  call read_image {"path": PATH}
//	fetch: URL                   call fetch_url {"url": URL}
//	upgrade: REASON              call request_mode_upgrade {"reason": REASON}
//	agents: TASK | TASK ...      call spawn_agents {"tasks": [TASK, TASK]}
//	todo: [x] A | [>] B | [ ] C  call todo with tasks A done, B in progress, C pending (no
//	                             mark: pending; nothing: an empty list; {JSON}: those
//	                             arguments as written)
//	mcp: SERVER TOOL {JSON}      call the MCP tool mcp__SERVER__TOOL with the JSON arguments
//	lsp: TOOL PATH:LINE:COL      call the language tool TOOL (definition, references, hover)
//	                             at that place; "lsp: symbols PATH", "lsp: symbols #QUERY",
//	                             "lsp: diagnostics [PATH]"; "lsp: TOOL {JSON}" sends the
//	                             arguments as written
//
// Several steps on one line separated by " ;; " make one answer with several tool calls
// (and the text of any echo: among them), e.g. "bash: ls ;; think: then what".
//
// Modifiers apply to the next step, or to the final answer when they come last:
//
//	delay: MS          wait MS milliseconds before answering
//	fail: STATUS       answer with that HTTP error (429 comes with Retry-After: 1); only the
//	                   first attempt fails, so the core's retry goes through. "fail: 500 x3"
//	                   fails three attempts, "fail: 500 always" every one, "fail: context"
//	                   is a 400 context_length_exceeded. Attempts are counted per exact
//	                   request body.
//	usage: N           report N total tokens on this answer and every later one, also after
//	                   later user messages (to reach the 80% and 90% thresholds of
//	                   domain.DemoModel's 100000-token window)
//	reason: TEXT       think TEXT before answering: streamed word by word as
//	                   reasoning_content, as thinking models do
//	stop: REASON       end this answer with finish reason REASON instead of the normal one
//	                   ("length", "content_filter", anything); with "length", the last tool
//	                   call's arguments are cut in half, as a real cut at the output limit
//	                   leaves them
//	window: N          from this answer on (also after later user messages, like usage:),
//	                   refuse every request whose estimated prompt exceeds N tokens with the
//	                   400 context_length_exceeded a provider with an N-token window sends
//
// The predictable model honours the request's max_tokens (or max_completion_tokens), counted
// at four characters a token as below: a longer answer is cut there and ends with finish
// reason "length" (the text first, then the tool calls in order, the one that crosses the
// limit cut inside its arguments), as a provider's would. Scripted replies (Enqueue) are sent
// exactly as written. ChatRequest.OutputLimit tells which limit a request sent.
//
// When every step is done:
//
//   - after tool results, the answer is "Done. NAME: FIRST LINE OF RESULT" for each result
//     of the last round, joined by "; " (e.g. "Done. bash: file1.txt"), followed by a
//     description of any images the results returned;
//   - a user message with images and no steps is answered with a description of the images:
//     "I see 2 images: 1) image/png 800x600, 12345 bytes; 2) ...";
//   - anything else gets a short help text that quotes the message's first line.
//
// A sub-agent request (its tools include submit_result) follows its task's steps the same
// way and then calls submit_result {"result": "Finished the task \"TASK\". NAME: FIRST LINE
// OF LAST RESULT", "success": true}; a task with no steps submits at once. An echo: step in a
// task answers with text only, which ends the sub-agent without a result.
//
// A tool-less request whose last user message mentions "summary" (the continuation request,
// REQ-BED-020) is answered with a short summary of the conversation.
//
// Tool call ids are demo_R_C (answer R of the conversation, call C), unique in a
// conversation. Usage, unless set with usage:, is estimated at four characters a token of
// the request body, images counted as 1000 tokens each; its cached_tokens are the part of
// the body shared, from its start, with one of the last 16 requests (cache.go), as a
// provider that caches prompt prefixes by itself reports them.
//
// The package must never import another package of this module except domain, and never
// listen anywhere but 127.0.0.1.
package fakellm
