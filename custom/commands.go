package custom

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/instructions"

	"github.com/BurntSushi/toml"
)

// Folders read below a project directory and below each of the person's directories, in order
// of precedence: where two define the same name, the first wins and the other is noted.
var (
	// CommandFolders hold commands: one Markdown file (or Gemini CLI TOML file) each.
	CommandFolders = []string{".phoenix/commands", ".claude/commands", ".opencode/commands", ".opencode/command", ".gemini/commands"}
	// SkillFolders hold skills: one folder with a SKILL.md each.
	SkillFolders = []string{".phoenix/skills", ".claude/skills", ".agents/skills"}
	// personalCommandFolders and personalSkillFolders are read below a person's directory
	// (the configuration directory, ~/.claude).
	personalCommandFolders = []string{"commands"}
	personalSkillFolders   = []string{"skills"}
)

// Limits. A file over its limit is skipped with a notice rather than cut: half a command or
// half a description would do something the person did not write.
const (
	// MaxFileBytes caps one command file or SKILL.md: the collections people copy in hold
	// command prompts of over 100 KB, which other agents run. A prompt this large still
	// counts in the context meter, and one too large for the model's window is refused when
	// sent, as any message is.
	MaxFileBytes = 1 << 20
	// MaxCommands caps how many commands one reading keeps.
	MaxCommands = 500
	// MaxSkillDescription caps one skill's description in the prompt (Claude Code's limit).
	MaxSkillDescription = 1024
	// MaxSkillsPromptBytes caps the skills section of the system prompt; skills beyond it
	// are named as left out.
	MaxSkillsPromptBytes = 8 << 10
)

// Command is one custom command as it was read.
type Command struct {
	// Name is what follows the slash: the file name without its extension. Commands in
	// sub-folders keep the base name (as Claude Code does) and name the folder in Label.
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Model is the model the front matter asks for: the turn the command starts runs on it
	// (or on the provider's own id for it), and the conversation keeps its own model
	// (actors.Runtime.SendCommand).
	Model string `json:"model,omitempty"`
	// Path is the file; Label says where it came from ("project .claude/commands").
	Path  string `json:"path"`
	Label string `json:"label"`
	Body  string `json:"body"`
}

// Skill is one skill: only its name and description are kept; the model reads the rest.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the absolute path of the SKILL.md.
	Path  string `json:"path"`
	Label string `json:"label"`
}

// Set is what one reading found for a working directory.
type Set struct {
	Commands []Command `json:"commands,omitempty"`
	Skills   []Skill   `json:"skills,omitempty"`
	// Notices say what was skipped and why.
	Notices []string `json:"notices,omitempty"`
}

// root is a directory below which the folders are searched.
type root struct {
	dir      string
	personal bool
	commands []string
	skills   []string
}

// Load reads the commands and skills for a working directory: the project's (the working
// directory up to the repository root, nearest first), then the person's directories in the
// order given (PersonalDirs).
func Load(cwd string, personal []string) Set {
	return WithPersonal(LoadProject(cwd), personal, true)
}

// LoadProject reads only the project's commands and skills, on the machine where the project
// is: for a project on another machine that is not where the person's own are (WithPersonal
// adds them here).
func LoadProject(cwd string) Set {
	var s Set
	seenCmd, seenSkill := map[string]string{}, map[string]string{}
	for _, d := range projectDirs(cwd) {
		s.readRoot(root{dir: d, commands: CommandFolders, skills: SkillFolders}, seenCmd, seenSkill)
	}
	return s
}

// WithPersonal adds the person's commands and, with skills, their skills (from the
// directories given, PersonalDirs) to a project's reading; the project's keep precedence over
// a name defined twice. Without skills the person's skills are left out: a conversation whose
// tools run on another machine could not read their files, which are here.
func WithPersonal(project Set, personal []string, skills bool) Set {
	s := Set{Commands: slices.Clone(project.Commands), Skills: slices.Clone(project.Skills), Notices: slices.Clone(project.Notices)}
	seenCmd, seenSkill := map[string]string{}, map[string]string{}
	for _, c := range s.Commands {
		seenCmd[c.Name] = c.Path
	}
	for _, sk := range s.Skills {
		seenSkill[sk.Name] = sk.Path
	}
	for _, d := range personal {
		if d == "" {
			continue
		}
		r := root{dir: d, personal: true, commands: personalCommandFolders}
		if skills {
			r.skills = personalSkillFolders
		}
		s.readRoot(r, seenCmd, seenSkill)
	}
	return s
}

// readRoot reads the command and skill folders below one root.
func (s *Set) readRoot(r root, seenCmd, seenSkill map[string]string) {
	for _, folder := range r.commands {
		s.readCommands(r, folder, seenCmd)
	}
	for _, folder := range r.skills {
		s.readSkills(r, folder, seenSkill)
	}
}

