package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/startpages"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Exit codes of chat, beyond 0 (at rest) and 1 (an error).
const (
	exitExhausted   = 3
	exitTimeout     = 124
	exitInterrupted = 130
	exitTerminated  = 143
	// exitDiskFull (EX_TEMPFAIL of sysexits.h) ends any command a full disk stopped: the
	// data is intact and running it again once there is room works (issue 33).
	exitDiskFull = 75
)

// runChat runs one user turn to rest and prints the transcript of that turn. Exit codes: 0 at
// Idle; 1 in Error (the error is printed); 3 when the context is exhausted; 130 when Ctrl+C
// cancelled the turn (like the Stop button; a second Ctrl+C exits at once); 124 when
// --timeout cancelled it; 143 on SIGTERM; 75 when a full disk stopped it (nothing was lost:
// run it again once there is room). SIGUSR1 is "Switch to Restricted" (REQ-BED-016): the
// mode changes at once and a command running with write access is stopped. A Project-mode
// command's first connection to a new host is allowed once when the host is on --allow-hosts
// (or --hosts-file), and denied otherwise.
func runChat(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common     commonFlags
		cwd        string
		remoteHost string
		unrestrict bool
		modeFlag   string
		approve    upgradeAnswer
		deny       bool
		allowHosts hostList
		hostsFile  string
		jsonOut    bool
		reasoning  bool
		continueID string
		noInstr    bool
		inWorktree bool
		wrapUp     bool
		retry      bool
		timeout    time.Duration
		images     stringList
		queued     stringList
		elicit     string
		mcpPrompt  string
	)
	common.register(fs, true)
	fs.StringVar(&cwd, "cwd", ".", "working directory of a new conversation")
	fs.StringVar(&remoteHost, "remote", "", "start the new conversation on this SSH host (user@host or a Host of ~/.ssh/config); --cwd is then the absolute path there")
	fs.BoolVar(&unrestrict, "unrestricted", false, "start the new conversation without the sandbox (the same as --mode=unrestricted)")
	fs.StringVar(&modeFlag, "mode", "", "mode of a new conversation: restricted (the default), project or unrestricted")
	fs.Var(&approve, "approve-upgrades", "approve every request_mode_upgrade with project (edits in this project) or full (everything; also a bare --approve-upgrades)")
	fs.Var(&allowHosts, "allow-hosts", "hosts a Project-mode command may reach when it asks, comma-separated (*.example.org: its subdomains); every other host is denied")
	fs.StringVar(&hostsFile, "hosts-file", "", "a file of hosts to allow like --allow-hosts, one a line (# comments)")
	fs.BoolVar(&deny, "deny-upgrades", false, "deny every request_mode_upgrade")
	fs.BoolVar(&jsonOut, "json", false, "print events as JSON lines instead of a transcript")
	fs.BoolVar(&reasoning, "show-reasoning", false, "print a thinking model's reasoning before each reply")
	fs.StringVar(&continueID, "continue", "", "send the message to this existing conversation")
	fs.BoolVar(&wrapUp, "wrap-up", false, "with --continue: wrap the conversation up (continuation summary) instead of sending a message")
	fs.BoolVar(&retry, "retry", false, "with --continue: send again the message of a turn the app stopped in (the \"Not answered\" notice)")
	fs.BoolVar(&inWorktree, "worktree", false, "start the new conversation in a git worktree of its own (branch phoenix/<words of the prompt>) beside the repository")
	fs.BoolVar(&noInstr, "no-instructions", false, "start the new conversation without the project's AGENTS.md / CLAUDE.md")
	fs.DurationVar(&timeout, "timeout", 0, "cancel the turn after this long (0: no limit)")
	fs.Var(&images, "image", "attach an image file (repeatable)")
	fs.StringVar(&elicit, flagMCPElicit, "decline", "the answer to an MCP server's request for input: decline, cancel, or stdin to type the form's answers on standard input")
	fs.StringVar(&mcpPrompt, flagMCPPrompt, "", "send this MCP prompt (SERVER:NAME) instead of a message; the words after the flags are its arguments, in order")
	fs.Var(&queued, "queue", "a message to send after this turn, as if typed while the agent works (repeatable, in order)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if approve.grant != actors.DenyUpgrade && deny {
		return errors.New("chat: --approve-upgrades and --deny-upgrades exclude each other")
	}
	mode := domain.ModeRestricted
	if modeFlag != "" {
		m, err := parseMode(modeFlag)
		if err != nil {
			return fmt.Errorf("chat: %w", err)
		}
		if unrestrict && m != domain.ModeUnrestricted {
			return fmt.Errorf("chat: --unrestricted and --mode=%s contradict each other", m)
		}
		mode = m
	}
	if unrestrict {
		mode = domain.ModeUnrestricted
	}
	if (modeFlag != "" || unrestrict) && continueID != "" {
		return errors.New("chat: --mode and --unrestricted choose the mode of a new conversation; with --continue the conversation keeps its own")
	}
	if hostsFile != "" {
		if err := allowHosts.readHostsFile(env.absOr(hostsFile)); err != nil {
			return fmt.Errorf("chat: %w", err)
		}
	}
	if err := checkElicitAnswer(elicit); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	for _, a := range fs.Args() {
		if name, ok := strings.CutPrefix(a, "--"); ok && fs.Lookup(strings.SplitN(name, "=", 2)[0]) != nil {
			return fmt.Errorf("chat: the flag %s comes after the prompt; put flags before the prompt", a)
		}
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "-" {
		b, err := io.ReadAll(env.stdin)
		if err != nil {
			return fmt.Errorf("chat: read the prompt from standard input: %w", err)
		}
		prompt = string(b)
	}
	// Everything that can be checked before a conversation exists is checked first, so a
	// mistake never leaves an empty conversation behind.
	if wrapUp && (continueID == "" || strings.TrimSpace(prompt) != "" || len(images) > 0) {
		return errors.New("chat: --wrap-up needs --continue ID and no message")
	}
	if inWorktree && continueID != "" {
		return errors.New("chat: --worktree makes a new conversation; a conversation given by --continue keeps the folder it has")
	}
	if retry && (continueID == "" || wrapUp || strings.TrimSpace(prompt) != "" || len(images) > 0) {
		return errors.New("chat: --retry needs --continue ID and no message")
	}
	if strings.TrimSpace(prompt) == "" && len(images) == 0 && !wrapUp && !retry && mcpPrompt == "" {
		return errors.New("chat: the message is empty: pass a prompt as arguments, or - to read it from standard input")
	}
	var attachments []actors.Attachment
	for _, path := range images {
		data, err := readLimited(env.absOr(path), imaging.MaxInputBytes)
		if err != nil {
			return fmt.Errorf("chat: image %s: %w", path, err)
		}
		if _, _, _, err := imaging.Inspect(data); err != nil {
			return fmt.Errorf("chat: image %s: %w", path, err)
		}
		attachments = append(attachments, actors.Attachment{Name: filepath.Base(path), Data: data})
	}
	signals := make(chan os.Signal, 2)
	env.signals.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1)
	defer env.signals.Stop(signals)

	log := common.logger(stderr)
	// A chat in a process of its own collects no garbage until its first turn rests
	// (quietGC); one served inside the open app leaves the window's collector alone.
	restoreGC := func() {}
	if env.app == nil {
		restoreGC = quietGC(os.Getenv)
	}
	defer restoreGC()
	// No sandbox supervisor is started ahead: a turn that runs no command needs none, and the
	// first command starts one (the bench's "first command (cold supervisor)" row).
	a, err := env.openChat(common, log)
	if err != nil {
		return err
	}
	// In a process of its own, what opening the store and the runtime touched of the binary
	// leaves it, and what the turn touched before the store closes: the fourth and fifth
	// releases of a one-turn chat (startpages: each step touches 10–14 MB of the binary once,
	// and the chat's peak was their sum). Served, the window's process keeps its pages.
	if env.app == nil {
		startpages.Release()
	}
	defer func() {
		if env.app == nil {
			startpages.Release()
		}
		a.Close()
	}()
	rt := a.runtime
	ctx := context.Background()

	var conv domain.Conversation
	if continueID != "" {
		c, err := rt.Conversation(ctx, continueID)
		if err != nil {
			return fmt.Errorf("chat: %w (see phoenix-desktop list for the ids)", err)
		}
		conv = c
		// --model with --continue switches the conversation's model for this and later
		// requests (at rest only), as the header's model menu does.
		if m := strings.TrimSpace(common.model); m != "" && m != conv.Model {
			ch, err := rt.ChangeModel(ctx, conv.ID, m)
			if err != nil {
				return fmt.Errorf("chat: %w", err)
			}
			conv = ch.Conv
			fmt.Fprintf(stderr, "phoenix-desktop: switched to %s (context window %d tokens, %d%% used)\n",
				rt.ModelLabel(conv.Model), conv.Window(), domain.UsagePercent(conv.Usage, conv.Window()))
			if ch.AtContinuation && !wrapUp {
				return &exitError{code: exitExhausted, err: fmt.Errorf("the conversation already uses %d%% of %s's context window, so nothing was sent: wrap it up with chat --continue %s --wrap-up, then continue in a new conversation",
					domain.UsagePercent(conv.Usage, conv.Window()), rt.ModelLabel(conv.Model), conv.ID)}
			}
		}
	} else if remoteHost != "" {
		if conv, err = createRemote(ctx, rt, a.remote, stderr, remoteHost, cwd, common.model, mode, noInstr); err != nil {
			return err
		}
	} else {
		abs, err := env.abs(cwd)
		if err != nil {
			return fmt.Errorf("chat: working directory %s: %w", cwd, err)
		}
		// A mistyped /command is refused before a conversation exists.
		if _, _, err := expandCommand(custom.Load(abs, personalCustomDirs()), prompt); err != nil {
			return fmt.Errorf("chat: %w", err)
		}
		conv, err = rt.Create(ctx, actors.NewConversation{Cwd: abs, Model: common.model, Mode: mode, NoInstructions: noInstr,
			Worktree: inWorktree, WorktreeName: worktreeName(prompt)})
		if err != nil {
			return err
		}
	}

	if conv.Host == "" { // a remote project's servers and hooks are not read from here
		noteProjectServers(rt, conv.Cwd, stderr)
		noteProjectHooks(rt, conv.Cwd, stderr)
	}
	// "/name args" runs a custom command: its prompt is what is sent.
	var command *actors.Command
	invocation := prompt
	if !wrapUp {
		set, err := rt.Commands(ctx, conv.ID)
		if err != nil {
			return fmt.Errorf("chat: %w", err)
		}
		if prompt, command, err = expandCommand(set, prompt); err != nil {
			return fmt.Errorf("chat: %w", err)
		}
	}

	sub := rt.Subscribe()
	defer sub.Close()
	out := &chatPrinter{w: stdout, json: jsonOut, conv: conv.ID, reasoning: reasoning, outputLimit: rt.OutputLimit(conv.Model)}
	if !jsonOut {
		fmt.Fprintf(stdout, "Conversation %s in %s (%s, %s mode, %s)\n", conv.ID, transcript.Place(conv),
			rt.ModelLabel(conv.Model), conv.Mode, sandboxNote(sandbox.Probe()))
		if w := conv.Worktree; w != nil {
			fmt.Fprintf(stdout, "Worktree: %s on %s (from %s; merge with phoenix-desktop merge %s)\n", w.Path, w.Branch, w.Base, conv.ID)
		}
		if set, err := rt.Instructions(ctx, conv.ID); err == nil {
			if len(set.Files) > 0 {
				fmt.Fprintf(stdout, "Instructions: %s\n", strings.Join(set.Labels(), ", "))
			}
			for _, n := range set.Notices {
				fmt.Fprintf(stdout, "! Instructions: %s\n", n)
			}
		}
		if set, err := rt.Commands(ctx, conv.ID); err == nil && len(set.Skills) > 0 {
			fmt.Fprintf(stdout, "Skills: %s\n", strings.Join(set.SkillNames(), ", "))
		}
		if command != nil {
			fmt.Fprintf(stdout, "Command: /%s (%s)\n", command.Name, command.Label)
		}
	}
	// --prompt SERVER:NAME and "@SERVER:URI" references (mcpprompt.go).
	if !wrapUp && !retry {
		text, extra, err := mcpMessage(rt, conv.ID, mcpPrompt, prompt, common.mcpStartTimeout)
		if err != nil {
			if continueID == "" {
				// The servers run in a conversation, so it had to exist to ask them; a
				// mistake leaves no empty one behind.
				_ = rt.Delete(ctx, conv.ID)
			}
			return fmt.Errorf("chat: %w", err)
		}
		prompt, attachments = text, append(attachments, extra...)
	}
	if wrapUp {
		if err := rt.WrapUp(ctx, conv.ID); err != nil {
			return fmt.Errorf("chat: wrap up: %w", err)
		}
	} else if retry {
		if err := rt.Retry(ctx, conv.ID); err != nil {
			return fmt.Errorf("chat: retry: %w", err)
		}
	} else if command != nil {
		// Its turn runs on the model it names, where the provider offers it (a notice says
		// which), and a conversation it starts is titled by what was typed.
		if err := rt.SendCommand(ctx, conv.ID, prompt, attachments, actors.CommandTurn(*command, invocation)); err != nil {
			return fmt.Errorf("chat: %w", err)
		}
	} else if err := rt.Send(ctx, conv.ID, prompt, attachments); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	for _, text := range queued {
		if _, err := rt.Enqueue(ctx, conv.ID, text, nil); err != nil {
			return fmt.Errorf("chat: queue %q: %w", text, err)
		}
	}

	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	stopCode := 0 // the exit code of a turn that was stopped, once it was
	stop := func(code int, why string) error {
		if stopCode != 0 {
			return nil
		}
		stopCode = code
		fmt.Fprintf(stderr, "\nphoenix-desktop: %s; stopping the turn…\n", why)
		// The turn may have ended by itself meanwhile: then there is nothing to stop.
		if err := rt.Cancel(ctx, conv.ID); err != nil && !errors.Is(err, domain.ErrNothingToStop) &&
			!errors.Is(err, actors.ErrAlreadyStopping) {
			return fmt.Errorf("chat: cancel: %w", err)
		}
		return nil
	}
	// Only --queue, the window (a chat served inside the app) or a queue kept by a continued
	// conversation can have a turn follow this one: a new conversation in a process of its own
	// without --queue comes to rest with nothing queued, and its cold path skips the look
	// (queueGoesOn reads the queue and the conversation's record from the store: issue 39).
	mayQueue := env.app != nil || continueID != "" || len(queued) > 0
	answers := make(chan domain.Mode, 1)
	var pending *actors.ApprovalRequested
	forms := newStdinAnswers(env.stdin)
	defer forms.end()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return errors.New("chat: the event stream closed unexpectedly")
			}
			if ownRequest(a.store, ev, conv.ID) && answerMCPRequest(rt, ev, elicit, forms, stderr) {
				continue
			}
			if hold, ok := ev.(actors.DiskFullHold); ok && ownRequest(a.store, ev, conv.ID) {
				// The turn (or a sub-agent's) waits for room to come to rest, which nothing
				// headless frees: end now, in the store's words (errorText). The next start
				// brings the turn to rest as interrupted, and --retry sends it again.
				if !jsonOut {
					writeRetryHint(stdout, conv.ID)
				}
				return &exitError{code: exitDiskFull, err: fmt.Errorf("chat: the turn could not be saved: %w", hold.Err)}
			}
			if ev.Conversation() != conv.ID {
				continue
			}
			out.print(ev)
			switch e := ev.(type) {
			case actors.ApprovalRequested:
				if approve.grant != actors.DenyUpgrade || deny {
					if err := rt.DecideUpgrade(ctx, conv.ID, e.Exec, approve.grant); err != nil {
						return fmt.Errorf("chat: answer the upgrade request: %w", err)
					}
					continue
				}
				// The question is asked without blocking this loop, so Ctrl+C still stops
				// the turn while it waits for an answer.
				pending = &e
				go func() { answers <- askApproval(stderr, env.stdin, env.stdinTerminal, e.Reason) }()
			case actors.HostApprovalRequested:
				d := hostAnswer(allowHosts, e)
				if len(e.Many) > 0 {
					what := "judging each by --allow-hosts"
					if d == actors.HostDeny {
						what = "denied them all"
					}
					fmt.Fprintf(stderr, "phoenix-desktop: a command tries many hosts at once (%s): %s\n", strings.Join(e.Many, ", "), what)
				} else {
					fmt.Fprintf(stderr, "phoenix-desktop: the agent asks to reach %s: %s\n", hostPort(e.Host, e.Port), d)
				}
				if err := rt.AnswerHost(e.RequestID, d); err != nil && !errors.Is(err, actors.ErrNoHostRequest) {
					return fmt.Errorf("chat: answer the host request: %w", err)
				}
			case actors.StateChanged:
				if collectAgain(e.Conv.State) {
					restoreGC()
				}
				if domain.Busy(e.Conv.State) {
					continue
				}
				if stopCode == 0 && mayQueue && queueGoesOn(ctx, rt, e.Conv) {
					// More turns follow: they collect as any process does. A chat that
					// ends here closes the store with the collector still off.
					restoreGC()
					continue
				}
				return chatResult(e.Conv, stopCode)
			case actors.QueueChanged:
				// A queue that could not be sent is held: the turn that would follow never
				// comes.
				if e.Queue.Held != "" {
					if now, err := rt.Conversation(ctx, conv.ID); err == nil && !domain.Busy(now.State) {
						return chatResult(now, stopCode)
					}
				}
			}
		case grant := <-answers:
			if pending == nil {
				continue
			}
			err := rt.DecideUpgrade(ctx, conv.ID, pending.Exec, grant)
			pending = nil
			if err != nil && !errors.Is(err, domain.ErrNoPendingApproval) {
				return fmt.Errorf("chat: answer the upgrade request: %w", err)
			}
		case sig := <-signals:
			if sig == syscall.SIGUSR1 {
				fmt.Fprintln(stderr, "\nphoenix-desktop: switching to Restricted mode…")
				if err := rt.Downgrade(ctx, conv.ID, domain.ModeRestricted); err != nil {
					fmt.Fprintf(stderr, "phoenix-desktop: could not switch to Restricted mode: %v\n", err)
				}
				continue
			}
			if stopCode != 0 {
				return &exitError{code: stopCode, err: errors.New("stopped without waiting for the turn to come to rest")}
			}
			code, why := exitInterrupted, "interrupted"
			if sig == syscall.SIGTERM {
				code, why = exitTerminated, "terminated"
			}
			if err := stop(code, why); err != nil {
				return err
			}
		case <-deadline:
			if err := stop(exitTimeout, fmt.Sprintf("the turn took longer than %s", timeout)); err != nil {
				return err
			}
		}
	}
}

