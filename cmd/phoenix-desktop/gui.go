package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/term"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/ui"
)

// runGUI opens the desktop app on the same runtime the headless commands use.
func runGUI(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("phoenix-desktop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// --help on the app itself lists the commands too, not only the app's flags.
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage+"\nFlags of the desktop app:\n")
		fs.PrintDefaults()
	}
	var common commonFlags
	common.register(fs, true)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected %q: commands come first (phoenix-desktop list --data-dir DIR), see phoenix-desktop help", fs.Arg(0))
	}
	log := common.logger(stderr)
	defer startCPUProfile(stderr)()
	defer startHeapProfiles(stderr)()
	gcAfterFirstFrame := windowStartGC(os.Getenv)
	defer gcAfterFirstFrame()

	a := app.NewWithID(assets.AppID)
	a.Settings().SetTheme(ui.Theme())
	// The font faces of the first frame load while the window and the session are made
	// (ui.WarmFonts); nothing measures text until they are loaded.
	fontsLoaded := ui.WarmFonts()

	askedDemo := common.demo
	// The session opens (the key from the keyring, the store, the actor system) while the
	// window is made (GLFW, the X connection, an OpenGL context): neither needs the other, and
	// each was tens of milliseconds of the time from exec to the window on the screen (issue
	// 36). Asking the keyring is a D-Bus round trip or more on a desktop.
	type openResult struct {
		s     *session
		err   error
		keys  ui.KeyStore
		saved ui.Settings
	}
	prefs := a.Preferences()
	openDone := make(chan openResult, 1)
	go func() {
		keys := openKeys(prefs, log, slog.LevelWarn)
		saved := loadSettings(prefs, keys, log)
		s, err := openApp(common, settingsConfig(saved), log)
		openDone <- openResult{s, err, keys, saved}
	}()
	win := a.NewWindow(ui.AppTitle)
	r := <-openDone
	fontsLoaded() // before any text is measured, the start-up error's window's included
	keys, saved, settings := r.keys, r.saved, settingsConfig(r.saved)
	opened, err := r.s, r.err
	var cfgErr *configError
	if errors.As(err, &cfgErr) {
		// Incomplete settings must not lock the person out of the Settings dialog that
		// fixes them: start on the offline demo model and say why.
		log.Warn("the model settings are incomplete; starting with the offline demo model", "error", err)
		common.demo = true
		opened, err = openApp(common, settings, log)
	}
	if err != nil {
		// The person started the app and deserves a window that says what is wrong (for
		// example another instance holds the data directory), not a silent exit.
		gcAfterFirstFrame()
		showStartupError(a, win, err)
		return err
	}
	defer opened.Close()
	if err := applyModelOptions(opened.runtime, common, os.Getenv, saved); err != nil {
		log.Warn("the reply limits could not be applied", "error", err)
	}
	paceDemo(opened.model)

	var mu sync.Mutex // guards opened.model and retired across Apply calls from the UI
	var retired []*model
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range retired {
			m.Close()
		}
	}()
	// The command line's commands run in this app while it is open (cliserver.go); they
	// end before the session closes.
	if srv, err := serveCLI(opened, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return opened.model.demo != nil
	}, log); err != nil {
		log.Warn("the command line cannot reach this app; its commands say the data directory is in use until the app closes", "err", err)
	} else {
		defer srv.Close()
	}
	deps := ui.Deps{
		Window: win,
		ListModels: func(ctx context.Context, s ui.Settings) ([]string, error) {
			cfg := llm.ResolveConfig(llm.Config{BaseURL: common.baseURL, Model: common.model, Preset: common.preset},
				os.Getenv, settingsConfig(s))
			client, err := llm.New(cfg, nil)
			if err != nil {
				return nil, err
			}
			return client.ListModels(ctx)
		},
		Apply: func(s ui.Settings) error {
			mu.Lock()
			defer mu.Unlock()
			m, err := openModel(common, settingsConfig(s), opened.store)
			if err != nil {
				return fmt.Errorf("apply the settings: %w", err)
			}
			// The old model (and its demo server, if any) is kept until exit, so that requests
			// in flight finish where they started.
			paceDemo(m)
			retired = append(retired, opened.model)
			opened.model = m
			opened.runtime.SetLLM(m.client)
			if s.OutputLimits != nil || s.ReasoningEfforts != nil {
				if err := applyModelOptions(opened.runtime, common, os.Getenv, s); err != nil {
					return fmt.Errorf("apply the reply limits: %w", err)
				}
			}
			return nil
		},
		EnvOverrides: func() map[string]string {
			out := map[string]string{}
			for f, name := range common.overrides(os.Getenv) {
				out[string(f)] = name
			}
			return out
		},
		Probe:         probe(common, os.Getenv),
		FirstRun:      isFirstRun(askedDemo, opened.model),
		Keys:          keys,
		SettingsSpace: settingsSpace,
		StartDir:      terminalDir(),
		DefaultModel: func() string {
			mu.Lock()
			defer mu.Unlock()
			if opened.model.demo != nil {
				return domain.DemoModel
			}
			return opened.model.config.Model
		},
	}
	if servers := opened.runtime.MCPServers(); servers != nil {
		deps.MCP = servers
	}
	deps.LanguageServers = opened.runtime.LanguageServers
	// Whether the proxy runs is asked when Settings shows the allowed hosts (ui's
	// hostsRunning), which starts it then: asking here started it before the window mapped,
	// 60 ms and more of the time to open (issue 36).
	deps.Hosts = opened.runtime
	deps.RegistrySources = proxy.RegistrySources()
	notifier := &desktopNotifier{app: a}
	defer notifier.Close()
	deps.Desktop = notifier
	deps.AfterShow = func() {
		gcAfterFirstFrame()
		afterShow(a)
		// The window searches: open the index (and catch up) now that it is on the screen
		// (a search before then opens it itself). Opened beside the window's making, it
		// took the CPU the session's opening and the first frame wait for.
		opened.index.Warm()
	}
	ui.Run(a, opened.runtime, opened.runtime.Subscribe(), deps)
	return nil
}