// PersonalDirs are the person's directories read for commands and skills: the configuration
// directory (commands/, skills/), then ~/.claude, where Claude Code keeps the person's own.
func PersonalDirs(configDir string) []string {
	dirs := []string{configDir}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		dirs = append(dirs, filepath.Join(home, ".claude"))
	}
	return dirs
}

func labelOf(r root, folder string) string {
	if r.personal {
		return "personal " + filepath.Join(shortHome(r.dir), folder)
	}
	return "project " + folder
}

func shortHome(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

// validName reports whether a command or skill may be called name: it must be typeable after
// a slash, a letter or digit, then at most 63 letters, digits, '.', '_', ':' or '-'. Checked by
// hand, not by the regular expression it stands for: compiling that one's counted repetition
// ({0,63}) cost every start of the app, headless or not, a thousand allocations of package
// initialisation (issue 39).
func validName(name string) bool {
	if name == "" || len(name) > 64 || !asciiAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !asciiAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func (s *Set) readCommands(r root, folder string, seen map[string]string) {
	base := filepath.Join(r.dir, folder)
	if info, err := os.Stat(base); err != nil || !info.IsDir() {
		return
	}
	label := labelOf(r, folder)
	var files []string
	_ = filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", path, err))
			return nil
		}
		if d.IsDir() {
			if path != base && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext == ".md" || ext == ".toml" {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	for _, path := range files {
		if len(s.Commands) >= MaxCommands {
			s.Notices = append(s.Notices, fmt.Sprintf("commands beyond %d were left out, from %s on", MaxCommands, path))
			return
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if !validName(name) {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: a command's name must be letters, digits, '.', '_', ':' or '-' (at most 64)", path))
			continue
		}
		if first, dup := seen[name]; dup {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: /%s is already defined by %s", path, name, first))
			continue
		}
		c, err := readCommand(path)
		if err != nil {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", path, err))
			continue
		}
		c.Name, c.Label = name, label
		if sub := filepath.Dir(path); sub != base {
			rel, _ := filepath.Rel(base, sub)
			c.Label += " (" + filepath.ToSlash(rel) + ")"
		}
		seen[name] = path
		s.Commands = append(s.Commands, c)
	}
}

// readText reads a text file up to limit bytes. With skipBig a larger file is refused
// rather than cut (see the limits above); without, what fits is read.
func readText(path string, limit int64, skipBig bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", errors.New("it is not a regular file")
	}
	if skipBig && info.Size() > limit {
		return "", fmt.Errorf("it is %s, larger than the %s such a file may have", sizeText(info.Size()), sizeText(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) && !(int64(len(b)) == limit && utf8.Valid(b[:max(0, len(b)-utf8.UTFMax)])) {
		return "", errors.New("it is not UTF-8 text")
	}
	return string(b), nil
}

// sizeText words a file size for a notice: "121 KB", "1 MB".
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)>>10)
}

func readCommand(path string) (Command, error) {
	text, err := readText(path, MaxFileBytes, true)
	if err != nil {
		return Command{}, err
	}
	c := Command{Path: path}
	if filepath.Ext(path) == ".toml" {
		// Gemini CLI: prompt (required) and description; {{args}} takes the arguments.
		var t struct {
			Prompt      string `toml:"prompt"`
			Description string `toml:"description"`
		}
		if _, err := toml.Decode(text, &t); err != nil {
			return Command{}, fmt.Errorf("it is not valid TOML: %v", err)
		}
		if strings.TrimSpace(t.Prompt) == "" {
			return Command{}, errors.New(`it has no "prompt"`)
		}
		c.Body, c.Description = t.Prompt, oneLine(t.Description)
		return c, nil
	}
	meta, body := splitFrontMatter(text)
	c.Body = body
	c.Description = oneLine(meta["description"])
	c.ArgumentHint = oneLine(meta["argument-hint"])
	c.Model = strings.TrimSpace(meta["model"])
	if c.Description == "" {
		// Claude Code shows the first line of the body when there is no description.
		for _, line := range strings.Split(body, "\n") {
			if t := strings.TrimSpace(strings.TrimLeft(line, "# ")); t != "" {
				c.Description = t
				break
			}
		}
	}
	if strings.TrimSpace(body) == "" {
		return Command{}, errors.New("its prompt is empty")
	}
	return c, nil
}

func (s *Set) readSkills(r root, folder string, seen map[string]string) {
	base := filepath.Join(r.dir, folder)
	entries, err := os.ReadDir(base)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", base, err))
		}
		return
	}
	label := labelOf(r, folder)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		path := filepath.Join(base, e.Name(), "SKILL.md")
		text, err := readText(path, MaxFileBytes, true)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: %v", path, err))
			continue
		}
		meta, _ := splitFrontMatter(text)
		name := strings.TrimSpace(meta["name"])
		if name == "" {
			name = e.Name()
		}
		desc := oneLine(meta["description"])
		switch {
		case !validName(name):
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: its name %q must be letters, digits, '.', '_', ':' or '-' (at most 64)", path, name))
			continue
		case desc == "":
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: its front matter has no description, which is what tells the model when to use it", path))
			continue
		}
		if first, dup := seen[name]; dup {
			s.Notices = append(s.Notices, fmt.Sprintf("%s was skipped: the skill %s is already defined by %s", path, name, first))
			continue
		}
		if utf8.RuneCountInString(desc) > MaxSkillDescription {
			desc = string([]rune(desc)[:MaxSkillDescription-1]) + "…"
		}
		seen[name] = path
		s.Skills = append(s.Skills, Skill{Name: name, Description: desc, Path: path, Label: label})
	}
}

