package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/remote"
)

// personalCustomDirs are the person's directories read for commands and skills.
func personalCustomDirs() []string { return custom.PersonalDirs(instructions.ConfigDir()) }

// openHooks is the person's hooks file and project approvals, in the configuration directory.
func openHooks() *custom.Hooks { return custom.OpenHooks(instructions.ConfigDir()) }

// runCommands lists the commands and skills a new conversation in --cwd would have.
func runCommands(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("commands", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cwd string
	var jsonOut bool
	fs.StringVar(&cwd, "cwd", ".", "working directory whose commands and skills are listed")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("commands: working directory %s: %w", cwd, err)
	}
	set := custom.Load(abs, personalCustomDirs())
	if jsonOut {
		return json.NewEncoder(stdout).Encode(set)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Commands (chat \"/NAME ARGS\", or / in the composer):\n")
	if len(set.Commands) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	for _, c := range set.Commands {
		fmt.Fprintf(tw, "  /%s %s\t%s\t%s\n", c.Name, c.ArgumentHint, c.Description, c.Label)
	}
	fmt.Fprintf(tw, "Skills (named in the system prompt):\n")
	if len(set.Skills) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	for _, s := range set.Skills {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Description, s.Label)
	}
	tw.Flush()
	for _, n := range set.Notices {
		fmt.Fprintf(stderr, "! %s\n", n)
	}
	return nil
}

// runHooksCmd lists the hooks that run for --cwd, and with "allow" approves the project's
// hooks exactly as printed.
func runHooksCmd(args []string, stdout, stderr io.Writer) error {
	allow := len(args) > 0 && args[0] == "allow"
	if allow || len(args) > 0 && args[0] == "list" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("hooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cwd, host string
	var jsonOut bool
	fs.StringVar(&cwd, "cwd", ".", "working directory whose project hooks are shown")
	fs.StringVar(&host, "remote", "", "the SSH host (user@host or a Host of ~/.ssh/config) the --cwd folder is on; its hooks are read there")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	h := openHooks()
	abs, read, closeRead, err := projectHooksReader(h, host, cwd)
	if err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	defer closeRead()
	proj, err := read()
	if err != nil {
		return fmt.Errorf("hooks: the project's hooks on %s could not be read: %w", host, err)
	}
	person, notes := h.Person()
	if jsonOut && !allow {
		return json.NewEncoder(stdout).Encode(struct {
			File    string              `json:"file"`
			Person  custom.Config       `json:"person"`
			Project actors.ProjectHooks `json:"project"`
			Notices []string            `json:"notices,omitempty"`
		}{h.Path(), person, proj, notes})
	}
	for _, n := range append(notes, proj.Notices...) {
		fmt.Fprintf(stderr, "! %s\n", n)
	}
	if !allow {
		fmt.Fprintf(stdout, "Your hooks (%s):\n", h.Path())
		printHooks(stdout, person, false)
	}
	where, flags := abs, "--cwd "+abs
	if host != "" {
		where, flags = abs+" on "+host, "--remote "+host+" --cwd "+abs
	}
	if len(proj.Files) == 0 {
		if allow {
			return fmt.Errorf("hooks allow: %s has no hooks (%s)", where, strings.Join(custom.ProjectHookFiles, ", "))
		}
		fmt.Fprintf(stdout, "Project hooks of %s: none\n", where)
		return nil
	}
	state := "not allowed: they do not run"
	if proj.Allowed {
		state = "allowed"
	}
	fmt.Fprintf(stdout, "Project hooks of %s (%s), run under the conversation's mode — %s:\n", where, strings.Join(proj.Files, ", "), state)
	printHooks(stdout, proj.Config, true)
	if !allow {
		if !proj.Allowed {
			fmt.Fprintf(stdout, "Allow exactly these with: phoenix-desktop hooks allow %s\n", flags)
		}
		return nil
	}
	if err := h.AllowProjectOn(host, abs, proj.Fingerprint, read); err != nil {
		return fmt.Errorf("hooks allow: %w", err)
	}
	fmt.Fprintln(stdout, "Allowed. A change to these files needs a new approval.")
	return nil
}

// projectHooksReader returns what reads the project hooks of the folder cwd — on host when
// one is named, through a session of its own with the agent there (as doctor --remote), which
// close ends — judged against the person's approvals, with the folder as an absolute path.
func projectHooksReader(h *custom.Hooks, host, cwd string) (abs string, read func() (custom.ProjectHooks, error), closeFn func(), err error) {
	if host == "" {
		if abs, err = filepath.Abs(cwd); err != nil {
			return "", nil, nil, fmt.Errorf("working directory %s: %w", cwd, err)
		}
		return abs, func() (custom.ProjectHooks, error) { return h.Project(abs), nil }, func() {}, nil
	}
	if !path.IsAbs(cwd) {
		return "", nil, nil, fmt.Errorf("the folder on %s must be an absolute path, not %q: --cwd /path/there", host, cwd)
	}
	s := remote.NewSession(remote.Options{Destination: host, ConfigFile: os.Getenv(envSSHConfig)}, nil)
	read = func() (custom.ProjectHooks, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		p, err := s.ProjectHooks(ctx, cwd, nil)
		return h.Judge(host, p), err
	}
	return cwd, read, s.Close, nil
}

// printHooks lists a configuration's hooks, each with the walls it runs under.
func printHooks(w io.Writer, cfg custom.Config, project bool) {
	if cfg.Count() == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range cfg.List() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\truns %s\n", l.Event, l.Matcher, l.Hook.Command, l.Hook.Walls(project))
	}
	tw.Flush()
}

// noteProjectHooks tells the person when the working directory has hooks they have not
// allowed: they do not run.
func noteProjectHooks(rt *actors.Runtime, cwd string, stderr io.Writer) {
	p, _ := rt.ProjectHooks(context.Background(), "", cwd)
	if len(p.Files) > 0 && !p.Allowed {
		fmt.Fprintf(stderr, "! %s has hooks (%s) that do not run until you allow them: phoenix-desktop hooks --cwd %s shows them, hooks allow --cwd %s allows them\n",
			cwd, strings.Join(p.Files, ", "), cwd, cwd)
	}
}

// expandCommand turns a chat prompt "/name args" into the command's prompt. Text that is not
// an invocation is returned as it is; "/name" where no command has that name is an error
// that lists the commands, so a mistyped name never reaches the model as a message.
func expandCommand(set actors.Custom, prompt string) (string, *actors.Command, error) {
	name, _, ok := custom.ParseInvocation(prompt)
	if !ok {
		return prompt, nil, nil
	}
	expanded, cmd, ok := set.Expand(prompt)
	if !ok {
		names := make([]string, 0, len(set.Commands))
		for _, c := range set.Commands {
			names = append(names, "/"+c.Name)
		}
		have := "there are none here"
		if len(names) > 0 {
			have = "there are " + strings.Join(names, ", ")
		}
		return "", nil, fmt.Errorf("/%s is not a command (%s); see phoenix-desktop commands, or start the message with a space to send it as text", name, have)
	}
	return expanded, &cmd, nil
}
