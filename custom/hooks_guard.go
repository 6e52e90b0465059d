package custom

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// A hook the person marks "runAsMe" runs outside the conversation's walls, as the person. The
// agent must not be able to turn it against them: in Project mode the agent writes the whole
// tree, so a hook that runs ./post.sh, `npx prettier` or `make fmt` would run what the agent
// wrote, unsandboxed. So before the agent's first tool call that can change files, a Baseline
// records what every runs-as-me hook uses (Uses) held; afterwards such a hook runs only while
// all of it is as recorded, and is refused, naming the file, otherwise.

// Walls says under which walls a hook runs, in the person's words, after "runs" (Settings →
// Hooks and `phoenix-desktop hooks` show it).
func (h Hook) Walls(project bool) string {
	switch {
	case project:
		return "under the conversation's walls, without network in Project mode"
	case h.RunAsMe:
		return "as you, outside the walls; refused once the agent changed what it runs"
	}
	return "under the conversation's walls"
}

// Baseline is what the files runs-as-me hooks use held before the agent's first tool call
// that could change files, for one conversation (a sub-agent shares its parent's).
type Baseline struct {
	// Wrote is set once the agent started a tool call that can change files; before it,
	// nothing a hook uses can be the agent's work.
	Wrote bool `json:"wrote,omitempty"`
	// Files maps each absolute path to its fingerprint when the baseline was taken.
	Files map[string]string `json:"files,omitempty"`
}

// BeforeWrite is called before each tool call that can change files (a mode that writes):
// the first time, it records what the runs-as-me hooks of cfg use. It reports whether the
// baseline changed (and so is to be saved).
func (b *Baseline) BeforeWrite(cfg Config, cwd string) bool {
	if b.Wrote {
		return false
	}
	b.Wrote = true
	if b.Files == nil {
		b.Files = map[string]string{}
	}
	for _, gs := range cfg.Hooks {
		for _, g := range gs {
			for _, hk := range g.Hooks {
				if !hk.RunAsMe {
					continue
				}
				for _, p := range Uses(hk.Command, cwd) {
					if _, ok := b.Files[p]; !ok {
						b.Files[p] = fingerprint(p)
					}
				}
			}
		}
	}
	return true
}

// ErrChangedByAgent refuses a runs-as-me hook whose files changed after the agent began to
// change files.
var ErrChangedByAgent = errors.New("changed by the agent")

// Check says why a runs-as-me hook must not run now, nil when it may: nothing it uses was
// changed since the baseline.
func (b Baseline) Check(command, cwd string) error {
	if !b.Wrote {
		return nil
	}
	for _, p := range Uses(command, cwd) {
		was, ok := b.Files[p]
		if !ok {
			return fmt.Errorf("%w: it runs as you, outside the walls, and uses %s, which was not recorded before the agent began changing files in this conversation (the hook was added or changed since), so Phoenix Desktop cannot tell whether the agent changed it. Start a new conversation, or turn off \"runs as me\" for it in Settings → Hooks so that it runs under the conversation's walls",
				ErrChangedByAgent, p)
		}
		if now := fingerprint(p); now == tooLarge {
			return fmt.Errorf("%w: it runs as you, outside the walls, and uses %s, which holds more than %d entries: too many to check for the agent's changes. Turn off \"runs as me\" for it in Settings → Hooks so that it runs under the conversation's walls",
				ErrChangedByAgent, p, fingerprintBudget)
		} else if now != was {
			return fmt.Errorf("%w: it runs as you, outside the walls, and %s was changed after the agent began changing files in this conversation, so it may be the agent's work. Look at the change; to run it anyway, turn off \"runs as me\" for this hook in Settings → Hooks (it then runs under the conversation's walls) or start a new conversation",
				ErrChangedByAgent, p)
		}
	}
	return nil
}

// toolFiles are what a project-tool runner reads from the working directory and may run:
// its manifest, its configuration and its tool folders.
var toolFiles = map[string][]string{
	"npm":  {"package.json", ".npmrc", "node_modules/.bin"},
	"npx":  {"package.json", ".npmrc", "node_modules/.bin"},
	"pnpm": {"package.json", ".npmrc", ".pnpmfile.cjs", "node_modules/.bin"},
	"pnpx": {"package.json", ".npmrc", "node_modules/.bin"},
	"yarn": {"package.json", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".yarn", "node_modules/.bin"},
	"bun":  {"package.json", "bunfig.toml", "node_modules/.bin"},
	"bunx": {"package.json", "bunfig.toml", "node_modules/.bin"},
	"make": {"Makefile", "makefile", "GNUmakefile"},
	"cargo": {"Cargo.toml", "Cargo.lock", "build.rs", ".cargo", "rust-toolchain",
		"rust-toolchain.toml"},
	"go": {"go.mod", "go.sum", "go.work"},
}

