package remotetest

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestRelayDelaysKeepsOrderAndPassesTheEnd: through the relay, an echo's answer comes no
// sooner than two delays after the question, every byte comes back in order, and a half close
// of the client reaches the server after the bytes before it (the server then ends, which
// reaches the client).
func TestRelayDelaysKeepsOrderAndPassesTheEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- -1
			return
		}
		n, _ := io.Copy(c, c) // echoes until the client's end arrives
		_ = c.Close()
		served <- n
	}()
	const delay = 30 * time.Millisecond
	r, err := startRelay(ln.Addr().String(), delay)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	c, err := net.Dial("tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	start := time.Now()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if rtt := time.Since(start); rtt < 2*delay {
		t.Errorf("a round trip through the relay took %v, less than two delays of %v", rtt, delay)
	}

	var sent bytes.Buffer
	for i := range 2000 {
		chunk := bytes.Repeat([]byte{byte(i)}, 1+i%97)
		sent.Write(chunk)
		if _, err := c.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(c) // ends when the server's close has come through
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, sent.Bytes()) {
		t.Fatalf("%d bytes came back of %d sent, or not in order", len(back), sent.Len())
	}
	if n := <-served; n != int64(4+sent.Len()) {
		t.Errorf("the server echoed %d bytes", n)
	}
}
