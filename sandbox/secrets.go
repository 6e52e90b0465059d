//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Secret is one entry of the secrets table: a place no sandboxed command (nor an MCP server,
// nor a sub-agent's command) may read, in any mode but Unrestricted.
type Secret struct {
	// Path is absolute, as the person sees it (before symlinks are followed).
	Path string `json:"path"`
	// What says in words what it holds.
	What string `json:"what"`
	// Present says it exists on this machine now; a missing entry is hidden too as soon as
	// it appears.
	Present bool `json:"present"`
}

// homeSecrets is the one home of the secrets table's entries below the person's home
// directory: keys, tokens and the profiles that hold them. The app's own directories, the
// other conversations' temp dirs and the person's additions come on top (see Secrets).
var homeSecrets = []struct{ path, what string }{
	{".ssh", "SSH keys"},
	{".gnupg", "GnuPG keys"},
	{".aws", "AWS credentials"},
	{".azure", "Azure credentials"},
	{".config/gcloud", "Google Cloud credentials"},
	{".kube", "Kubernetes credentials"},
	{".docker/config.json", "Docker registry credentials"},
	{".netrc", "passwords for hosts (netrc)"},
	{".git-credentials", "git's stored passwords"},
	{".config/git/credentials", "git's stored passwords"},
	{".config/gh", "the GitHub CLI's token"},
	{".password-store", "pass's password store"},
	{".local/share/keyrings", "the desktop keyring's files"},
	{".local/share/kwalletd", "KWallet's files"},
	{".pki", "certificates and keys of the NSS database"},
	{".cargo/credentials.toml", "cargo's registry token"},
	{".cargo/credentials", "cargo's registry token"},
	{".pypirc", "PyPI upload credentials"},
	{".mozilla", "Firefox profiles (cookies, saved passwords)"},
	{".config/google-chrome", "Chrome profiles (cookies, saved passwords)"},
	{".config/chromium", "Chromium profiles (cookies, saved passwords)"},
	{".config/BraveSoftware", "Brave profiles (cookies, saved passwords)"},
	{".config/microsoft-edge", "Edge profiles (cookies, saved passwords)"},
	{".thunderbird", "Thunderbird profiles (mail, saved passwords)"},
}

// secretsConfig is what the app adds to the table: its own directories (keys, every
// conversation's store, the search index, checkpoints) and the person's own entries from
// Settings or the configuration file.
var secretsConfig struct {
	sync.Mutex
	app, extra []string
	// home overrides the person's home directory; tests set it.
	home string
}

// HideAppDirs adds the app's own directories (configuration, data, cache) to the secrets
// table. The app calls it once at start, before the first command.
func HideAppDirs(dirs ...string) {
	secretsConfig.Lock()
	defer secretsConfig.Unlock()
	for _, d := range dirs {
		if d != "" && filepath.IsAbs(d) && !slices.Contains(secretsConfig.app, filepath.Clean(d)) {
			secretsConfig.app = append(secretsConfig.app, filepath.Clean(d))
		}
	}
}

// SetExtraSecrets replaces the person's own entries of the secrets table (Settings and the
// configuration file). A leading ~/ means the home directory. It returns an error naming
// an entry that is not an absolute path, and keeps the previous list then.
func SetExtraSecrets(paths []string) error {
	home := secretsHome()
	var out []string
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
			p = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(p) {
			return fmt.Errorf("the secret %q is not an absolute path: write it as /path or ~/path", p)
		}
		out = append(out, filepath.Clean(p))
	}
	secretsConfig.Lock()
	secretsConfig.extra = out
	secretsConfig.Unlock()
	return nil
}

func secretsHome() string {
	secretsConfig.Lock()
	home := secretsConfig.home
	secretsConfig.Unlock()
	if home != "" {
		return home
	}
	home, _ = os.UserHomeDir()
	return home
}

