package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/phoenix-desktop/phoenix/hostexec"
)

// toolEnv is where the registry readers look: the commands they run and the files they read.
// Tests replace it with fake commands and fixture directories.
//
// The readers read the person's own configuration and nothing of a project's: a Project-mode
// command can write anywhere in its working tree, so a .npmrc, a .cargo/config.toml, a pip.py
// or a node_modules/.bin/npm there is the agent's, and reading it would let the agent choose
// the hosts it may reach, and running it would run the agent's code outside the sandbox. So
// every command runs with its working directory at neutralDir, by an absolute path that does
// not lie in the tree, with Python isolated (-I: no current directory, PYTHONPATH or user site
// on its import path) and Go kept on its own toolchain (GOTOOLCHAIN=local: a go.mod is never
// read and no other toolchain is fetched or run); cargo's configuration is read from
// CARGO_HOME only.
type toolEnv struct {
	// run runs a toolchain command (an absolute path from lookPath) in neutralDir and returns
	// its standard output. A command that is not installed returns an error matching
	// exec.ErrNotFound.
	run func(ctx context.Context, name string, args ...string) ([]byte, error)
	// lookPath finds a command (exec.LookPath).
	lookPath func(name string) (string, error)
	project  string // the working tree, whose programs are never run; "" for none
	root     string // the root of the file system the system files are read under ("/")
	cargoDir string // CARGO_HOME, or ~/.cargo
}

// neutralDir is the working directory of every toolchain query: no project's configuration
// is found from it, and only root can write there.
const neutralDir = "/"

// registryReader reads one toolchain's registry hosts. A toolchain that is not installed or
// not configured yields nothing and no error.
type registryReader func(ctx context.Context, env toolEnv) ([]string, error)

// registryReaders is the one list of toolchains the "package registries" switch covers, and
// RegistrySources says what each reads.
var registryReaders = []struct {
	name    string
	read    registryReader
	sources string
}{
	{"Go", goRegistries, "GOPROXY and GOSUMDB as `go env` gives them (your environment and go env -w settings)"},
	{"npm", npmRegistries, "`npm config list` outside any project (your ~/.npmrc, the global npmrc, npm_config_* variables)"},
	{"pip", pipRegistries, "`pip config list` outside any project (your pip.conf files and PIP_* variables), else pip's default index"},
	{"apt", aptRegistries, "/etc/apt/sources.list and /etc/apt/sources.list.d"},
	{"cargo", cargoRegistries, "CARGO_HOME's config.toml (~/.cargo/config.toml)"},
}

// RegistrySources lists, one line a toolchain, what the "package registries" switch reads:
// the person's and the machine's configuration, never a project's files.
func RegistrySources() []string {
	out := make([]string, len(registryReaders))
	for i, r := range registryReaders {
		out[i] = r.name + ": " + r.sources
	}
	return out
}

// RegistryHosts reads, from this machine's and the person's toolchain configuration (never
// the project's: see toolEnv), the hosts that package managers download from: Go's module
// proxy and checksum database, npm's registries, pip's indexes, apt's sources and cargo's
// registries. project is the working tree whose programs must not be run (a PATH entry inside
// it is passed over); "" for none. Each entry is a host, or host:port when the configuration
// names a port. What could not be read is in the error; the hosts that could be read are
// returned with it.
func RegistryHosts(ctx context.Context, project string) ([]string, error) {
	home, _ := os.UserHomeDir()
	cargoDir := os.Getenv("CARGO_HOME")
	if cargoDir == "" && home != "" {
		cargoDir = filepath.Join(home, ".cargo")
	}
	return registryHostsIn(ctx, toolEnv{
		run:      runTool,
		lookPath: exec.LookPath,
		project:  project,
		root:     "/",
		cargoDir: cargoDir,
	})
}

func registryHostsIn(ctx context.Context, env toolEnv) ([]string, error) {
	var all []string
	var errs []error
	for _, r := range registryReaders {
		hosts, err := r.read(ctx, env)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s's registries: %w", r.name, err))
		}
		all = append(all, hosts...)
	}
	slices.Sort(all)
	return slices.Compact(all), errors.Join(errs...)
}

// query runs a toolchain's command the safe way (see toolEnv): found on PATH, but never a
// program inside the project.
func (env toolEnv) query(ctx context.Context, name string, args ...string) ([]byte, error) {
	path, err := env.lookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, exec.ErrNotFound)
	}
	if env.project != "" && hostexec.InsideTree(env.project, path) {
		return nil, fmt.Errorf("the %s found on PATH (%s) %w; take the project's folders out of PATH, or list the registries' hosts for the project by hand",
			name, path, hostexec.ErrInTree)
	}
	return env.run(ctx, path, args...)
}

// runTool runs a toolchain command in neutralDir with the person's environment.
func runTool(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = neutralDir
	// The person's environment, with Go kept on the toolchain installed (a go.mod's
	// toolchain line is never acted on).
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	shown := filepath.Base(name) + " " + strings.Join(args, " ")
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("%s: %w: %s", shown, err, msg)
		}
		return out, fmt.Errorf("%s: %w", shown, err)
	}
	return out, nil
}

