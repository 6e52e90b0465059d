package clipboard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTools makes xclip and wl-paste stand-ins in a directory: each logs its arguments and
// answers from files, offers[target] being what it prints for a target ("TARGETS" lists the
// types for both tools). A target whose value starts with "#!" is run as a script instead
// (an endless or a hung owner). A target not offered fails as the real tools do.
func fakeTools(t *testing.T, offers map[string]string, names ...string) (dir string, log func() []string) {
	t.Helper()
	dir = t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for target, v := range offers {
		f := filepath.Join(data, strings.ReplaceAll(target, "/", "_"))
		mode := os.FileMode(0o644)
		if strings.HasPrefix(v, "#!") {
			mode = 0o755
			f += ".run"
		}
		if err := os.WriteFile(f, []byte(v), mode); err != nil {
			t.Fatal(err)
		}
	}
	script := `#!/bin/sh
echo "$(basename "$0") $*" >>"` + dir + `/log"
target=
prev=
for a in "$@"; do
  case "$prev" in -target|--type) target=$a ;; esac
  [ "$a" = --list-types ] && target=TARGETS
  prev=$a
done
f="` + data + `/$(echo "$target" | tr / _)"
[ -x "$f.run" ] && exec "$f.run"
[ -f "$f" ] || { echo "Error: target $target not available" >&2; exit 1; }
exec cat "$f"
`
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, func() []string {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// system is a reader that sees env as its environment and finds tools only in dir.
func system(dir string, env map[string]string, max int64) System {
	return System{
		MaxBytes: max,
		Getenv:   func(k string) string { return env[k] },
		LookPath: func(name string) (string, error) {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				return "", exec.ErrNotFound
			}
			return p, nil
		},
	}
}

var x11 = map[string]string{"DISPLAY": ":5"}

func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 6, 4))
	img.Set(1, 1, color.NRGBA{R: 0xff, A: 0xff})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadsThePreferredImageTarget(t *testing.T) {
	p := string(pngBytes(t))
	dir, log := fakeTools(t, map[string]string{
		"TARGETS":    "TIMESTAMP\nTARGETS\nimage/bmp\nimage/jpeg\nimage/png\n",
		"image/png":  p,
		"image/jpeg": "\xff\xd8\xff jpeg",
		"image/bmp":  "BM bmp",
	}, "xclip")
	c, err := system(dir, x11, 1<<20).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Type != "image/png" || string(c.Image) != p || c.Files != nil {
		t.Fatalf("read %q (%d bytes), files %v; want the PNG", c.Type, len(c.Image), c.Files)
	}
	want := []string{"xclip -selection clipboard -target TARGETS -out", "xclip -selection clipboard -target image/png -out"}
	if got := log(); !slices.Equal(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}

	// Where the owner offers only JPEG or only BMP, that is what is read.
	for _, only := range []string{"image/jpeg", "image/bmp"} {
		dir, _ := fakeTools(t, map[string]string{"TARGETS": "TARGETS\n" + only + "\n", only: "bytes of " + only}, "xclip")
		c, err := system(dir, x11, 1<<20).Read(context.Background())
		if err != nil || c.Type != only || string(c.Image) != "bytes of "+only {
			t.Errorf("offering only %s: read %q %q, %v", only, c.Type, c.Image, err)
		}
	}
}

