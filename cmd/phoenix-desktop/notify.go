package main

import (
	"sync"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/desktopnotify"
)

// desktopNotifier is the window's ui.DesktopNotifier: the desktop's notification service
// over the session bus (desktopnotify), reached on the first notification — not at start,
// which would cost every start a bus connection — and off the UI goroutine, so that a hung
// bus never freezes the window. Where there is no bus or no service, Fyne's notification
// (which has no click) is sent instead.
type desktopNotifier struct {
	app fyne.App

	mu     sync.Mutex
	client *desktopnotify.Client
	err    error
	tried  bool
}

func (d *desktopNotifier) Send(title, body string, onClick func()) (uint32, error) {
	go func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.tried {
			d.tried = true
			d.client, d.err = desktopnotify.Connect("phoenix-desktop")
		}
		err := d.err
		if err == nil {
			_, err = d.client.Send(title, body, onClick)
		}
		if err != nil {
			d.app.SendNotification(fyne.NewNotification(title, body))
		}
	}()
	return 0, nil
}

// Close ends the bus connection, if one was made.
func (d *desktopNotifier) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.client != nil {
		_ = d.client.Close()
	}
}
