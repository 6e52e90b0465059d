package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 revision (SEP-2575) asks every message a client sends to carry, in its
// params' _meta, the protocol version and the client's capabilities. go-sdk v1.8 adds them to
// every request it builds, but the notifications/cancelled it sends by itself when a call's
// context ends while the call is in flight (Stop, or the app exiting while a server still
// starts) goes straight to the connection, past that code, without them. A server that
// checks (the official conformance suite does) then rejects the client.
//
// metaTransport mends that on the wire, for one server's streamable HTTP connection: it keeps
// the _meta fields of the last request that carried them and adds them to a notification
// sent without a _meta. It never changes a message that has one, a request, or anything
// when no request carried the fields (an older revision was negotiated).
type metaTransport struct {
	base http.RoundTripper

	mu   sync.Mutex
	meta json.RawMessage // the _meta of the last request that carried the protocol version
}

// withSessionMeta returns a client whose requests go through a metaTransport of their own.
func withSessionMeta(base *http.Client) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &metaTransport{base: rt}
	return &c
}

// protocolVersionHeader is the HTTP header the streamable transport names the negotiated
// revision in, on every message after the first.
const protocolVersionHeader = "Mcp-Protocol-Version"

// rpcMessage is the part of a JSON-RPC message the transport reads: whether it is a request
// (an id) and its params, kept raw so nothing else in them changes.
type rpcMessage struct {
	ID     json.RawMessage            `json:"id"`
	Params map[string]json.RawMessage `json:"params"`
}

func (t *metaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.GetBody == nil {
		return t.base.RoundTrip(r)
	}
	rc, err := r.GetBody()
	if err != nil {
		return t.base.RoundTrip(r)
	}
	body, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return t.base.RoundTrip(r)
	}
	isRequest := bytes.Contains(body, []byte(`"id"`))
	hasMeta := bytes.Contains(body, []byte(`"_meta"`))
	switch {
	case isRequest && hasMeta && bytes.Contains(body, []byte(sdk.MetaKeyProtocolVersion)):
		t.remember(body)
	case !hasMeta:
		if mended, ok := t.mend(body, r.Header.Get(protocolVersionHeader)); ok {
			r = r.Clone(r.Context())
			r.Body = io.NopCloser(bytes.NewReader(mended))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(mended)), nil }
			r.ContentLength = int64(len(mended))
		}
	}
	return t.base.RoundTrip(r)
}

// remember keeps a request's _meta, when it holds the protocol version.
func (t *metaTransport) remember(body []byte) {
	var m rpcMessage
	if json.Unmarshal(body, &m) != nil || m.ID == nil {
		return
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m.Params["_meta"], &meta) != nil || meta[sdk.MetaKeyProtocolVersion] == nil {
		return
	}
	t.mu.Lock()
	t.meta = m.Params["_meta"]
	t.mu.Unlock()
}

// mend adds the remembered _meta to a notification that has none, when it names the
// version the notification is sent under (its header): a client that fell back to an older
// revision after its first choice was refused sends no _meta, and a server of that revision
// may refuse a message with one.
func (t *metaTransport) mend(body []byte, headerVersion string) ([]byte, bool) {
	t.mu.Lock()
	meta := t.meta
	t.mu.Unlock()
	if meta == nil || headerVersion == "" {
		return nil, false
	}
	var fields map[string]json.RawMessage
	var version string
	if json.Unmarshal(meta, &fields) != nil || json.Unmarshal(fields[sdk.MetaKeyProtocolVersion], &version) != nil || version != headerVersion {
		return nil, false
	}
	var whole map[string]json.RawMessage
	var m rpcMessage
	if json.Unmarshal(body, &whole) != nil || json.Unmarshal(body, &m) != nil || m.ID != nil || whole["method"] == nil {
		return nil, false
	}
	if m.Params == nil {
		m.Params = map[string]json.RawMessage{}
	}
	if _, ok := m.Params["_meta"]; ok {
		return nil, false
	}
	m.Params["_meta"] = meta
	params, err := json.Marshal(m.Params)
	if err != nil {
		return nil, false
	}
	whole["params"] = params
	mended, err := json.Marshal(whole)
	if err != nil {
		return nil, false
	}
	return mended, true
}
