package ui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
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
	s := Settings{Preset: providers.Canonical(p.String(prefPreset)), BaseURL: p.String(prefBaseURL),
		APIKey: p.String(prefAPIKey), Model: p.String(prefModel)}
	loadModelChoices(p, &s)
	return s
}

// SaveSettings writes the settings to the app's preferences. An empty key is removed from
// the file rather than written as "" (see keys.go for where the key is kept).
func SaveSettings(p fyne.Preferences, s Settings) {
	saveSettingsButKey(p, s)
	if s.APIKey == "" {
		p.RemoveValue(prefAPIKey)
	} else {
		p.SetString(prefAPIKey, s.APIKey)
	}
}

// saveSettingsButKey writes every setting but the key, which the window saves through its
// key store and only as the person asked (keyChange): a Save never removes a key it did not
// read.
func saveSettingsButKey(p fyne.Preferences, s Settings) {
	p.SetString(prefPreset, s.Preset)
	p.SetString(prefBaseURL, s.BaseURL)
	p.SetString(prefModel, s.Model)
	saveModelChoices(p, s)
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
	// choices are the default model's reply limit and reasoning effort (settingsmodel.go).
	choices *modelChoices
	// hints are the items' hints by the items' texts, as wrapping labels (settingslayout.go).
	hints   map[string]*widget.Label
	test    *button.Button
	result  *widget.Label
	dlg     *scrollingForm
	items   []*widget.FormItem
	testing bool
	// keyState says the key is being read, or why it could not be; keyKnown is set when the
	// answer came (keyErr then says whether the read failed). Save is disabled until then.
	keyField *keyField
	keyState *widget.Label
	keyKnown bool
	keyErr   error
}

// errReadingKey keeps Save disabled while the saved key is being read.
var errReadingKey = errors.New("reading the saved key")

// keyField is the API key's row: the field, the saved key's state and Forget. The form asks
// it whether it is valid, so Save stays disabled until the saved key's state is known.
type keyField struct {
	widget.BaseWidget
	f         *settingsForm
	box       *fyne.Container
	onChanged func(error)
}

func (f *settingsForm) newKeyField() *keyField {
	k := &keyField{f: f, box: container.NewVBox(f.apiKey, f.keyState, f.forget)}
	k.ExtendBaseWidget(k)
	f.keyField = k
	return k
}

func (k *keyField) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(k.box) }

// Validate implements fyne.Validatable.
func (k *keyField) Validate() error {
	if !k.f.keyKnown {
		return errReadingKey
	}
	return nil
}

// SetOnValidationChanged implements fyne.Validatable.
func (k *keyField) SetOnValidationChanged(changed func(error)) { k.onChanged = changed }

// showSettings opens the Settings dialog.
func (m *MainWindow) showSettings() {
	f := &settingsForm{m: m, saved: LoadSettings(m.app.Preferences()), env: map[string]string{}}
	f.saved.APIKey = "" // read from the key store below, off the UI goroutine
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
	f.forget = widget.NewCheck("Forget the saved key (Save deletes it; this cannot be undone)", nil)
	f.keyState = widget.NewLabel("Reading the key…")
	f.keyState.Wrapping = fyne.TextWrapWord
	f.showKeyState()
	f.model = newEscSelectEntry(m.modelOptions())
	f.model.SetText(f.saved.Model)
	f.model.SetPlaceHolder("Model name, e.g. gpt-4o")
	f.hint = hintLabel("")
	f.choices = newModelChoices(f.saved)
	f.model.OnChanged = func(s string) {
		setHint(f.hint, m.modelHint(s))
		f.choices.show(s)
	}
	setHint(f.hint, m.modelHint(f.saved.Model))
	f.result = widget.NewLabel("")
	f.result.Wrapping = fyne.TextWrapWord
	f.test = button.New("Test connection", f.testConnection)
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
		{Text: "API key", Widget: f.newKeyField(), HintText: keyNote(envNote(FieldAPIKey, f.apiKey), m.keyHint())},
		{Text: "Default model", Widget: container.NewVBox(f.model, f.hint, f.choices.box), HintText: envNote(FieldModel, f.model)},
		widget.NewFormItem("", container.NewVBox(f.test, f.result)),
		m.mcpSettingsItem(),
		m.hooksSettingsItem(),
		m.hostSettingsItem(),
		m.remoteHostsSettingsItem(),
		m.hiddenPathsSettingsItem(),
		m.notificationsSettingsItem(),
	}
	if spent := m.spentTodayItem(); spent != nil {
		items = append(items, spent)
	}
	f.items = items
	f.hints = wrapHints(items)
	f.dlg = newScrollingForm("Settings", "Save", items, f.save, m.win)
	f.dlg.check = f.choices.check
	f.dlg.Resize(m.fitDialog(settingsSize))
	// Escape cancels, from any field or from the window.
	escape := func() { m.dismiss(f.dlg) }
	f.baseURL.onEscape, f.apiKey.onEscape, f.model.onEscape = escape, escape, escape
	m.settings = f
	initial, _ := f.currentKey()
	initial.APIKey = ""
	m.showModal(f.dlg)
	m.guardModal(f.dlg, "the settings", func() bool {
		now, key := f.currentKey()
		now.APIKey = ""
		return key != keyKeep || !reflect.DeepEqual(now, initial)
	})
	f.readKey()
}

