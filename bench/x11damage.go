package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// damageWatcher is a connection to an X server that hears a top-level window being mapped
// and then, through the DAMAGE extension, every part of that window being drawn: the time a
// window's frame reached the screen, seen from outside the app (Fyne has no after-paint hook,
// and the release binary holds no test code). Fyne draws a whole frame at a time, so a burst
// of damage is a frame; a window at rest draws none (the composer's cursor does not blink,
// ui/quietcursor.go).
//
// Its API: watchDamage(display) connects; nextWindow(limit) waits for the next top-level
// window mapped and starts hearing its damage; settle(quiet, limit) waits until that window
// has drawn nothing for quiet and says when it last drew and how many frames it drew; Close.
// Like x11map.go it speaks the few bytes of the protocol it needs, so the bench needs no X
// library.
type damageWatcher struct {
	conn                 net.Conn
	idBase               uint32
	damageOp, damageEvOp byte
	maps                 chan mappedWindow
	damages              chan time.Time
	errs                 chan error
	window               uint32
}

// mappedWindow is a top-level window the server mapped, and when.
type mappedWindow struct {
	id uint32
	at time.Time
}

// X11 protocol numbers beyond x11map.go's (X11 protocol; the DAMAGE extension, version 1.1).
const (
	x11QueryExtension       = 98
	damageQueryVersion      = 0
	damageCreate            = 1
	damageReportRawRects    = 0
	damageNotifyEventOffset = 0
)

// watchDamage connects to display (":N", a local server without authorisation, as the
// bench's Xvfb is), makes sure it has the DAMAGE extension, and starts hearing top-level
// windows being mapped.
func watchDamage(display string) (*damageWatcher, error) {
	c, err := dialX11(display)
	if err != nil {
		return nil, err
	}
	w := &damageWatcher{conn: c, idBase: c.idBase, maps: make(chan mappedWindow, 16), damages: make(chan time.Time, 1<<16), errs: make(chan error, 1)}
	if err := w.queryDamage(); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.hearMaps(); err != nil {
		c.Close()
		return nil, err
	}
	go w.read()
	return w, nil
}

// queryDamage finds the DAMAGE extension's numbers and announces the version this client
// speaks, which the extension requires before any other request.
func (w *damageWatcher) queryDamage() error {
	le := binary.LittleEndian
	name := "DAMAGE"
	req := make([]byte, 8+(len(name)+3)/4*4)
	req[0] = x11QueryExtension
	le.PutUint16(req[2:], uint16(len(req)/4))
	le.PutUint16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	reply, err := w.roundTrip(req)
	if err != nil {
		return fmt.Errorf("ask the X server for the DAMAGE extension: %w", err)
	}
	if reply[8] == 0 {
		return errors.New("the X server has no DAMAGE extension, which tells when a window drew (Xvfb has it)")
	}
	w.damageOp, w.damageEvOp = reply[9], reply[10]+damageNotifyEventOffset
	req = make([]byte, 12)
	req[0], req[1] = w.damageOp, damageQueryVersion
	le.PutUint16(req[2:], 3)
	le.PutUint32(req[4:], 1)
	le.PutUint32(req[8:], 1)
	if _, err := w.roundTrip(req); err != nil {
		return fmt.Errorf("agree on the DAMAGE extension's version: %w", err)
	}
	return nil
}

// roundTrip sends a request and reads its 32-byte reply, before any event is selected.
func (w *damageWatcher) roundTrip(req []byte) ([]byte, error) {
	if _, err := w.conn.Write(req); err != nil {
		return nil, err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(w.conn, reply); err != nil {
		return nil, err
	}
	if reply[0] == 0 {
		return nil, fmt.Errorf("the X server answered with error %d", reply[1])
	}
	if extra := binary.LittleEndian.Uint32(reply[4:]); extra > 0 {
		if _, err := io.ReadFull(w.conn, make([]byte, 4*int(extra))); err != nil {
			return nil, err
		}
	}
	return reply, nil
}

// read turns the server's events into map and damage times; an error (code 0) or a closed
// connection ends it. Damage is recorded, never waited for: a full channel drops the
// newest, which cannot happen in the bench's few seconds of frames.
func (w *damageWatcher) read() {
	ev := make([]byte, 32)
	le := binary.LittleEndian
	for {
		if _, err := io.ReadFull(w.conn, ev); err != nil {
			w.errs <- err
			return
		}
		switch code := ev[0] & 0x7f; {
		case code == 0:
			w.errs <- fmt.Errorf("the X server answered with error %d", ev[1])
			return
		case code == x11MapNotify:
			select {
			case w.maps <- mappedWindow{id: le.Uint32(ev[8:]), at: time.Now()}:
			default:
			}
		case code == w.damageEvOp:
			select {
			case w.damages <- time.Now():
			default:
			}
		}
	}
}

// nextWindow waits up to limit for the next top-level window mapped, and starts hearing its
// damage (what it draws before the server has the request is not heard: the map itself is
// the earlier mark). It returns when the window was mapped.
func (w *damageWatcher) nextWindow(limit time.Duration) (time.Time, error) {
	for {
		select {
		case <-w.damages:
			continue
		default:
		}
		break
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	var m mappedWindow
	select {
	case m = <-w.maps:
	case err := <-w.errs:
		return time.Time{}, fmt.Errorf("the X connection ended: %w", err)
	case <-t.C:
		return time.Time{}, fmt.Errorf("no window was mapped within %s", limit)
	}
	le := binary.LittleEndian
	w.window++
	req := make([]byte, 16)
	req[0], req[1] = w.damageOp, damageCreate
	le.PutUint16(req[2:], 4)
	le.PutUint32(req[4:], w.idBase|w.window)
	le.PutUint32(req[8:], m.id)
	req[12] = damageReportRawRects
	if _, err := w.conn.Write(req); err != nil {
		return time.Time{}, fmt.Errorf("ask the X server for the window's damage: %w", err)
	}
	return m.at, nil
}

// settle waits until the window has drawn nothing for quiet (at most limit in all) and
// returns when it last drew, and how many frames it drew (bursts of damage apart by more
// than a frame at 30 Hz). Nothing drawn within limit is an error: the window was never seen
// to draw.
func (w *damageWatcher) settle(quiet, limit time.Duration) (last time.Time, frames int, err error) {
	end := time.NewTimer(limit)
	defer end.Stop()
	for {
		q := time.NewTimer(quiet)
		select {
		case at := <-w.damages:
			q.Stop()
			if last.IsZero() || at.Sub(last) > time.Second/30 {
				frames++
			}
			last = at
		case <-q.C:
			if last.IsZero() {
				// Not drawn yet (a loaded machine): rest starts after a frame.
				continue
			}
			return last, frames, nil
		case err := <-w.errs:
			q.Stop()
			return last, frames, fmt.Errorf("the X connection ended: %w", err)
		case <-end.C:
			q.Stop()
			if last.IsZero() {
				return last, 0, fmt.Errorf("the window drew nothing within %s of its map", limit)
			}
			return last, frames, fmt.Errorf("the window did not come to rest within %s", limit)
		}
	}
}

func (w *damageWatcher) Close() error { return w.conn.Close() }
