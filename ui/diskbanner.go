package ui

import (
	"errors"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The full-disk banner. The store refuses writes while the disk holding the data is short of
// room and takes them again by itself when there is room (persistence/space.go); the window
// says so above everything else, in the store's own words, and hides the banner once writing
// works again. Reading, searching and exporting go on meanwhile.

// diskSpacer is what the banner asks; the runtime implements it (actors.Runtime.DiskSpace).
// A backend without it never shows the banner.
type diskSpacer interface{ DiskSpace() error }

// diskPoll is how often the banner asks for the free space (a statfs: nothing to measure).
const diskPoll = 2 * time.Second

type diskBanner struct {
	label *widget.Label
	box   *fyne.Container
}

func newDiskBanner() *diskBanner {
	d := &diskBanner{label: widget.NewLabel("")}
	d.label.Wrapping = fyne.TextWrapWord
	d.label.Importance = widget.DangerImportance
	d.box = container.NewBorder(nil, nil, widget.NewIcon(theme.ErrorIcon()), nil, d.label)
	d.box.Hide()
	return d
}

// set shows the banner for a full disk (err matching the store's ErrDiskFull, whose Banner
// says how much to free) and hides it otherwise.
func (d *diskBanner) set(err error) {
	var full interface{ Banner() string }
	if err == nil || !errors.As(err, &full) {
		d.box.Hide()
		return
	}
	d.label.SetText(full.Banner() + ". Reading, searching and exporting still work; saving resumes by itself once there is room.")
	d.box.Show()
}

// watchDisk asks the backend for room now and every diskPoll until the window closes.
func (m *MainWindow) watchDisk() {
	ds, ok := m.b.(diskSpacer)
	if !ok {
		return
	}
	t := time.NewTicker(diskPoll)
	defer t.Stop()
	for {
		err := ds.DiskSpace()
		m.do(func() {
			if !m.closed {
				m.disk.set(err)
			}
		})
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		}
	}
}