// queueGoesOn reports whether a conversation that came to rest goes on with its queued
// messages (the runtime sends the first one when a turn ends at Idle), so that chat keeps
// printing until the queue is done.
func queueGoesOn(ctx context.Context, rt *actors.Runtime, rest domain.Conversation) bool {
	q, err := rt.Queue(ctx, rest.ID)
	if err == nil && len(q.Items) > 0 && q.Held == "" {
		if _, idle := rest.State.(domain.Idle); idle {
			return true
		}
	}
	// The next queued message may already be on its way.
	now, err := rt.Conversation(ctx, rest.ID)
	return err == nil && now.LastExec > rest.LastExec
}

func chatResult(c domain.Conversation, stopCode int) error {
	switch st := c.State.(type) {
	case domain.Idle:
		if stopCode != 0 {
			return &exitError{code: stopCode, err: errors.New("the turn was cancelled")}
		}
		return nil
	case domain.Error:
		return &exitError{code: 1, err: fmt.Errorf("the turn ended in an error (%s): %s", st.ErrKind, st.Message)}
	case domain.ContextExhausted:
		return &exitError{code: exitExhausted, err: fmt.Errorf("the context window is exhausted; continue in a new conversation with the summary above")}
	}
	return &exitError{code: 1, err: fmt.Errorf("the turn ended in state %s", c.State.Kind())}
}