// urlEntry turns a registry URL into an allowed-host entry: its host, with its port when the
// URL names one. Anything but a network URL (a file path, file://) yields nothing.
func urlEntry(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	// cargo's and apt's URL decorations: sparse+https://, registry+https://, git+https://,
	// mirror+http://, tor+http://.
	if i := strings.Index(raw, "://"); i > 0 {
		if j := strings.LastIndex(raw[:i], "+"); j >= 0 {
			raw = raw[j+1:]
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch u.Scheme {
	case "http", "https", "git", "ssh":
	default:
		return "", false
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if h == "" {
		return "", false
	}
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if p := u.Port(); p != "" {
		return h + ":" + p, true
	}
	return h, true
}

func notInstalled(err error) bool { return errors.Is(err, exec.ErrNotFound) }

// goRegistries reads GOPROXY (its "direct" and "off" entries reach no proxy and are skipped)
// and GOSUMDB from `go env`, so the go command's own defaults and the person's settings
// (environment, go env -w) are what counts. GONOSUMDB and GOPRIVATE name module paths, not
// hosts: modules under them are fetched through GOPROXY all the same, or straight from their
// version control host with "direct", which no fixed list can name.
func goRegistries(ctx context.Context, env toolEnv) ([]string, error) {
	out, err := env.query(ctx, "go", "env", "-json", "GOPROXY", "GOSUMDB")
	if notInstalled(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vars map[string]string
	if err := json.Unmarshal(out, &vars); err != nil {
		return nil, fmt.Errorf("go env printed something that is not JSON: %w", err)
	}
	var hosts []string
	for _, entry := range strings.FieldsFunc(vars["GOPROXY"], func(r rune) bool { return r == ',' || r == '|' }) {
		if entry == "direct" || entry == "off" {
			continue
		}
		if !strings.Contains(entry, "://") {
			entry = "https://" + entry // the go command reads a bare host as https
		}
		if h, ok := urlEntry(entry); ok {
			hosts = append(hosts, h)
		}
	}
	if h, ok := goSumDBHost(vars["GOSUMDB"]); ok {
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// goSumDBHost reads GOSUMDB: "off", "name", "name+key" or "name+key url".
func goSumDBHost(v string) (string, bool) {
	fields := strings.Fields(v)
	if len(fields) == 0 || fields[0] == "off" {
		return "", false
	}
	if len(fields) > 1 {
		return urlEntry(fields[1])
	}
	name, _, _ := strings.Cut(fields[0], "+")
	return urlEntry("https://" + name)
}

// scopedRegistryKey is npm's key for a scope's registry: @scope:registry.
var scopedRegistryKey = regexp.MustCompile(`^@[^:/]+:registry$`)

// npmRegistries asks npm itself, outside any project, for its merged configuration (built-in,
// global, ~/.npmrc, NPM_CONFIG_* variables; never a project's .npmrc): the default registry and
// every scope's.
func npmRegistries(ctx context.Context, env toolEnv) ([]string, error) {
	out, err := env.query(ctx, "npm", "config", "list", "--json")
	if notInstalled(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		return nil, fmt.Errorf("npm config list --json printed something that is not JSON: %w", err)
	}
	var hosts []string
	for k, v := range cfg {
		s, isString := v.(string)
		if !isString || (k != "registry" && !scopedRegistryKey.MatchString(k)) {
			continue
		}
		if h, ok := urlEntry(s); ok {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// pipRegistries asks pip for its configuration (pip.conf files and PIP_* variables, through
// `pip config list`): index-url, extra-index-url and find-links URLs. When no index is set, it
// asks the same pip for its built-in default index and the host its files are served from,
// rather than naming PyPI here. pip's internals (pip._internal.models.index.PyPI) have held
// these since pip 10; if a pip moves them, the error says so and the person can list the
// hosts by hand.
func pipRegistries(ctx context.Context, env toolEnv) ([]string, error) {
	out, err := env.query(ctx, "python3", "-I", "-m", "pip", "config", "list")
	if notInstalled(err) || (err != nil && strings.Contains(err.Error(), "No module named pip")) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	hosts, indexSet := parsePipConfigList(out)
	if indexSet {
		return hosts, nil
	}
	out, err = env.query(ctx, "python3", "-I", "-c",
		"from pip._internal.models.index import PyPI; print(PyPI.simple_url); print('https://' + PyPI.file_storage_domain)")
	if err != nil {
		return hosts, fmt.Errorf("asking pip for its default index: %w", err)
	}
	for _, line := range strings.Fields(string(out)) {
		if h, ok := urlEntry(line); ok {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// parsePipConfigList reads `pip config list` lines (section.key='value'); indexSet says
// whether index-url was set, so that pip's default index is not used.
func parsePipConfigList(out []byte) (hosts []string, indexSet bool) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		key := k[strings.LastIndex(k, ".")+1:]
		switch key {
		case "index-url", "extra-index-url", "find-links":
		default:
			continue
		}
		if key == "index-url" {
			indexSet = true
		}
		v = strings.Trim(strings.TrimSpace(v), `'"`)
		for _, u := range strings.Fields(v) {
			if h, ok := urlEntry(u); ok {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts, indexSet
}

// aptRegistries reads apt's sources: /etc/apt/sources.list and sources.list.d's one-line
// *.list files and deb822 *.sources files (entries with "Enabled: no" are skipped).
func aptRegistries(_ context.Context, env toolEnv) ([]string, error) {
	dir := filepath.Join(env.root, "etc", "apt")
	var hosts []string
	var errs []error
	readFile := func(path string, parse func([]byte) []string) {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		hosts = append(hosts, parse(data)...)
	}
	readFile(filepath.Join(dir, "sources.list"), parseAptList)
	lists, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.list"))
	for _, p := range lists {
		readFile(p, parseAptList)
	}
	sources, _ := filepath.Glob(filepath.Join(dir, "sources.list.d", "*.sources"))
	for _, p := range sources {
		readFile(p, parseAptSources)
	}
	return hosts, errors.Join(errs...)
}

// parseAptList reads one-line sources: "deb [ options ] uri suite [component…]".
func parseAptList(data []byte) []string {
	var hosts []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 || (fields[0] != "deb" && fields[0] != "deb-src") {
			continue
		}
		fields = fields[1:]
		if strings.HasPrefix(fields[0], "[") {
			// Options run up to the field that ends with "]".
			for len(fields) > 0 && !strings.HasSuffix(fields[0], "]") {
				fields = fields[1:]
			}
			if len(fields) > 0 {
				fields = fields[1:]
			}
		}
		if len(fields) > 0 {
			if h, ok := urlEntry(fields[0]); ok {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts
}

// parseAptSources reads deb822 sources: paragraphs of "Field: value" lines, separated by
// blank lines, with "URIs:" holding one or more URIs.
func parseAptSources(data []byte) []string {
	var hosts []string
	var uris []string
	enabled := true
	flush := func() {
		if enabled {
			for _, u := range uris {
				if h, ok := urlEntry(u); ok {
					hosts = append(hosts, h)
				}
			}
		}
		uris, enabled = nil, true
	}
	field := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			field = ""
			continue
		}
		value := line
		if line[0] != ' ' && line[0] != '\t' {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			field, value = strings.ToLower(strings.TrimSpace(k)), v
		}
		switch field {
		case "uris":
			uris = append(uris, strings.Fields(value)...)
		case "enabled":
			if strings.EqualFold(strings.TrimSpace(value), "no") {
				enabled = false
			}
		}
	}
	flush()
	return hosts
}

// cargoConfig is the part of cargo's config.toml that names registries.
type cargoConfig struct {
	Registry   struct{ Index string } `toml:"registry"`
	Registries map[string]struct {
		Index string `toml:"index"`
	} `toml:"registries"`
	Source map[string]struct {
		Registry    string `toml:"registry"`
		ReplaceWith string `toml:"replace-with"`
	} `toml:"source"`
}

// cargoDefaultRegistries is crates.io as cargo reaches it when nothing replaces it: its
// sparse index and the host the index's config.json names for downloads. Cargo compiles these
// in and no cargo command prints them, so they are written here.
var cargoDefaultRegistries = []string{"index.crates.io", "static.crates.io"}

// cargoRegistries reads cargo's own configuration (CARGO_HOME's config.toml; never a
// project's .cargo/config.toml, which the agent can write): every named registry's index,
// every source's registry, and crates.io's defaults unless its source is replaced. A
// registry that a project's own .cargo/config.toml names is allowed by listing its host.
func cargoRegistries(_ context.Context, env toolEnv) ([]string, error) {
	if env.cargoDir == "" {
		return nil, nil
	}
	var files []string
	for _, name := range []string{"config.toml", "config"} {
		p := filepath.Join(env.cargoDir, name)
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
			break // cargo reads config.toml when both exist
		}
	}
	var hosts []string
	var errs []error
	replaced := false
	for _, f := range files {
		var cfg cargoConfig
		if _, err := toml.DecodeFile(f, &cfg); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		add := func(u string) {
			if h, ok := urlEntry(u); ok {
				hosts = append(hosts, h)
			}
		}
		add(cfg.Registry.Index)
		for _, r := range cfg.Registries {
			add(r.Index)
		}
		for name, s := range cfg.Source {
			add(s.Registry)
			if name == "crates-io" && s.ReplaceWith != "" {
				replaced = true
			}
		}
	}
	if !replaced && len(errs) == 0 && cargoInstalled(env) {
		hosts = append(hosts, cargoDefaultRegistries...)
	}
	return hosts, errors.Join(errs...)
}

func cargoInstalled(env toolEnv) bool {
	if _, err := env.lookPath("cargo"); err == nil {
		return true
	}
	if env.cargoDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(env.cargoDir, "bin", "cargo"))
	return err == nil
}
