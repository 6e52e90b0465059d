package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"

	"golang.org/x/term"

	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/search"
	"github.com/phoenix-desktop/phoenix/ui"
)

// cmdEnv is where a headless command runs. Standalone (app == nil) it is this process: the
// command opens the data directory itself and reads this process's standard input, signals
// and working directory. Served (cliserver.go) it runs inside the app that holds the data
// directory, on the app's own session, with the client's standard input, signals and working
// directory. The command functions are the same in both cases; only what they open and
// where they read differs, and this type is the one place that decides it.
type cmdEnv struct {
	// app is the running app's session, borrowed (its Close does nothing); nil standalone.
	app *session
	// appDemo reports whether the app answers with the offline demo model (served only).
	appDemo func() bool
	stdin   io.Reader
	// stdinTerminal says whether stdin is a terminal a question can be asked on.
	stdinTerminal bool
	// cwd is the client's working directory, against which relative paths are read; "" is
	// this process's.
	cwd     string
	signals signalSource
}

// signalSource is signal.Notify and signal.Stop, or the client's signals relayed.
type signalSource interface {
	Notify(c chan<- os.Signal, sig ...os.Signal)
	Stop(c chan<- os.Signal)
}

type osSignals struct{}

func (osSignals) Notify(c chan<- os.Signal, sig ...os.Signal) { signal.Notify(c, sig...) }
func (osSignals) Stop(c chan<- os.Signal)                     { signal.Stop(c) }

// localEnv is a command run in this process, on its own.
func localEnv() *cmdEnv {
	return &cmdEnv{stdin: os.Stdin, stdinTerminal: term.IsTerminal(int(os.Stdin.Fd())), signals: osSignals{}}
}

// abs makes a path the person typed absolute, against the client's working directory when
// served.
func (e *cmdEnv) abs(p string) (string, error) {
	if e.cwd == "" || filepath.IsAbs(p) {
		return filepath.Abs(p)
	}
	return filepath.Join(e.cwd, p), nil
}

// absOr is abs for paths that are read at once (an error reads as the path itself, which
// the read then reports).
func (e *cmdEnv) absOr(p string) string {
	if a, err := e.abs(p); err == nil {
		return a
	}
	return p
}

// open returns the app's session when served, else what standalone opens.
func (e *cmdEnv) open(standalone func() (*session, error)) (*session, error) {
	if e.app != nil {
		return e.app, nil
	}
	return standalone()
}

// openChat opens what chat needs: standalone the person's saved settings and a runtime of
// its own; served the app's runtime, refusing flags that would choose another model
// connection or MCP servers than the app's (the app cannot have two).
func (e *cmdEnv) openChat(c commonFlags, log *slog.Logger) (*session, error) {
	if e.app != nil {
		if err := e.checkAppFlags(c); err != nil {
			return nil, err
		}
		return e.app, nil
	}
	var saved llm.Config
	var options ui.Settings
	if !c.demo {
		saved, options = headlessSettings(log)
	} else if prefs, ok := windowPrefs(); ok {
		options = ui.LoadSettings(prefs)
	}
	a, err := openApp(c, saved, log)
	if err != nil {
		return nil, err
	}
	// The reply limits and reasoning efforts saved in Settings, as the window applies them
	// (--output-limit and PHOENIX_OUTPUT_LIMITS win).
	if len(options.OutputLimits) > 0 || len(options.ReasoningEfforts) > 0 {
		if err := applyModelOptions(a.runtime, c, os.Getenv, options); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// checkAppFlags refuses, when served, the flags that set what only the app's start sets.
func (e *cmdEnv) checkAppFlags(c commonFlags) error {
	const why = "the app is running with this data directory and uses its own %s; %s cannot change it from here: leave it out, or close the app to run the command on its own"
	switch {
	case c.demo && (e.appDemo == nil || !e.appDemo()):
		return fmt.Errorf(why, "model (not the offline demo)", "--"+flagDemo)
	case c.baseURL != "":
		return fmt.Errorf(why, "model connection", "--"+flagBaseURL)
	case c.preset != "":
		return fmt.Errorf(why, "model connection", "--"+flagProvider)
	case len(c.outputLimits) > 0:
		return fmt.Errorf(why, "reply limits", "--output-limit")
	case c.mcpConfig != "" || c.noMCP || c.mcpStartTimeout != 0 || len(c.mcpAllowTools) > 0:
		return fmt.Errorf(why, "MCP servers and their settings", "an MCP flag")
	}
	return nil
}

// openStore opens the store for a command that reads it without a runtime. Standalone with
// atRest it first runs restart recovery (openStoreAtRest); served, the app's store is
// already recovered and must not be: its turns are running. done releases what was opened.
func (e *cmdEnv) openStore(c *commonFlags, log *slog.Logger, atRest bool) (*persistence.Store, func(), error) {
	if e.app != nil {
		return e.app.store, func() {}, nil
	}
	open := c.openStore
	if atRest {
		open = c.openStoreAtRest
	}
	store, err := open(log)
	if err != nil {
		return nil, nil, err
	}
	return store, func() { _ = store.Close() }, nil
}

// openIndex opens the search index beside a store (standalone) or lends the app's.
func (e *cmdEnv) openIndex(store *persistence.Store, log *slog.Logger) (*search.Index, func(), error) {
	if e.app != nil {
		err := errors.New("the app runs without one")
		var idx *search.Index
		if e.app.index != nil {
			idx, err = e.app.index.get() // opened on first use (lazy.go)
		}
		if idx == nil {
			return nil, nil, fmt.Errorf("the app's search index is unavailable (%v); close the app and search again to rebuild it", err)
		}
		return idx, func() {}, nil
	}
	idx, err := openIndex(store, log)
	if err != nil {
		return nil, nil, err
	}
	return idx, func() { _ = idx.Close() }, nil
}