// askApproval asks on the terminal, on standard error so that standard output stays a clean
// transcript or JSON stream. Without a terminal the answer is no: nothing gets write access
// without a person saying yes (REQ-BED-015).
func askApproval(w io.Writer, in io.Reader, terminal bool, reason string) domain.Mode {
	if !terminal {
		fmt.Fprintln(w, "phoenix-desktop: the agent asks for write access; there is no terminal to ask on, so it is denied (pass --approve-upgrades=project or =full to allow).")
		return actors.DenyUpgrade
	}
	fmt.Fprintf(w, "The agent asks for write access: %s\nAllow [p]roject edits (%s), [f]ull access, or [N]o? ", reason, domain.ModeProject.AllowsForPerson())
	line, _ := bufio.NewReader(in).ReadString('\n')
	return approvalAnswer(line)
}

// approvalAnswer reads a terminal answer to the upgrade question; anything unclear is no.
func approvalAnswer(line string) domain.Mode {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "p", "project":
		return domain.ModeProject
	case "f", "full", "y", "yes":
		return domain.ModeUnrestricted
	}
	return actors.DenyUpgrade
}

func sandboxNote(s sandbox.Status) string {
	if s.Available {
		return fmt.Sprintf("Landlock ABI %d", s.ABI)
	}
	return "Landlock unavailable: " + s.Reason
}

