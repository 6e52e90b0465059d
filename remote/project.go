package remote

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"os"
	"path/filepath"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/proxy"
)

// What the app reads of a remote project's own files, and of the host's allowed hosts for its
// projects. The files are on the host, so the agent reads them there with the same packages
// and rules as the app reads a local project's (instructions.LoadProject, custom.LoadProject:
// the same file names, folders, precedence and limits); the person's own instructions,
// commands and skills are on this machine and the app adds them here. The allowed hosts
// ("always" answers of Project mode's proxy there) are kept on the host
// (remoteRulesFile) and read and changed there, through the same proxy.Rules the agent's proxy
// uses, so a host taken off the list is refused at once — no ssh of the app's own.

// projectService is the name of the agent's net/rpc service for a project's files and rules.
const projectService = "Project"

// ProjectArgs names a remote project: its folder on the host.
type ProjectArgs struct {
	Cwd string
}

// ProjectFiles is what a remote project's folder offers the conversation: its instructions
// files (instructions.LoadProject: not yet capped together with the person's own) and its
// commands and skills (custom.LoadProject), with notices naming what was skipped and why.
type ProjectFiles struct {
	Instructions instructions.Set
	Custom       custom.Set
}

// ProjectHosts is one project's allowed hosts on a remote machine, as Settings shows them.
type ProjectHosts struct {
	// Project is the project's folder on that machine.
	Project string
	Hosts   []string
	// Registries is the project's "package registries" switch there.
	Registries bool
}

// AllowedHostsReply lists the projects of the host that have allowed hosts.
type AllowedHostsReply struct {
	Projects []ProjectHosts
}

// RemoveHostArgs takes one entry off a project's allowed hosts on the host.
type RemoveHostArgs struct {
	Project string
	Host    string
}

// Project is the agent's service for a project's files and the host's allowed hosts.
type Project struct{ a *agent }

// Read reads a project's instructions, commands and skills on this machine.
func (p *Project) Read(args ProjectArgs, reply *ProjectFiles) error {
	if !filepath.IsAbs(args.Cwd) {
		return fmt.Errorf("the project's folder %q is not an absolute path", args.Cwd)
	}
	reply.Instructions = instructions.LoadProject(args.Cwd)
	reply.Custom = custom.LoadProject(args.Cwd)
	return nil
}

// AllowedHosts lists every project of this machine that has allowed hosts.
func (p *Project) AllowedHosts(_ Empty, reply *AllowedHostsReply) error {
	rules, err := p.a.networkRules()
	if err != nil {
		return err
	}
	for _, pr := range rules.Projects() {
		reply.Projects = append(reply.Projects, ProjectHosts{Project: pr, Hosts: rules.List(pr), Registries: rules.Registries(pr)})
	}
	return nil
}

// RemoveAllowedHost takes a host off a project's allowed hosts; the agent's proxy refuses it
// from its next connection on.
func (p *Project) RemoveAllowedHost(args RemoveHostArgs, _ *Empty) error {
	rules, err := p.a.networkRules()
	if err != nil {
		return err
	}
	return rules.Remove(args.Project, args.Host)
}

// networkRules is the host's allowed hosts, loaded once per agent and shared by its proxy and
// by Settings' reading, so that a change made from Settings applies to the running proxy.
func (a *agent) networkRules() (*proxy.Rules, error) {
	a.rulesMu.Lock()
	defer a.rulesMu.Unlock()
	if a.rules != nil {
		return a.rules, nil
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("could not find the configuration directory on the remote machine for the allowed hosts: %w", err)
	}
	rules, err := proxy.LoadRules(filepath.Join(cfg, "phoenix-desktop", remoteRulesFile))
	if err != nil {
		return nil, err
	}
	a.rules = rules
	return rules, nil
}

// callAgent makes one call to the agent; a call the stream could not carry marks the
// connection lost and wraps ErrConnectionLost, an error the agent returned is said as its own.
func (c *Client) callAgent(ctx context.Context, method string, args, reply any) error {
	call := c.rpc.Go(method, args, reply, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if call.Error == nil {
		return nil
	}
	var serverErr rpc.ServerError
	if errors.As(call.Error, &serverErr) {
		return fmt.Errorf("on %s: %s", c.opts.Destination, string(serverErr))
	}
	c.markLost()
	return fmt.Errorf("%w: %w", ErrConnectionLost, call.Error)
}

// onAgent runs f with the live connection, connecting first (report hears how it goes, as
// for Run); what says, for an error, what could not be done there.
func (s *Session) onAgent(ctx context.Context, what string, report func(Status), f func(*Client) error) error {
	c, err := s.client(ctx, report)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fmt.Errorf("cancelled while connecting to %s to %s", s.opts.Destination, what)
	case errors.Is(err, ErrSessionClosed):
		return fmt.Errorf("the connection to %s is closed, so Phoenix could not %s", s.opts.Destination, what)
	default:
		return fmt.Errorf("could not reach %s to %s: %w", s.opts.Destination, what, err)
	}
	err = f(c)
	if errors.Is(err, ErrConnectionLost) {
		s.lost(c, err)
		return fmt.Errorf("the connection to %s was lost while Phoenix tried to %s; try again once it is back: %w", s.opts.Destination, what, err)
	}
	return err
}

// ReadProject reads, on the host, the instructions files, commands and skills of the project
// in its folder dir there.
func (s *Session) ReadProject(ctx context.Context, dir string, report func(Status)) (ProjectFiles, error) {
	var files ProjectFiles
	err := s.onAgent(ctx, "read the project's instructions, commands and skills", report, func(c *Client) error {
		return c.callAgent(ctx, projectService+".Read", ProjectArgs{Cwd: dir}, &files)
	})
	return files, err
}

// AllowedHosts lists the host's projects that have allowed hosts (Project mode's "always"
// answers, kept there).
func (s *Session) AllowedHosts(ctx context.Context) ([]ProjectHosts, error) {
	var reply AllowedHostsReply
	err := s.onAgent(ctx, "read its allowed hosts", nil, func(c *Client) error {
		return c.callAgent(ctx, projectService+".AllowedHosts", Empty{}, &reply)
	})
	return reply.Projects, err
}

// RemoveAllowedHost takes host off the allowed hosts of the project in folder project there.
func (s *Session) RemoveAllowedHost(ctx context.Context, project, host string) error {
	return s.onAgent(ctx, "take "+host+" off its allowed hosts", nil, func(c *Client) error {
		return c.callAgent(ctx, projectService+".RemoveAllowedHost", RemoveHostArgs{Project: project, Host: host}, &Empty{})
	})
}