// Secrets lists the secrets table as it stands on this machine: the person's keys and
// profiles, the app's own directories, the other conversations' temp dirs, and the
// person's additions. Describe, doctor and the mode badge's details show it.
func Secrets() []Secret {
	home := secretsHome()
	out := make([]Secret, 0, len(homeSecrets)+8)
	add := func(path, what string) {
		out = append(out, Secret{Path: path, What: what, Present: lexists(path)})
	}
	if home != "" && home != "/" {
		for i, p := range homeSecretPaths(home) {
			add(p, homeSecrets[i].what)
		}
	}
	secretsConfig.Lock()
	app, extra := slices.Clone(secretsConfig.app), slices.Clone(secretsConfig.extra)
	secretsConfig.Unlock()
	for _, d := range app {
		add(d, "this app's own files (keys, conversations, search index)")
	}
	add(tempRoot(), "the other conversations' temp dirs")
	for _, p := range extra {
		add(p, "added by you")
	}
	return out
}

// lexists reports whether path names a file, without following a last symbolic link. It is
// os.Lstat without what os.Lstat allocates (the file's details, the error): the table is
// looked at before every sandboxed command, and most of its entries are missing.
func lexists(path string) bool {
	var st unix.Stat_t
	return lstat(path, &st)
}

// homeSecretPaths returns homeSecrets' paths below home, joined once for the home they were
// last asked for rather than before every command.
func homeSecretPaths(home string) []string {
	joined.Lock()
	defer joined.Unlock()
	if joined.home != home || joined.paths == nil {
		paths := make([]string, len(homeSecrets))
		for i, s := range homeSecrets {
			paths[i] = filepath.Join(home, s.path)
		}
		joined.home, joined.paths = home, paths
	}
	return joined.paths
}

// joined holds homeSecretPaths' last answer; its slice is never changed once made.
var joined struct {
	sync.Mutex
	home  string
	paths []string
}

// hiddenPaths is the secrets table as the supervisor hides it: the entries that exist, with
// symlinks followed (a mount or a Landlock rule reaches the real file), sorted, and without
// an entry below another.
func hiddenPaths() []string {
	var paths []string
	for _, s := range Secrets() {
		if !s.Present {
			continue
		}
		real, err := filepath.EvalSymlinks(s.Path)
		if err != nil || !filepath.IsAbs(real) || real == "/" {
			continue
		}
		paths = append(paths, real)
	}
	return outermost(paths)
}

// outermost sorts paths, drops duplicates and drops every path below another one.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		if n := len(out); n > 0 && (out[n-1] == p || isBelow(p, out[n-1])) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// isBelow reports whether path lies strictly below dir (both clean and absolute).
func isBelow(path, dir string) bool {
	if dir == "/" {
		return path != "/"
	}
	return strings.HasPrefix(path, dir+"/")
}

// tempRootName is the directory below the system temp dir that holds every conversation's
// private temp dir; it is hidden from all of them, so a command sees only its own.
const tempRootName = "phoenix-sandbox-"

// tempRoot is the directory that holds the conversations' temp dirs: one per user, so that
// several people on one machine do not share it.
func tempRoot() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", tempRootName, os.Getuid()))
}

// ensureTempRoot creates the temp root, private to the person, and checks that what is
// there is theirs: the system temp dir is writable by everyone, and another user could have
// made the name first (a directory they can read, or a symlink to one).
func ensureTempRoot() (string, error) {
	root := tempRoot()
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("create the sandbox's temp root %s: %w", root, err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return "", fmt.Errorf("check the sandbox's temp root %s: %w", root, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return "", fmt.Errorf("the sandbox's temp root %s is not a directory: remove it and try again", root)
	case int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("the sandbox's temp root %s belongs to user %d, not to you: remove it and try again", root, st.Uid)
	case st.Mode&0o077 != 0:
		if err := os.Chmod(root, 0o700); err != nil {
			return "", fmt.Errorf("make the sandbox's temp root %s private: %w", root, err)
		}
	}
	return root, nil
}
