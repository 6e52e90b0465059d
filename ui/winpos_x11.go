//go:build linux && cgo && !wayland

package ui

/*
#cgo LDFLAGS: -lX11 -lXrandr
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/extensions/Xrandr.h>

// Errors (a window already destroyed) must not reach Xlib's default handler, which exits the
// process. The handler is installed only around our own calls and the previous one restored,
// so the toolkit's handlers are left as they were; all calls run on the UI thread.
static int phoenix_x_failed;
static int phoenix_ignore(Display *d, XErrorEvent *e) { phoenix_x_failed = 1; return 0; }

// phoenix_frame_pos reads the position of the window's top-level frame: the ancestor that is
// a child of the root (the window manager's frame, or the window itself without one).
static int phoenix_frame_pos(unsigned long win, int *x, int *y) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	phoenix_x_failed = 0;
	Window w = (Window)win, root = 0, parent = 0, *kids = NULL;
	unsigned int n = 0;
	int ok = 0;
	for (int depth = 0; depth < 16; depth++) {
		if (!XQueryTree(d, w, &root, &parent, &kids, &n)) break;
		if (kids) { XFree(kids); kids = NULL; }
		if (parent == root || parent == 0) { ok = 1; break; }
		w = parent;
	}
	if (ok) {
		XWindowAttributes a;
		ok = XGetWindowAttributes(d, w, &a) && !phoenix_x_failed;
		if (ok) { *x = a.x; *y = a.y; }
	}
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
	return ok && !phoenix_x_failed;
}

// phoenix_move asks for the window at x, y: with a window manager, the usual north-west
// gravity places the frame's corner there, which is what phoenix_frame_pos read.
static void phoenix_move(unsigned long win, int x, int y) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	XMoveWindow(d, (Window)win, x, y);
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
}
// phoenix_screen reads the monitor a window at x, y opens on (x < 0: the primary monitor,
// else the first) through XRandR, or the whole screen without it: its size in pixels and its
// width in millimetres (0 when unknown).
static int phoenix_screen(int x, int y, int *w, int *h, int *mm) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	phoenix_x_failed = 0;
	int scr = DefaultScreen(d), ev, er, n = 0, found = 0;
	*w = DisplayWidth(d, scr); *h = DisplayHeight(d, scr); *mm = DisplayWidthMM(d, scr);
	if (XRRQueryExtension(d, &ev, &er)) {
		XRRMonitorInfo *mons = XRRGetMonitors(d, RootWindow(d, scr), True, &n);
		for (int i = 0; mons && i < n && !found; i++) {
			XRRMonitorInfo *m = &mons[i];
			int inside = x >= m->x && x < m->x + m->width && y >= m->y && y < m->y + m->height;
			if ((x < 0 && m->primary) || (x >= 0 && inside)) {
				*w = m->width; *h = m->height; *mm = m->mwidth; found = 1;
			}
		}
		if (!found && mons && n > 0) { *w = mons[0].width; *h = mons[0].height; *mm = mons[0].mwidth; }
		if (mons) XRRFreeMonitors(mons);
	}
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
	return !phoenix_x_failed && *w > 0 && *h > 0;
}

// phoenix_place reads where a window is: its frame's corner (as phoenix_frame_pos), its own
// corner in root coordinates, whether the window manager has put a frame around it, and
// whether it is maximized (both _NET_WM_STATE_MAXIMIZED_* set).
static int phoenix_place(unsigned long win, int *fx, int *fy, int *cx, int *cy, int *framed, int *maxed) {
	if (!phoenix_frame_pos(win, fx, fy)) return 0;
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	phoenix_x_failed = 0;
	Window child, root = DefaultRootWindow(d), r2 = 0, parent = 0, *kids = NULL;
	unsigned int n = 0;
	XTranslateCoordinates(d, (Window)win, root, 0, 0, cx, cy, &child);
	*framed = 0;
	if (XQueryTree(d, (Window)win, &r2, &parent, &kids, &n)) {
		if (kids) XFree(kids);
		*framed = parent != 0 && parent != root;
	}
	*maxed = 0;
	Atom state = XInternAtom(d, "_NET_WM_STATE", False), type;
	Atom mv = XInternAtom(d, "_NET_WM_STATE_MAXIMIZED_VERT", False);
	Atom mh = XInternAtom(d, "_NET_WM_STATE_MAXIMIZED_HORZ", False);
	int format, v = 0, h = 0;
	unsigned long count = 0, after = 0;
	unsigned char *data = NULL;
	if (XGetWindowProperty(d, (Window)win, state, 0, 64, False, XA_ATOM, &type, &format, &count, &after, &data) == Success && data) {
		Atom *atoms = (Atom *)data;
		for (unsigned long i = 0; i < count; i++) { v |= atoms[i] == mv; h |= atoms[i] == mh; }
		XFree(data);
	}
	*maxed = v && h;
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
	return !phoenix_x_failed;
}

// phoenix_maximize asks the window manager to maximize the window (EWMH _NET_WM_STATE).
static void phoenix_maximize(unsigned long win) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	XEvent e = {0};
	e.xclient.type = ClientMessage;
	e.xclient.window = (Window)win;
	e.xclient.message_type = XInternAtom(d, "_NET_WM_STATE", False);
	e.xclient.format = 32;
	e.xclient.data.l[0] = 1; // add
	e.xclient.data.l[1] = XInternAtom(d, "_NET_WM_STATE_MAXIMIZED_VERT", False);
	e.xclient.data.l[2] = XInternAtom(d, "_NET_WM_STATE_MAXIMIZED_HORZ", False);
	e.xclient.data.l[3] = 1; // from an application
	XSendEvent(d, DefaultRootWindow(d), False, SubstructureRedirectMask | SubstructureNotifyMask, &e);
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
}

// phoenix_monitors fills up to max rectangles (x, y, w, h) of the monitors, or the whole
// screen without XRandR, and returns how many.
static int phoenix_monitors(int *out, int max) {
	Display *d = XOpenDisplay(NULL);
	if (!d) return 0;
	int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(phoenix_ignore);
	int scr = DefaultScreen(d), ev, er, n = 0, k = 0;
	if (XRRQueryExtension(d, &ev, &er)) {
		XRRMonitorInfo *mons = XRRGetMonitors(d, RootWindow(d, scr), True, &n);
		for (int i = 0; mons && i < n && k < max; i++, k++) {
			out[4*k] = mons[i].x; out[4*k+1] = mons[i].y; out[4*k+2] = mons[i].width; out[4*k+3] = mons[i].height;
		}
		if (mons) XRRFreeMonitors(mons);
	}
	if (k == 0 && max > 0) {
		out[0] = 0; out[1] = 0; out[2] = DisplayWidth(d, scr); out[3] = DisplayHeight(d, scr); k = 1;
	}
	XSync(d, False);
	XSetErrorHandler(old);
	XCloseDisplay(d);
	return k;
}
*/
import "C"

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
)

