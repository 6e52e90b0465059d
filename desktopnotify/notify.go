package desktopnotify

import (
	"errors"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The notification service's names (the Desktop Notifications Specification).
const (
	Service   = "org.freedesktop.Notifications"
	Path      = dbus.ObjectPath("/org/freedesktop/Notifications")
	Interface = "org.freedesktop.Notifications"
	// DefaultAction is the action a click on the notification's body invokes.
	DefaultAction = "default"
)

// Client sends notifications on one private connection to the session bus and runs the
// click of each when the service says it was invoked. Safe for concurrent use.
type Client struct {
	conn    *dbus.Conn
	appName string
	signals chan *dbus.Signal
	done    chan struct{}

	mu     sync.Mutex
	clicks map[uint32]func()
}

// Connect opens a connection to the session bus for notifications sent as appName. It fails
// when there is no session bus; whether a notification service runs is known at the first
// Send.
func Connect(appName string) (*Client, error) {
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		return nil, fmt.Errorf("desktop notifications: no session bus: %w", err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("desktop notifications: the session bus refused the app: %w", err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("desktop notifications: the session bus did not answer: %w", err)
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(Path), dbus.WithMatchInterface(Interface), dbus.WithMatchMember(member)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("desktop notifications: listen for clicks: %w", err)
		}
	}
	c := &Client{conn: conn, appName: appName, signals: make(chan *dbus.Signal, 16), done: make(chan struct{}), clicks: map[uint32]func(){}}
	conn.Signal(c.signals)
	go c.listen()
	return c, nil
}

// listen runs the click of a notification invoked by its default action, and forgets a
// closed one; it ends when the connection closes.
func (c *Client) listen() {
	defer close(c.done)
	for s := range c.signals {
		if s.Path != Path || len(s.Body) < 2 {
			continue
		}
		id, ok := s.Body[0].(uint32)
		if !ok {
			continue
		}
		switch s.Name {
		case Interface + ".ActionInvoked":
			if action, _ := s.Body[1].(string); action == DefaultAction {
				if click := c.take(id); click != nil {
					click()
				}
			}
		case Interface + ".NotificationClosed":
			c.take(id)
		}
	}
}

func (c *Client) take(id uint32) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	click := c.clicks[id]
	delete(c.clicks, id)
	return click
}

// Send shows a notification; onClick, when given, runs (on the client's goroutine) when the
// person clicks it. It returns the service's id of the notification.
func (c *Client) Send(title, body string, onClick func()) (uint32, error) {
	var actions []string
	if onClick != nil {
		actions = []string{DefaultAction, "Open"}
	}
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant(c.appName)}
	// Held across the call: a click's signal can only come after the reply, but the click
	// must find its function then.
	c.mu.Lock()
	defer c.mu.Unlock()
	var id uint32
	err := c.conn.Object(Service, Path).Call(Interface+".Notify", 0,
		c.appName, uint32(0), "", title, body, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		var dbusErr dbus.Error
		if errors.As(err, &dbusErr) && dbusErr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
			return 0, fmt.Errorf("desktop notifications: no notification service runs on the session bus: %w", err)
		}
		return 0, fmt.Errorf("desktop notifications: %w", err)
	}
	if onClick != nil {
		c.clicks[id] = onClick
	}
	return id, nil
}

// Close ends the connection and waits for the listener.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}
