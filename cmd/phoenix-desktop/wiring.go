package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
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
}

func (c *commonFlags) register(fs *flag.FlagSet, withModel bool) {
	fs.StringVar(&c.dataDir, "data-dir", "", "where conversations are stored (default $XDG_DATA_HOME/phoenix-desktop)")
	fs.BoolVar(&c.verbose, "verbose", false, "log debugging details to standard error")
	if withModel {
		fs.StringVar(&c.model, "model", "", "model name (default from PHOENIX_MODEL or the provider preset)")
		fs.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible endpoint (default from PHOENIX_BASE_URL / OPENAI_BASE_URL)")
		fs.StringVar(&c.preset, "provider", "", "provider preset: openai, openrouter, ollama, anthropic")
		fs.BoolVar(&c.demo, "demo", false, "use the built-in offline demo model")
	}
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
	return persistence.Open(dir, persistence.Options{Logger: log})
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
		return "Demo (offline)"
	}
	return fmt.Sprintf("%s at %s", m.config.Model, m.config.BaseURL)
}

// openModel resolves flags, environment and settings into a client. With no API key and no
// base URL anywhere, or with --demo, it starts the offline demo server on 127.0.0.1.
func openModel(flags commonFlags, settings llm.Config, blobs llm.BlobSource) (*model, error) {
	cfg := llm.ResolveConfig(llm.Config{BaseURL: flags.baseURL, Model: flags.model, Preset: flags.preset},
		os.Getenv, settings)
	m := &model{}
	if flags.demo || (strings.TrimSpace(cfg.APIKey) == "" && flags.baseURL == "" && flags.preset == "" &&
		os.Getenv("PHOENIX_BASE_URL") == "" && os.Getenv("OPENAI_BASE_URL") == "" && settings.BaseURL == "") {
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
	store   *persistence.Store
	model   *model
	runtime *actors.Runtime
}

func (a *session) Close() {
	if a.runtime != nil {
		a.runtime.Shutdown()
	}
	if a.model != nil {
		a.model.Close()
	}
	if a.store != nil {
		_ = a.store.Close() // errors were logged by the store; nothing more to do at exit
	}
}

// openApp opens the store, the model and the actor runtime.
func openApp(flags commonFlags, settings llm.Config, log *slog.Logger) (*session, error) {
	a := &session{}
	store, err := flags.openStore(log)
	if err != nil {
		return nil, err
	}
	a.store = store
	m, err := openModel(flags, settings, store)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.model = m
	rt, err := actors.Start(actors.Config{
		Store:        store,
		LLM:          m.client,
		Tools:        tools.NewRegistry(),
		Sandbox:      sandbox.Probe(),
		Logger:       log,
		DefaultModel: m.config.Model,
		// The person's own AGENTS.md, read with the project's.
		InstructionsDir: instructions.ConfigDir(),
		// Inside the locked data directory, so that a start can sweep what a crash left.
		TempRoot: filepath.Join(store.Dir(), "sandbox-tmp"),
	})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.runtime = rt
	return a, nil
}
