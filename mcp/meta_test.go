package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call stopped while it is in flight (Stop, or the app exiting while a server still
// starts) makes go-sdk send notifications/cancelled by itself. Under the 2026-07-28 revision
// that message, like every other, must carry the protocol version and the client's
// capabilities in its _meta (SEP-2575); the SDK's own copy has none, and the conformance
// suite's request-metadata scenario failed on it.
func TestCancellationCarriesTheRevisionsMeta(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "waits", Version: "1"}, nil)
	started := make(chan struct{}, 1)
	server.AddTool(&sdk.Tool{Name: "wait", Description: "Waits until it is cancelled.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	received := make(chan message, 64)
	// The 2026-07-28 revision is served by a stateless handler only.
	sdkHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m message
			if json.Unmarshal(body, &m) == nil {
				received <- m
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdkHandler.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpServer := &http.Server{Handler: handler}
	go httpServer.Serve(ln)
	t.Cleanup(func() { httpServer.Close() })

	// The server's own connection, as a conversation's set starts it, with the call stopped
	// while the server stays up: that is when the SDK's notification goes out (a stopped
	// server's closing connection may drop it).
	url := "http://" + ln.Addr().String()
	srv, err := startServer(context.Background(), "waits", ServerConfig{URL: url}, launch{}, nil, nil, FixedHub(Config{}, Options{}).storedAuth(url))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := srv.call(ctx, "wait", []byte(`{}`), nil); ctx.Err() == nil {
		t.Fatalf("the call ended before it was stopped: %v", err)
	}

	var version json.RawMessage
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-received:
			if m.ID != nil && m.Params.Meta[sdk.MetaKeyProtocolVersion] != nil {
				version = m.Params.Meta[sdk.MetaKeyProtocolVersion]
			}
			if m.Method != "notifications/cancelled" {
				continue
			}
			if version == nil {
				t.Fatal("no request carried the protocol version in its _meta: the revision negotiated is not the one this test is about")
			}
			if got := m.Params.Meta[sdk.MetaKeyProtocolVersion]; !bytes.Equal(got, version) {
				t.Fatalf("notifications/cancelled carries protocol version %s in its _meta, want %s (the requests')", got, version)
			}
			if m.Params.Meta[sdk.MetaKeyClientCapabilities] == nil {
				t.Fatalf("notifications/cancelled has no client capabilities in its _meta: %v", m.Params.Meta)
			}
			return
		case <-timeout:
			t.Fatal("the server never received notifications/cancelled for the stopped call")
		}
	}
}
