// Package e2e holds the end-to-end proofs that Phoenix Desktop is "never stuck, never loses a
// word" (issue 8). It has no code of its own: its tests drive the real pieces together — the
// headless CLI binary, the actor runtime, the Badger store, the sandboxed tools and the fake
// OpenAI server — and check what a person would notice.
//
//   - Crash chaos (TestCrashChaos): the CLI is SIGKILLed at random moments of scripted
//     multi-tool conversations, over a hundred times on one data directory. After each kill
//     the store must open without error; no committed message may be lost, changed or
//     duplicated; every history must be valid for the LLM APIs; restart recovery must bring
//     every conversation to rest (REQ-BED-007); and no process a tool started may outlive
//     the kill for long (REQ-BED-005). TestKilledRunLeavesNoTempDir checks that the private
//     temp dir a killed run made for its sandboxed commands does not stay behind.
//   - Fault matrix (TestFaultMatrix): every fault the fake server can inject, in every state
//     it can hit (first request, after tools, during the continuation summary, in a
//     sub-agent), must end in the state the spec gives (REQ-BED-006, 008, 020, 024) with the
//     right error kind, in bounded time.
//   - Soak (TestSoak): a thousand turns with tool calls and streamed text through one
//     conversation keep heap and goroutine counts flat and the store compact. It is skipped
//     with -short.
//   - Bad input (TestBadInput*): empty, huge and malformed messages, images and
//     configuration, through the CLI and the runtime API, each get a clear error and leave
//     the conversation usable.
//
// The tests need a Linux machine with bash; they use Landlock where the kernel has it.
// The chaos seed is logged and can be replayed with E2E_CHAOS_SEED.
package e2e
