package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// rulesVersion is the version of the allowed-hosts file this build writes and reads.
const rulesVersion = 1

// registryTTL is how long the package registries read from the toolchains' configuration are
// used before they are read again, so a changed mirror setting is honoured within a minute
// without running `go env` and `npm config` on every connection.
const registryTTL = time.Minute

// registryReadTimeout bounds one reading of the toolchains' configuration.
const registryReadTimeout = 20 * time.Second

// Rules is the allowed hosts of every project (a project is the absolute path of its working
// tree) and whether its "package registries" switch is on, kept in a JSON file. It is safe for
// concurrent use. Every change is written at once, atomically, readable by the person only;
// a change is applied on top of what the file holds at that moment, so an entry the person
// added by hand while the app runs is kept.
type Rules struct {
	path string

	mu       sync.Mutex
	projects map[string]projectRules

	// registryHosts reads the package registries' hosts (RegistryHosts; tests replace it).
	registryHosts func(ctx context.Context, project string) ([]string, error)
	now           func() time.Time

	regMu    sync.Mutex
	regCache map[string]*registryEntry
}

type projectRules struct {
	patterns   []pattern
	registries bool
}

type registryEntry struct {
	ready    chan struct{} // closed when patterns and err are set
	patterns []pattern
	err      error
	at       time.Time
}

// rulesFile is the file's layout.
type rulesFile struct {
	Version  int                    `json:"version"`
	Projects map[string]projectFile `json:"projects"`
}

type projectFile struct {
	Hosts      []string `json:"hosts,omitempty"`
	Registries bool     `json:"package_registries,omitempty"`
}

// LoadRules opens the allowed-hosts file at path; a missing file is an empty list. A file that
// cannot be read as one is an error that names it and says what to do; it is never replaced.
func LoadRules(path string) (*Rules, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("the allowed-hosts file %q must be an absolute path", path)
	}
	r := &Rules{
		path:          path,
		registryHosts: RegistryHosts,
		now:           time.Now,
		regCache:      map[string]*registryEntry{},
	}
	projects, err := readRules(path)
	if err != nil {
		return nil, err
	}
	r.projects = projects
	return r, nil
}

func readRules(path string) (map[string]projectRules, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]projectRules{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the proxy's allowed hosts from %s: %w", path, err)
	}
	corrupt := func(why string) error {
		return fmt.Errorf("the proxy's allowed-hosts file %s is damaged (%s); the app leaves it as it is: "+
			"fix it in an editor, or move it away to start with an empty list (no host allowed)", path, why)
	}
	var f rulesFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, corrupt(err.Error())
	}
	if dec.More() {
		return nil, corrupt("more than one JSON value")
	}
	if f.Version > rulesVersion {
		return nil, fmt.Errorf("the proxy's allowed-hosts file %s was written by a newer version of the app (format %d, this one reads %d): "+
			"update the app, or move the file away to start with an empty list", path, f.Version, rulesVersion)
	}
	if f.Version < 1 {
		return nil, corrupt("no version")
	}
	projects := map[string]projectRules{}
	for project, pf := range f.Projects {
		if !filepath.IsAbs(project) {
			return nil, corrupt(fmt.Sprintf("the project %q is not an absolute path", project))
		}
		var pr projectRules
		for _, h := range pf.Hosts {
			p, err := parsePattern(h)
			if err != nil {
				return nil, corrupt(err.Error())
			}
			pr.patterns = appendPattern(pr.patterns, p)
		}
		pr.registries = pf.Registries
		projects[filepath.Clean(project)] = pr
	}
	return projects, nil
}

func appendPattern(ps []pattern, p pattern) []pattern {
	if slices.Contains(ps, p) {
		return ps
	}
	return append(ps, p)
}

// projectKey is the one spelling of a project: a clean absolute path.
func projectKey(project string) (string, error) {
	if !filepath.IsAbs(project) {
		return "", fmt.Errorf("the project %q is not an absolute path to its working tree", project)
	}
	return filepath.Clean(project), nil
}

// Allow adds an entry (see the pattern forms in the package documentation) to a project's
// allowed hosts and saves the file.
func (r *Rules) Allow(project, entry string) error {
	p, err := parsePattern(entry)
	if err != nil {
		return err
	}
	return r.change(project, func(pr *projectRules) { pr.patterns = appendPattern(pr.patterns, p) })
}

// Remove takes an entry off a project's allowed hosts (written in any spelling Allow accepts)
// and saves the file. Removing an entry that is not there is not an error.
func (r *Rules) Remove(project, entry string) error {
	p, err := parsePattern(entry)
	if err != nil {
		return err
	}
	return r.change(project, func(pr *projectRules) {
		pr.patterns = slices.DeleteFunc(pr.patterns, func(q pattern) bool { return q == p })
	})
}

