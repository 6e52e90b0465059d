package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is the SDK's CommandTransport with one difference: a line on the server's
// stdout that is not a JSON-RPC message (a banner, a log line of a server that logs to
// stdout) is skipped and written to the server's log (its stderr tail, which Settings and
// errors show) instead of ending the connection. MCP messages are JSON objects, or arrays
// for the batches of older revisions, one per line, so a line's first non-blank byte tells
// them apart.
type stdioTransport struct {
	cmd  *exec.Cmd
	kill context.CancelFunc
	log  io.Writer
	// done is closed when stdout has been read to its end.
	done chan struct{}
	// hello is written to stdin first (a server started elsewhere: elsewhere.go).
	hello []byte

	waitOnce sync.Once
	waitErr  error
}

// wait reaps the server's supervisor once, however many parties want it gone.
func (t *stdioTransport) wait() error {
	t.waitOnce.Do(func() { t.waitErr = t.cmd.Wait() })
	return t.waitErr
}

// closeGrace is how long closing stdin waits for the server to exit before its tree is
// killed. The app kills the tree before it closes a session, so this only matters for a
// connection the SDK itself closes.
const closeGrace = time.Second

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		defer close(t.done)
		pw.CloseWithError(skipNonJSON(stdout, pw, t.log))
	}()
	if len(t.hello) > 0 {
		if _, err := stdin.Write(t.hello); err != nil {
			// The caller kills the process, and the reader above ends with it.
			return nil, fmt.Errorf("the server's process ended before it started: %w", err)
		}
	}
	return (&sdk.IOTransport{Reader: pr, Writer: &serverStdin{WriteCloser: stdin, t: t}}).Connect(ctx)
}

// serverStdin closes the connection the way the protocol asks (close stdin, wait for the
// exit), then kills the tree if the server lingers, and reaps it.
type serverStdin struct {
	io.WriteCloser
	t *stdioTransport
}

func (w *serverStdin) Close() error {
	err := w.WriteCloser.Close()
	exited := make(chan error, 1)
	go func() { exited <- w.t.wait() }()
	timer := time.NewTimer(closeGrace)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		w.t.kill()
		<-exited
	}
	return err
}

// maxSkippedLog bounds how much of one skipped line reaches the log.
const maxSkippedLog = 200

// skipNonJSON copies the JSON-RPC lines of src to dst and writes every other line, cut, to
// log. It returns when src ends (nil at EOF) or dst is closed.
func skipNonJSON(src io.Reader, dst io.Writer, log io.Writer) error {
	br := bufio.NewReaderSize(src, 64*1024)
	atStart, passing := true, true
	var skipped []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if atStart {
				trimmed := bytes.TrimLeft(chunk, " \t\r\n")
				passing = len(trimmed) == 0 || trimmed[0] == '{' || trimmed[0] == '['
				skipped = skipped[:0]
			}
			if passing {
				if _, werr := dst.Write(chunk); werr != nil {
					return werr
				}
			} else if len(skipped) < maxSkippedLog {
				skipped = append(skipped, chunk[:min(len(chunk), maxSkippedLog-len(skipped))]...)
			}
			atStart = err == nil // the chunk ended with its newline
			if atStart && !passing {
				fmt.Fprintf(log, "[a line on stdout that is not MCP was skipped: %s]\n", bytes.TrimSpace(skipped))
			}
		}
		switch {
		case err == nil, err == bufio.ErrBufferFull:
		case err == io.EOF:
			return nil
		default:
			return err
		}
	}
}
