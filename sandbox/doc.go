// Package sandbox runs bash commands for the tools, either under the Restricted policy
// (Landlock, seccomp, no capabilities) or unrestricted, always through a per-run supervisor
// process that leaves nothing behind (REQ-BED-005, REQ-BED-014).
//
// The app binary is the helper: Command re-executes os.Executable() with the hidden first
// argument HelperArg, and MaybeRunHelper, called first thing in main (and in TestMain of
// every test package that runs commands), turns that process into the supervisor of one
// command:
//
//   - It makes itself a child subreaper and starts the command in a process group of its
//     own. On SIGTERM (the app cancelling), on the app's death, or when bash exits, it
//     SIGKILLs the group and then every process below it — including those that left the
//     group with setsid, which the subreaper gets back as orphans — reaps them, and exits with
//     bash's status. It is never restricted itself, so the sandboxed command can neither
//     signal nor trace it.
//   - For a restricted command it does not execute itself a second time. One of its
//     goroutines locks itself to a fresh OS thread and restricts that thread alone: drops its
//     capabilities, sets no_new_privs, applies Landlock (the whole file system read-only
//     except a few devices and the private TMPDIR; TCP bind and connect denied; signals and
//     abstract unix sockets scoped) and a seccomp filter (no sockets at all, so no UDP,
//     Multipath TCP, raw or unix sockets; no io_uring, ptrace, mounts, namespaces,
//     chmod/chown/xattrs) — all per-thread, none with TSYNC — checks that they hold, and
//     forks the command from that thread, which passes all of it on. The goroutine then ends
//     without unlocking, so the runtime ends the thread. The command first runs a small gate
//     that waits until the supervisor has seen that thread gone, because while it exists it
//     shares the command's Landlock domain, and the command could kill the whole supervisor
//     through it (kill(2) takes thread ids) or read its memory. Only then does the gate exec
//     bash (through setpriv(1), where it can set a parent-death signal).
//
// The app process itself is never restricted. The package never decides a conversation's
// mode; it enforces the policy it is handed, and it fails closed: a Restricted policy where
// Landlock is unavailable is an error, never a silent unrestricted run.
//
// Known limits of the Restricted policy: file timestamps of files the user owns can still be
// changed (utimensat is left open because touch(1) needs it in the temp dir); the temp dir
// does not allow chmod, so `git init` there fails; before Landlock ABI 6 the sandbox could
// signal processes outside it; without a setpriv(1) that has --pdeathsig (util-linux 2.33),
// a restricted bash outlives a supervisor that is killed outright.
package sandbox
