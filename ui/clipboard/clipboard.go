package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Content is what the clipboard holds beyond text. The zero Content means "nothing but text,
// or nothing": the caller pastes text as usual.
type Content struct {
	// Image is the bytes of an image target, as the owner sent them, and Type its MIME type
	// (one of ImageTypes).
	Image []byte
	Type  string
	// Files are the local paths of a file list copied in a file manager, in its order.
	Files []string
}

// Reader reads the clipboard. Read does I/O: call it off the UI goroutine.
type Reader interface {
	Read(ctx context.Context) (Content, error)
}

// ImageTypes are the image targets read, in the order preferred when the owner offers
// several (GTK and Qt offer a copied picture in many formats and convert on demand): the
// formats the model takes first, lossless before lossy, then BMP, which some programs offer
// alone and the caller converts.
var ImageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp", "image/x-bmp", "image/x-ms-bmp"}

// FileListTypes are the targets that carry copied files: the standard list of URIs, and
// GNOME's (a first line "copy" or "cut", then one URI a line).
var FileListTypes = []string{"text/uri-list", "x-special/gnome-copied-files"}

// DocumentTypes are the targets that say the owner copied part of a document: office
// programs (LibreOffice, OnlyOffice, WPS) offer copied cells or paragraphs as rich text, as
// text, and as a picture of them, and the person means the text then, so an image offered
// beside one of these is not read. Plain text alone does not say so: a browser's "Copy
// image" offers the image's address as text beside the image, and screenshot tools some
// file name.
var DocumentTypes = []string{"text/rtf", "text/richtext", "application/rtf"}

// DefaultTimeout bounds one Read when the context has no earlier deadline: the owner answers
// within milliseconds, but a hung owner must not leave a paste pending for ever.
const DefaultTimeout = 5 * time.Second

// maxListBytes caps the targets list and a file list: thousands of lines.
const maxListBytes = 1 << 20

// Tool is a program that reads the clipboard, with the arguments that list the targets and
// read one of them.
type Tool struct {
	// Name is the program, Package the Debian package that installs it.
	Name, Package string
	// Display is the environment variable that says the tool's display server is there.
	Display string
	// List lists the offered targets, one a line; Get reads one target.
	List []string
	Get  func(target string) []string
}

// Tools: xclip for X11, wl-paste for Wayland. Both exit non-zero when the clipboard is empty
// or lacks the target.
var (
	XClip = Tool{Name: "xclip", Package: "xclip", Display: "DISPLAY",
		List: []string{"-selection", "clipboard", "-target", "TARGETS", "-out"},
		Get:  func(t string) []string { return []string{"-selection", "clipboard", "-target", t, "-out"} }}
	WLPaste = Tool{Name: "wl-paste", Package: "wl-clipboard", Display: "WAYLAND_DISPLAY",
		List: []string{"--list-types"},
		Get:  func(t string) []string { return []string{"--no-newline", "--type", t} }}
)

// MissingToolError says that the display is there but the tool that reads its clipboard is
// not installed. Text still pastes (Fyne reads text itself). Errors of this package are
// clauses in the Go style; the window makes sentences of them.
type MissingToolError struct{ Tool Tool }

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("pasting images needs %s, which is not installed: install the %s package (sudo apt install %s); text pastes without it",
		e.Tool.Name, e.Tool.Package, e.Tool.Package)
}

// TooLargeError is a target larger than the cap; nothing of it is kept.
type TooLargeError struct {
	Type string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the %s on the clipboard is larger than the %d MB this app reads: save it to a file and scale it down first", e.Type, e.Max>>20)
}

