// Package sandbox runs bash commands for the tools under the Restricted policy (Landlock,
// seccomp, no capabilities, the secrets table hidden, and where the machine allows it a
// read-only mount view with namespaces of its own), under the Project policy (the same,
// with the working tree writable but for its protected files, and the network only through
// the app's proxy), or unrestricted, always below a supervisor process that leaves nothing
// behind (REQ-BED-005, REQ-BED-014). Of ours it imports only hostexec (a program it runs
// outside the walls is never one inside a project it let a command write).
//
// Two ways in, one supervisor code:
//
//   - Run, for the bash tool: the command runs on a long-lived supervisor, the app binary
//     started once with the hidden first argument HelperArg and kept waiting for work (see
//     Prewarm, Shutdown). Each supervisor runs one command at a time, so whatever is left
//     below it when the command ends belongs to that command and is swept. The app hands it
//     the command, the environment (only when it differs from the last it sent that
//     supervisor) and the output pipes over a unix socket; cancelling asks it to kill the
//     tree. This costs one bash start per command instead of a start of the 48 MB GUI
//     binary.
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
//
//   - For a restricted command it does not execute itself a second time. One of its
//     goroutines locks itself to a fresh OS thread and restricts that thread alone: drops its
//     capabilities, sets no_new_privs, applies Landlock (the whole file system read-only
//     except a few devices and the private TMPDIR; TCP bind and connect denied; signals and
//     abstract unix sockets scoped) and a seccomp filter (no unix sockets and no datagram
//     socket pairs; no other socket either outside the mount view's network namespace;
//     ioctl(2) by an allow-list (ioctl.go); no io_uring, mounts, namespaces; System V IPC
//     and POSIX message queues only in the command's own IPC namespace; calls that reach
//     other processes, and without the mount view metadata changes, handed to the
//     supervisor; ptrace left to Landlock, which lets a command trace only its own
//     processes) — all per-thread, none with TSYNC — checks
//     that they hold, and forks the command from that thread, which passes all of it on.
//     The goroutine then ends without unlocking, so the runtime ends the thread. The
//     command first waits, in a gate, until the supervisor has seen that thread gone,
//     because while it exists it shares the command's Landlock domain, and the command
//     could kill the whole supervisor through it (kill(2) takes thread ids) or read its
//     memory. For Run the gate is a few lines bash sources as its $BASH_ENV before the
//     script, so it costs no program start; for Command it is a bash --posix of its own
//     that then execs setpriv and bash.
//
//   - A long-lived supervisor in the mount view restricts that thread ahead: as soon as it
//     has answered a Restricted or Project command, it restricts a new thread for a next
//     command with the same policy, which then only forks (restrictedThread in helper.go; most of a
//     Restricted command's start is the ruleset, the IPC namespace and the seccomp filter's
//     load). The thread serves one fork, from a Landlock domain no process shares before it,
//     and the gate waits for its end as for any other; a command with another policy, or
//     after the view's mounts changed (its rules hold inodes: the temp dir's binding, the
//     caches, in Project mode the tree's binding), ends it unused and restricts a thread of
//     its own. The gate waits for the thread's end on a pidfd of the thread where the
//     kernel has one (Linux 6.9), else by polling. Supervisors of one command restrict none
//     ahead.
//
//   - Every Landlock ABI from 1 (Linux 5.13) is accepted. What an older ABI lacks, another
//     layer covers (truncate(2) before ABI 3 is denied by seccomp; TCP before ABI 4 and
//     abstract sockets before ABI 6 by the socket ban; signals before ABI 6 by the
//     supervisor, below).
//
//   - The supervisor decides what the filter hands it (notify.go, SECCOMP_RET_USER_NOTIF):
//     every call that reaches another process by its pid — signals by pid, process group,
//     pidfd or SIGIO owner where Landlock does not scope them, and at every ABI resource
//     limits (a CPU limit of 0 kills), scheduling and priorities — is let through only when
//     its target is below the supervisor and is not the supervisor; and, without the mount
//     view (metadata.go), changes of modes, timestamps, owners and extended attributes,
//     which it carries out itself on its own copy of the file the caller named when that
//     file is in the temp dir, and refuses elsewhere; it resolves the caller's path without
//     /proc's magic links and makes the change on a thread of its own that holds no
//     capabilities, so it lends the command no privilege (user attributes and ACLs only).
//     Where the supervisor cannot decide (no seccomp listener, Yama's ptrace_scope above 1)
//     the same filter refuses those calls, and Describe says so.
//
//   - The command runs in a session of its own, so none of its processes can join the
//     supervisor's process group; new namespaces are refused (clone(2) with CLONE_NEW*;
//     clone3(2) looks absent, and the C library and Go fall back to clone(2)).
//
//   - The mount view (mountview.go): where unprivileged user namespaces work, a Restricted
//     command's supervisor runs in a user and mount namespace of its own in which every
//     mount is read-only, and the command's temp dir is bound writable while it runs. The
//     kernel then refuses timestamps, modes, ownership and xattrs outside with EROFS, and
//     chmod, git init and git clone work in the temp dir.
//
//   - The secrets table (secrets.go, hide.go): the person's keys and tokens (~/.ssh, ~/.aws,
//     ~/.netrc, browser profiles, …), the app's own directories (keys, every conversation's
//     store, the temp dirs) and what the person adds are hidden from every sandboxed
//     command, MCP server and sub-agent: in the mount view each is covered by an empty
//     read-only tmpfs (a file by /dev/null); without it Landlock's read rule becomes an
//     allow-list of everything else (names in a hidden directory stay listable, contents
//     not). The app opens each command's temp dir and hands the supervisor its descriptor,
//     because the temp dirs live in the hidden data directory.
//
//   - The mount view's other namespaces (namespaces.go): a network namespace per supervisor
//     with only loopback (a command's own test servers work; the person's loopback
//     services, every interface and abstract sockets outside are out of reach); an IPC
//     namespace per command; a private /dev/shm emptied after each command.
//
//   - The person's Go, npm and pip caches are shared copy-on-write in the mount view
//     (caches.go): an overlay per cache, its upper layer in the conversation's temp dir.
//
//   - Project mode (project.go, relay.go): the same walls, plus the working tree writable,
//     its protected files (ProtectedFiles: git's hooks and config, agent and editor
//     settings, shell start-up files) bound read-only and .git pinned so neither can be
//     renamed or replaced, protected files a command creates removed when it ends, and the
//     network only through the app's proxy, relayed by the supervisor from a loopback port
//     of the command's network namespace to the proxy's socket. It needs the mount view.
//
//   - Ubuntu 24.04 and later give a user namespace no capabilities unless an AppArmor
//     profile allows it: the supervisor checks its capabilities before any mount and the
//     app falls back to the path without the view, naming AppArmor; the .deb ships the
//     profile (packaging/apparmor) and installs it only where AppArmor 4 is.
//
// Describe reports which layers are active on this machine and why any is missing, opening
// with what the mode means in plain words; doctor, the mode badge's details and the settings
// all read it.
//
// The app process itself is never restricted. The package never decides a conversation's
// mode; it enforces the policy it is handed, and it fails closed: a Restricted policy where
// Landlock is unavailable is an error, never a silent unrestricted run.
//
// Known limits of the Restricted policy: without the mount view a command run through Run
// gets no parent-death signal of its own, so if something outside kills its supervisor
// outright (the command itself cannot), the command runs on (the app reports the
// supervisor's end as an error; in the view the supervisor is process 1 of the commands' pid
// namespace, and the kernel ends them with it);
// a call the supervisor lets through names its target by number, which another process
// could take only if the target ended and the kernel went round every pid in between;
// pidfd_send_signal(2) with a siginfo or flags, F_SETOWN_EX and FIOSETOWN are refused; in
// the mount view, files of other users show the overflow owner (nobody); without it, the
// supervisor does not carry out the newer *xattrat(2) and file_setattr(2) calls (refused);
// a protected file of Project mode that is a symlink is not bound (the link itself sits in
// a writable directory), nor is a .git in a subdirectory of the tree; without the mount view
// there is no Project mode, no loopback, no private /dev/shm and no shared caches.
package sandbox
