package main

import (
	"time"

	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/clisock"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/search"
	"github.com/phoenix-desktop/phoenix/tools"
)

// commonFlags are accepted by every command that opens the data directory or talks to a model.
type commonFlags struct {
	dataDir string
	model   string
	baseURL string
	preset  string
	demo    bool
	verbose bool
	// mcpConfig replaces the person's MCP servers with a file's; noMCP switches MCP off.
	mcpConfig string
	noMCP     bool
	// mcpStartTimeout is --mcp-timeout: 0 takes the default.
	mcpStartTimeout time.Duration
	// mcpAllowTools is --mcp-allow-tools: destructive tools that run without asking.
	mcpAllowTools stringList
	// outputLimits are --output-limit MODEL=TOKENS, repeatable.
	outputLimits stringList
}

// EnvOutputLimits sets reply limits per model, as MODEL=TOKENS pairs separated by commas; the
// --output-limit flags win over it.
const EnvOutputLimits = "PHOENIX_OUTPUT_LIMITS"

// outputLimits merges PHOENIX_OUTPUT_LIMITS and the --output-limit flags into the runtime's
// per-model reply limits (actors.Config.OutputLimits); the model table covers the rest.
func (c *commonFlags) outputLimitMap(getenv func(string) string) (map[string]int, error) {
	pairs := []string{}
	for _, p := range strings.Split(getenv(EnvOutputLimits), ",") {
		if p = strings.TrimSpace(p); p != "" {
			pairs = append(pairs, p)
		}
	}
	pairs = append(pairs, c.outputLimits...)
	limits := map[string]int{}
	for _, p := range pairs {
		model, n, ok := strings.Cut(p, "=")
		tokens, err := strconv.Atoi(strings.TrimSpace(n))
		model = strings.ToLower(strings.TrimSpace(model))
		if !ok || err != nil || tokens <= 0 || model == "" {
			return nil, fmt.Errorf("output limit %q: write MODEL=TOKENS with a positive number of tokens, e.g. gpt-4o=8000", p)
		}
		limits[model] = tokens
	}
	return limits, nil
}

func (c *commonFlags) register(fs *flag.FlagSet, withModel bool) {
	fs.StringVar(&c.dataDir, flagDataDir, "", "where conversations are stored (default $XDG_DATA_HOME/phoenix-desktop)")
	fs.BoolVar(&c.verbose, "verbose", false, "log debugging details to standard error")
	if withModel {
		fs.StringVar(&c.model, flagModel, "", "model name (default from "+envList(providers.FieldModel)+" or the provider preset)")
		fs.StringVar(&c.baseURL, flagBaseURL, "", "OpenAI-compatible endpoint (default from "+envList(providers.FieldBaseURL)+")")
		fs.StringVar(&c.preset, flagProvider, "", "provider preset: "+strings.Join(providers.Names(), ", ")+" (default from "+envList(providers.FieldPreset)+")")
		fs.BoolVar(&c.demo, flagDemo, false, "use the built-in offline demo model")
		c.registerMCP(fs)
		fs.Var(&c.outputLimits, "output-limit", "MODEL=TOKENS: the most tokens one reply of MODEL may have, instead of the built-in table's (repeatable; also "+EnvOutputLimits+")")
	}
}

func (c *commonFlags) registerMCP(fs *flag.FlagSet) {
	fs.StringVar(&c.mcpConfig, "mcp-config", "", `use the MCP servers of this file ({"mcpServers": …}) instead of the configured ones`)
	fs.BoolVar(&c.noMCP, "no-mcp", false, "use no MCP servers")
	fs.DurationVar(&c.mcpStartTimeout, "mcp-timeout", 0, "how long an MCP server may take to start and list its tools (default "+mcp.DefaultStartTimeout.String()+`; a server's own "timeout" wins)`)
	fs.Var(&c.mcpAllowTools, strings.TrimPrefix(mcp.AllowToolsFlag, "--"), "SERVER/TOOL,...: MCP tools marked destructive that run without asking (repeatable; without it a headless run denies them)")
}