// chatPrinter prints the events of one conversation as a transcript or as JSON lines.
type chatPrinter struct {
	w    io.Writer
	json bool
	conv string
	// reasoning prints the reasoning of replies (--show-reasoning); it is left out otherwise.
	reasoning bool
	last      string // the last status line printed, to avoid repeats
	// tenths is how far (in tenths) the running call's progress was last printed, so that a
	// server reporting every step prints at most ten lines.
	tenths int
	// outputLimit is the conversation's model's reply limit, named in the cut-off notice.
	outputLimit int
}

func (p *chatPrinter) print(ev actors.Event) {
	if p.json {
		kind := fmt.Sprintf("%T", ev)
		kind = kind[strings.LastIndex(kind, ".")+1:]
		b, err := json.Marshal(struct {
			Type  string `json:"type"`
			Event any    `json:"event"`
		}{kind, ev})
		if err != nil {
			b, _ = json.Marshal(map[string]string{"type": "EncodeError", "error": err.Error()})
		}
		fmt.Fprintln(p.w, string(b))
		return
	}
	switch e := ev.(type) {
	case actors.MessageCommitted:
		m := e.Message
		if !p.reasoning {
			m.Reasoning = nil
		}
		writeMessage(p.w, m)
		if e.Message.StopReason == domain.StopLength {
			fmt.Fprintf(p.w, "! The limit is %d tokens. To have it go on: phoenix-desktop chat --continue %s %q\n",
				p.outputLimit, p.conv, domain.GoOnPrompt)
		}
		if actors.IsInterruptedNotice(e.Message) {
			writeRetryHint(p.w, p.conv)
		}
	case actors.StateChanged:
		if line := cliStatus(e.Conv); line != p.last && domain.Busy(e.Conv.State) {
			p.last, p.tenths = line, 0
			fmt.Fprintf(p.w, "· %s\n", line)
		}
	case actors.ToolProgress:
		if e.Total > 0 {
			if t := int(10 * e.Progress / e.Total); t > p.tenths {
				p.tenths = t
				fmt.Fprintf(p.w, "· progress: %s\n", strings.TrimPrefix(transcript.Progress(e.Progress, e.Total, e.Message), " · "))
			}
		}
	case actors.Notice:
		fmt.Fprintf(p.w, "! %s\n", e.Text)
	case actors.HookRan:
		fmt.Fprintf(p.w, "↪ %s\n", e.Text)
	}
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// readLimited reads a file, refusing one larger than limit before reading it.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("the file is %d MB; the limit is %d MB", info.Size()>>20, limit>>20)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// noteProjectServers tells the person which MCP servers the working directory's .mcp.json
// offers that do not start: only a click in Settings (or --mcp-config) lets them.
func noteProjectServers(rt *actors.Runtime, cwd string, stderr io.Writer) {
	servers := rt.MCPServers()
	if servers == nil || servers.ConfigPath() == "" {
		return
	}
	offered, err := servers.ProjectServers(cwd)
	if err != nil {
		fmt.Fprintf(stderr, "! %v\n", err)
		return
	}
	var waiting []string
	for _, p := range offered {
		if !p.Allowed && !p.Shadowed {
			waiting = append(waiting, p.Name)
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(stderr, "! %s/.mcp.json offers the MCP servers %s; they do not start until you allow them in the app's Settings, or pass --mcp-config %s/.mcp.json\n",
			cwd, strings.Join(waiting, ", "), cwd)
	}
}
