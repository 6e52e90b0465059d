// Package sandbox runs bash commands for the tools, either under the Restricted policy
// (Landlock, seccomp, no capabilities, and where the machine allows it a read-only mount
// view) or unrestricted, always below a supervisor process that leaves nothing behind
// (REQ-BED-005, REQ-BED-014). It imports nothing of ours.
//
// Two ways in, one supervisor code:
//
//   - Run, for the bash tool: the command runs on a long-lived supervisor, the app binary
//     started once with the hidden first argument HelperArg and kept waiting for work (see
//     Prewarm, Shutdown). Each supervisor runs one command at a time, so whatever is left
//     below it when the command ends belongs to that command and is swept. The app hands it
//     the command, the environment and the output pipes over a unix socket; cancelling
//     asks it to kill the tree. This costs one bash start per command instead of a start of
//     the 48 MB GUI binary.
//   - Command, for long-lived programs (MCP servers), returns an *exec.Cmd whose process is
//     a supervisor of its own for one command: the caller may set Stdin, Stdout and Stderr
//     (pipes reach the program), the program may live as long as it likes, and cancelling
//     the context or the app's death kills its whole tree. A Restricted bash started this
//     way also gets a parent-death signal through setpriv(1) where one has --pdeathsig.
//
// MaybeRunHelper, called first thing in main (and in TestMain of every test package that
// runs commands), turns a process started with HelperArg into a supervisor:
//
//   - It makes itself a child subreaper and starts the command in a process group of its
//     own. On a stop request, on the app's death (SIGTERM through its parent-death signal,
//     or its socket closing), or when bash exits, it SIGKILLs the group and then every
//     process below it — including those that left the group with setsid, which the
//     subreaper gets back as orphans — and reaps them. It is never restricted itself, so
//     the sandboxed command can neither signal nor trace it.
//   - For a restricted command it does not execute itself a second time. One of its
//     goroutines locks itself to a fresh OS thread and restricts that thread alone: drops its
//     capabilities, sets no_new_privs, applies Landlock (the whole file system read-only
//     except a few devices and the private TMPDIR; TCP bind and connect denied; signals and
//     abstract unix sockets scoped) and a seccomp filter (no sockets at all, so no UDP,
//     Multipath TCP, raw or unix sockets; no io_uring, ptrace, mounts, namespaces; without
//     the mount view also no chmod/chown/xattrs) — all per-thread, none with TSYNC — checks
//     that they hold, and forks the command from that thread, which passes all of it on.
//     The goroutine then ends without unlocking, so the runtime ends the thread. The
//     command first waits, in a gate, until the supervisor has seen that thread gone,
//     because while it exists it shares the command's Landlock domain, and the command
//     could kill the whole supervisor through it (kill(2) takes thread ids) or read its
//     memory. For Run the gate is a few lines bash sources as its $BASH_ENV before the
//     script, so it costs no program start; for Command it is a bash --posix of its own
//     that then execs setpriv and bash.
//   - Every Landlock ABI from 1 (Linux 5.13) is accepted. What an older ABI lacks, another
//     layer covers where it can (truncate(2) before ABI 3 is denied by seccomp; TCP before
//     ABI 4 and abstract sockets before ABI 6 by the socket ban); what stays open is listed
//     by Describe (signals before ABI 6).
//   - The mount view (mountview.go): where unprivileged user namespaces work, a Restricted
//     command's supervisor runs in a user and mount namespace of its own in which every
//     mount is read-only, and the command's temp dir is bound writable while it runs. The
//     kernel then refuses timestamps, modes, ownership and xattrs outside with EROFS, and
//     chmod, git init and git clone work in the temp dir.
//
// Describe reports which layers are active on this machine and why any is missing; doctor,
// the mode badge's details and the settings all read it.
//
// The app process itself is never restricted. The package never decides a conversation's
// mode; it enforces the policy it is handed, and it fails closed: a Restricted policy where
// Landlock is unavailable is an error, never a silent unrestricted run.
//
// Known limits of the Restricted policy: without the mount view (user namespaces switched
// off), file timestamps of files the user owns can still be changed (utimensat is left open
// because touch(1) needs it in the temp dir) and chmod is denied in the temp dir too, so `git
// init` and `git clone` there fail; before Landlock ABI 6 a command can signal the person's
// other processes, its supervisor included (killing the supervisor lets setsid escapees
// outlive the command); a command run through Run gets no parent-death signal of its own, so
// if something outside kills its supervisor outright, the command runs on (the app reports
// the supervisor's end as an error); in the mount view, files of other users show the
// overflow owner (nobody); the conversation's Go build cache starts empty, so its first `go
// build` compiles the standard library.
package sandbox