// A spreadsheet's cells come as rich text, text and a picture of them: text wins. A
// browser's "Copy image" comes as the image, HTML and its address as text: the image wins.
func TestImageOrTextFollowsWhatWasCopied(t *testing.T) {
	p := string(pngBytes(t))
	dir, log := fakeTools(t, map[string]string{
		"TARGETS":   "TARGETS\nimage/png\nimage/bmp\ntext/html\ntext/rtf\ntext/plain;charset=utf-8\nUTF8_STRING\napplication/x-openoffice-embed-source-xml;windows_formatname=\"Star Embed Source (XML)\"\n",
		"image/png": p,
	}, "xclip")
	c, err := system(dir, x11, 1<<20).Read(context.Background())
	if err != nil || c.Image != nil || c.Files != nil {
		t.Errorf("office copy: read %+v, %v; want nothing (text pastes)", c, err)
	}
	if n := len(log()); n != 1 {
		t.Errorf("office copy: ran the tool %d times, want only the list", n)
	}

	dir, _ = fakeTools(t, map[string]string{
		"TARGETS":   "TIMESTAMP\nTARGETS\nMULTIPLE\ntext/html\ntext/_moz_htmlinfo\ntext/_moz_htmlcontext\nimage/png\nimage/jpeg\nUTF8_STRING\nTEXT\nSTRING\ntext/plain\n",
		"image/png": p,
	}, "xclip")
	c, err = system(dir, x11, 1<<20).Read(context.Background())
	if err != nil || c.Type != "image/png" || string(c.Image) != p {
		t.Errorf("browser's Copy image: read %q, %v; want the PNG", c.Type, err)
	}
}

// A file manager's copy: the local files, in order, whatever else is offered.
func TestFileListsGiveLocalFiles(t *testing.T) {
	uris := "# copied by a file manager\r\nfile:///tmp/shots/a%20b.png\r\nhttps://example.com/c.png\r\nfile://localhost/home/ada/d.JPG\r\nfile://elsewhere/e.png\r\nfile:///home/ada/notes.txt\r\n"
	dir, _ := fakeTools(t, map[string]string{
		"TARGETS":       "TARGETS\ntext/plain\nimage/png\ntext/uri-list\n",
		"text/uri-list": uris,
		"image/png":     string(pngBytes(t)),
	}, "xclip")
	c, err := system(dir, x11, 1<<20).Read(context.Background())
	want := []string{"/tmp/shots/a b.png", "/home/ada/d.JPG", "/home/ada/notes.txt"}
	if err != nil || !slices.Equal(c.Files, want) || c.Image != nil {
		t.Fatalf("read %+v, %v; want files %q", c, err, want)
	}

	dir, _ = fakeTools(t, map[string]string{
		"TARGETS":                      "x-special/gnome-copied-files\nUTF8_STRING\n",
		"x-special/gnome-copied-files": "copy\nfile:///tmp/one.png\nfile:///tmp/two.webp",
	}, "xclip")
	c, err = system(dir, x11, 1<<20).Read(context.Background())
	if want := []string{"/tmp/one.png", "/tmp/two.webp"}; err != nil || !slices.Equal(c.Files, want) {
		t.Fatalf("GNOME's list: read %+v, %v; want %q", c, err, want)
	}

	// A list of web addresses only is no file list: the image beside it is read.
	dir, _ = fakeTools(t, map[string]string{
		"TARGETS":       "text/uri-list\nimage/png\n",
		"text/uri-list": "https://example.com/c.png\n",
		"image/png":     string(pngBytes(t)),
	}, "xclip")
	if c, err = system(dir, x11, 1<<20).Read(context.Background()); err != nil || c.Type != "image/png" {
		t.Fatalf("web address beside an image: read %+v, %v", c, err)
	}
}

func TestEmptyClipboardIsNothing(t *testing.T) {
	dir, _ := fakeTools(t, map[string]string{}, "xclip")
	c, err := system(dir, x11, 1<<20).Read(context.Background())
	if err != nil || c.Image != nil || c.Files != nil {
		t.Fatalf("read %+v, %v; want nothing", c, err)
	}
}

// An owner that never stops sending is cut at the cap: the tool is killed, nothing is kept.
func TestImageLargerThanTheCapIsRefused(t *testing.T) {
	dir, _ := fakeTools(t, map[string]string{
		"TARGETS":   "image/png\n",
		"image/png": "#!/bin/sh\nexec cat /dev/zero\n",
	}, "xclip")
	c, err := system(dir, x11, 64<<10).Read(context.Background())
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Type != "image/png" || c.Image != nil {
		t.Fatalf("read %d bytes, %v; want a TooLargeError for image/png", len(c.Image), err)
	}
	if !strings.Contains(err.Error(), "scale it down") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}

