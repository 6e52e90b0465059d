package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/ui/clipboard"
)

// Backend is the part of the actor runtime's command API the window uses. *actors.Runtime
// satisfies it; tests use a fake. Every method except Sandbox, ModelLabel and OutputLimit, which
// must return at once, may block on the store, so the window calls them off the UI goroutine.
type Backend interface {
	Create(ctx context.Context, p NewConversation) (domain.Conversation, error)
	List(ctx context.Context, includeArchived bool) ([]Summary, error)
	Snapshot(ctx context.Context, id string) (Snapshot, error)
	Send(ctx context.Context, id, text string, images []Attachment) error
	Cancel(ctx context.Context, id string) error
	// DecideUpgrade answers request_mode_upgrade with the mode granted (domain.ModeProject,
	// domain.ModeUnrestricted) or actors.DenyUpgrade.
	DecideUpgrade(ctx context.Context, id string, exec domain.ExecID, grant domain.Mode) error
	// Downgrade switches to a lower mode at once.
	Downgrade(ctx context.Context, id string, to domain.Mode) error
	// AnswerHost answers a host card (actors.HostApprovalRequested); it returns at once.
	AnswerHost(requestID string, d actors.HostDecision) error
	WrapUp(ctx context.Context, id string) error
	// Retry sends again the message of a turn the app stopped in (actors.Runtime.Retry).
	Retry(ctx context.Context, id string) error
	ContinueInNew(ctx context.Context, id string) (domain.Conversation, string, error)
	SetArchived(ctx context.Context, id string, archived bool) error
	// Delete removes a conversation for good (stopping it first); ConversationDeleted follows.
	Delete(ctx context.Context, id string) error
	// Search finds messages in every conversation.
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
	Blob(sha256 string) ([]byte, error)
	Sandbox() SandboxStatus
	ModelLabel(model string) string
	// OutputLimit is the most tokens one reply of the model may have (returns at once).
	OutputLimit(model string) int
}

// EventSource is the event stream the window follows (REQ-BED-011). *actors.Subscription
// satisfies it: pass runtime.Subscribe() to NewMainWindow.
type EventSource interface {
	Events() <-chan actors.Event
	Close()
}

// Settings is the provider configuration the Settings dialog edits. It is saved in the app's
// preferences (SaveSettings) and handed to Deps.Apply.
type Settings struct {
	// Preset names a provider of providers.All, or providers.Custom.
	Preset  string
	BaseURL string
	APIKey  string
	// Model is the default model of new conversations.
	Model string
	// OutputLimits are the person's reply limits (max tokens) by model name, and
	// ReasoningEfforts the reasoning effort of thinking models (one of
	// domain.ReasoningEfforts) by model name (settingsmodel.go). Nil leaves the saved ones.
	OutputLimits     map[string]int
	ReasoningEfforts map[string]string
}

// Names of Settings fields, the keys of Deps.EnvOverrides.
const (
	FieldBaseURL = string(providers.FieldBaseURL)
	FieldAPIKey  = string(providers.FieldAPIKey)
	FieldModel   = string(providers.FieldModel)
)

// Deps are the services cmd/phoenix-desktop wires in beside the backend. Every field is
// optional; a nil one disables what needs it or takes the stated default.
type Deps struct {
	// ListModels asks the provider described by s for its models: "Test connection".
	ListModels func(ctx context.Context, s Settings) ([]string, error)
	// Probe sends one small real request to the provider s describes and says what answered
	// (llm.Client.Probe): the welcome card's "Test connection". Nil disables the button.
	Probe func(ctx context.Context, s Settings) (string, error)
	// FirstRun is set when no provider is configured (no key, base URL or provider in the
	// settings, the key store, the environment or a flag): the window opens on the welcome
	// card (welcome.go) instead of "No conversation is open".
	FirstRun bool
	// Apply makes saved settings take effect for the next requests.
	Apply func(s Settings) error
	// EnvOverrides maps the Settings fields that the environment or a flag sets to the name of
	// that variable or flag, so the dialog can say that it wins.
	EnvOverrides func() map[string]string
	// DefaultModel is the model new conversations start with when the person has not chosen
	// one; nil uses the saved setting, then the demo model.
	DefaultModel func() string
	// Now is the clock; nil means time.Now. Tests fix it so that images are reproducible.
	Now func() time.Time
	// Do runs a function on the UI goroutine without waiting; nil means fyne.Do. Tests pass a
	// queue that they drain on the test goroutine, which keeps the race detector quiet.
	Do func(func())
	// MCP edits the MCP servers and shows their states (Settings → MCP servers…); nil when
	// MCP is off (--no-mcp).
	MCP MCPServers
	// Notify shows a desktop notification; nil means App.SendNotification. The window calls it
	// only while none of the app's windows has the focus.
	Notify func(n *fyne.Notification)
	// Desktop sends the notifications through the desktop's notification service, whose
	// click opens the conversation (attention.go); nil, or a failed send, uses Notify.
	Desktop DesktopNotifier
	// Keys keeps the API key out of the preferences file; nil keeps it there.
	Keys KeyStore
	// StartDir is the directory the app was started in from a terminal: the working
	// directory New conversation offers, before the last one used. Empty when the app was
	// started from the desktop (where the current directory means nothing to the person).
	StartDir string
	// SettingsSpace refuses to save the settings while the disk holding them is short
	// (persistence.CheckSpace's error), so that nothing is half-written; nil does not check.
	SettingsSpace func() error
	// Hosts shows and edits the hosts each project allows in Project mode (Settings →
	// Allowed hosts…); nil when there is none. Hosts that also have HostRulesAvailable() (the
	// runtime, whose proxy starts on first use) are asked it when Settings shows them.
	Hosts HostRules
	// RegistrySources says, a line a toolchain, what the "package registries" switch reads
	// (proxy.RegistrySources), shown under the switch.
	RegistrySources []string
	// LanguageServers lists a conversation's language servers and their states for the
	// mode badge's details (*actors.Runtime.LanguageServers); nil shows none.
	LanguageServers func(convID string) []actors.LanguageServer
	// Clipboard reads images and copied file lists for the composer's paste (paste.go); nil
	// reads the desktop's clipboard through xclip or wl-paste.
	Clipboard clipboard.Reader
	// Window is the window to build in, made by the caller while it opened the backend;
	// nil makes one.
	Window fyne.Window
	// AfterShow runs on the UI goroutine once Run's window is on the screen: start-up work
	// the first frame does not need (issue 36). Nil runs nothing.
	AfterShow func()
}

// HostRules is the allowed hosts per project, as *actors.Runtime offers them (HostRules
// there). AllowedHosts and Registries read the list the proxy keeps in memory (the mode
// badge's details call AllowedHosts as they are drawn); RemoveHost and SetRegistries save
// the file, so the window calls them off the UI goroutine.
type HostRules interface {
	AllowedHosts(project string) []string
	AddHost(project, pattern string) error
	RemoveHost(project, pattern string) error
	Registries(project string) bool
	SetRegistries(project string, on bool) error
}
