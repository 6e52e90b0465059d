package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// mapWatcher is a connection to an X server that hears every top-level window being mapped
// (the moment a window is put on the screen), for the "exec → window mapped" rows. It speaks
// the few bytes of the X11 protocol that takes (set-up, one ChangeWindowAttributes, events),
// so the bench needs no X library and no polling with xdotool, whose own start would be most
// of what it measures.
type mapWatcher struct {
	conn net.Conn
	maps chan time.Time
	errs chan error
}

// X11 protocol numbers (X Window System Protocol, version 11).
const (
	x11ChangeWindowAttributes = 2
	x11CWEventMask            = 1 << 11
	x11SubstructureNotifyMask = 1 << 19
	x11MapNotify              = 19
)

// x11Conn is a connection to a local X server without authorisation (the bench's Xvfb),
// greeted: its first screen's root window and the base of the ids this client may give
// its own resources.
type x11Conn struct {
	net.Conn
	root, idBase uint32
}

// dialX11 connects to display (":N") and greets the server.
func dialX11(display string) (*x11Conn, error) {
	num := strings.TrimPrefix(display, ":")
	if i := strings.IndexByte(num, '.'); i >= 0 {
		num = num[:i]
	}
	conn, err := net.Dial("unix", "/tmp/.X11-unix/X"+num)
	if err != nil {
		return nil, fmt.Errorf("connect to the X server %s: %w", display, err)
	}
	c := &x11Conn{Conn: conn}
	if err := c.greet(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *x11Conn) greet() error {
	le := binary.LittleEndian
	hello := make([]byte, 12)
	hello[0] = 'l' // little-endian
	le.PutUint16(hello[2:], 11)
	if _, err := c.Write(hello); err != nil {
		return fmt.Errorf("greet the X server: %w", err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return fmt.Errorf("read the X server's answer: %w", err)
	}
	body := make([]byte, 4*int(le.Uint16(head[6:])))
	if _, err := io.ReadFull(c, body); err != nil {
		return fmt.Errorf("read the X server's answer: %w", err)
	}
	if head[0] != 1 {
		return errors.New("the X server refused the connection (it asks for authorisation)")
	}
	c.idBase = le.Uint32(body[4:])
	vendor := int(le.Uint16(body[16:]))
	formats := int(body[21])
	screen := 32 + (vendor+3)/4*4 + 8*formats
	if len(body) < screen+4 {
		return errors.New("the X server's answer is too short to name a screen")
	}
	c.root = le.Uint32(body[screen:])
	return nil
}

// hearMaps asks the server for the root window's substructure events (MapNotify among them).
func (c *x11Conn) hearMaps() error {
	le := binary.LittleEndian
	req := make([]byte, 16)
	req[0] = x11ChangeWindowAttributes
	le.PutUint16(req[2:], 4)
	le.PutUint32(req[4:], c.root)
	le.PutUint32(req[8:], x11CWEventMask)
	le.PutUint32(req[12:], x11SubstructureNotifyMask)
	if _, err := c.Write(req); err != nil {
		return fmt.Errorf("ask the X server for map events: %w", err)
	}
	return nil
}

// watchMaps connects to display (":N", a local server without authorisation, as the bench's
// Xvfb is) and starts hearing MapNotify events of the root window's children.
func watchMaps(display string) (*mapWatcher, error) {
	c, err := dialX11(display)
	if err != nil {
		return nil, err
	}
	if err := c.hearMaps(); err != nil {
		c.Close()
		return nil, err
	}
	w := &mapWatcher{conn: c, maps: make(chan time.Time, 64), errs: make(chan error, 1)}
	go w.read()
	return w, nil
}

// read turns the server's events into map times; an error (code 0) or a closed connection
// ends it.
func (w *mapWatcher) read() {
	ev := make([]byte, 32)
	for {
		if _, err := io.ReadFull(w.conn, ev); err != nil {
			w.errs <- err
			return
		}
		switch ev[0] & 0x7f {
		case 0:
			w.errs <- fmt.Errorf("the X server answered with error %d", ev[1])
			return
		case x11MapNotify:
			select {
			case w.maps <- time.Now():
			default:
			}
		}
	}
}

// drain forgets maps heard so far.
func (w *mapWatcher) drain() {
	for {
		select {
		case <-w.maps:
		default:
			return
		}
	}
}

// next waits for the next window mapped, up to limit.
func (w *mapWatcher) next(limit time.Duration) (time.Time, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case at := <-w.maps:
		return at, nil
	case err := <-w.errs:
		return time.Time{}, fmt.Errorf("the X connection ended: %w", err)
	case <-t.C:
		return time.Time{}, fmt.Errorf("no window was mapped within %s", limit)
	}
}

func (w *mapWatcher) Close() error { return w.conn.Close() }
