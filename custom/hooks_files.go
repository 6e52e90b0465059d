package custom

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/phoenix-desktop/phoenix/statcache"
)

// ProjectHookFiles are the files a project's hooks are read from, relative to the working
// directory: ours, Claude Code's settings (its "hooks" key), Codex's.
var ProjectHookFiles = []string{".phoenix/hooks.json", ".claude/settings.json", ".codex/hooks.json"}

// PersonHooksFile is the name of the person's hooks file in the configuration directory.
const PersonHooksFile = "hooks.json"

// approvalsFile records the project hooks the person approved, in the configuration directory.
const approvalsFile = "hooks-approved.json"

// ProjectHooks is what a working directory's files offer.
type ProjectHooks struct {
	Cwd string `json:"cwd"`
	// Host is the machine the project is on, as the person named it ("" for this one): its
	// files were read there, its hooks run there and its approval is that machine's.
	Host string `json:"host,omitempty"`
	// Files are the files that hold hooks; Config is all of them together.
	Files  []string `json:"files,omitempty"`
	Config Config   `json:"config"`
	// Fingerprint identifies this exact configuration; an approval is for one fingerprint.
	Fingerprint string   `json:"fingerprint,omitempty"`
	Allowed     bool     `json:"allowed"`
	Notices     []string `json:"notices,omitempty"`
}

// Hooks holds the person's hooks file and the project hooks they approved. Every run reads
// the files again (they are small), so an edit applies from the next event on and a changed
// project configuration stops running until it is approved again.
type Hooks struct {
	configDir string
	mu        sync.Mutex
	told      map[string]bool
}

// OpenHooks uses the configuration directory (instructions.ConfigDir); "" means the person
// has no hooks and no project hook can be approved.
func OpenHooks(configDir string) *Hooks {
	return &Hooks{configDir: configDir, told: map[string]bool{}}
}

// Path is the person's hooks file ("" without a configuration directory).
func (h *Hooks) Path() string {
	if h == nil || h.configDir == "" {
		return ""
	}
	return filepath.Join(h.configDir, PersonHooksFile)
}

// Person reads the person's hooks. A missing file is no hooks; a file that cannot be used
// is no hooks with a notice.
func (h *Hooks) Person() (Config, []string) {
	path := h.Path()
	if path == "" {
		return Config{}, nil
	}
	f, err := personFiles.Load(path, func(p string) (parsedHooks, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return parsedHooks{}, err
		}
		return parse(b), nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, []string{fmt.Sprintf("your hooks in %s were not used: %v", path, err)}
	}
	if f.err != nil {
		return Config{}, []string{fmt.Sprintf("your hooks in %s were not used: %v; fix the file or edit it in Settings → Hooks", path, f.err)}
	}
	notes := make([]string, len(f.notes))
	for i, n := range f.notes {
		notes[i] = path + ": " + n
	}
	return f.cfg, notes
}

// The hooks files are read before and after every tool call and at every other event: what
// each parsed to is kept while the file stays the same one (statcache), so an unchanged file
// costs a stat, and an edit still applies from the next event on. The person's file and the
// projects' are read with different limits, hence two caches. Callers do not change what
// they get.
var personFiles, projectFiles statcache.Cache[parsedHooks]

// parsedHooks is what a hooks file's bytes parse to.
type parsedHooks struct {
	cfg   Config
	notes []string
	err   error
}

func parse(b []byte) parsedHooks {
	cfg, notes, err := ParseConfig(b)
	return parsedHooks{cfg: cfg, notes: notes, err: err}
}

