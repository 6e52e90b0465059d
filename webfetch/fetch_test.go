package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain checks that no fetch leaves a goroutine behind (a dial, a body timer, a tunnel's
// watch on Stop).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// direct are the options of an Unrestricted fetch, with limits a test can reach.
func direct() Options {
	return Options{Direct: true, Timeout: 30 * time.Second, MaxRedirects: 3, MaxBodyBytes: 1 << 20}
}

// serve starts a server whose handlers are given by path.
func serve(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func content(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		} else {
			w.Header()["Content-Type"] = nil // no header, not Go's sniffed one
		}
		_, _ = w.Write([]byte(body))
	}
}

const docPage = `<!doctype html>
<html><head><title>  The  Guide </title>
<style>body { color: red }</style>
<script>var secret = "script text";</script>
</head>
<body>
<header class="site"><a href="/">Site logo</a> Site header words</header>
<nav><a href="/a">Menu entry</a></nav>
<div role="navigation">Breadcrumb words</div>
<main>
  <h1>Getting started</h1>
  <p>Read <a href="../ref/api.html">the reference</a> and <a href="https://other.example/x">elsewhere</a>.</p>
  <h2>Install</h2>
  <pre><code class="language-go">package main

func main() {}
</code></pre>
  <p>Inline <code>go run .</code> code.</p>
  <img src="img/diagram.png" alt="The [big] diagram">
  <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==" alt="Inline dot">
  <p hidden>Hidden words</p>
  <span style="display: none">Invisible words</span>
  <table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
  <form><input name="q"><button>Search button</button></form>
</main>
<aside>Related links aside</aside>
<footer>Copyright footer words</footer>
</body></html>`

// HTML becomes Markdown with the content's structure kept and the page's noise gone:
// headings, absolute links, a fenced code block with its language, inline code, a table,
// images as links (an inline one as its alt text only), no scripts, styles, navigation,
// site header or footer, forms or hidden parts.
func TestHTMLBecomesMarkdown(t *testing.T) {
	s := serve(t, map[string]http.HandlerFunc{"/docs/guide/start.html": content("text/html; charset=utf-8", docPage)})
	p, err := Fetch(t.Context(), s.URL+"/docs/guide/start.html", direct())
	if err != nil {
		t.Fatal(err)
	}
	if !p.HTML || p.Title != "The Guide" || p.Status != 200 || p.MediaType != "text/html" {
		t.Errorf("page %+v", p)
	}
	md := p.Text
	for _, want := range []string{
		"# Getting started",
		"## Install",
		"[the reference](" + s.URL + "/docs/ref/api.html)",
		"[elsewhere](https://other.example/x)",
		"```go\npackage main\n\nfunc main() {}\n```",
		"`go run .`",
		"[Image: The \\[big\\] diagram](" + s.URL + "/docs/guide/img/diagram.png)",
		"[Image: Inline dot]",
		"| Flag | Meaning |",
		"| -v   | verbose |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, noise := range []string{"script text", "color: red", "Site header", "Menu entry", "Breadcrumb",
		"Hidden words", "Invisible words", "Search button", "aside", "Copyright", "![", "base64", "data:"} {
		if strings.Contains(md, noise) {
			t.Errorf("the Markdown holds %q:\n%s", noise, md)
		}
	}
}

// Without a <main>, the body is the content; an article's own header stays (its title),
// while the site's goes.
func TestHTMLWithoutMain(t *testing.T) {
	page := `<html><body><header>Site name</header><article><header><h1>Release notes</h1></header>
<p>Fixed <strong>the bug</strong>.</p><footer>Posted today</footer></article><footer>Site footer</footer></body></html>`
	s := serve(t, map[string]http.HandlerFunc{"/": content("text/html", page)})
	p, err := Fetch(t.Context(), s.URL, direct())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Release notes", "Fixed **the bug**.", "Posted today"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("lacks %q:\n%s", want, p.Text)
		}
	}
	for _, noise := range []string{"Site name", "Site footer"} {
		if strings.Contains(p.Text, noise) {
			t.Errorf("holds %q:\n%s", noise, p.Text)
		}
	}
}