// interpreters run the script their first argument names.
var interpreters = []string{"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node",
	"deno", "ruby", "perl", "php", "tsx", "ts-node", "lua", "Rscript"}

// wrappers run the command after them.
var wrappers = []string{"exec", "command", "builtin", "time", "nice", "nohup", "env", "xargs", "sudo", "timeout"}

// unquote drops a word's quotes ("$CLAUDE_PROJECT_DIR"/x.sh is one path).
var unquote = strings.NewReplacer(`"`, "", "'", "")

// wrapperArg is a wrapper's numeric argument (timeout 5s, nice -n 10).
var wrapperArg = regexp.MustCompile(`^[0-9.]+[smhd]?$`)

// Uses lists the files a hook's command would run that someone could have changed: the
// program when it is a path, the script an interpreter is given, and for a project-tool
// runner (npm, npx, yarn, pnpm, bun, make, cargo, go) the working directory's manifest,
// configuration and tool folders, plus, for a package script (`npm run fmt`) what the
// script runs and, for `npx NAME`, the package's folder. Paths are absolute; a program found
// in an absolute PATH entry (prettier, gofmt) is the person's, not listed, but one a relative
// entry would find in the project is. It reads the command as bash would
// split it, roughly: a word it cannot read only makes the list longer, never shorter.
func Uses(command, cwd string) []string {
	seen := map[string]bool{}
	usesInto(command, cwd, seen, 0)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func usesInto(command, cwd string, seen map[string]bool, depth int) {
	if depth > 3 {
		return
	}
	home, _ := os.UserHomeDir()
	for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${PHOENIX_PROJECT_DIR}", "$PHOENIX_PROJECT_DIR"} {
		command = strings.ReplaceAll(command, v, cwd)
	}
	if home != "" {
		command = strings.ReplaceAll(strings.ReplaceAll(command, "${HOME}", home), "$HOME", home)
	}
	abs := func(p string) string {
		if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = home + p[1:]
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	for _, simple := range strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune("\n;&|()`{}", r)
	}) {
		words := strings.Fields(simple)
		for i, w := range words {
			words[i] = unquote.Replace(w)
		}
		// Assignments and wrappers before the program.
		for len(words) > 0 {
			w := words[0]
			switch {
			case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.Contains(w, "/"):
				words = words[1:]
			case slices.Contains(wrappers, w) || strings.HasPrefix(w, "-") || wrapperArg.MatchString(w):
				// A wrapper, its options and their values (timeout 5, nice -n 10).
				words = words[1:]
			default:
				goto program
			}
		}
	program:
		if len(words) == 0 {
			continue
		}
		prog, args := words[0], words[1:]
		if strings.Contains(prog, "/") {
			seen[abs(prog)] = true
		} else {
			// A PATH entry that is relative (./node_modules/.bin, bin) is looked up in the
			// project, where bash runs the hook.
			for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
				if dir == "" || !filepath.IsAbs(dir) {
					seen[abs(filepath.Join(dir, prog))] = true
				}
			}
		}
		base := filepath.Base(prog)
		if slices.Contains(interpreters, base) || strings.HasPrefix(base, "python3.") {
			for _, a := range args {
				if a == "-c" || a == "-e" || a == "-m" {
					break // the program is in the command itself, or a module on the path
				}
				if strings.HasPrefix(a, "-") {
					continue
				}
				seen[abs(a)] = true
				break
			}
		}
		files, ok := toolFiles[base]
		if !ok {
			continue
		}
		for _, f := range files {
			seen[filepath.Join(cwd, f)] = true
		}
		var rest []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				rest = append(rest, a)
			}
		}
		switch base {
		case "make":
			for i, a := range args {
				if (a == "-f" || a == "--file") && i+1 < len(args) {
					seen[abs(args[i+1])] = true
				}
			}
		case "go":
			// go run, generate, test and build compile and run the named packages.
			if len(rest) > 0 && slices.Contains([]string{"run", "generate", "test", "build", "vet"}, rest[0]) {
				for _, a := range rest[1:] {
					if strings.HasPrefix(a, ".") || strings.HasPrefix(a, "/") {
						seen[abs(strings.TrimSuffix(a, "/..."))] = true
					}
				}
			}
		case "npx", "pnpx", "bunx":
			if len(rest) > 0 {
				seen[filepath.Join(cwd, "node_modules", packageName(rest[0]))] = true
			}
		default:
			// npm run NAME, yarn NAME, pnpm run NAME, bun run NAME: the script's own words.
			if len(rest) == 0 {
				continue
			}
			name := rest[0]
			if (name == "run" || name == "run-script" || name == "exec" || name == "dlx") && len(rest) > 1 {
				name = rest[1]
			}
			if script, ok := packageScript(cwd, name); ok {
				usesInto(script, cwd, seen, depth+1)
			}
			seen[filepath.Join(cwd, "node_modules", packageName(name))] = true
		}
	}
}

