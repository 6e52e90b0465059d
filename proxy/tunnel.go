package proxy

import (
	"bufio"
	"io"
	"net"
)

// tunnel copies both ways until both sides have finished sending; an end of input is passed
// on as a half-close, an error ends both ways at once.
func tunnel(client net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := io.Copy(client, up)
		finish(client, up, err)
	}()
	var err error
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		_, err = up.Write(b)
		_, _ = br.Discard(n)
	}
	if err == nil {
		// From the socket itself, not through br, so that Linux can splice.
		_, err = io.Copy(up, client)
	}
	finish(up, client, err)
	<-done
	client.Close()
	up.Close()
}

// finish passes on the end of one direction: a half-close of dst after a clean end, both
// connections closed after an error (or where half-close is not possible).
func finish(dst, src net.Conn, err error) {
	if err == nil {
		if cw, ok := dst.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			return
		}
	}
	dst.Close()
	src.Close()
}

// hopHeaders are the header fields that belong to one connection and are not forwarded.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}