// Text that is not HTML comes back as it is — plain text, JSON, Markdown, a text type the
// server did not name — in UTF-8 whatever charset it came in.
func TestTextPassesThrough(t *testing.T) {
	latin1 := string([]byte{'c', 'a', 'f', 0xe9, '\n'}) // "café" in ISO-8859-1
	s := serve(t, map[string]http.HandlerFunc{
		"/plain":  content("text/plain; charset=utf-8", "line one\n<b>not html</b>\n"),
		"/json":   content("application/json", `{"name":"phoenix","tags":["a","b"]}`),
		"/md":     content("text/markdown", "# Title\n\n- item\n"),
		"/vnd":    content("application/vnd.api+json", `{"data":[]}`),
		"/latin1": content("text/plain; charset=iso-8859-1", latin1),
		"/none":   content("", "just some words\n"),
		"/bytes":  content("application/octet-stream", "key = value\n"),
	})
	for path, want := range map[string]string{
		"/plain": "line one\n<b>not html</b>\n", "/json": `{"name":"phoenix","tags":["a","b"]}`,
		"/md": "# Title\n\n- item\n", "/vnd": `{"data":[]}`, "/latin1": "café\n",
		"/none": "just some words\n", "/bytes": "key = value\n",
	} {
		p, err := Fetch(t.Context(), s.URL+path, direct())
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if p.HTML || p.Text != want {
			t.Errorf("%s: html=%v text %q; want %q", path, p.HTML, p.Text, want)
		}
	}
}

// Binary content is refused with its type, whether the server names it or not.
func TestBinaryIsRefused(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	s := serve(t, map[string]http.HandlerFunc{
		"/png":      content("image/png", png),
		"/pdf":      content("application/pdf", "%PDF-1.7\n"),
		"/zip":      content("application/zip", "PK\x03\x04"),
		"/unnamed":  content("", png),
		"/bytes":    content("application/octet-stream", "\x00\x01\x02\x03"),
		"/lying":    content("text/plain", "MZ\x00\x00\x90\x00"),
		"/badctype": content("not a type", "\x00\x00\x00"),
	})
	for path, media := range map[string]string{
		"/png": "image/png", "/pdf": "application/pdf", "/zip": "application/zip", "/unnamed": "image/png",
		"/bytes": "application/octet-stream", "/lying": "text/plain", "/badctype": "application/octet-stream",
	} {
		_, err := Fetch(t.Context(), s.URL+path, direct())
		var be *BinaryError
		if !errors.As(err, &be) || be.MediaType != media {
			t.Errorf("%s: %v; want a BinaryError of %s", path, err, media)
		}
	}
}

// Redirects are followed up to the limit, and one more is refused.
func TestRedirectLimit(t *testing.T) {
	s := serve(t, map[string]http.HandlerFunc{
		"/hop/": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
			if n == 0 {
				content("text/plain", "arrived\n")(w, r)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		},
	})
	o := direct()
	p, err := Fetch(t.Context(), fmt.Sprintf("%s/hop/%d", s.URL, o.MaxRedirects), o)
	if err != nil || p.Text != "arrived\n" || p.Redirects != o.MaxRedirects || p.URL != s.URL+"/hop/0" {
		t.Fatalf("%d redirects: %+v, %v", o.MaxRedirects, p, err)
	}
	_, err = Fetch(t.Context(), fmt.Sprintf("%s/hop/%d", s.URL, o.MaxRedirects+1), o)
	var tm *TooManyRedirectsError
	if !errors.As(err, &tm) || tm.Max != o.MaxRedirects || !strings.HasSuffix(tm.Last, "/hop/0") {
		t.Fatalf("%d redirects: %v; want TooManyRedirectsError", o.MaxRedirects+1, err)
	}
}

