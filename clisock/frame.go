package clisock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Version is the protocol version a client announces in its Hello; a server of another
// version refuses, so a client built from other sources never talks to an app it does not
// match.
const Version = 1

// Kind is the first byte of a frame: what its payload is.
type Kind byte

// The frames. A client sends Hello first, then Stdin (an answer to a StdinRead; an empty one
// is end of input) and Signal at any time; the server sends Stdout, Stderr and StdinRead,
// and Exit last.
const (
	Hello     Kind = 'H' // client: the command (JSON of Request)
	Stdin     Kind = 'I' // client: bytes read from its standard input, empty at end of input
	Signal    Kind = 'S' // client: a signal it received (4 bytes, big-endian number)
	Stdout    Kind = 'O' // server: bytes for the client's standard output
	Stderr    Kind = 'E' // server: bytes for the client's standard error
	StdinRead Kind = 'R' // server: the command reads standard input (4 bytes: at most so many)
	Exit      Kind = 'X' // server: the command's exit code (4 bytes), the last frame
)

// MaxPayload bounds one frame, so a broken peer cannot make the other allocate without
// limit; writers split longer output.
const MaxPayload = 1 << 20

// Request is a Hello's payload: what the person typed and where.
type Request struct {
	Version int      `json:"version"`
	Args    []string `json:"args"`
	// Cwd is the client's working directory: relative paths in Args are relative to it.
	Cwd string `json:"cwd"`
	// StdinTerminal says the client's standard input is a terminal (a question can be
	// asked on it).
	StdinTerminal bool `json:"stdin_terminal"`
}

// Conn reads and writes frames. Writes may come from several goroutines; reads from one.
type Conn struct {
	c  net.Conn
	mu sync.Mutex
}

// NewConn wraps a connection.
func NewConn(c net.Conn) *Conn { return &Conn{c: c} }

// Close closes the connection; a blocked read or write returns.
func (c *Conn) Close() error { return c.c.Close() }

// Raw is the underlying connection (for the peer check and deadlines).
func (c *Conn) Raw() net.Conn { return c.c }

// Write sends one frame, or several when p is longer than MaxPayload.
func (c *Conn) Write(k Kind, p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for first := true; first || len(p) > 0; first = false {
		n := min(len(p), MaxPayload)
		var head [5]byte
		head[0] = byte(k)
		binary.BigEndian.PutUint32(head[1:], uint32(n))
		if _, err := c.c.Write(append(head[:], p[:n]...)); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// WriteInt sends a frame whose payload is one number (Signal, StdinRead, Exit).
func (c *Conn) WriteInt(k Kind, n int) error {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(int32(n)))
	return c.Write(k, b[:])
}

// Read returns the next frame.
func (c *Conn) Read() (Kind, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(c.c, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > MaxPayload {
		return 0, nil, fmt.Errorf("a frame of %d bytes is over the limit of %d: the other side does not speak this protocol", n, MaxPayload)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c.c, p); err != nil {
		return 0, nil, err
	}
	return Kind(head[0]), p, nil
}

// Int reads the number of a Signal, StdinRead or Exit frame.
func Int(p []byte) (int, error) {
	if len(p) != 4 {
		return 0, errors.New("a number frame must have 4 bytes")
	}
	return int(int32(binary.BigEndian.Uint32(p))), nil
}

// Writer is an io.Writer that sends what is written as frames of one kind (Stdout, Stderr).
type Writer struct {
	C    *Conn
	Kind Kind
}

func (w Writer) Write(p []byte) (int, error) {
	if err := w.C.Write(w.Kind, p); err != nil {
		return 0, err
	}
	return len(p), nil
}
