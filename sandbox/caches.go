//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/phoenix-desktop/phoenix/hostexec"
)

// The person's toolchain caches, copy-on-write. In the mount view each cache directory that
// exists when a command starts (one made after the app started counts from then on) is
// covered by an overlay whose lower layer is the real cache and whose upper layer lies in
// the conversation's temp dir: a first `go build` in a new conversation finds everything the person compiled before, what the command adds or changes lands in the
// conversation's own layer, and the real cache is never written. The overlays follow the
// temp dir: they are mounted when a conversation's command binds it and taken down with it.
// Without the mount view (no namespaces) the caches start empty in the temp dir, as the
// tools' environment arranges.

// CacheDir is one toolchain cache.
type CacheDir struct {
	// Name names it in the temp dir and in Describe ("go-build").
	Name string `json:"name"`
	// Path is the real directory, symlinks followed.
	Path string `json:"path"`
	// Env is the variable that points the tool at it; the supervisor sets it to Path for a
	// command whose cache is mounted, overriding the temp-dir value the tools' environment
	// gives Restricted commands.
	Env string `json:"env"`
}

// toolchainCaches is the one table of the caches shared copy-on-write: each finds its
// directory as its tool would.
var toolchainCaches = []struct {
	name, env string
	find      func(goEnv map[string]string, home string) string
	// ownWhenNotShared points the tool at an empty cache in the temp dir when the overlay
	// cannot be mounted (an upper layer on a file system overlayfs refuses): the tool needs
	// to write its cache to work at all. Go's build cache gets one from the tools'
	// environment already, and a read-only module cache serves builds that need nothing new.
	ownWhenNotShared bool
}{
	{"go-build", "GOCACHE", func(g map[string]string, _ string) string { return g["GOCACHE"] }, false},
	{"go-mod", "GOMODCACHE", func(g map[string]string, _ string) string { return g["GOMODCACHE"] }, false},
	{"npm", "npm_config_cache", func(_ map[string]string, home string) string {
		if v := os.Getenv("npm_config_cache"); v != "" {
			return v
		}
		return filepath.Join(home, ".npm")
	}, true},
	{"pip", "PIP_CACHE_DIR", func(_ map[string]string, home string) string {
		if v := os.Getenv("PIP_CACHE_DIR"); v != "" {
			return v
		}
		if v := os.Getenv("XDG_CACHE_HOME"); v != "" {
			return filepath.Join(v, "pip")
		}
		return filepath.Join(home, ".cache", "pip")
	}, true},
}

// goCacheDirs is what `go env` last said about Go's cache directories, and what it was
// asked under: the go binary found on PATH and the variables its answer depends on.
var goCacheDirs struct {
	sync.Mutex
	asked string
	env   map[string]string
}

