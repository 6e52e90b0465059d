// Package sandbox runs bash commands for the tools, either under the Restricted policy
// (Landlock, seccomp, no capabilities) or unrestricted, always through a per-run supervisor
// process that leaves nothing behind (REQ-BED-005, REQ-BED-014).
//
// The app binary is the helper: [Command] re-executes os.Executable() with the hidden first
// argument [HelperArg], and [MaybeRunHelper], called first thing in main (and in TestMain of
// every test package that runs commands), turns that process into the supervisor. The
// supervisor makes itself a child subreaper, restricts itself when the policy says so, runs
// `bash -c script` as its child in a process group of its own, and on SIGTERM, on the death of
// the app, or when bash exits, SIGKILLs every descendant it still has — including those that
// left the group with setsid — and reaps them before it exits with bash's status.
//
// The app process itself is never restricted: restrictions are applied only in the helper,
// after the re-exec. The package never decides a conversation's mode; it only enforces the
// policy it is handed, and it fails closed: a Restricted policy where Landlock is unavailable
// is an error, never a silent unrestricted run.
package sandbox