// SetRegistries turns a project's "package registries" switch on or off and saves the file.
func (r *Rules) SetRegistries(project string, on bool) error {
	return r.change(project, func(pr *projectRules) { pr.registries = on })
}

// Registries says whether a project's "package registries" switch is on.
func (r *Rules) Registries(project string) bool {
	key, err := projectKey(project)
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.projects[key].registries
}

// List is a project's allowed-host entries, in the order they were added, in their one
// spelling. The package registries (when the switch is on) are not in it: see RegistryEntries.
func (r *Rules) List(project string) []string {
	key, err := projectKey(project)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.projects[key].patterns {
		out = append(out, p.String())
	}
	return out
}

// Projects lists, sorted, the projects that have an entry or their registries switch on:
// Settings shows the rules of a machine whose projects it does not otherwise know (a remote
// host's, read there by the agent).
func (r *Rules) Projects() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.projects))
	for p := range r.projects {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Allowed says whether a connection from a project to host:port is allowed by the project's
// entries or, when its switch is on, by the package registries.
func (r *Rules) Allowed(project, hostName string, port int) bool {
	h, err := parseHost(hostName)
	if err != nil {
		return false
	}
	_, ok := r.match(project, h, port)
	return ok
}

// match returns the entry that allows h:port, if one does.
func (r *Rules) match(project string, h host, port int) (pattern, bool) {
	key, err := projectKey(project)
	if err != nil {
		return pattern{}, false
	}
	r.mu.Lock()
	pr := r.projects[key]
	r.mu.Unlock()
	for _, p := range pr.patterns {
		if p.matches(h, port) {
			return p, true
		}
	}
	if !pr.registries {
		return pattern{}, false
	}
	regs, _ := r.registryPatterns(key)
	for _, p := range regs {
		if p.matches(h, port) {
			return p, true
		}
	}
	return pattern{}, false
}

// RegistryEntries is what the "package registries" switch allows for a project, as read
// from this machine's toolchains (at most a minute ago), with what could not be read.
func (r *Rules) RegistryEntries(project string) ([]string, error) {
	key, err := projectKey(project)
	if err != nil {
		return nil, err
	}
	ps, err := r.registryPatterns(key)
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out, err
}

// registryPatterns reads the registries for a project once a minute; concurrent callers
// wait for the same reading.
func (r *Rules) registryPatterns(key string) ([]pattern, error) {
	r.regMu.Lock()
	e := r.regCache[key]
	if e != nil {
		select {
		case <-e.ready:
			if r.now().Sub(e.at) >= registryTTL {
				e = nil
			}
		default:
		}
	}
	if e == nil {
		e = &registryEntry{ready: make(chan struct{})}
		r.regCache[key] = e
		r.regMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), registryReadTimeout)
		entries, err := r.registryHosts(ctx, key)
		cancel()
		for _, s := range entries {
			p, perr := parsePattern(s)
			if perr != nil {
				err = errors.Join(err, perr)
				continue
			}
			e.patterns = appendPattern(e.patterns, p)
		}
		e.err, e.at = err, r.now()
		close(e.ready)
		return e.patterns, e.err
	}
	r.regMu.Unlock()
	<-e.ready
	return e.patterns, e.err
}

// change applies fn to a project's rules on top of what the file holds now and saves; if the
// file cannot be read or written, nothing changes and the error says why.
func (r *Rules) change(project string, fn func(*projectRules)) error {
	key, err := projectKey(project)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	projects, err := readRules(r.path)
	if err != nil {
		return err
	}
	pr := projects[key]
	pr.patterns = slices.Clone(pr.patterns)
	fn(&pr)
	if len(pr.patterns) == 0 && !pr.registries {
		delete(projects, key)
	} else {
		projects[key] = pr
	}
	if err := writeRules(r.path, projects); err != nil {
		return err
	}
	r.projects = projects
	return nil
}

// writeRules replaces the file atomically (a temporary file in the same directory, synced,
// renamed over it), readable by the person only.
func writeRules(path string, projects map[string]projectRules) error {
	f := rulesFile{Version: rulesVersion, Projects: map[string]projectFile{}}
	for k, pr := range projects {
		pf := projectFile{Registries: pr.registries}
		for _, p := range pr.patterns {
			pf.Hosts = append(pf.Hosts, p.String())
		}
		f.Projects[k] = pf
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the proxy's allowed hosts: %w", err)
	}
	data = append(data, '\n')
	failed := func(err error) error {
		return fmt.Errorf("saving the proxy's allowed hosts to %s: %w (nothing was changed; check that the directory is writable and the disk not full)", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failed(err)
	}
	tmp, err := os.CreateTemp(dir, ".allowed-hosts-*.tmp")
	if err != nil {
		return failed(err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return failed(err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return failed(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return failed(err)
	}
	if err := tmp.Close(); err != nil {
		return failed(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return failed(err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash only once the directory is synced
		d.Close()
	}
	return nil
}