// packageName is the package an npx argument names ("prettier@3" → prettier).
func packageName(s string) string {
	if at := strings.LastIndex(s, "@"); at > 0 {
		s = s[:at]
	}
	return filepath.Clean("/" + s)[1:]
}

func packageScript(cwd, name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(cwd, "package.json"))
	if err != nil {
		return "", false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return "", false
	}
	s, ok := pkg.Scripts[name]
	return s, ok
}

// tooLarge is the fingerprint of a folder past the budget; it never counts as unchanged.
const tooLarge = "too large"

// fingerprintBudget bounds how many entries a folder's fingerprint reads: past it the folder
// counts as changed, never as unchanged.
var fingerprintBudget = 20000

// fingerprint is what a path holds: "absent", a file's mode and content hash, a link's target
// and the fingerprint of what it names, a folder's entries with their inode, size, mode and
// change time (which no write can leave as it was; hashing node_modules would take seconds).
func fingerprint(path string) string {
	sum := sha256.New()
	budget := fingerprintBudget
	fingerprintInto(sum, path, &budget, 0, true)
	if budget < 0 {
		return tooLarge
	}
	return hex.EncodeToString(sum.Sum(nil))
}

func fingerprintInto(w io.Writer, path string, budget *int, depth int, content bool) {
	*budget--
	if *budget < 0 {
		return
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(w, "absent %s\n", path)
		return
	}
	if err != nil {
		fmt.Fprintf(w, "error %s %v\n", path, err)
		return
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		fmt.Fprintf(w, "link %s %s\n", path, target)
		if depth < 8 {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			// What a link in a tool folder names is what runs: its content counts.
			fingerprintInto(w, target, budget, depth+1, true)
		}
	case fi.IsDir():
		fmt.Fprintf(w, "dir %s %v\n", path, fi.Mode())
		entries, _ := os.ReadDir(path)
		for _, e := range entries {
			fingerprintInto(w, filepath.Join(path, e.Name()), budget, depth+1, false)
		}
	case content && fi.Mode().IsRegular() && fi.Size() <= 64<<20:
		fmt.Fprintf(w, "file %s %v ", path, fi.Mode())
		if f, err := os.Open(path); err == nil {
			_, _ = io.Copy(w, f)
			f.Close()
		}
		fmt.Fprintln(w)
	default:
		fmt.Fprintf(w, "entry %s %v %d", path, fi.Mode(), fi.Size())
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			fmt.Fprintf(w, " %d %d.%d", st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
		}
		fmt.Fprintln(w)
	}
}

// SetRunAsMe turns runAsMe on or off for the hooks of one event whose command is command, in
// the text of a hooks file, and returns the new text (Settings → Hooks' switch). The file is
// written back as indented JSON with its keys sorted; what it holds besides is kept.
func SetRunAsMe(text string, ev Event, command string, on bool) (string, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return text, fmt.Errorf("the hooks file is not a JSON object: %v", err)
	}
	events, _ := top["hooks"].(map[string]any)
	found := false
	set := func(h map[string]any) {
		if c, _ := h["command"].(string); c == command {
			found = true
			if on {
				h["runAsMe"] = true
			} else {
				delete(h, "runAsMe")
			}
		}
	}
	for name, v := range events {
		if e, ok := eventAliases[name]; (ok && e != ev) || (!ok && Event(name) != ev) {
			continue
		}
		items, ok := v.([]any)
		if !ok {
			items = []any{v}
		}
		for _, it := range items {
			g, _ := it.(map[string]any)
			if hs, ok := g["hooks"].([]any); ok {
				for _, h := range hs {
					if hm, ok := h.(map[string]any); ok {
						set(hm)
					}
				}
			} else if g != nil {
				set(g)
			}
		}
	}
	if !found {
		return text, fmt.Errorf("there is no %s hook %q in the text; save your changes first", ev, command)
	}
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return text, err
	}
	return string(b) + "\n", nil
}
