package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"
)

// The pair behind Project mode's target "an allowed HTTPS connection through the proxy adds
// at most 1 ms p50 over a direct one (local server)": each operation opens a new connection,
// shakes hands with TLS and fetches a small answer, directly or through the unix socket with
// CONNECT. Compare the p50-ms metrics of the two (go test -bench HTTPS -run '^$' ./proxy).

func BenchmarkHTTPSDirect(b *testing.B) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	tr := &http.Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	benchGets(b, &http.Client{Transport: tr}, srv.URL)
}

func BenchmarkHTTPSThroughProxy(b *testing.B) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	h := newHarness(b, nil)
	u, _ := url.Parse(srv.URL)
	if err := h.rules.Allow(testProject, "127.0.0.1:"+u.Port()); err != nil {
		b.Fatal(err)
	}
	c := client(b, h.sock, srv.Client().Transport.(*http.Transport).TLSClientConfig)
	benchGets(b, c, srv.URL)
}

func benchGets(b *testing.B, c *http.Client, u string) {
	get := func() {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get() // warm up
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		get()
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
}