// System reads the desktop's clipboard through its tools.
type System struct {
	// MaxBytes caps an image target; a larger one is a TooLargeError. The window passes
	// imaging.MaxInputBytes, the cap every image gets.
	MaxBytes int64
	// Getenv and LookPath are os.Getenv and exec.LookPath when nil.
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// tool picks the tool for this session: the first of toolOrder whose display is there and
// which is installed. If a display is there but none of its tools is, the error names the
// first such tool. No display at all is no tool and no error: there is nothing to read.
func (s System) tool() (Tool, string, error) {
	getenv, look := s.getenv, s.LookPath
	if look == nil {
		look = exec.LookPath
	}
	var missing *MissingToolError
	for _, t := range toolOrder {
		if getenv(t.Display) == "" {
			continue
		}
		if path, err := look(t.Name); err == nil {
			return t, path, nil
		}
		if missing == nil {
			missing = &MissingToolError{Tool: t}
		}
	}
	if missing != nil {
		return Tool{}, "", missing
	}
	return Tool{}, "", nil
}

func (s System) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

// Read lists the clipboard's targets and reads what it holds beyond text: a file list with
// local files first (the files themselves, with their names), else an image unless it is a
// picture of copied document text (DocumentTypes). An empty clipboard, or one the tool
// cannot list, is the zero Content.
func (s System) Read(ctx context.Context) (Content, error) {
	t, path, err := s.tool()
	if err != nil || path == "" {
		return Content{}, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	// The tool talks to the display this reader saw, whatever the process's environment.
	run := func(ctx context.Context, path string, args []string, max int64) ([]byte, error) {
		return runTool(ctx, path, args, t.Display+"="+s.getenv(t.Display), max)
	}
	out, err := run(ctx, path, t.List, maxListBytes)
	if ctx.Err() != nil {
		return Content{}, fmt.Errorf("the program that copied did not hand over the clipboard in time (%s: %w): copy again, or save it to a file and drop that", t.Name, ctx.Err())
	}
	if err != nil {
		return Content{}, nil // nothing copied, or nothing the tool can list
	}
	offered := targets(out)
	for _, ft := range FileListTypes {
		if !slices.Contains(offered, ft) {
			continue
		}
		if list, err := run(ctx, path, t.Get(ft), maxListBytes); err == nil {
			if files := ParseFileList(list); len(files) > 0 {
				return Content{Files: files}, nil
			}
		}
	}
	if slices.ContainsFunc(offered, func(o string) bool { return slices.Contains(DocumentTypes, o) }) {
		return Content{}, nil
	}
	for _, it := range ImageTypes {
		if !slices.Contains(offered, it) {
			continue
		}
		data, err := run(ctx, path, t.Get(it), s.MaxBytes)
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			tl.Type = it
			return Content{}, tl
		case err != nil:
			return Content{}, fmt.Errorf("could not read the %s on the clipboard with %s (%w): copy it again, or save it to a file and drop that", it, t.Name, err)
		}
		return Content{Image: data, Type: it}, nil
	}
	return Content{}, nil
}

// targets parses a tool's list of targets: one a line, surrounding spaces ignored.
func targets(out []byte) []string {
	var ts []string
	for line := range strings.Lines(string(out)) {
		if l := strings.TrimSpace(line); l != "" {
			ts = append(ts, l)
		}
	}
	return ts
}

// ParseFileList reads a text/uri-list (RFC 2483: CRLF lines, # comments) or GNOME's list (the
// same after a first line "copy" or "cut") and returns the local paths of its file: URIs.
// Other URIs (a web page's address) are not files on this machine and are left out.
func ParseFileList(data []byte) []string {
	var paths []string
	for line := range strings.Lines(string(data)) {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || l == "copy" || l == "cut" {
			continue
		}
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "file" || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			continue
		}
		paths = append(paths, u.Path)
	}
	return paths
}

// runTool runs a tool with one more environment variable and returns at most max bytes of its output; more is a TooLargeError (the
// tool is killed rather than read to the end). A non-zero exit is an error with the tool's
// own words.
func runTool(ctx context.Context, path string, args []string, env string, max int64) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), env)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	// Output is read by a goroutine of exec's when it is not an *os.File; WaitDelay stops
	// waiting for it once the tool is gone.
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	data, rerr := io.ReadAll(io.LimitReader(stdout, max+1))
	if int64(len(data)) > max {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, &TooLargeError{Max: max}
	}
	werr := cmd.Wait()
	switch {
	case werr != nil && strings.TrimSpace(stderr.String()) != "":
		return nil, fmt.Errorf("%v: %s", werr, strings.TrimSpace(stderr.String()))
	case werr != nil:
		return nil, werr
	case rerr != nil:
		return nil, rerr
	}
	return data, nil
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
