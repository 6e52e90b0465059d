package actors

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// The person's runs-as-me hooks (custom.Hook.RunAsMe) run outside the walls only while what
// they run is as it was before the agent's first tool call that could change files. The
// baseline of what it was lives in the store (aux "hookguard" of the root conversation, so a
// sub-agent's writes count for its parent and a restart keeps it), taken by the tool worker
// before that first call and read by the guard of every runs-as-me hook after it.

const auxHookGuard = "hookguard"

// canChangeFiles says whether a tool call can change files: patch, bash and MCP tools (whose
// servers run under the conversation's sandbox policy) in a mode that writes (Project,
// Unrestricted). Checkpoints are taken for exactly these calls.
func canChangeFiles(mode domain.Mode, tool string) bool {
	return mode.Rank() > domain.ModeRestricted.Rank() &&
		(tool == domain.ToolPatch || tool == domain.ToolBash || domain.IsMCPTool(tool))
}

// hookRoot is the conversation whose baseline a conversation's hooks use: a sub-agent's
// parent, else itself.
func (r *Runtime) hookRoot(id string) string {
	if c, err := r.cfg.Store.Get(id); err == nil && c.IsSubAgent() {
		return c.ParentID
	}
	return id
}

func (r *Runtime) hookGuardLock(root string) *sync.Mutex {
	m, _ := r.hookGuards.LoadOrStore(root, &sync.Mutex{})
	return m.(*sync.Mutex)
}

func (r *Runtime) hookBaseline(root string) (custom.Baseline, error) {
	var b custom.Baseline
	raw, err := r.cfg.Store.Aux(root, auxHookGuard)
	if errors.Is(err, persistence.ErrNotFound) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return custom.Baseline{}, err
	}
	return b, nil
}

// hookBaselineBeforeWrite records, before the conversation's first tool call that can change
// files, what its runs-as-me hooks use. It returns an error only when the record could not
// be kept; the caller then refuses the call rather than let a hook trust a baseline that is
// not there.
func (r *Runtime) hookBaselineBeforeWrite(convID, cwd string) error {
	if r.cfg.Hooks == nil {
		return nil
	}
	// Once recorded, a baseline is final (BeforeWrite adds nothing after the first write):
	// the calls after it pay no store read, conversation lookup or hooks file read.
	if _, done := r.hookBaselined.Load(convID); done {
		return nil
	}
	root := r.hookRoot(convID)
	mu := r.hookGuardLock(root)
	mu.Lock()
	defer mu.Unlock()
	b, err := r.hookBaseline(root)
	if err != nil {
		return err
	}
	person, _ := r.cfg.Hooks.Person()
	if !b.BeforeWrite(person, cwd) {
		r.hookBaselined.Store(convID, true)
		return nil
	}
	raw, err := json.Marshal(b)
	if err == nil {
		err = r.cfg.Store.PutAuxUnflushed(root, auxHookGuard, raw)
	}
	if err == nil {
		r.hookBaselined.Store(convID, true)
	}
	if err != nil && !hasRunAsMe(person) {
		// Nothing runs outside the walls that the record would guard.
		r.log.Warn("the hook baseline was not saved", "conversation", root, "error", err)
		return nil
	}
	return err
}

func hasRunAsMe(cfg custom.Config) bool {
	for _, gs := range cfg.Hooks {
		for _, g := range gs {
			for _, h := range g.Hooks {
				if h.RunAsMe {
					return true
				}
			}
		}
	}
	return false
}

// hookGuard says why a runs-as-me hook of the conversation must not run now (nil: it may).
// A baseline that cannot be read refuses it: the hook would run outside the walls on trust.
func (r *Runtime) hookGuard(convID, cwd string) func(command string) error {
	return func(command string) error {
		root := r.hookRoot(convID)
		mu := r.hookGuardLock(root)
		mu.Lock()
		b, err := r.hookBaseline(root)
		mu.Unlock()
		if err != nil {
			return errors.New("it runs as you, outside the walls, and what it runs could not be checked against the agent's changes (" + err.Error() + "); it did not run")
		}
		return b.Check(command, cwd)
	}
}
