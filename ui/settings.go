package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Preference keys of the settings. The API key is kept in the key store (keys.go) when the
// app has one; prefAPIKey is where older versions kept it, and where it stays without one.
const (
	prefPreset  = "settings.preset"
	prefBaseURL = "settings.base_url"
	prefAPIKey  = "settings.api_key"
	prefModel   = "settings.model"
	prefModels  = "settings.models"
)

// LoadSettings reads the saved settings from the app's preferences. Builds before this one
// saved the provider's label; providers.Canonical turns it into the name.
func LoadSettings(p fyne.Preferences) Settings {
	return Settings{Preset: providers.Canonical(p.String(prefPreset)), BaseURL: p.String(prefBaseURL),
		APIKey: p.String(prefAPIKey), Model: p.String(prefModel)}
}

// SaveSettings writes the settings to the app's preferences. An empty key is removed from
// the file rather than written as "" (see keys.go for where the key is kept).
func SaveSettings(p fyne.Preferences, s Settings) {
	p.SetString(prefPreset, s.Preset)
	p.SetString(prefBaseURL, s.BaseURL)
	if s.APIKey == "" {
		p.RemoveValue(prefAPIKey)
	} else {
		p.SetString(prefAPIKey, s.APIKey)
	}
	p.SetString(prefModel, s.Model)
}

// settingsForm is the Settings dialog's state; tests reach its widgets.
type settingsForm struct {
	m       *MainWindow
	saved   Settings
	env     map[string]string
	preset  *widget.Select
	baseURL *escEntry
	apiKey  *escEntry
	forget  *widget.Check
	model   *escSelectEntry
	hint    *widget.Label
	test    *widget.Button
	result  *widget.Label
	dlg     *dialog.FormDialog
	items   []*widget.FormItem
	testing bool
}

// showSettings opens the Settings dialog.
func (m *MainWindow) showSettings() {
	saved, keyErr := m.loadSettings()
	f := &settingsForm{m: m, saved: saved, env: map[string]string{}}
	if m.deps.EnvOverrides != nil {
		f.env = m.deps.EnvOverrides()
	}
	f.baseURL = newEscEntry()
	f.baseURL.SetPlaceHolder("https://…/v1")
	f.baseURL.SetText(f.saved.BaseURL)
	f.preset = widget.NewSelect(providers.Labels(), func(label string) {
		if p, ok := providers.Lookup(label); ok && f.env[FieldBaseURL] == "" {
			f.baseURL.SetText(p.BaseURL)
		}
	})
	if label := providers.Label(f.saved.Preset); label != "" {
		f.preset.SetSelected(label)
	} else {
		f.preset.PlaceHolder = "Choose a provider"
	}
	f.apiKey = newEscPasswordEntry()
	if f.saved.APIKey != "" {
		f.apiKey.SetPlaceHolder("Saved key " + providers.MaskKey(f.saved.APIKey) + ": leave empty to keep it")
	} else {
		f.apiKey.SetPlaceHolder("No key: new conversations use the Demo (offline) model")
	}
	if v := f.env[FieldAPIKey]; v != "" {
		f.apiKey.SetPlaceHolder("The key in " + v + " is used")
	}
	f.forget = widget.NewCheck("Forget the saved key", nil)
	f.forget.Hidden = f.saved.APIKey == "" || f.env[FieldAPIKey] != ""
	f.model = newEscSelectEntry(m.modelOptions())
	f.model.SetText(f.saved.Model)
	f.model.SetPlaceHolder("Model name, e.g. gpt-4o")
	f.hint = widget.NewLabel("")
	f.hint.Importance = widget.LowImportance
	f.model.OnChanged = func(s string) { f.hint.SetText(m.modelHint(s)) }
	f.hint.SetText(m.modelHint(f.saved.Model))
	f.result = widget.NewLabel("")
	f.result.Wrapping = fyne.TextWrapWord
	f.test = widget.NewButton("Test connection", f.testConnection)
	if m.deps.ListModels == nil {
		f.test.Disable()
	}
	// REQ: the environment wins where it is set, and the dialog says so.
	envNote := func(field string, e fyne.Disableable) string {
		if v := f.env[field]; v != "" {
			e.Disable()
			return "Set by " + v + ", which takes precedence."
		}
		return ""
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Provider", f.preset),
		{Text: "Base URL", Widget: f.baseURL, HintText: envNote(FieldBaseURL, f.baseURL)},
		{Text: "API key", Widget: container.NewVBox(f.apiKey, f.forget), HintText: keyNote(envNote(FieldAPIKey, f.apiKey), m.keyHint(), keyErr)},
		{Text: "Default model", Widget: container.NewVBox(f.model, f.hint), HintText: envNote(FieldModel, f.model)},
		widget.NewFormItem("", container.NewVBox(f.test, f.result)),
		m.mcpSettingsItem(),
	}
	f.items = items
	f.dlg = dialog.NewForm("Settings", "Save", "Cancel", items, func(ok bool) {
		if ok {
			f.save()
		}
	}, m.win)
	f.dlg.Resize(fyne.NewSize(620, 500))
	// Escape cancels, from any field or from the window.
	f.baseURL.onEscape, f.apiKey.onEscape, f.model.onEscape = f.dlg.Hide, f.dlg.Hide, f.dlg.Hide
	m.settings = f
	m.showModal(f.dlg)
}

