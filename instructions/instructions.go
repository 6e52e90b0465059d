package instructions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// FileNames are the names looked for in each directory, in order of preference: the first
// one present is read and the others in that directory are not.
var FileNames = []string{"AGENTS.md", "CLAUDE.md"}

// MaxBytes caps the instructions put in the system prompt, all files together. A larger set
// is cut (the farthest files first, since the nearest are the most specific) and the prompt
// says what was cut.
const MaxBytes = 32 << 10

// perFileReadLimit stops a huge file from being read whole only to be cut.
const perFileReadLimit = MaxBytes + 1

// File is one instructions file that was read.
type File struct {
	// Path is the absolute path of the file.
	Path string `json:"path"`
	// Label is how the file is named to the person and the model: relative to the working
	// directory ("AGENTS.md", "../AGENTS.md"), or under "~" for the personal file.
	Label string `json:"label"`
	Text  string `json:"text"`
	// Cut is how many bytes of the file were left out to stay within MaxBytes.
	Cut int `json:"cut,omitempty"`
}

// Set is what one reading found, in prompt order: farthest first, nearest last.
type Set struct {
	Files []File `json:"files"`
	// Notices say what was skipped and why (an unreadable or non-UTF-8 file).
	Notices []string `json:"notices,omitempty"`
	// Disabled is set when the person asked for no instructions (chat --no-instructions).
	Disabled bool `json:"disabled,omitempty"`
}

// Labels are the names of the files read, in prompt order.
func (s Set) Labels() []string {
	out := make([]string, 0, len(s.Files))
	for _, f := range s.Files {
		out = append(out, f.Label)
	}
	return out
}

// Load reads the instructions for a working directory. configDir is the person's
// phoenix-desktop configuration directory ("" for none; see ConfigDir).
func Load(cwd, configDir string) Set {
	return WithPersonal(LoadProject(cwd), configDir, cwd)
}

// LoadProject reads only the project's files for a working directory (ProjectDirs), in prompt
// order, each read up to MaxBytes but not yet capped together: on the machine where the
// project is, which for a project on another machine is not the one where the person's own
// file is (WithPersonal adds it there and caps the whole).
func LoadProject(cwd string) Set {
	var s Set
	for _, dir := range ProjectDirs(cwd) {
		if f, ok := s.readDir(dir, cwd); ok {
			s.Files = append(s.Files, f)
		}
	}
	slices.Reverse(s.Files) // read nearest first, kept farthest first
	return s
}

// WithPersonal adds the person's own file (configDir, "" for none) to a project's reading
// (LoadProject) and caps the whole at MaxBytes. cwd names the files for the person.
func WithPersonal(project Set, configDir, cwd string) Set {
	s := Set{Notices: slices.Clone(project.Notices), Disabled: project.Disabled}
	var found []File // nearest first
	for i := len(project.Files) - 1; i >= 0; i-- {
		found = append(found, project.Files[i])
	}
	if configDir != "" {
		if f, ok := s.readDir(configDir, cwd); ok {
			found = append(found, f)
		}
	}
	// Cap from the nearest outwards, so that what is cut is the most general.
	budget := MaxBytes
	for i := range found {
		if n := len(found[i].Text); n > budget {
			cut := truncateUTF8(found[i].Text, budget)
			found[i].Cut += n - len(cut)
			found[i].Text = cut
		}
		budget -= len(found[i].Text)
	}
	for i := len(found) - 1; i >= 0; i-- {
		if found[i].Text == "" && found[i].Cut > 0 {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was left out: the instructions are capped at %d KB", found[i].Label, MaxBytes>>10))
		}
		s.Files = append(s.Files, found[i])
	}
	return s
}

// ProjectDirs lists the working directory and its parents up to the repository root (the
// nearest directory holding .git), nearest first. Outside a repository only the working
// directory counts: instructions (and commands, skills) in /home or / belong to no project.
func ProjectDirs(cwd string) []string {
	dirs := []string{cwd}
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dirs[:1]
		}
		dir = parent
		dirs = append(dirs, dir)
	}
}

// readDir reads the first of FileNames present in dir.
func (s *Set) readDir(dir, cwd string) (File, bool) {
	for _, name := range FileNames {
		path := filepath.Join(dir, name)
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		label := labelFor(path, cwd)
		if err != nil {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", label, err))
			return File{}, false
		}
		if !info.Mode().IsRegular() {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: it is not a regular file", label))
			return File{}, false
		}
		text, err := readLimited(path)
		if err != nil {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", label, err))
			return File{}, false
		}
		if !utf8.ValidString(text) {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: it is not UTF-8 text", label))
			return File{}, false
		}
		f := File{Path: path, Label: label, Text: text}
		if info.Size() > int64(len(text)) {
			f.Cut = int(info.Size()) - len(text)
		}
		return f, true
	}
	return File{}, false
}

func readLimited(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, perFileReadLimit))
	if err != nil {
		return "", err
	}
	// Cut at a rune boundary so that a long valid file is not mistaken for binary.
	return truncateUTF8(string(b), MaxBytes), nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// labelFor names a file relative to the working directory when it is in it or straight
// above it, else under ~, else by its absolute path.
func labelFor(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && onlyParents(rel) {
		return rel
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}

// onlyParents reports whether rel climbs straight up (../../AGENTS.md) or stays below.
func onlyParents(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, p := range parts[:len(parts)-1] {
		if p != ".." {
			return false
		}
	}
	return true
}

// Prompt is the system prompt section that carries the instructions, or "" when there are
// none. Each file comes under its label, nearest last; a cut is said where it happened.
func (s Set) Prompt() string {
	if s.Disabled || len(s.Files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Project instructions\n\nThe person and the project left these instructions. Follow them; the later ones are nearer the working directory and take precedence.\n")
	for _, f := range s.Files {
		fmt.Fprintf(&b, "\n## %s\n\n", f.Label)
		b.WriteString(strings.TrimRight(f.Text, "\n"))
		b.WriteString("\n")
		if f.Cut > 0 {
			fmt.Fprintf(&b, "\n[%d bytes of %s were cut: project instructions are capped at %d KB in total.]\n", f.Cut, f.Label, MaxBytes>>10)
		}
	}
	return b.String()
}

// ConfigDir is the person's phoenix-desktop configuration directory, where their own
// AGENTS.md lives: $XDG_CONFIG_HOME/phoenix-desktop, else ~/.config/phoenix-desktop. A
// relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory specification requires.
func ConfigDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "phoenix-desktop")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "phoenix-desktop")
}