// mcpOptions are the MCP settings the flags give.
func (c *commonFlags) mcpOptions() mcp.Options {
	var allow []string
	for _, list := range c.mcpAllowTools {
		for _, t := range strings.Split(list, ",") {
			if t = strings.TrimSpace(t); t != "" {
				allow = append(allow, t)
			}
		}
	}
	return mcp.Options{StartTimeout: c.mcpStartTimeout, AllowTools: allow, SpaceCheck: persistence.CheckSpace,
		Tokens: mcpTokens(), ClientMetadataURL: os.Getenv(EnvMCPClientMetadataURL)}
}

// openMCP returns the MCP servers conversations use: none with --no-mcp, a file's with
// --mcp-config (which must be valid), else the person's mcp.json. A broken mcp.json does not
// stop the app: the hub has no servers, and the error is returned for the caller to show.
func (c *commonFlags) openMCP() (*mcp.Hub, error) {
	switch {
	case c.noMCP && c.mcpConfig != "":
		return nil, errors.New("--mcp-config and --no-mcp exclude each other")
	case c.noMCP:
		return nil, nil
	case c.mcpConfig != "":
		cfg, err := mcp.LoadConfig(c.mcpConfig)
		if err == nil && len(cfg.Servers) == 0 {
			if _, statErr := os.Stat(c.mcpConfig); statErr != nil {
				err = fmt.Errorf("--mcp-config: %w", statErr)
			}
		}
		if err != nil {
			return nil, err
		}
		return mcp.FixedHub(cfg, c.mcpOptions()), nil
	}
	path, err := mcp.DefaultConfigPath()
	if err != nil {
		return nil, err
	}
	return mcp.OpenHub(path, c.mcpOptions())
}

// Names of the flags that set a model setting, as the Settings dialog names them when they win.
const (
	flagModel    = "model"
	flagBaseURL  = "base-url"
	flagProvider = "provider"
	flagDemo     = "demo"
)

// flagDataDir names the data directory: the commands' flag, and what a client beside the
// app reads to find the app's socket (dataDirArg).
const flagDataDir = "data-dir"

func envList(f providers.Field) string { return strings.Join(providers.EnvVars(f), " / ") }

// overrides maps each setting that a flag or the environment sets (and that therefore wins
// over the Settings dialog) to the flag or variable, by the same precedence as
// llm.ResolveConfig (providers.Choose).
func (c *commonFlags) overrides(getenv func(string) string) map[providers.Field]string {
	out := map[providers.Field]string{}
	for f, flagValue := range map[providers.Field]string{
		providers.FieldBaseURL: c.baseURL, providers.FieldAPIKey: "", providers.FieldModel: c.model,
	} {
		if _, src := providers.Choose(f, flagValue, "--"+flagNameOf(f), getenv, ""); src.Overrides {
			out[f] = src.Name
		}
	}
	if c.demo {
		out[providers.FieldBaseURL] = "--" + flagDemo
	}
	return out
}

func flagNameOf(f providers.Field) string {
	switch f {
	case providers.FieldBaseURL:
		return flagBaseURL
	case providers.FieldModel:
		return flagModel
	case providers.FieldPreset:
		return flagProvider
	}
	return ""
}

func (c *commonFlags) logger(stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

func (c *commonFlags) openStore(log *slog.Logger) (*persistence.Store, error) {
	dir := c.dataDir
	if dir == "" {
		d, err := persistence.DefaultDir()
		if err != nil {
			return nil, fmt.Errorf("find the data directory (pass --data-dir): %w", err)
		}
		dir = d
	}
	store, err := persistence.Open(dir, persistence.Options{Logger: log})
	if err == nil {
		hideAppFiles(store.Dir(), log)
		// Holding the lock, no app listens for commands on this directory: a socket left
		// by one that crashed is stale.
		if err := clisock.RemoveStale(store.Dir()); err != nil {
			log.Warn("a stale command socket of this data directory could not be removed", "err", err)
		}
	}
	return store, err
}

// extraSecretsFile names the file, in the app's configuration directory, where the person
// lists more places no sandboxed command may read, one absolute path (or ~/path) a line.
const extraSecretsFile = "hidden-paths.txt"

// hiddenPathsFile is the person's list of places to hide from commands, "" when there is no
// configuration directory.
func hiddenPathsFile() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "phoenix-desktop", extraSecretsFile)
}

