package bench

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/phoenix-desktop/phoenix/proxy"
)

// proxyRowName is the row the Project-mode target is held to.
const proxyRowName = "HTTPS connection through the proxy, added (paired difference)"

// proxyRows measures Project mode's network path: a new HTTPS connection (TCP, TLS handshake,
// one small GET) to a local server, directly and through the proxy's unix socket with
// CONNECT, one right after the other in each sample.
func proxyRows(ctx context.Context, o Options) ([]Row, error) {
	dir, err := os.MkdirTemp("", "phx-bench-proxy-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	ln, pool, err := localTLSListener()
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	target := "https://127.0.0.1:" + port + "/"

	rules, err := proxy.LoadRules(filepath.Join(dir, "allowed-hosts.json"))
	if err != nil {
		return nil, err
	}
	const project = "/bench/project"
	if err := rules.Allow(project, "127.0.0.1:"+port); err != nil {
		return nil, err
	}
	px, err := proxy.Start(proxy.Options{Dir: filepath.Join(dir, "s"), Rules: rules})
	if err != nil {
		return nil, err
	}
	defer px.Close()
	sock, err := px.Listen(project, "bench")
	if err != nil {
		return nil, err
	}

	tlsConfig := &tls.Config{RootCAs: pool}
	direct := &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true}
	proxyURL, _ := url.Parse("http://proxy.invalid")
	proxied := &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true, Proxy: http.ProxyURL(proxyURL),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}
	defer direct.CloseIdleConnections()
	defer proxied.CloseIdleConnections()
	get := func(tr *http.Transport) (float64, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		start := time.Now()
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, errors.New("the local server answered " + resp.Status)
		}
		return ms(time.Since(start)), err
	}
	var d, p, diff []float64
	for i := -1; i < samplesOf(o, 300, 10); i++ {
		a, err := get(direct)
		if err != nil {
			return nil, err
		}
		b, err := get(proxied)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			continue // warm-up
		}
		d, p, diff = append(d, a), append(p, b), append(diff, b-a)
	}
	r1 := summarise("HTTPS connection + GET, direct (local server)", "ms", 0, d)
	r2 := summarise("HTTPS connection + GET, through the proxy", "ms", 0, p)
	r2.Note = "CONNECT over the conversation's unix socket, the rules checked, a tunnel to the same local server"
	r3 := differenceRow(proxyRowName, 1, diff, "each sample: through the proxy minus the direct connection just before it; negative values are noise")
	return []Row{r1, r2, r3}, nil
}

// localTLSListener listens on 127.0.0.1 with a certificate made for this run.
func localTLSListener() (net.Listener, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "phoenix bench"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
	})
	if err != nil {
		return nil, nil, err
	}
	return ln, pool, nil
}