// current is what the dialog holds now; an empty key field keeps the saved key.
func (f *settingsForm) current() Settings {
	s := Settings{Preset: providers.Canonical(f.preset.Selected), BaseURL: strings.TrimSpace(f.baseURL.Text), APIKey: strings.TrimSpace(f.apiKey.Text), Model: strings.TrimSpace(f.model.Text)}
	if s.APIKey == "" && !f.forget.Checked {
		s.APIKey = f.saved.APIKey
	}
	return s
}

func (f *settingsForm) testConnection() {
	if f.testing || f.m.deps.ListModels == nil {
		return
	}
	f.testing = true
	f.test.Disable()
	f.result.SetText("Connecting…")
	s := f.current()
	m := f.m
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, 20*time.Second)
		defer cancel()
		models, err := m.deps.ListModels(ctx, s)
		m.do(func() {
			f.testing = false
			f.test.Enable()
			if err != nil {
				f.result.Importance = widget.DangerImportance
				f.result.SetText(fmt.Sprintf("Connection failed: %v", err))
				return
			}
			slices.Sort(models)
			m.app.Preferences().SetStringList(prefModels, models)
			f.model.SetOptions(m.modelOptions())
			f.result.Importance = widget.SuccessImportance
			f.result.SetText(fmt.Sprintf("Connected: the provider offers %d models.", len(models)))
		})
	}()
}

func (f *settingsForm) save() {
	s := f.current()
	if err := f.m.saveSettings(s); err != nil {
		dialog.ShowError(fmt.Errorf("the settings were not saved: %w", err), f.m.win)
		return
	}
	if f.m.deps.Apply != nil {
		if err := f.m.deps.Apply(s); err != nil {
			dialog.ShowError(fmt.Errorf("the settings were saved but could not be applied: %w", err), f.m.win)
		}
	}
}

// keyNote is the API key field's hint: the environment's precedence, else where the key is
// kept, and why it could not be read.
func keyNote(env, where string, err error) string {
	if env != "" {
		return env
	}
	if err != nil {
		return where + " It could not be read: " + err.Error()
	}
	return where
}

// modelOptions are the models offered in the dialogs: the default, the models the provider
// listed at the last "Test connection", and the offline demo.
func (m *MainWindow) modelOptions() []string {
	opts := []string{}
	if d := m.defaultModel(); d != "" {
		opts = append(opts, d)
	}
	for _, s := range m.app.Preferences().StringList(prefModels) {
		if !slices.Contains(opts, s) {
			opts = append(opts, s)
		}
	}
	if !slices.Contains(opts, domain.DemoModel) {
		opts = append(opts, domain.DemoModel)
	}
	return opts
}

// defaultModel is the model new conversations start with.
func (m *MainWindow) defaultModel() string {
	if m.deps.DefaultModel != nil {
		if d := m.deps.DefaultModel(); d != "" {
			return d
		}
	}
	if s := m.app.Preferences().String(prefModel); s != "" {
		return s
	}
	return domain.DemoModel
}

// modelHint names a model for a person ("Demo (offline)") when its label says more than its
// name.
func (m *MainWindow) modelHint(model string) string {
	model = strings.TrimSpace(model)
	if model == "" {
		return ""
	}
	label := m.b.ModelLabel(model)
	window := fmt.Sprintf("context window %s tokens, replies up to %s", transcript.Tokens(domain.ContextWindowFor(model)), transcript.Tokens(m.b.OutputLimit(model)))
	if label != "" && label != model {
		return label + ", " + window
	}
	return window
}