// hideAppFiles adds the app's own directories — its configuration (the key file where no
// keyring answers), its data (every conversation's store, the search index, checkpoints, the
// temp dirs) and its cache — and the person's own list to the sandbox's secrets table.
func hideAppFiles(dataDir string, log *slog.Logger) {
	dirs := []string{dataDir}
	if d, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "phoenix-desktop"), filepath.Join(d, "fyne"))
		b, err := os.ReadFile(filepath.Join(d, "phoenix-desktop", extraSecretsFile))
		switch {
		case err == nil:
			if err := sandbox.SetExtraSecrets(actors.ParseHiddenPaths(string(b))); err != nil {
				log.Warn("the list of places to hide from commands has an entry that is not a path; the list is ignored until it is fixed", "file", filepath.Join(d, "phoenix-desktop", extraSecretsFile), "err", err)
			}
		case !errors.Is(err, os.ErrNotExist):
			log.Warn("the list of places to hide from commands could not be read", "err", err)
		}
	}
	if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "phoenix-desktop"))
		// Hidden with the rest of the cache directory: what go env and setpriv answered.
		sandbox.SetProbeFile(filepath.Join(d, "phoenix-desktop", "tool-probes.json"))
	}
	// The command sockets of running apps (the one of dataDir is inside it otherwise).
	dirs = append(dirs, clisock.RuntimeDir())
	sandbox.HideAppDirs(dirs...)
}

// indexDirName is the search index's directory inside the data directory.
const indexDirName = "search-index"

// openIndex opens the search index beside the store; it catches up with the store in the
// background.
func openIndex(store *persistence.Store, log *slog.Logger) (*search.Index, error) {
	return search.Open(filepath.Join(store.Dir(), indexDirName), store, search.Options{Logger: log})
}

// configError says the model settings are incomplete or wrong (not that something failed).
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// model is a resolved model connection: a client, and the demo server when it runs one.
type model struct {
	config llm.Config
	client *llm.Client
	demo   *fakellm.Server
}

func (m *model) Close() {
	if m.demo != nil {
		m.demo.Close()
	}
}

// Label names the model connection for people: the demo is always called "Demo (offline)".
func (m *model) Label() string {
	if m.demo != nil {
		return domain.DemoModelLabel
	}
	return fmt.Sprintf("%s at %s", m.config.Model, m.config.BaseURL)
}

// openModel resolves flags, environment and settings into a client. With no API key and no
// base URL anywhere, or with --demo, it starts the offline demo server on 127.0.0.1.
func openModel(flags commonFlags, settings llm.Config, blobs llm.BlobSource) (*model, error) {
	cfg := llm.ResolveConfig(llm.Config{BaseURL: flags.baseURL, Model: flags.model, Preset: flags.preset},
		os.Getenv, settings)
	m := &model{}
	// Nothing names an endpoint when no flag, variable or saved setting sets a base URL or a
	// provider: then the only URL would be the default preset's, which needs a key.
	// The flags' names make a flag a source: with an empty name, --base-url alone (a local
	// server that needs no key) was taken for nothing and the demo model ran instead.
	_, urlFrom := providers.Choose(providers.FieldBaseURL, flags.baseURL, "--"+flagBaseURL, os.Getenv, settings.BaseURL)
	_, presetFrom := providers.Choose(providers.FieldPreset, flags.preset, "--"+flagProvider, os.Getenv, settings.Preset)
	if flags.demo || (cfg.APIKey == "" && urlFrom.Name == "" && presetFrom.Name == "") {
		srv, err := fakellm.StartDemo()
		if err != nil {
			return nil, fmt.Errorf("start the offline demo model: %w", err)
		}
		m.demo = srv
		cfg = llm.Config{BaseURL: srv.URL(), APIKey: "demo", Model: domain.DemoModel,
			ConnectTimeout: cfg.ConnectTimeout, IdleTimeout: cfg.IdleTimeout}
	}
	if m.demo == nil {
		// The model is only the default of new conversations (each conversation keeps its
		// own), so a missing one is checked when a conversation is created, not here.
		check := cfg
		if check.Model == "" {
			check.Model = "(chosen per conversation)"
		}
		if err := check.Validate(); err != nil {
			return nil, &configError{fmt.Errorf("configure the model: %w (or pass --demo for the offline demo model)", err)}
		}
	}
	m.config = cfg
	client, err := llm.New(cfg, blobs)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("configure the model client: %w", err)
	}
	m.client = client
	return m, nil
}

