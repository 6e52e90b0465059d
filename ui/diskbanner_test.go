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
