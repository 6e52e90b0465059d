//go:build linux && cgo && !wayland

package ui

/*
#cgo LDFLAGS: -lX11
#include <X11/Xlib.h>

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
