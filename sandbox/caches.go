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
)

// The person's toolchain caches, copy-on-write. In the mount view each cache directory
// that exists is covered by an overlay whose lower layer is the real cache and whose upper
// layer lies in the conversation's temp dir: a first `go build` in a new conversation finds
// everything the person compiled before, what the command adds or changes lands in the
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

var cachesFound struct {
	once sync.Once
	dirs []CacheDir
}

// Caches lists the toolchain caches this machine has, as commands in the mount view share
// them. Go is asked once for its directories (it may have them configured in its own env
// file), which costs one start of the go command.
func Caches() []CacheDir {
	cachesFound.once.Do(func() { cachesFound.dirs = findCaches() })
	return cachesFound.dirs
}

func findCaches() []CacheDir {
	home, _ := os.UserHomeDir()
	goEnv := map[string]string{}
	if gobin, err := exec.LookPath("go"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, gobin, "env", "GOCACHE", "GOMODCACHE").Output()
		cancel()
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(lines) == 2 {
			goEnv["GOCACHE"], goEnv["GOMODCACHE"] = lines[0], lines[1]
		}
	}
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