// A body larger than the limit is read up to it and marked cut; a gzip answer counts after
// decompression.
func TestBodyLimit(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 1000) // 17,000 bytes
	s := serve(t, map[string]http.HandlerFunc{"/big": content("text/plain", big)})
	o := direct()
	o.MaxBodyBytes = 1000
	p, err := Fetch(t.Context(), s.URL+"/big", o)
	if err != nil {
		t.Fatal(err)
	}
	if !p.BodyCut || p.BodyBytes != 1000 || p.Text != big[:1000] {
		t.Fatalf("cut=%v bytes=%d len=%d", p.BodyCut, p.BodyBytes, len(p.Text))
	}
	o.MaxBodyBytes = int64(len(big))
	if p, err = Fetch(t.Context(), s.URL+"/big", o); err != nil || p.BodyCut || p.Text != big {
		t.Fatalf("exactly at the limit: cut=%v err=%v", p != nil && p.BodyCut, err)
	}
}

// hang is a handler that has sent its header (or not) and then waits for the test to end,
// telling arrived when the request is in.
func hang(arrived chan<- struct{}, sendHeader bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if sendHeader {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
		}
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}
}

// Stop cancels a fetch while the server is still answering, before and after the header.
func TestCancel_REQ_BED_005(t *testing.T) {
	for _, header := range []bool{false, true} {
		t.Run(fmt.Sprintf("header=%v", header), func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			s := serve(t, map[string]http.HandlerFunc{"/slow": hang(arrived, header)})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := Fetch(ctx, s.URL+"/slow", direct())
				done <- err
			}()
			<-arrived
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("after cancel: %v", err)
			}
		})
	}
}

// A server that stops sending within a step's time limit fails the fetch with a timeout
// (the limit is short here so the test ends soon; nothing measures how soon).
func TestTimeout(t *testing.T) {
	for _, header := range []bool{false, true} {
		t.Run(fmt.Sprintf("header=%v", header), func(t *testing.T) {
			s := serve(t, map[string]http.HandlerFunc{"/slow": hang(make(chan struct{}, 1), header)})
			o := direct()
			o.Timeout = 200 * time.Millisecond
			_, err := Fetch(t.Context(), s.URL+"/slow", o)
			var te *TimeoutError
			if !errors.As(err, &te) || te.Limit != o.Timeout {
				t.Fatalf("%v; want a TimeoutError", err)
			}
		})
	}
}

// Addresses that are not http(s), and options that allow no way out, are refused before
// anything is sent.
func TestRefusedBeforeSending(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "ftp://example.org/x", "https://", "::not a url", "example.org/page"} {
		if _, err := Fetch(t.Context(), u, direct()); err == nil {
			t.Errorf("%q was fetched", u)
		}
	}
	s := serve(t, map[string]http.HandlerFunc{"/": func(http.ResponseWriter, *http.Request) {
		t.Error("a request arrived without a way out")
	}})
	if _, err := Fetch(t.Context(), s.URL, Options{Timeout: time.Second, MaxBodyBytes: 1}); !errors.Is(err, ErrNoNetwork) {
		t.Fatalf("no way out: %v", err)
	}
}

// An error status still brings its page back, for the caller to report.
func TestErrorStatusKeepsPage(t *testing.T) {
	s := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<h1>No such page</h1>"))
	}})
	p, err := Fetch(t.Context(), s.URL+"/missing", direct())
	if err != nil || p.Status != 404 || p.StatusText != "404 Not Found" || p.Text != "# No such page" {
		t.Fatalf("%+v, %v", p, err)
	}
}

// An HTML page in another charset, declared only in the page, comes back in UTF-8.
func TestHTMLCharsetFromThePage(t *testing.T) {
	page := "<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e \x80 5</p></body></html>"
	s := serve(t, map[string]http.HandlerFunc{"/": content("text/html", page)})
	p, err := Fetch(t.Context(), s.URL, direct())
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Café" || p.Text != "Crème brûlée € 5" {
		t.Fatalf("title %q, text %q", p.Title, p.Text)
	}
}