// PersonText is the person's hooks file as written ("" when there is none).
func (h *Hooks) PersonText() (string, error) {
	path := h.Path()
	if path == "" {
		return "", errors.New("there is no configuration directory (set HOME or XDG_CONFIG_HOME)")
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// SavePerson checks and saves the person's hooks file. Text that is not a hooks file is
// refused with the reason and nothing is written; what a file holds that cannot be used is
// returned as notes (the file is saved as written).
func (h *Hooks) SavePerson(text string) ([]string, error) {
	path := h.Path()
	if path == "" {
		return nil, errors.New("there is no configuration directory (set HOME or XDG_CONFIG_HOME)")
	}
	if strings.TrimSpace(text) == "" {
		text = `{"hooks": {}}`
	}
	_, notes, err := ParseConfig([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the hooks were not saved: %v", err)
	}
	if err := writeFileAtomic(path, []byte(text)); err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	return notes, nil
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Project reads the hooks a working directory's files offer and whether the person approved
// exactly them.
func (h *Hooks) Project(cwd string) ProjectHooks {
	return h.Judge("", ReadProjectHooks(cwd))
}

// ReadProjectHooks reads the hooks a working directory's files offer, on the machine this
// runs on (a remote project's agent reads them on its host with it), and fingerprints them;
// whether the person approved them is Judge's, on the person's machine.
func ReadProjectHooks(cwd string) ProjectHooks {
	p := ProjectHooks{Cwd: cwd, Config: Config{Hooks: map[Event][]Group{}}}
	if cwd == "" {
		return p
	}
	for _, rel := range ProjectHookFiles {
		path := filepath.Join(cwd, rel)
		f, err := projectFiles.Load(path, func(p string) (parsedHooks, error) {
			b, err := readText(p, 1<<20, true)
			if err != nil {
				return parsedHooks{}, err
			}
			return parse([]byte(b)), nil
		})
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			continue
		}
		if err != nil {
			p.Notices = append(p.Notices, fmt.Sprintf("%s was skipped: %v", rel, err))
			continue
		}
		cfg, notes, err := f.cfg, f.notes, f.err
		if err != nil {
			p.Notices = append(p.Notices, fmt.Sprintf("%s was skipped: %v", rel, err))
			continue
		}
		for _, n := range notes {
			p.Notices = append(p.Notices, rel+": "+n)
		}
		if unwalled(cfg) {
			p.Notices = append(p.Notices, rel+`: "runAsMe" is ignored: only your own hooks file can let a hook run outside the conversation's walls; the project's hooks run under them`)
		}
		if cfg.Count() == 0 {
			continue
		}
		p.Files = append(p.Files, rel)
		for _, ev := range Events {
			p.Config.Hooks[ev] = append(p.Config.Hooks[ev], cfg.Hooks[ev]...)
		}
	}
	if len(p.Files) == 0 {
		return p
	}
	for ev, gs := range p.Config.Hooks {
		if len(gs) == 0 {
			delete(p.Config.Hooks, ev)
		}
	}
	p.Fingerprint = p.fingerprint()
	return p
}

// fingerprint identifies the files and what they configure, wherever they were read.
func (p ProjectHooks) fingerprint() string {
	canon, _ := json.Marshal(struct {
		Files  []string
		Config Config
	}{p.Files, p.Config})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// Judge says, of what a project's files offer (read here or on host), whether the person
// approved exactly that configuration for that folder on that machine. The fingerprint is
// computed again from what was read, so a reading from another machine cannot claim an
// approved fingerprint for a configuration it does not hold.
func (h *Hooks) Judge(host string, p ProjectHooks) ProjectHooks {
	p.Host, p.Allowed = host, false
	if len(p.Files) == 0 {
		p.Fingerprint = ""
		return p
	}
	p.Fingerprint = p.fingerprint()
	p.Allowed = p.Fingerprint == h.Approved(host, p.Cwd)
	return p
}

// Approved is the fingerprint of the configuration the person approved for the folder cwd on
// host ("" for this machine), "" when none is.
func (h *Hooks) Approved(host, cwd string) string {
	if h == nil || h.configDir == "" || cwd == "" {
		return ""
	}
	approved, _ := h.readApprovals()
	return approved[ApprovalKey(host, cwd)]
}

// ApprovalKey is what an approval is recorded under: a local project's absolute folder, as
// it always was (hooks-approved.json keeps opening), and for a folder on another machine the
// host as the person named it with the folder there — never an absolute path, so it equals no
// local folder, and quoted, so no two hosts' folders share one.
func ApprovalKey(host, cwd string) string {
	if host == "" {
		return cwd
	}
	return "ssh " + strconv.Quote(host) + " " + cwd
}

type approvals struct {
	Projects map[string]string `json:"projects"`
}

func (h *Hooks) readApprovals() (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(h.configDir, approvalsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var a approvals
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s does not decode: %v", approvalsFile, err)
	}
	if a.Projects == nil {
		a.Projects = map[string]string{}
	}
	return a.Projects, nil
}

// ErrHooksChanged refuses an approval of a configuration that is no longer the project's.
var ErrHooksChanged = errors.New("the project's hooks changed since they were shown; look at them again before allowing them")

// AllowProject records the person's approval of the working directory's hooks as they are
// now, identified by the fingerprint the person was shown.
func (h *Hooks) AllowProject(cwd, fingerprint string) error {
	return h.allow("", cwd, fingerprint, func() ProjectHooks { return ReadProjectHooks(cwd) })
}

// AllowProjectOn records the person's approval of the hooks of the folder cwd on host as the
// person was shown them; now reads them there again (through the host's agent), so that a
// configuration changed since is refused with ErrHooksChanged.
func (h *Hooks) AllowProjectOn(host, cwd, fingerprint string, now func() (ProjectHooks, error)) error {
	if host == "" {
		return h.AllowProject(cwd, fingerprint)
	}
	var readErr error
	err := h.allow(host, cwd, fingerprint, func() ProjectHooks {
		p, err := now()
		if err != nil {
			readErr = err
		}
		return p
	})
	if readErr != nil {
		return fmt.Errorf("allow the hooks of %s on %s: they could not be read there again to check they are still the ones shown: %w", cwd, host, readErr)
	}
	return err
}

func (h *Hooks) allow(host, cwd, fingerprint string, now func() ProjectHooks) error {
	if h == nil || h.configDir == "" {
		return errors.New("project hooks cannot be allowed: there is no configuration directory to remember it in")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.Judge(host, now()); cur.Fingerprint == "" || cur.Fingerprint != fingerprint {
		return ErrHooksChanged
	}
	approved, err := h.readApprovals()
	if err != nil {
		return fmt.Errorf("allow the hooks of %s: %w", cwd, err)
	}
	approved[ApprovalKey(host, cwd)] = fingerprint
	b, _ := json.MarshalIndent(approvals{Projects: approved}, "", "  ")
	if err := writeFileAtomic(filepath.Join(h.configDir, approvalsFile), b); err != nil {
		return fmt.Errorf("allow the hooks of %s: %w", cwd, err)
	}
	return nil
}

// unwalled clears every runAsMe of a project's configuration and reports whether there was
// one: a project must not let its own hooks out of the walls.
func unwalled(cfg Config) bool {
	found := false
	for _, gs := range cfg.Hooks {
		for _, g := range gs {
			for i := range g.Hooks {
				found = found || g.Hooks[i].RunAsMe
				g.Hooks[i].RunAsMe = false
			}
		}
	}
	return found
}
