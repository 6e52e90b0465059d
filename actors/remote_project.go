package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/remote"
)

// A remote project's own files — its AGENTS.md and the others, its commands and skills — are
// on its host, and the host's agent reads them there with the same packages and rules as a
// local project's (remote/project.go). The person's own instructions and commands are on this
// machine and are added here, with the same precedence and the one cap as locally
// (instructions.WithPersonal, custom.WithPersonal). The person's own skills are not offered to
// a remote conversation: the model reads a skill's files with its tools, which run on the host,
// where those files are not.

// RemoteProject reads, through a host's agent, what a remote project's folder offers and the
// host's allowed hosts. The object behind Config.Remote implements it too (cmd's remoteHosts);
// without it a remote project's files are not read and Settings shows no allowed hosts there.
type RemoteProject interface {
	// ReadProject reads the project's instructions files (not yet capped with the person's
	// own), commands and skills in the folder dir on host; status hears how connecting goes.
	ReadProject(ctx context.Context, host, dir string, status func(text string)) (Instructions, Custom, error)
	// RemoteAllowedHosts lists the projects of host that have allowed hosts there.
	RemoteAllowedHosts(ctx context.Context, host string) ([]RemoteProjectHosts, error)
	// RemoveRemoteAllowedHost takes pattern off the allowed hosts of project on host.
	RemoveRemoteAllowedHost(ctx context.Context, host, project, pattern string) error
}

// RemoteProjectHosts is one project's allowed hosts on a remote machine.
type RemoteProjectHosts = remote.ProjectHosts

// remoteReadWait bounds reading a remote project's files when a conversation is created or its
// instructions reloaded: connecting included (a first connection copies the agent, about a
// second), but never the whole of a dead host's backoff.
const remoteReadWait = 20 * time.Second

// readProject reads what a conversation's project offers: its instructions (unless
// noInstructions) and its commands and skills, with the person's own, announcing what was
// skipped. A local project is read here; a remote one on its host, and when that fails the
// person's own are still used and a notice says why the project's are not.
func (r *Runtime) readProject(ctx context.Context, convID, host, cwd string, noInstructions bool) (Instructions, Custom) {
	if host == "" {
		set := Instructions{Disabled: true}
		if !noInstructions {
			set = r.readInstructions(convID, cwd)
		}
		return set, r.readCustom(convID, cwd)
	}
	var proj Instructions
	var cust Custom
	if rp, ok := r.cfg.Remote.(RemoteProject); ok {
		rctx, cancel := context.WithTimeout(ctx, remoteReadWait)
		pi, pc, err := rp.ReadProject(rctx, host, cwd, func(text string) {
			r.publish(Notice{ConvID: convID, Level: NoticeInfo, Text: text})
		})
		cancel()
		if err != nil {
			// Kept with the instructions too, so whoever shows them (the window, headless
			// chat) says why the project's are missing.
			why := fmt.Sprintf("the project's instructions, commands and skills on %s were not read: %s; Reload instructions reads them again once the host can be reached", host, err)
			proj.Notices = []string{why}
			if noInstructions {
				r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: upperFirst(why)})
			}
		} else {
			proj, cust = pi, pc
		}
	}
	set := Instructions{Disabled: true}
	if !noInstructions {
		set = instructions.WithPersonal(proj, r.cfg.InstructionsDir, cwd)
		for _, n := range set.Notices {
			r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: "Instructions: " + n})
		}
	}
	cset := custom.WithPersonal(cust, r.cfg.PersonalDirs, false)
	for _, n := range cset.Notices {
		r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: "Commands and skills: " + n})
	}
	return set, cset
}

// RemoteAllowedHosts lists the allowed hosts kept on a remote host for its projects (Settings →
// Remote hosts), read there by the agent.
func (r *Runtime) RemoteAllowedHosts(ctx context.Context, host string) ([]RemoteProjectHosts, error) {
	rp, ok := r.cfg.Remote.(RemoteProject)
	if !ok {
		return nil, fmt.Errorf("this session of Phoenix Desktop cannot reach other machines, so the allowed hosts on %s cannot be read", host)
	}
	return rp.RemoteAllowedHosts(ctx, host)
}

// RemoveRemoteAllowedHost takes pattern off the allowed hosts of project on host, in the file
// there; the project's next command there is refused that host.
func (r *Runtime) RemoveRemoteAllowedHost(ctx context.Context, host, project, pattern string) error {
	rp, ok := r.cfg.Remote.(RemoteProject)
	if !ok {
		return fmt.Errorf("this session of Phoenix Desktop cannot reach other machines, so nothing was changed on %s", host)
	}
	return rp.RemoveRemoteAllowedHost(ctx, host, project, pattern)
}
