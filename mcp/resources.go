package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/tools"
)

// Resources the person attaches to a message (issue 26): the composer completes "@" with the
// conversation's resources and writes a reference, "@SERVER:URI"; when the message is sent,
// each reference is read and its text is added to the message under a heading that names it
// (an image goes with the message as an image). The model's own way to open a resource is the
// read_resource tool (features.go).

// maxListedPerServer bounds the resources one server contributes to the composer's list.
const maxListedPerServer = 200

// Resource is one resource a server offers.
type Resource struct {
	Server, URI, Name, Title, Description, MIMEType string
}

// Ref is how the composer and the CLI write a reference to the resource: "@SERVER:URI".
func (r Resource) Ref() string { return "@" + r.Server + ":" + r.URI }

// Label is the resource's name for a menu.
func (r Resource) Label() string { return cmp(r.Title, cmp(r.Name, r.URI)) }

// refRE finds references in a message: "@", a server name (as config names are), ":", and a
// URI up to the next white space.
var refRE = regexp.MustCompile(`(^|\s)@([A-Za-z0-9_.-]+):(\S+)`)

// Refs returns the references a message holds, in order, each once.
func Refs(text string) []Resource {
	var out []Resource
	seen := map[string]bool{}
	for _, m := range refRE.FindAllStringSubmatch(text, -1) {
		r := Resource{Server: m[2], URI: strings.TrimRight(m[3], ".,;:!?)")}
		if !seen[r.Ref()] {
			seen[r.Ref()] = true
			out = append(out, r)
		}
	}
	return out
}

// readyServers are the set's running servers, by name.
func (s *Set) readyServers() []*server {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ready []*server
	for _, name := range slices.Sorted(maps.Keys(s.entries)) {
		if e := s.entries[name]; e.state == entryReady {
			ready = append(ready, e.srv)
		}
	}
	return ready
}

// Resources lists the resources of the conversation's ready servers (a server still starting
// is left out; it never waits for one), by server, at most maxListedPerServer each.
func (s *Set) Resources(ctx context.Context) ([]Resource, error) {
	var out []Resource
	var errs []error
	for _, srv := range s.readyServers() {
		if !srv.hasResources() {
			continue
		}
		n := 0
		for r, err := range srv.session.Resources(ctx, nil) {
			if err != nil {
				errs = append(errs, fmt.Errorf("list the resources of MCP server %s: %w", srv.name, err))
				break
			}
			out = append(out, Resource{Server: srv.name, URI: r.URI, Name: r.Name, Title: r.Title,
				Description: firstLine(r.Description), MIMEType: r.MIMEType})
			if n++; n == maxListedPerServer {
				break
			}
		}
	}
	return out, errors.Join(errs...)
}

// ResourceContents is a resource as it joins a message: its text (capped like any output),
// and its images.
type ResourceContents struct {
	Text   string
	Images []ResourceImage
}

// ResourceImage is one image a resource holds.
type ResourceImage struct {
	Name     string
	MIMEType string
	Data     []byte
}

// ReadResource reads one resource of a ready server.
func (s *Set) ReadResource(ctx context.Context, server, uri string) (ResourceContents, error) {
	srv, err := s.readyServer(server)
	if err != nil {
		return ResourceContents{}, err
	}
	res, err := srv.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return ResourceContents{}, fmt.Errorf("read %s from MCP server %s: %w", uri, server, err)
	}
	text, images := resourceContents(res, true)
	out := ResourceContents{Images: images}
	out.Text, _ = tools.CapOutput(text)
	return out, nil
}

// readyServer is a running server of the conversation, or an error that says it is not.
func (s *Set) readyServer(name string) (*server, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[name]
	if e == nil || e.state != entryReady {
		return nil, fmt.Errorf("the MCP server %s is not running in this conversation", name)
	}
	return e.srv, nil
}

// resourceContents is a resource's text, its parts one a line. Binary parts are named in the
// text as left out, except images when withImages, which are returned to go with a message.
func resourceContents(res *sdk.ReadResourceResult, withImages bool) (string, []ResourceImage) {
	var b strings.Builder
	var images []ResourceImage
	for _, c := range res.Contents {
		if withImages && c.Text == "" && len(c.Blob) > 0 && strings.HasPrefix(c.MIMEType, "image/") {
			images = append(images, ResourceImage{Name: c.URI, MIMEType: c.MIMEType, Data: c.Blob})
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if c.Text != "" || len(c.Blob) == 0 {
			b.WriteString(c.Text)
		} else {
			fmt.Fprintf(&b, "[%s (%s, %d bytes of binary data) left out]", c.URI, c.MIMEType, len(c.Blob))
		}
	}
	return b.String(), images
}

// PromptArgs gives the words typed after a prompt's name to its arguments in order, the last
// taking the rest of the line: one rule for the composer's menu and for chat --prompt.
func PromptArgs(p Prompt, typed string) map[string]string {
	out := map[string]string{}
	rest := strings.TrimSpace(typed)
	for i, a := range p.Arguments {
		if rest == "" {
			break
		}
		if i == len(p.Arguments)-1 {
			out[a.Name] = rest
			break
		}
		word, after, _ := strings.Cut(rest, " ")
		out[a.Name] = word
		rest = strings.TrimSpace(after)
	}
	return out
}

// Has reports whether the conversation has a server of that name (started or not): a
// reference to any other name is left as the person wrote it.
func (s *Set) Has(server string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.entries[server]
	return ok
}
