package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/phoenix-desktop/phoenix/clisock"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// runThroughApp runs a command that uses the data directory inside the app that holds it,
// when one runs (cliserver.go), and reports whether it did. Without an app listening (no
// socket, or one a crashed app left) it returns false and the command runs on its own; the
// store's lock then removes the stale socket (commonFlags.openStore).
func runThroughApp(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 || !isServed(args[0]) {
		return 0, false
	}
	dir := dataDirArg(args[1:])
	if dir == "" {
		d, err := persistence.DefaultDir()
		if err != nil {
			return 0, false // the command says so itself
		}
		dir = d
	}
	path, err := clisock.Path(dir)
	if err != nil {
		return 0, false
	}
	conn, err := clisock.Dial(path)
	if err != nil {
		return 0, false
	}
	defer conn.Close()
	return runClient(conn, args, os.Stdin, stdout, stderr), true
}

// dataDirArg is the --data-dir a command line names, "" when none.
func dataDirArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != flagDataDir {
			continue
		}
		if hasValue {
			return value
		}
		if i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// localExitSignals is how many signals make the client give up on an app that does not
// answer them: the first stops the turn, the second makes chat exit without waiting (both
// done by the command in the app), a third ends the client itself.
const localExitSignals = 3

// errAppGone is what the client says when the app closes the connection before the command
// ended: the app quit (or crashed) while it ran.
var errAppGone = errors.New("the app closed the connection before the command finished (it quit or crashed); whatever the command did until then is stored: check with phoenix-desktop list, and run it again")

// runClient sends the command to the app, relays standard input as the command reads it and
// the signals chat stops on, prints what comes back, and returns the command's exit code.
func runClient(conn *clisock.Conn, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "phoenix-desktop: find the working directory: %v\n", err)
		return 1
	}
	hello, err := json.Marshal(clisock.Request{Version: clisock.Version, Args: args, Cwd: cwd,
		StdinTerminal: term.IsTerminal(int(stdin.Fd()))})
	if err != nil {
		fmt.Fprintln(stderr, "phoenix-desktop:", err)
		return 1
	}
	// A failed write is not the end: an app that refused the connection has sent its reason,
	// which the reads below print; without one they say the app is gone.
	_ = conn.Write(clisock.Hello, hello)
	done := make(chan struct{})
	defer close(done)
	sigs := make(chan os.Signal, localExitSignals)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1)
	defer signal.Stop(sigs)
	lost := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				n++
				if n >= localExitSignals {
					close(lost)
					conn.Close()
					return
				}
				_ = conn.WriteInt(clisock.Signal, int(sig.(syscall.Signal)))
			}
		}
	}()
	// One goroutine reads standard input, only as much as the command asks for.
	reads := make(chan int, 1)
	go func() {
		for {
			select {
			case <-done:
				return
			case n := <-reads:
				buf := make([]byte, n)
				k, err := stdin.Read(buf)
				if k > 0 {
					_ = conn.Write(clisock.Stdin, buf[:k])
				} else if err != nil {
					_ = conn.Write(clisock.Stdin, nil)
				}
			}
		}
	}()
	for {
		kind, p, err := conn.Read()
		if err != nil {
			select {
			case <-lost:
				fmt.Fprintln(stderr, "\nphoenix-desktop: the app did not end the command; stopped waiting for it")
				return exitInterrupted
			default:
			}
			fmt.Fprintln(stderr, "phoenix-desktop:", errAppGone)
			return 1
		}
		switch kind {
		case clisock.Stdout:
			_, _ = stdout.Write(p)
		case clisock.Stderr:
			_, _ = stderr.Write(p)
		case clisock.StdinRead:
			if n, err := clisock.Int(p); err == nil && n > 0 {
				select {
				case reads <- n:
				default: // a read is already on its way; the command reads one at a time
				}
			}
		case clisock.Exit:
			code, err := clisock.Int(p)
			if err != nil {
				return 1
			}
			return code
		}
	}
}
