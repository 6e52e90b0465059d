package ui

import (
	"errors"
	"fmt"
	"testing"

	"fyne.io/fyne/v2/test"
)

// fullDisk stands for the store's DiskFullError (ui reaches the store only through actors).
type fullDisk struct{}

func (fullDisk) Error() string { return "full: details" }
func (fullDisk) Banner() string {
	return "The disk holding your conversations is full: free 300 MB; nothing was lost"
}

func TestDiskBannerShowsTheStoreWordsAndHides(t *testing.T) {
	test.NewTempApp(t)
	d := newDiskBanner()
	if d.box.Visible() {
		t.Fatal("the banner shows without a full disk")
	}
	d.set(fmt.Errorf("save: %w", fullDisk{}))
	if !d.box.Visible() {
		t.Fatal("the banner is hidden on a full disk")
	}
	if want := (fullDisk{}).Banner(); d.label.Text[:len(want)] != want {
		t.Fatalf("banner = %q, want it to start with %q", d.label.Text, want)
	}
	d.set(nil)
	if d.box.Visible() {
		t.Fatal("the banner stays once the disk has room")
	}
	d.set(errors.New("something else"))
	if d.box.Visible() {
		t.Fatal("the banner shows for an error that is not a full disk")
	}
}

// A refused save says the banner's short words, not the chain of what was being saved (seen
// in the real window: "save the queue of ID: save queue of conversation ID: …").
func TestFailureTextOnAFullDiskIsShort(t *testing.T) {
	err := fmt.Errorf("save the queue of c1: save queue of conversation c1: %w", fullDisk{})
	want := "Could not queue the message: " + (fullDisk{}).Banner() + "."
	if got := failureText("queue the message", err); got != want {
		t.Fatalf("failureText = %q, want %q", got, want)
	}
	if got := failureText("open a.txt", errors.New("no such file.")); got != "Could not open a.txt: no such file." {
		t.Fatalf("failureText of another error = %q", got)
	}
}