// An owner that never answers ends the read at the context's deadline, with what to do.
func TestHungOwnerEndsAtTheDeadline(t *testing.T) {
	dir, _ := fakeTools(t, map[string]string{"TARGETS": "#!/bin/sh\nexec sleep 60\n"}, "xclip")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := system(dir, x11, 1<<20).Read(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "copy again") {
		t.Fatalf("err = %v; want the deadline, with what to do", err)
	}
}

func TestToolFollowsTheSession(t *testing.T) {
	offers := map[string]string{"TARGETS": "image/png\n", "image/png": string(pngBytes(t))}
	wayland := map[string]string{"WAYLAND_DISPLAY": "wayland-0"}
	both := map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		installed []string
		ran       string // the tool that read, "" for none
		missing   string // the package a MissingToolError names
	}{
		{"X11", x11, []string{"xclip", "wl-paste"}, "xclip", ""},
		{"Wayland", wayland, []string{"xclip", "wl-paste"}, "wl-paste", ""},
		{"XWayland", both, []string{"xclip", "wl-paste"}, toolOrder[0].Name, ""},
		{"XWayland without " + toolOrder[0].Name, both, []string{toolOrder[1].Name}, toolOrder[1].Name, ""},
		{"X11 without xclip", x11, []string{"wl-paste"}, "", "xclip"},
		{"Wayland without wl-paste", wayland, nil, "", "wl-clipboard"},
		{"no display", map[string]string{}, []string{"xclip", "wl-paste"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, log := fakeTools(t, offers, tc.installed...)
			c, err := system(dir, tc.env, 1<<20).Read(context.Background())
			var mt *MissingToolError
			switch {
			case tc.missing != "":
				if !errors.As(err, &mt) || mt.Tool.Package != tc.missing || !strings.Contains(err.Error(), "apt install "+tc.missing) {
					t.Fatalf("err = %v; want one naming the %s package", err, tc.missing)
				}
			case err != nil:
				t.Fatal(err)
			case tc.ran == "":
				if c.Image != nil || log()[0] != "" {
					t.Fatalf("with no display it read %+v, ran %q", c, log())
				}
			default:
				got := log()
				if c.Type != "image/png" || len(got) != 2 || !strings.HasPrefix(got[1], tc.ran+" ") {
					t.Fatalf("read %q, ran %q; want %s", c.Type, got, tc.ran)
				}
				if tc.ran == "wl-paste" && (got[0] != "wl-paste --list-types" || got[1] != "wl-paste --no-newline --type image/png") {
					t.Errorf("wl-paste ran as %q", got)
				}
			}
		})
	}
}

// TestRealX11Clipboard puts a PNG and then a file list on a real X server's clipboard with
// xclip, as a screenshot tool and a file manager do, and reads them back. It starts its own
// Xvfb (scripts/setup.sh installs it and xclip) and skips where either is missing.
func TestRealX11Clipboard(t *testing.T) {
	needX(t)
	x := startXvfb(t)
	env := map[string]string{"DISPLAY": x.display}
	r := System{MaxBytes: 1 << 20, Getenv: func(k string) string { return env[k] }}

	img := pngBytes(t)
	own(t, x, "image/png", img)
	c, err := r.Read(context.Background())
	if err != nil || c.Type != "image/png" || !bytes.Equal(c.Image, img) {
		t.Fatalf("read %q (%d bytes), %v; want the %d-byte PNG", c.Type, len(c.Image), err, len(img))
	}

	own(t, x, "text/uri-list", []byte("file:///tmp/a.png\r\nfile:///tmp/b%20c.jpg\r\n"))
	c, err = r.Read(context.Background())
	if want := []string{"/tmp/a.png", "/tmp/b c.jpg"}; err != nil || !slices.Equal(c.Files, want) {
		t.Fatalf("read %+v, %v; want files %q", c, err, want)
	}
}

