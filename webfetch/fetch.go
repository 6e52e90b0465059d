package webfetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// Options says which way a fetch may reach the network, and its limits.
type Options struct {
	// ProxySocket is the unix socket of the conversation's proxy (Project mode): every
	// connection is a CONNECT tunnel through it.
	ProxySocket string
	// Direct allows direct connections (Unrestricted mode) when ProxySocket is empty.
	Direct bool
	// Timeout bounds each step of the fetch (see the package doc).
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed.
	MaxRedirects int
	// MaxBodyBytes is the most of a body that is read.
	MaxBodyBytes int64
	// TLSConfig is used for https; nil uses the system's roots. Tests give their own.
	TLSConfig *tls.Config
}

// Page is what a fetch brought back.
type Page struct {
	// URL is where the page came from, after redirects.
	URL string
	// Redirects counts the redirects followed.
	Redirects int
	// Status is the HTTP status line's code and text ("404 Not Found").
	Status     int
	StatusText string
	// MediaType is the content type without its parameters ("text/html"); empty when the
	// server sent none and the body was sniffed.
	MediaType string
	// HTML reports that Text is Markdown converted from HTML; otherwise Text is the body as
	// it came (in UTF-8).
	HTML bool
	// Title is the HTML page's <title>, if it has one.
	Title string
	Text  string
	// BodyBytes is how much of the body was read; BodyCut reports that there was more than
	// Options.MaxBodyBytes.
	BodyBytes int64
	BodyCut   bool
}

// ErrNoNetwork is Fetch's answer when Options allow no way out.
var ErrNoNetwork = errors.New("this conversation has no network: neither a proxy socket nor direct connections were given")

// ProxyError is the proxy's answer to a CONNECT that it did not let through: Status 403 is a
// refusal by the person's rules or card, others a failure to resolve or connect. Message is
// the proxy's own text, which says why and what the person can do.
type ProxyError struct {
	Target  string // host:port
	Status  int
	Message string
}

func (e *ProxyError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("the proxy answered %d for %s", e.Status, e.Target)
}

// Refused reports whether the proxy refused the host (rather than failing to reach it).
func (e *ProxyError) Refused() bool { return e.Status == http.StatusForbidden }

// BinaryError says the answer is not text.
type BinaryError struct {
	URL       string
	MediaType string
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s is %s, not text", e.URL, e.MediaType)
}

// TooManyRedirectsError says the chain of redirects was longer than allowed.
type TooManyRedirectsError struct {
	Max  int
	Last string // the redirect that was not followed
}

func (e *TooManyRedirectsError) Error() string {
	return fmt.Sprintf("stopped after %d redirects (the next one went to %s)", e.Max, e.Last)
}

// TimeoutError says a step of the fetch took longer than Options.Timeout.
type TimeoutError struct {
	Limit time.Duration
	Step  string
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the server took longer than %s %s", e.Limit, e.Step)
}

// errBodyTimeout cancels a body that took too long to arrive.
var errBodyTimeout = errors.New("body timeout")

// acceptHeader says what Fetch can use, most useful first.
const acceptHeader = "text/html, application/xhtml+xml;q=0.9, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1"

// userAgent names the app, so that a site can tell it apart from a browser.
const userAgent = "phoenix-desktop-fetch/1 (a coding agent reading a page for its user)"

// Fetch fetches rawURL (http or https) the way Options allow, and returns the page as text.
// It returns when ctx ends, with ctx's error.
func Fetch(ctx context.Context, rawURL string, o Options) (*Page, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid address: %w", rawURL, err)
	}
	if u.Scheme = strings.ToLower(u.Scheme); (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http:// or https:// address", rawURL)
	}
	if o.ProxySocket == "" && !o.Direct {
		return nil, ErrNoNetwork
	}
	tr := &http.Transport{
		TLSClientConfig:       o.TLSConfig,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		DisableKeepAlives:     true,
		ForceAttemptHTTP2:     true,
	}
	if o.ProxySocket != "" {
		tr.DialContext = tunnelDialer(o.ProxySocket)
	} else {
		d := &net.Dialer{Timeout: o.Timeout}
		tr.DialContext = d.DialContext
		tr.Proxy = http.ProxyFromEnvironment
	}
	defer tr.CloseIdleConnections()
	redirects := 0
	client := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > o.MaxRedirects {
			return &TooManyRedirectsError{Max: o.MaxRedirects, Last: req.URL.Redacted()}
		}
		redirects = len(via)
		return nil
	}}

	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid address: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", acceptHeader)
	resp, err := client.Do(req)
	if err != nil {
		return nil, classify(ctx, err, o.Timeout)
	}
	defer resp.Body.Close()

	// The body has its own time limit, from the header on.
	timer := time.AfterFunc(o.Timeout, func() { cancel(errBodyTimeout) })
	defer timer.Stop()
	body, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxBodyBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(context.Cause(reqCtx), errBodyTimeout) {
			return nil, &TimeoutError{Limit: o.Timeout, Step: "to send the page"}
		}
		return nil, fmt.Errorf("reading the page from %s failed: %w", resp.Request.URL.Redacted(), err)
	}
	p := &Page{
		URL: resp.Request.URL.String(), Redirects: redirects,
		Status: resp.StatusCode, StatusText: resp.Status,
		BodyBytes: int64(len(body)),
	}
	if int64(len(body)) > o.MaxBodyBytes {
		body, p.BodyCut, p.BodyBytes = body[:o.MaxBodyBytes], true, o.MaxBodyBytes
	}
	ctype := resp.Header.Get("Content-Type")
	kind, media := classifyBody(ctype, body)
	p.MediaType = media
	switch kind {
	case kindBinary:
		return nil, &BinaryError{URL: p.URL, MediaType: media}
	case kindHTML:
		p.HTML = true
		p.Title, p.Text, err = toMarkdown(decode(body, ctype, true), resp.Request.URL)
		if err != nil {
			return nil, fmt.Errorf("the page at %s could not be read as HTML: %w", p.URL, err)
		}
	default:
		p.Text = decode(body, ctype, false)
	}
	return p, nil
}

