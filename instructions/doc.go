// Package instructions reads a project's instructions for the agent: AGENTS.md (or, where a
// directory has none, CLAUDE.md) in the working directory and each parent up to the
// repository root, plus the person's own file in the configuration directory. It turns them
// into the section of the system prompt that carries them, capped in size.
//
// It reads files and nothing else: it imports nothing of ours, starts no goroutines and keeps
// no state. A file it cannot use (unreadable, not UTF-8, not a regular file) is skipped with
// a notice; reading instructions never fails.
package instructions