// needX skips where Xvfb or xclip is missing.
func needX(t testing.TB) {
	for _, tool := range []string{"Xvfb", "xclip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/setup.sh installs it)", tool)
		}
	}
}

// xServer is an Xvfb a test started: its display and, once it has exited, why.
type xServer struct {
	display string
	exited  chan struct{} // closed when the server has exited
	err     error         // its exit status, set before exited closes
	stderr  lockedBuffer
}

// state says whether the server still runs, and how it ended if not, with its last words.
func (x *xServer) state() string {
	select {
	case <-x.exited:
		return fmt.Sprintf("Xvfb on %s exited (%v): %s", x.display, x.err, x.stderr.tail())
	default:
		return "Xvfb on " + x.display + " still runs"
	}
}

// startXvfb starts an X server on a free display (Xvfb picks it and writes it to -displayfd
// once it accepts connections) and stops it when the test ends.
func startXvfb(t testing.TB) *xServer {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := &xServer{exited: make(chan struct{})}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "320x240x24")
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Stderr = &x.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		x.err = cmd.Wait()
		close(x.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-x.exited
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	pr.Close()
	if err != nil {
		t.Fatalf("Xvfb did not start: %v; %s", err, x.state())
	}
	x.display = ":" + strings.TrimSpace(line)
	return x
}

// own makes a foreground xclip the clipboard's owner with data as target typ, and returns
// once the X server lists typ among the clipboard's targets (xclip says it is waiting a
// moment before its ownership is visible to others). An owner that exits before that (CI
// once saw the clipboard stay empty for 10 s, cause unknown) is started again; a failure
// says what the server, the owner and the last look at the targets said. The owner is
// stopped when the test ends.
func own(t testing.TB, x *xServer, typ string, data []byte) {
	t.Helper()
	env := append(os.Environ(), "DISPLAY="+x.display)
	var owner *ownerProcess
	starts := 0
	var lastLook string
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if owner == nil || owner.hasExited() {
			owner = startOwner(t, env, typ, data)
			starts++
		}
		list := exec.Command("xclip", "-selection", "clipboard", "-target", "TARGETS", "-out")
		list.Env = env
		var errOut bytes.Buffer
		list.Stderr = &errOut
		out, err := list.Output()
		if err == nil && slices.Contains(targets(out), typ) {
			return
		}
		lastLook = fmt.Sprintf("%q, %v %s", out, err, strings.TrimSpace(errOut.String()))
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("xclip did not take the clipboard with %s within 20 s (owner started %d times; the owner: %s; the last look at the targets: %s; %s)",
				typ, starts, owner.state(), lastLook, x.state())
		}
	}
}

// ownerProcess is one xclip holding the clipboard.
type ownerProcess struct {
	exited chan struct{}
	err    error
	stderr lockedBuffer
}

func startOwner(t testing.TB, env []string, typ string, data []byte) *ownerProcess {
	t.Helper()
	o := &ownerProcess{exited: make(chan struct{})}
	cmd := exec.Command("xclip", "-quiet", "-selection", "clipboard", "-target", typ, "-in")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stderr = &o.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		o.err = cmd.Wait()
		close(o.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-o.exited
	})
	return o
}

func (o *ownerProcess) hasExited() bool {
	select {
	case <-o.exited:
		return true
	default:
		return false
	}
}

func (o *ownerProcess) state() string {
	if o.hasExited() {
		return fmt.Sprintf("exited (%v): %s", o.err, o.stderr.tail())
	}
	return "still runs: " + o.stderr.tail()
}

// lockedBuffer collects a process's stderr while a test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// tail is the last 400 bytes written, enough for a tool's complaint.
func (b *lockedBuffer) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return strings.TrimSpace(s)
}
