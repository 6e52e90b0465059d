package mcp

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/phoenix-desktop/phoenix/tools"
)

// Statuses lists every configured server (and the allowed project servers of cwd, when cwd
// is given) with what is known of it, sorted by name.
func (h *Hub) Statuses(cwd string) []Status {
	servers, _ := h.serversFor(cwd)
	h.mu.Lock()
	defer h.mu.Unlock()
	names := map[string]bool{}
	for n := range h.cfg.Servers {
		names[n] = true
	}
	for n := range h.cfg.Invalid {
		names[n] = true
	}
	for n := range servers {
		names[n] = true
	}
	var out []Status
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if inv, bad := h.cfg.Invalid[n]; bad {
			if _, replaced := h.cfg.Servers[n]; !replaced {
				out = append(out, Status{Name: n, Config: inv.Config, State: StateInvalid, Error: inv.Reason})
				continue
			}
		}
		st := Status{Name: n, State: StateIdle}
		if p := h.status[n]; p != nil {
			st = *p
			st.Tools = slices.Clone(p.Tools)
			if p.stderr != nil {
				st.Stderr = p.stderr.String()
			}
			st.stderr = nil
		}
		st.Name = n
		if c, own := h.cfg.Servers[n]; own {
			st.Config, st.Enabled, st.Project = c, !c.Disabled, false
		} else {
			st.Config, st.Enabled, st.Project = servers[n], true, true
		}
		if !st.Enabled {
			st.State = StateDisabled
		}
		out = append(out, st)
	}
	return out
}

// report updates a server's status.
func (h *Hub) report(name string, update func(st *Status)) {
	h.mu.Lock()
	st := h.status[name]
	if st == nil {
		st = &Status{Name: name, State: StateIdle}
		h.status[name] = st
	}
	update(st)
	st.Updated = time.Now()
	h.mu.Unlock()
	h.changed()
}

// Check starts one server under the given policy, lists its tools and stops it again, and
// records what it found: Settings' "Check" and `phoenix-desktop mcp list`.
func (h *Hub) Check(ctx context.Context, name string, env tools.Env) Status {
	cwd := env.Cwd
	c, ok := h.configFor(name, cwd)
	if !ok {
		h.mu.Lock()
		inv, bad := h.cfg.Invalid[name]
		h.mu.Unlock()
		if bad {
			return Status{Name: name, Config: inv.Config, State: StateInvalid, Error: inv.Reason}
		}
		return Status{Name: name, State: StateFailed, Error: "no such server"}
	}
	set := h.NewSet(cwd)
	set.forceEnabled = map[string]ServerConfig{name: c}
	set.Start(env)
	set.WaitStarted(ctx)
	set.Tools(ctx, env)
	set.Close()
	h.report(name, func(st *Status) {
		if st.State == StateStopped && st.Error == "" {
			st.State = StateChecked
		}
	})
	for _, st := range h.Statuses(cwd) {
		if st.Name == name {
			return st
		}
	}
	return Status{Name: name, State: StateFailed, Error: "no status was recorded"}
}

// Retry lets every conversation start a server again whose start failed (Settings' "Retry"):
// a failed start is otherwise remembered for the conversation, so that no request waits for
// it again.
func (h *Hub) Retry(name string) {
	h.mu.Lock()
	if h.retries == nil {
		h.retries = map[string]int{}
	}
	h.retries[name]++
	if st := h.status[name]; st != nil && (st.State == StateFailed || st.State == StateNeedsSignIn) {
		st.State, st.Error = StateIdle, ""
	}
	h.mu.Unlock()
	h.changed()
}

func (h *Hub) retryGen(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.retries[name]
}

// problem is an entry of a configuration file that cannot be used.
type problem struct{ name, file, reason string }

// problems lists the entries of the person's file (and of the project's, for cwd) that
// cannot be used, and what of the files was ignored.
func (h *Hub) problems(cwd string) ([]problem, []string) {
	h.mu.Lock()
	file := h.cfg.Source
	if file == "" {
		file = "the MCP configuration"
	}
	var out []problem
	for _, n := range slices.Sorted(maps.Keys(h.cfg.Invalid)) {
		if _, replaced := h.cfg.Servers[n]; !replaced {
			out = append(out, problem{n, file, h.cfg.Invalid[n].Reason})
		}
	}
	notes := slices.Clone(h.cfg.Notes)
	own := h.path != ""
	h.mu.Unlock()
	if own && cwd != "" {
		if pc, err := projectConfig(cwd); err == nil {
			pf := filepath.Join(cwd, ProjectFileName)
			for _, n := range slices.Sorted(maps.Keys(pc.Invalid)) {
				out = append(out, problem{n, pf, pc.Invalid[n].Reason})
			}
		}
	}
	for i, n := range notes {
		notes[i] = file + ": " + n
	}
	return out, notes
}

// configFor is a server's configuration as a conversation in cwd sees it (a project's
// .mcp.json over the person's), or the person's own where cwd names none.
func (h *Hub) configFor(name, cwd string) (ServerConfig, bool) {
	servers, _ := h.serversFor(cwd)
	if c, ok := servers[name]; ok {
		return c, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.cfg.Servers[name]
	return c, ok
}