// x11Window returns the X11 id of a window, or 0 when it has none (not shown yet, another
// driver, the test driver).
func x11Window(w fyne.Window) uintptr {
	nw, ok := w.(driver.NativeWindow)
	if !ok {
		return 0
	}
	var id uintptr
	nw.RunNative(func(ctx any) {
		if x, ok := ctx.(driver.X11WindowContext); ok {
			id = x.WindowHandle
		}
	})
	return id
}

// nativeScreen is the size in pixels and the width in millimetres of the monitor a window at
// x, y opens on (x < 0: the primary one), read from the X server: Fyne tells a window's
// screen only once it is shown, and its GLFW driver not at all.
func nativeScreen(x, y int) (w, h, mm int, ok bool) {
	var cw, ch, cmm C.int
	if C.phoenix_screen(C.int(x), C.int(y), &cw, &ch, &cmm) == 0 {
		return 0, 0, 0, false
	}
	return int(cw), int(ch), int(cmm), true
}

// x11Placer places the window through Xlib.
type x11Placer struct{}

func (x11Placer) where(w fyne.Window) (p place, ok bool) {
	id := x11Window(w)
	if id == 0 {
		return place{}, false
	}
	var fx, fy, cx, cy, framed, maxed C.int
	if C.phoenix_place(C.ulong(id), &fx, &fy, &cx, &cy, &framed, &maxed) == 0 {
		return place{}, false
	}
	return place{frame: point{int(fx), int(fy)}, client: point{int(cx), int(cy)}, framed: framed != 0, maximized: maxed != 0}, true
}

func (x11Placer) move(w fyne.Window, at point) {
	if id := x11Window(w); id != 0 {
		C.phoenix_move(C.ulong(id), C.int(at.x), C.int(at.y))
	}
}

func (x11Placer) maximize(w fyne.Window) {
	if id := x11Window(w); id != 0 {
		C.phoenix_maximize(C.ulong(id))
	}
}

func (x11Placer) monitors() []rect {
	var buf [4 * 16]C.int
	n := int(C.phoenix_monitors(&buf[0], 16))
	out := make([]rect, n)
	for i := range n {
		out[i] = rect{int(buf[4*i]), int(buf[4*i+1]), int(buf[4*i+2]), int(buf[4*i+3])}
	}
	return out
}

var native placer = x11Placer{}
