package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Spec is one language server: how to start it and which files it serves.
type Spec struct {
	// Name names it in the header and in errors ("gopls").
	Name string
	// Command and Args start it; Command is looked up on PATH (never inside the project).
	Command string
	Args    []string
	// Env is added to the server's environment.
	Env map[string]string
	// Extensions are the file name endings it serves, with their dot (".go"), lower case;
	// Languages maps each to the LSP language id sent with the file.
	Languages map[string]string
	// InitOptions are sent as initializationOptions.
	InitOptions json.RawMessage
}

// languageOf is the language id of path for this server, "" when it does not serve it.
func (s Spec) languageOf(path string) string {
	return s.Languages[strings.ToLower(filepath.Ext(path))]
}

// Known is the table of servers found on PATH with no set-up, in the order they are
// preferred when two serve the same files (basedpyright before pyright).
var Known = []Spec{
	{Name: "gopls", Command: "gopls", Languages: map[string]string{".go": "go"}},
	{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
		Languages: map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
			".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"}},
	{Name: "basedpyright", Command: "basedpyright-langserver", Args: []string{"--stdio"}, Languages: map[string]string{".py": "python", ".pyi": "python"}},
	{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: map[string]string{".py": "python", ".pyi": "python"}},
	{Name: "rust-analyzer", Command: "rust-analyzer", Languages: map[string]string{".rs": "rust"}},
	{Name: "clangd", Command: "clangd", Languages: map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
		".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp"}},
}

// ConfigFileName is the file in the app's configuration directory whose `lsp` section lists
// the person's own servers.
const ConfigFileName = "lsp.json"

// configEntry is one server of the `lsp` section. Three shapes are read: ours and crush's
// (command a string, args a list, filetypes or extensions) and opencode's (command a list,
// extensions); disabled (crush, opencode) or disable removes a server, a known one included.
type configEntry struct {
	Command     json.RawMessage   `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Environment map[string]string `json:"environment"`
	Extensions  []string          `json:"extensions"`
	FileTypes   []string          `json:"filetypes"`
	Languages   map[string]string `json:"languages"`
	Disabled    bool              `json:"disabled"`
	Disable     bool              `json:"disable"`
	InitOptions json.RawMessage   `json:"initializationOptions"`
	Options     json.RawMessage   `json:"init_options"`
}

// ReadConfig reads the `lsp` section of path (a missing file is no section) and returns the
// servers to use: the known ones, less those it disables, with those it lists added or
// replacing a known one of the same name.
func ReadConfig(path string) ([]Spec, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return slices.Clone(Known), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the language servers' configuration %s: %w", path, err)
	}
	specs, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; fix or remove the file", path, err)
	}
	return specs, nil
}

// ParseConfig is ReadConfig on the file's bytes: a JSON object with an `lsp` object of
// servers by name.
func ParseConfig(data []byte) ([]Spec, error) {
	var file struct {
		LSP map[string]configEntry `json:"lsp"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("the language servers' configuration is not valid JSON of the expected shape: %v", err)
	}
	specs := slices.Clone(Known)
	for _, name := range slices.Sorted(maps.Keys(file.LSP)) {
		e := file.LSP[name]
		specs = slices.DeleteFunc(specs, func(s Spec) bool { return s.Name == name })
		if e.Disabled || e.Disable {
			continue
		}
		spec, err := e.spec(name)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func (e configEntry) spec(name string) (Spec, error) {
	s := Spec{Name: name, Args: e.Args, Env: e.Env, Languages: map[string]string{}, InitOptions: e.InitOptions}
	if len(s.InitOptions) == 0 {
		s.InitOptions = e.Options
	}
	if s.Env == nil {
		s.Env = e.Environment
	}
	var one string
	var argv []string
	switch {
	case json.Unmarshal(e.Command, &one) == nil && one != "":
		s.Command = one
	case json.Unmarshal(e.Command, &argv) == nil && len(argv) > 0:
		s.Command, s.Args = argv[0], append(argv[1:], e.Args...)
	default:
		return Spec{}, fmt.Errorf("language server %q has no command: give \"command\" as a program name or a list of program and arguments", name)
	}
	for ext, lang := range e.Languages {
		s.Languages[normExt(ext)] = lang
	}
	for _, ext := range append(slices.Clone(e.Extensions), e.FileTypes...) {
		ext = normExt(ext)
		if _, set := s.Languages[ext]; !set {
			s.Languages[ext] = languageID(ext)
		}
	}
	if len(s.Languages) == 0 {
		return Spec{}, fmt.Errorf("language server %q serves no files: list their endings in \"extensions\" (\".go\") or \"filetypes\" (\"go\")", name)
	}
	return s, nil
}

func normExt(ext string) string {
	ext = strings.ToLower(strings.TrimSpace(ext))
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	return ext
}

// languageID guesses the LSP language id of a configured ending from the known table, else
// the ending itself without its dot.
func languageID(ext string) string {
	for _, k := range Known {
		if id, ok := k.Languages[ext]; ok {
			return id
		}
	}
	return strings.TrimPrefix(ext, ".")
}