// goEnvInputs are the variables that decide where Go keeps its caches.
var goEnvInputs = []string{"PATH", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GOENV", "GOPATH", "GOCACHE", "GOMODCACHE"}

// Caches lists the toolchain caches this machine has now, as commands in the mount view share
// them. It is asked for each command rather than once: a person who installs the app before
// ever running Go (or npm, or pip) has no cache when the app starts, and one made later by a
// build outside must be shared from the next command on, not after a restart. Looking costs a
// few stats; asking Go where its caches are (it may have them configured in its own env file)
// costs a start of the go command, so its answer is kept until go or what decides its answer
// changes.
func Caches() []CacheDir {
	return findCaches(goEnvCaches())
}

// goEnvCaches returns Go's GOCACHE and GOMODCACHE, asking go when it has not been asked under
// the present go binary and variables. Without go on PATH the answer is empty and go is looked
// for again next time: it may be installed later.
func goEnvCaches() map[string]string {
	gobin, err := exec.LookPath("go")
	if err != nil || agentTrees.holds(gobin) {
		// A go inside a tree a Project-mode command could write (a project's folder on
		// PATH) may be the agent's: it is not run outside the sandbox, and Go's caches are
		// not shared until the go found is another.
		return nil
	}
	key := gobin
	for _, name := range goEnvInputs {
		key += "\x00" + name + "=" + os.Getenv(name)
	}
	goCacheDirs.Lock()
	defer goCacheDirs.Unlock()
	if goCacheDirs.asked == key {
		return goCacheDirs.env
	}
	// Asked in an earlier run under the same go, env file and variables (probes.go).
	now := probeNow()
	lasting, settled := goEnvIdentity(gobin, now)
	lasting = key + "\x00" + lasting
	if a, ok := rememberedProbe("go env", lasting, now); ok && settled {
		if lines := strings.Split(a, "\n"); len(lines) == 2 {
			goCacheDirs.asked = key
			goCacheDirs.env = map[string]string{"GOCACHE": lines[0], "GOMODCACHE": lines[1]}
			return goCacheDirs.env
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "env", "GOCACHE", "GOMODCACHE")
	// Outside the sandbox, so nothing of a project may steer it: from /, no go.mod or
	// go.work is found, and GOTOOLCHAIN=local keeps go from fetching and running the
	// toolchain a go.mod or the environment names.
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	// A go that fails is not asked again under the same inputs either: each command would
	// pay for its start (or its timeout).
	goCacheDirs.asked, goCacheDirs.env = key, nil
	if err == nil && len(lines) == 2 {
		goCacheDirs.env = map[string]string{"GOCACHE": lines[0], "GOMODCACHE": lines[1]}
		if settled {
			rememberProbe("go env", lasting, lines[0]+"\n"+lines[1], now)
		}
	}
	return goCacheDirs.env
}

// goEnvIdentity names the files go's answer comes from: the go binary (and the go.env of
// its installation) and the person's go env file; settled is false if one changed just now.
func goEnvIdentity(gobin string, now time.Time) (id string, settled bool) {
	files := []string{gobin}
	if real, err := filepath.EvalSymlinks(gobin); err == nil {
		files = append(files, real, filepath.Join(filepath.Dir(filepath.Dir(real)), "go.env"))
	}
	envFile := os.Getenv("GOENV")
	if envFile == "" {
		if d, err := os.UserConfigDir(); err == nil {
			envFile = filepath.Join(d, "go", "env")
		}
	}
	if envFile != "" && envFile != "off" {
		files = append(files, envFile)
	}
	settled = true
	for _, f := range files {
		fid, ok := fileIdentity(f, now)
		id += fid + "\x00"
		settled = settled && ok
	}
	return id, settled
}

// agentTrees are the working trees this process has let Project-mode commands write.
var agentTrees writableTrees

// writableTrees is a set of trees, safe for concurrent use.
type writableTrees struct {
	mu    sync.Mutex
	trees []string
}

func (w *writableTrees) note(tree string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.trees, tree) {
		w.trees = append(w.trees, tree)
	}
}

// holds says whether path lies in one of the trees.
func (w *writableTrees) holds(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range w.trees {
		if hostexec.InsideTree(t, path) {
			return true
		}
	}
	return false
}

// findCaches finds the caches that exist now, Go's where goEnv says.
func findCaches(goEnv map[string]string) []CacheDir {
	home, _ := os.UserHomeDir()
	var out []CacheDir
	for _, c := range toolchainCaches {
		p := c.find(goEnv, home)
		if p == "" || !filepath.IsAbs(p) || strings.ContainsAny(p, ",:\\") {
			// Overlay options cannot carry these characters.
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if c.ownWhenNotShared && os.IsNotExist(err) {
				// Nothing to share, but the tool still needs a cache it can write: listed,
				// its overlay fails and it gets an empty one in the temp dir.
				out = append(out, CacheDir{Name: c.name, Path: p, Env: c.env})
			}
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, CacheDir{Name: c.name, Path: real, Env: c.env})
	}
	return out
}

// sharedCaches is Caches without any that holds or lies in a secret.
func sharedCaches(hidden []string) []CacheDir {
	var out []CacheDir
	for _, c := range Caches() {
		clash := false
		for _, h := range hidden {
			clash = clash || c.Path == h || isBelow(c.Path, h) || isBelow(h, c.Path)
		}
		if !clash {
			out = append(out, c)
		}
	}
	return out
}

// cacheLayersDir is the directory in a temp dir that holds the caches' upper layers.
const cacheLayersDir = ".phoenix-caches"

// mountCaches mounts an overlay on each cache, its upper layer in the temp dir, and returns
// those mounted. A cache whose overlay fails (a file system overlayfs cannot use for its
// upper layer, a kernel without unprivileged overlays) is left out: the command then uses
// the empty cache in its temp dir, as without the view.
func mountCaches(tempDir string, caches []CacheDir) (mounted []CacheDir, errs []error) {
	for _, c := range caches {
		base := filepath.Join(tempDir, cacheLayersDir, c.Name)
		upper, work := filepath.Join(base, "upper"), filepath.Join(base, "work")
		if err := os.MkdirAll(upper, 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.MkdirAll(work, 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr", c.Path, upper, work)
		if err := unix.Mount("phoenix-cache", c.Path, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			errs = append(errs, fmt.Errorf("mount view: share the %s cache copy-on-write: %w", c.Name, err))
			continue
		}
		mounted = append(mounted, c)
	}
	return mounted, errs
}

// unmountCaches takes the overlays down.
func unmountCaches(caches []CacheDir) {
	for _, c := range caches {
		_ = unix.Unmount(c.Path, unix.MNT_DETACH)
	}
}

// withCaches points each mounted cache's variable at its overlay, and each wanted cache that
// could not be mounted, if its tool must write one, at an empty one in the temp dir.
func withCaches(env []string, wanted, mounted []CacheDir, tempDir string) []string {
	names := map[string]string{}
	for _, c := range wanted {
		for _, t := range toolchainCaches {
			if t.name == c.Name && t.ownWhenNotShared {
				names[c.Env] = filepath.Join(tempDir, ".cache", c.Name)
			}
		}
	}
	for _, c := range mounted {
		names[c.Env] = c.Path
	}
	return withVars(env, names)
}

// withVars replaces (or adds) the variables of vars in env, in the order of their names.
func withVars(env []string, vars map[string]string) []string {
	if len(vars) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[name]; !ok {
			out = append(out, kv)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, name+"="+vars[name])
	}
	return out
}
