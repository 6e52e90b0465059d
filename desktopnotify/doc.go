// Package desktopnotify sends desktop notifications through the freedesktop notification
// service (org.freedesktop.Notifications on the session D-Bus) and says when the person
// clicks one: the window's notifications when a turn ends or an approval waits while the
// window is not focused (issue 34), whose click opens the conversation. Fyne's own
// notifications have no click.
//
// # What it may import
//
// godbus and the standard library only.
package desktopnotify
