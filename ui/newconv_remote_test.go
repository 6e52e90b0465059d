package ui

import "testing"

// TestNewConversationAcceptsAProjectOnAnotherMachine: the working directory field takes
// user@host:/path (checked when the first tool runs there), refuses a relative remote folder,
// and still checks a local folder here.
func TestNewConversationAcceptsAProjectOnAnotherMachine(t *testing.T) {
	if err := validPlace("me@box:/srv/project"); err != nil {
		t.Errorf("a remote project: %v", err)
	}
	if err := validPlace("me@box:project"); err == nil {
		t.Error("a relative remote folder was accepted")
	}
	if err := validPlace(t.TempDir()); err != nil {
		t.Errorf("a local folder: %v", err)
	}
	if err := validPlace("/no/such/folder/here"); err == nil {
		t.Error("a missing local folder was accepted")
	}
}