// classify turns a failed request into the error that says best what happened.
func classify(ctx context.Context, err error, limit time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe *ProxyError
	if errors.As(err, &pe) {
		return pe
	}
	var tm *TooManyRedirectsError
	if errors.As(err, &tm) {
		return tm
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &TimeoutError{Limit: limit, Step: "to connect or answer"}
	}
	if errors.As(err, &ue) {
		return fmt.Errorf("fetching %s failed: %w", ue.URL, ue.Err)
	}
	return err
}

type bodyKind int

const (
	kindText bodyKind = iota
	kindHTML
	kindBinary
)

// classifyBody decides from the declared content type — or, when there is none or it says
// only "bytes", from the first bytes — whether the body is HTML, other text, or binary. A
// declared text type whose body holds NUL bytes is binary all the same.
func classifyBody(contentType string, body []byte) (bodyKind, string) {
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil || media == "" || media == "application/octet-stream" || media == "binary/octet-stream" {
		sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
		if media == "" || err != nil {
			media = sniffed
		}
		switch {
		case sniffed == "text/html":
			return kindHTML, media
		case strings.HasPrefix(sniffed, "text/") && !hasNUL(body):
			return kindText, media
		}
		return kindBinary, media
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return kindHTML, media
	case textual(media) && !hasNUL(body):
		return kindText, media
	}
	return kindBinary, media
}

// textual reports whether a media type is text a model can read.
func textual(media string) bool {
	if strings.HasPrefix(media, "text/") {
		return true
	}
	for _, suffix := range []string{"+json", "+xml", "+yaml"} {
		if strings.HasSuffix(media, suffix) {
			return true
		}
	}
	switch media {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/x-httpd-php", "application/sql", "application/graphql",
		"application/x-ndjson", "application/jsonl", "application/x-tex", "application/rtf":
		return true
	}
	return false
}

func hasNUL(b []byte) bool { return bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 }

// decode returns the body as UTF-8: in the charset the header or (for HTML) the page
// declares; otherwise as it is when it is UTF-8 already, with invalid bytes replaced.
func decode(body []byte, contentType string, isHTML bool) string {
	_, params, _ := mime.ParseMediaType(contentType)
	if params["charset"] != "" || isHTML {
		if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
			if out, err := io.ReadAll(r); err == nil {
				return strings.ToValidUTF8(string(out), "\uFFFD")
			}
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

// tunnelDialer connects through the proxy's unix socket with CONNECT host:port. The answer
// may take as long as the person takes to answer a host card; only ctx (Stop) ends that wait.
func tunnelDialer(socket string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", socket)
		if err != nil {
			return nil, fmt.Errorf("the app's network proxy cannot be reached (%w); switching the mode off and on again restarts it", err)
		}
		stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
		tunnel, err := connect(conn, addr)
		if !stop() {
			conn.Close()
			return nil, ctx.Err()
		}
		if err != nil {
			conn.Close()
			return nil, err
		}
		return tunnel, nil
	}
}

// maxProxyMessage bounds the proxy's explanation read from a refusal.
const maxProxyMessage = 4 << 10

func connect(conn net.Conn, addr string) (net.Conn, error) {
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr); err != nil {
		return nil, fmt.Errorf("sending the request to the app's network proxy failed: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, fmt.Errorf("the app's network proxy gave no valid answer for %s: %w", addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxProxyMessage))
		resp.Body.Close()
		return nil, &ProxyError{Target: addr, Status: resp.StatusCode, Message: strings.TrimSpace(string(msg))}
	}
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn reads what the CONNECT answer's reader had already taken before the rest.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