// afterShow is the start-up work the window's first frame does not need, done once the
// window is on the screen (issue 36: each was part of the time from exec to the window).
func afterShow(a fyne.App) {
	// The icon: decoding the 512×512 PNG for the window manager took about 17 ms of CPU
	// before the map. The app's icon is set here too, before any notification needs it.
	icon := fyne.NewStaticResource("icon.png", assets.Icon)
	a.SetIcon(icon)
	for _, w := range a.Driver().AllWindows() {
		w.SetIcon(icon)
	}
	// Conversations are about to be opened: start a sandbox supervisor now, so that the
	// first bash call does not wait for one (starting it runs this binary again, which
	// competed with the window for the CPU before the map).
	sandbox.Prewarm()
}

// settingsConfig is what the Settings dialog saved, as the client's configuration: the
// provider by its name, so that its defaults and key requirement apply.
func settingsConfig(s ui.Settings) llm.Config {
	return llm.Config{Preset: s.Preset, BaseURL: s.BaseURL, APIKey: s.APIKey, Model: s.Model}
}

// demoPace streams the demo model's answers word by word in the window, as a real model
// would, so a person trying the app offline sees text arrive; the headless commands keep the
// fake server at full speed.
const demoPace = 15 * time.Millisecond

func paceDemo(m *model) {
	if m != nil && m.demo != nil {
		m.demo.SetPace(demoPace)
	}
}

func showStartupError(a fyne.App, w fyne.Window, err error) {
	w.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	msg := widget.NewLabel(err.Error())
	msg.Wrapping = fyne.TextWrapWord
	w.SetContent(container.NewBorder(widget.NewLabelWithStyle("Phoenix Desktop could not start",
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), widget.NewButton("Quit", a.Quit), nil, nil, msg))
	w.Resize(fyne.NewSize(560, 220))
	w.ShowAndRun()
}

// terminalDir is the folder the app was started in, to offer for a new conversation, so that
// `cd project && phoenix-desktop` offers the project (also with its output sent to a log,
// when neither standard stream is a terminal); "" where that folder says nothing, as when a
// desktop launcher starts the app in the home folder or at /.
func terminalDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	home, _ := os.UserHomeDir()
	return startDir(term.IsTerminal(int(os.Stdin.Fd())) || term.IsTerminal(int(os.Stdout.Fd())), dir, home)
}

// startDir decides terminalDir: from a terminal the folder is offered as it is; without one,
// only when it is neither the home folder nor the root a launcher starts in.
func startDir(terminal bool, cwd, home string) string {
	if terminal {
		return cwd
	}
	if cwd == "/" || cwd == home {
		return ""
	}
	return cwd
}
