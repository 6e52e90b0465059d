// Package custom finds and reads what people write to make a coding agent theirs, in the
// shapes other agents already use, so that files written for them work here unchanged:
//
//   - Commands: Markdown prompts run as "/name args" (.phoenix/commands, Claude Code's
//     .claude/commands, opencode's .opencode/command(s), Gemini CLI's TOML .gemini/commands,
//     and the same folders in the person's directories), up to MaxFileBytes each. Front
//     matter gives a description, an argument hint and a model (for the command's turn
//     only); $ARGUMENTS, $1…$9 and {{args}} are substituted.
//   - Skills: folders holding a SKILL.md whose front matter names and describes them
//     (.phoenix/skills, .claude/skills, .agents/skills and the person's). Only the names and
//     descriptions go into the system prompt, capped; the model reads the rest with its tools.
//   - Hooks: the event → matcher → command configuration Claude Code, Codex and crush share
//     ({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", ...}]}]}}).
//     A hook gets the event as JSON on stdin and answers with its exit status (2 refuses) and
//     optional JSON on stdout; it has a timeout. Every hook runs through a Runner the caller
//     gives (the sandbox, under the conversation's mode): the person's own (hooks.json in the
//     configuration directory), and a project's (.phoenix/hooks.json, the "hooks" of
//     .claude/settings.json, .codex/hooks.json) only once the person approved that exact
//     configuration. A person's hook marked "runAsMe" runs as the person, outside the walls,
//     and only while nothing it runs (Uses) changed since before the agent's first write
//     (Baseline); a project's file cannot mark its hooks so. A project on another machine has
//     its hook files read (ReadProjectHooks) and run (RunProject) there by Phoenix's agent,
//     its approval recorded under the host and the folder (ApprovalKey) and judged here
//     (Judge); the person's hooks run here (Runners.Host, OnHost).
//
// Not supported, on purpose or not yet: Claude Code's "!`cmd`" and "@file" in command bodies
// (sent as written; the model can run or read them with its tools), a command's allowed-tools
// (below), "prompt" hooks, and a Stop hook that makes the agent go on (it is told
// that the turn ended, nothing more).
//
// A command's allowed-tools has no equivalent here: what a turn may do is the conversation's
// mode, which no file raises; a command that needs more asks the person for it, as any turn
// does.
//
// It reads files and runs the person's runs-as-me hook programs, nothing else: of ours it
// imports only
// instructions (which directories belong to the project: one rule for both), so the sandbox
// reaches it only through the Runner interface. A file it cannot use is
// skipped with a notice that names it and says why; reading never fails as a whole.
package custom
