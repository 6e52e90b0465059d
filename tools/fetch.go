package tools

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/webfetch"
)

// FetchURL fetches a web page for the model (fetch_url) the way the conversation's mode lets
// its commands reach the network — the one mapping, SandboxPolicy: Unrestricted directly,
// Project through the conversation's socket of the app's proxy (so a new host gets the same
// card a command's connection gets), Restricted and any mode this build does not know not at
// all. The page comes back as Markdown (package webfetch), cut like bash output.
type FetchURL struct {
	// tlsConfig replaces the system's roots; tests trust their own servers with it.
	tlsConfig *tls.Config
}

// NewFetchURL returns the fetch_url tool.
func NewFetchURL() *FetchURL { return &FetchURL{} }

// Name is the catalogue name.
func (*FetchURL) Name() string { return domain.ToolFetchURL }

type fetchArgs struct {
	URL        string `json:"url"`
	StartIndex int64  `json:"start_index"`
}

// The refusals that depend on the mode, in their one place.
const (
	fetchRefusedRestricted = "fetch_url is unavailable in Restricted mode: this conversation has no network. " +
		"Call request_mode_upgrade with your reason to ask the person for Project mode (the network through the app's proxy, " +
		"to the hosts they allow), then call fetch_url again."
	fetchRefusedNoProxy = "fetch_url cannot reach the network: the app's network proxy is not running for this conversation " +
		"(the person was told why), and in Project mode the network is reached only through it. Ask the person to check " +
		"`phoenix-desktop doctor`, or to switch to Unrestricted mode."
)

// Run fetches the page and returns the part of its Markdown that start_index asks for.
func (f *FetchURL) Run(ctx context.Context, env Env, raw json.RawMessage) Output {
	var args fetchArgs
	if err := decodeArgs(f.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	if strings.TrimSpace(args.URL) == "" {
		return errorf("url is empty: give the address of a page, starting with https:// or http://.")
	}
	if args.StartIndex < 0 {
		return errorf("start_index must be 0 or more; it was %d.", args.StartIndex)
	}
	opts := webfetch.Options{
		Timeout:      domain.FetchTimeoutSeconds * time.Second,
		MaxRedirects: domain.FetchMaxRedirects,
		MaxBodyBytes: domain.FetchMaxBodyBytes,
		TLSConfig:    f.tlsConfig,
	}
	switch policy := SandboxPolicy(env); {
	case policy.Unrestricted:
		opts.Direct = true
	case policy.Project != nil && policy.Project.ProxySocket != "":
		opts.ProxySocket = policy.Project.ProxySocket
	case policy.Project != nil:
		return errorf("%s", fetchRefusedNoProxy)
	default:
		return errorf("%s", fetchRefusedRestricted)
	}
	page, err := webfetch.Fetch(ctx, args.URL, opts)
	if err != nil {
		return fetchFailed(ctx, args.URL, err)
	}
	return pageOutput(page, args.URL, args.StartIndex)
}

// fetchFailed says what went wrong and what the model can do about it.
func fetchFailed(ctx context.Context, address string, err error) Output {
	if ctx.Err() != nil {
		return cancelled("Cancelled by the user before the page arrived.")
	}
	var (
		pe  *webfetch.ProxyError
		be  *webfetch.BinaryError
		tm  *webfetch.TooManyRedirectsError
		toe *webfetch.TimeoutError
	)
	switch {
	case errors.As(err, &pe) && pe.Refused():
		return errorf("The app's network proxy did not let fetch_url reach %s:\n%s", pe.Target, pe.Message)
	case errors.As(err, &pe):
		return errorf("The app's network proxy could not reach %s: %s", pe.Target, pe.Message)
	case errors.As(err, &be):
		return errorf("%s is %s, not text: fetch_url reads web pages and other text only. "+
			"To look at an image, save it into the working tree with bash (curl -o) and call read_image.", be.URL, be.MediaType)
	case errors.As(err, &tm):
		return errorf("fetch_url %s: the address redirects in a loop or too often. Try the last address yourself, or another source.", tm.Error())
	case errors.As(err, &toe):
		return errorf("fetch_url gave up on %s: %s. Try again later or another source.", address, toe.Error())
	}
	return errorf("fetch_url could not fetch %s: %v", address, err)
}

// pageOutput is the page for the model: a short header, then the part of the text from
// start, cut at OutputLimit with the start_index that continues it.
func pageOutput(p *webfetch.Page, asked string, start int64) Output {
	text := p.Text
	if start > int64(len(text)) {
		return errorf("start_index %d is past the end: the page's text has %d bytes.", start, len(text))
	}
	part, next := window(text, start, OutputLimit)

	var b strings.Builder
	kind := p.MediaType
	if p.HTML {
		kind += ", converted to Markdown"
	}
	fmt.Fprintf(&b, "%s (HTTP %s, %s)\n", p.URL, p.StatusText, kind)
	if p.Redirects > 0 {
		fmt.Fprintf(&b, "Redirected %s from %s\n", times(p.Redirects), asked)
	}
	if p.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.Title)
	}
	b.WriteString("\n")
	switch {
	case strings.TrimSpace(text) == "" && p.HTML:
		b.WriteString("(The page has no text. It may be built by JavaScript, which fetch_url does not run: look for an API or the raw file instead.)\n")
	case strings.TrimSpace(text) == "":
		b.WriteString("(The answer is empty.)\n")
	default:
		b.WriteString(withNewline(part))
	}
	if start > 0 || next < int64(len(text)) {
		fmt.Fprintf(&b, "\n[This is bytes %d to %d of %s of text.", start, next, domain.FormatBytes(int64(len(text))))
		if next < int64(len(text)) {
			fmt.Fprintf(&b, " Call fetch_url again with start_index %d to read on.", next)
		}
		b.WriteString("]\n")
	}
	if p.BodyCut {
		fmt.Fprintf(&b, "[The page is larger than %s; only its first %s were read.]\n",
			domain.FormatBytes(domain.FetchMaxBodyBytes), domain.FormatBytes(domain.FetchMaxBodyBytes))
	}

	outcome := domain.OutcomeSuccess
	if p.Status < 200 || p.Status > 299 {
		outcome = domain.OutcomeError
	}
	summary := []string{fmt.Sprint(p.Status), hostOf(p.URL), domain.FormatBytes(int64(len(text)))}
	if next < int64(len(text)) || start > 0 || p.BodyCut {
		summary = append(summary, "cut")
	}
	return Output{Outcome: outcome, Content: b.String(), Display: &domain.ToolDisplay{Summary: strings.Join(summary, " · ")}}
}

// window returns text from start (moved forward to a character's start) up to about limit
// bytes, ending at a line's end when one is in the second half, and where the next part
// starts.
func window(text string, start int64, limit int) (string, int64) {
	for start < int64(len(text)) && !utf8.RuneStart(text[start]) {
		start++
	}
	end := start + int64(limit)
	if end >= int64(len(text)) {
		return text[start:], int64(len(text))
	}
	for end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	if nl := strings.LastIndexByte(text[start:end], '\n'); nl >= limit/2 {
		end = start + int64(nl) + 1
	}
	return text[start:end], end
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func hostOf(address string) string {
	if u, err := url.Parse(address); err == nil && u.Host != "" {
		return u.Host
	}
	return address
}
