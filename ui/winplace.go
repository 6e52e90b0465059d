package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
)

// The window comes back where it was (issue 41 item 6): at its place, at its size, maximized if
// it was, and always with its title bar on a screen.
//
// What is kept is the place of the window manager's frame (its outer corner) and how far the
// window sits inside it (the frame's left and top edges). Window managers read a requested
// position differently: Openbox takes the position asked before the window is framed as the
// window's own, and one asked later as the frame's; ICCCM's usual gravity takes both as the
// frame's. So the window is first asked for at the frame's place plus the edges, and once the
// frame is there and still, the frame's place is read back and the request corrected by the
// difference (at most twice). Saving the window's own corner and restoring it as the frame's
// moved the window up by the title bar on every start (40 → 20 → 0 under Openbox).

// point and rect are in the screen's pixels.
type point struct{ x, y int }

type rect struct{ x, y, w, h int }

func (p point) add(q point) point { return point{p.x + q.x, p.y + q.y} }
func (p point) sub(q point) point { return point{p.x - q.x, p.y - q.y} }

// place is where the window is now: its frame's corner, its own corner, whether a window
// manager has framed it, and whether it is maximized.
type place struct {
	frame, client point
	framed        bool
	maximized     bool
}

// placer reads and sets the native window's place (winpos_x11.go; tests have a fake window
// manager).
type placer interface {
	where(w fyne.Window) (place, bool)
	move(w fyne.Window, client point)
	maximize(w fyne.Window)
	monitors() []rect
}

// geometry is the window's remembered size, in device-independent units (restoreWindow), and,
// where the platform tells it, its frame's place in pixels, the frame's left and top edges,
// and whether it was maximized (then the size and place are those it had before). It is kept
// in one preference so that saving it is one write: Fyne writes the preferences file at once
// for the first change and defers the writes of changes that follow it closely, which can be
// lost when the app exits right after. Older versions read the first four numbers.
type geometry struct {
	W, H   float32
	X, Y   int
	HasPos bool
	// L and T are the frame's left and top edges (the window's corner minus the frame's).
	L, T int
	Max  bool
}

func (g geometry) String() string {
	if !g.HasPos {
		return fmt.Sprintf("%g %g", g.W, g.H)
	}
	m := 0
	if g.Max {
		m = 1
	}
	return fmt.Sprintf("%g %g %d %d %d %d %d", g.W, g.H, g.X, g.Y, g.L, g.T, m)
}

func parseGeometry(s string) (geometry, bool) {
	var g geometry
	var m int
	if n, _ := fmt.Sscanf(s, "%g %g %d %d %d %d %d", &g.W, &g.H, &g.X, &g.Y, &g.L, &g.T, &m); n == 7 {
		g.HasPos, g.Max = true, m == 1
		return g, g.W > 0 && g.H > 0
	}
	g = geometry{}
	if n, _ := fmt.Sscanf(s, "%g %g %d %d", &g.W, &g.H, &g.X, &g.Y); n == 4 {
		g.HasPos = true
		return g, g.W > 0 && g.H > 0
	}
	g = geometry{}
	if n, _ := fmt.Sscanf(s, "%g %g", &g.W, &g.H); n == 2 {
		return g, g.W > 0 && g.H > 0
	}
	return geometry{}, false
}

// titleGrip is how much of the title bar is kept on a screen, in pixels, across and down.
const titleGrip = 64

// onScreen is frame corner at, moved as little as needed to put the title bar of a frame
// width wide and with a top edge of top on a monitor: across, at least titleGrip of it; down,
// all of it, with room under it.
func onScreen(at point, width, top int, mons []rect) point {
	if len(mons) == 0 {
		return at
	}
	bar := max(top, 24)
	fits := func(m rect) bool {
		across := min(at.x+width, m.x+m.w) - max(at.x, m.x)
		return across >= min(titleGrip, width) && at.y >= m.y && at.y+bar+titleGrip <= m.y+m.h
	}
	best, bestDist := mons[0], -1
	for _, m := range mons {
		if fits(m) {
			return at
		}
		// Else the monitor nearest the title bar's middle.
		cx, cy := at.x+width/2, at.y+bar/2
		d := max(m.x-cx, 0, cx-(m.x+m.w)) + max(m.y-cy, 0, cy-(m.y+m.h))
		if bestDist < 0 || d < bestDist {
			best, bestDist = m, d
		}
	}
	m := best
	return point{
		x: min(max(at.x, m.x-width+titleGrip), m.x+m.w-titleGrip),
		y: min(max(at.y, m.y), m.y+m.h-bar-titleGrip),
	}
}

// restorePlace moves the shown window to its remembered place, on a screen, and maximizes it
// if it was.
func (m *MainWindow) restorePlace() {
	g, ok := parseGeometry(m.app.Preferences().String(prefGeometry))
	if !ok {
		return
	}
	if !g.HasPos {
		return
	}
	width := int(g.W) + 2*g.L
	want := onScreen(point{g.X, g.Y}, width, g.T, m.placer.monitors())
	req := want.add(point{g.L, g.T})
	m.placer.move(m.win, req)
	m.placing = &placeCheck{want: want, req: req, maximize: g.Max}
	m.settlePlace(m.placing)
}

// placeCheck is a restore waiting for the window manager: the frame's place wanted, the last
// request, and what is left to do.
type placeCheck struct {
	want, req   point
	maximize    bool
	last        place
	seen        int
	corrections int
	polls       int
}

// placePoll is how often the frame's place is read while the window manager settles it, and
// placePolls how many times before the window is left where it is.
const (
	placePoll  = 40 * time.Millisecond
	placePolls = 50
)

// settlePlace reads the window's place until the window manager has framed it and left it
// still, then corrects the request by how far the frame is from where it is wanted.
func (m *MainWindow) settlePlace(c *placeCheck) {
	time.AfterFunc(placePoll, func() {
		m.do(func() {
			if m.closed {
				return
			}
			c.polls++
			p, ok := m.placer.where(m.win)
			if ok && p == c.last {
				c.seen++
			} else {
				c.last, c.seen = p, 0
			}
			done := c.polls >= placePolls
			if ok && p.framed && c.seen >= 1 {
				if p.frame != c.want && c.corrections < 2 {
					c.req = c.req.add(c.want.sub(p.frame))
					c.corrections++
					m.placer.move(m.win, c.req)
					c.seen = 0
				} else {
					done = true
				}
			}
			if !done {
				m.settlePlace(c)
				return
			}
			m.placing = nil
			if c.maximize {
				m.placer.maximize(m.win)
			}
		})
	})
}

// saveWindow remembers the window's size and place for the next start. A maximized window
// keeps the size and place it had before, and is remembered as maximized.
func (m *MainWindow) saveWindow() {
	s := m.win.Canvas().Size()
	if s.Width <= 0 || s.Height <= 0 {
		return
	}
	p, ok := m.placer.where(m.win)
	if ok && p.maximized {
		if g, had := parseGeometry(m.app.Preferences().String(prefGeometry)); had && g.HasPos {
			g.Max = true
			m.app.Preferences().SetString(prefGeometry, g.String())
			return
		}
	}
	scale := userScale(m.app)
	g := geometry{W: s.Width * scale, H: s.Height * scale}
	if ok {
		g.X, g.Y, g.HasPos = p.frame.x, p.frame.y, true
		edge := p.client.sub(p.frame)
		g.L, g.T, g.Max = edge.x, edge.y, p.maximized
	}
	m.app.Preferences().SetString(prefGeometry, g.String())
}
