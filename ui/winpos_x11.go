//go:build linux && cgo && !wayland

package ui

/*
#cgo LDFLAGS: -lX11 -lXrandr
#include <X11/Xlib.h>
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

func nativePosition(w fyne.Window) (int, int, bool) {
	id := x11Window(w)
	if id == 0 {
		return 0, 0, false
	}
	var x, y C.int
	if C.phoenix_frame_pos(C.ulong(id), &x, &y) == 0 {
		return 0, 0, false
	}
	return int(x), int(y), true
}

func nativeMove(w fyne.Window, x, y int) {
	if id := x11Window(w); id != 0 {
		C.phoenix_move(C.ulong(id), C.int(x), C.int(y))
	}
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