// Command finds a command by name.
func (s Set) Command(name string) (Command, bool) {
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// ParseInvocation splits "/name args" into its name and arguments. ok is false for text that
// does not start with a slash followed by a possible name ("/tmp/x is full" has a slash in
// its name and is not an invocation).
func ParseInvocation(text string) (name, args string, ok bool) {
	t := strings.TrimLeft(text, " \t")
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	t = t[1:]
	end := strings.IndexAny(t, " \t\r\n")
	if end < 0 {
		end = len(t)
	}
	name = t[:end]
	if !validName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(t[end:]), true
}

// Expand turns "/name args" into the prompt to send when name is one of the set's commands.
// Any other text (an unknown name included) is not a command: ok is false.
func (s Set) Expand(text string) (prompt string, cmd Command, ok bool) {
	name, args, ok := ParseInvocation(text)
	if !ok {
		return "", Command{}, false
	}
	cmd, ok = s.Command(name)
	if !ok {
		return "", Command{}, false
	}
	return cmd.Expand(args), cmd, true
}

var positional = regexp.MustCompile(`\$([1-9])`)

// Expand substitutes the arguments into the command's prompt: $ARGUMENTS (Claude Code,
// opencode) and {{args}} (Gemini CLI) take them all, $1…$9 one each (split like a shell
// splits words, quotes grouping). A prompt with no placeholder gets the arguments appended
// on a line of their own, as Claude Code does, so that nothing the person typed is lost.
func (c Command) Expand(args string) string {
	body := strings.TrimSpace(c.Body)
	used := strings.Contains(body, "$ARGUMENTS") || strings.Contains(body, "{{args}}") || positional.MatchString(body)
	words := splitWords(args)
	body = positional.ReplaceAllStringFunc(body, func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		if i <= len(words) {
			return words[i-1]
		}
		return ""
	})
	body = strings.NewReplacer("$ARGUMENTS", args, "{{args}}", args).Replace(body)
	if !used && args != "" {
		body += "\n\nARGUMENTS: " + args
	}
	return body
}

// splitWords splits arguments at blanks, keeping quoted groups ("two words", 'two words').
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Complete lists the commands whose names start with prefix (without the slash), in the
// set's order, for the composer's menu.
func (s Set) Complete(prefix string) []Command {
	var out []Command
	for _, c := range s.Commands {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// SkillsPrompt is the system prompt section that lists the skills, or "" when there are none.
// It is capped at MaxSkillsPromptBytes; the skills that do not fit are counted.
func (s Set) SkillsPrompt() string {
	if len(s.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n\nSkills are folders of instructions, scripts and resources for particular tasks, written by the person or the project. When a task matches a skill's description, read its SKILL.md (and the files it names) with your tools before you start, and follow it. Its scripts are commands like any other and run under this conversation's mode.\n\n")
	head := b.Len()
	left := 0
	for i, sk := range s.Skills {
		line := fmt.Sprintf("- %s: %s (%s)\n", sk.Name, sk.Description, sk.Path)
		if b.Len()-head+len(line) > MaxSkillsPromptBytes {
			left = len(s.Skills) - i
			break
		}
		b.WriteString(line)
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n[%d more skills were left out: the list is capped at %d KB.]\n", left, MaxSkillsPromptBytes>>10)
	}
	return b.String()
}

// SkillNames are the names of the skills, in prompt order.
func (s Set) SkillNames() []string {
	out := make([]string, 0, len(s.Skills))
	for _, sk := range s.Skills {
		out = append(out, sk.Name)
	}
	return out
}

// projectDirs is the project's directories as the instructions read them (one rule for
// both); an empty working directory has none.
func projectDirs(cwd string) []string {
	if cwd == "" {
		return nil
	}
	return instructions.ProjectDirs(cwd)
}