// readKey asks the key store for the saved key off the UI goroutine (a locked keyring's
// prompt or a hung bus must not freeze the window) and shows the answer when it comes.
func (f *settingsForm) readKey() {
	m, keys := f.m, f.m.keys()
	go func() {
		key, err := ReadAPIKey(keys)
		m.do(func() {
			f.keyKnown, f.keyErr = true, err
			if err == nil {
				f.saved.APIKey = key
			}
			f.showKeyState()
			if f.keyField.onChanged != nil {
				f.keyField.onChanged(nil) // enables Save
			}
		})
	}()
}

// showKeyState shows what the dialog knows of the saved key: still reading, why it could not
// be read and what to do, or whether one is saved.
func (f *settingsForm) showKeyState() {
	env := f.env[FieldAPIKey]
	switch {
	case !f.keyKnown:
		f.apiKey.SetPlaceHolder("Reading the key…")
		f.keyState.Importance = widget.LowImportance
		f.keyState.SetText("Reading the key…")
	case f.keyErr != nil:
		f.apiKey.SetPlaceHolder("The saved key could not be read: leave empty to keep it")
		f.keyState.Importance = widget.DangerImportance
		f.keyState.SetText(fmt.Sprintf("The saved key could not be read: %v. Unlock the keyring (your desktop's "+
			"password manager asks for its password), then open Settings again. Saving now keeps the saved key as it is.", f.keyErr))
	case f.saved.APIKey != "":
		f.apiKey.SetPlaceHolder("Saved key " + providers.MaskKey(f.saved.APIKey) + ": leave empty to keep it")
		f.keyState.SetText("")
	default:
		f.apiKey.SetPlaceHolder("No key: new conversations use the " + domain.DemoModelLabel + " model")
		f.keyState.SetText("")
	}
	f.keyState.Hidden = f.keyState.Text == ""
	if env != "" {
		f.apiKey.SetPlaceHolder("The key in " + env + " is used")
	}
	// Forget is offered whenever a key may be saved: also when it could not be read.
	f.forget.Hidden = !f.keyKnown || (f.saved.APIKey == "" && f.keyErr == nil) || env != ""
	f.keyState.Refresh()
	f.forget.Refresh()
}

// current is what the dialog holds now; an empty key field keeps the saved key.
func (f *settingsForm) current() Settings {
	s, _ := f.currentKey()
	return s
}

// currentKey is what the dialog holds now and what Save does with the stored key: a typed key
// is stored, the explicit Forget deletes it, and anything else leaves it exactly as it is.
func (f *settingsForm) currentKey() (Settings, keyChange) {
	s := Settings{Preset: providers.Canonical(f.preset.Selected), BaseURL: strings.TrimSpace(f.baseURL.Text), APIKey: strings.TrimSpace(f.apiKey.Text), Model: strings.TrimSpace(f.model.Text)}
	f.choices.apply(&s)
	switch {
	case s.APIKey != "":
		return s, keySet
	case f.forget.Checked && !f.forget.Hidden:
		return s, keyForget
	default:
		s.APIKey = f.saved.APIKey
		return s, keyKeep
	}
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
				f.revealResult()
				return
			}
			slices.Sort(models)
			m.app.Preferences().SetStringList(prefModels, models)
			f.model.SetOptions(m.modelOptions())
			f.result.Importance = widget.SuccessImportance
			f.result.SetText(fmt.Sprintf("Connected: the provider offers %d models.", len(models)))
			f.revealResult()
		})
	}()
}

// revealResult brings Test connection's message into view whole once the form has laid out
// its new height (it was cut at the dialog's bottom, issue 41).
func (f *settingsForm) revealResult() {
	f.m.do(func() {
		if f.dlg != nil {
			f.dlg.reveal(f.result)
		}
	})
}

// save writes the settings off the UI goroutine (the key store may be slow to answer) and
// applies them when they are written.
func (f *settingsForm) save() {
	s, change := f.currentKey()
	m, keyErr := f.m, f.keyErr
	go func() {
		if err := m.saveSettings(s, change); err != nil {
			m.do(func() { m.showError(fmt.Errorf("the settings were not saved: %w", err)) })
			return
		}
		if change == keyKeep && keyErr != nil {
			// The key in use is not known: applying would start the model without it.
			m.do(func() {
				m.showError(fmt.Errorf("the settings were saved and the saved key was kept, but it could not be read (%v), so the settings apply at the next start; unlock the keyring and open Settings again to apply them now", keyErr))
			})
			return
		}
		if m.deps.Apply == nil {
			return
		}
		m.do(func() {
			if err := m.deps.Apply(s); err != nil {
				m.showError(fmt.Errorf("the settings were saved but could not be applied: %w", err))
			}
		})
	}()
}

// keyNote is the API key field's hint: the environment's precedence, else where the key is
// kept (why it could not be read is shown under the field).
func keyNote(env, where string) string {
	if env != "" {
		return env
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