// session is everything a command that runs conversations needs, closed in reverse order.
type session struct {
	store *persistence.Store
	// index is the search index, opened on first use (lazy.go).
	index   *lazyIndex
	model   *model
	runtime *actors.Runtime
	// proxy is the network proxy of Project mode, started on first use (lazy.go).
	proxy *lazyProxy
	// borrowed is the app's session lent to a command served beside the window
	// (cliserver.go): the app closes it, the command must not.
	borrowed bool
	// remote holds the SSH sessions of remote projects (remote.go).
	remote *remoteHosts
}

func (a *session) Close() {
	if a.borrowed {
		return
	}
	if a.runtime != nil {
		a.runtime.Shutdown()
	}
	if a.remote != nil {
		a.remote.Close() // after the runtime: no remote call is left to run
	}
	// After the runtime: its commands have ended, so every supervisor is idle.
	sandbox.Shutdown()
	if a.proxy != nil {
		a.proxy.Close()
	}
	if a.index != nil {
		_ = a.index.Close() // derived data: whatever it missed, it catches up on at the next start
	}
	if a.model != nil {
		a.model.Close()
	}
	if a.store != nil {
		_ = a.store.Close() // errors were logged by the store; nothing more to do at exit
	}
}

// openApp opens the store, the model and the actor runtime. A broken mcp.json is logged and
// leaves MCP without servers (the window's Settings says why); a bad --mcp-config fails.
func openApp(flags commonFlags, settings llm.Config, log *slog.Logger) (*session, error) {
	a := &session{}
	hub, err := flags.openMCP()
	if err != nil {
		if hub == nil {
			return nil, fmt.Errorf("MCP servers: %w (or pass --no-mcp)", err)
		}
		log.Error("the MCP configuration cannot be used; no MCP server will start until it is fixed", "error", err)
	}
	store, err := flags.openStore(log)
	if err != nil {
		return nil, err
	}
	a.store = store
	// Search is derived data, opened on first use: without an index the app works, and says
	// so where search is asked for.
	a.index = newLazyIndex(store, log)
	m, err := openModel(flags, settings, store)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.model = m
	limits, err := flags.outputLimitMap(os.Getenv)
	if err != nil {
		a.Close()
		return nil, &configError{err}
	}
	passivation, err := passivationFromEnv(os.Getenv)
	if err != nil {
		a.Close()
		return nil, &configError{err}
	}
	// The proxy asks the runtime about new hosts; the runtime is set once it has started.
	var started atomic.Pointer[actors.Runtime]
	a.proxy = &lazyProxy{log: log, open: func() (*appProxy, error) { return openProxy(store.Dir(), started.Load, log) }}
	a.remote = newRemoteHosts(hostAsker(started.Load))
	rt, err := actors.Start(actors.Config{
		Remote:       a.remote,
		HostProxy:    a.proxy,
		Search:       a.index,
		OutputLimits: limits,
		Passivation:  passivation,
		Store:        store,
		LLM:          m.client,
		Tools:        tools.NewRegistry(),
		// Sandbox is left empty: the runtime describes it when first asked (the window's
		// badge), so that no supervisor starts before the first request.
		Logger:       log,
		DefaultModel: m.config.Model,
		// The person's own AGENTS.md, read with the project's.
		InstructionsDir: instructions.ConfigDir(),
		// Inside the locked data directory, so that a start can sweep what a crash left.
		TempRoot: filepath.Join(store.Dir(), "sandbox-tmp"),
		MCP:      hub,
		// Language servers, from PATH and the person's lsp.json (lspconfig.go).
		LSP: openLanguageServers(log),
		// Commands, skills and hooks (package custom), from the same configuration directory.
		PersonalDirs:    personalCustomDirs(),
		Hooks:           openHooks(),
		HiddenPathsFile: hiddenPathsFile(),
		// The person's prices (prices.go), over the built-in table.
		Prices: openPrices(instructions.ConfigDir(), log),

		// Once every conversation rested, the memory they freed goes back to the system, and
		// the pages of the Badger files their loads read leave the resident memory (they stay
		// in the page cache).
		OnAllRested: func() {
			debug.FreeOSMemory()
			persistence.ReleaseMappedFiles()
		},
	})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.runtime = rt
	started.Store(rt)
	return a, nil
}
