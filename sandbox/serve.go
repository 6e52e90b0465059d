//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeFrame sends v as one length-prefixed JSON message, with fds attached to its first
// byte.
func writeFrame(c *net.UnixConn, v any, fds ...int) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 4+len(body))
	binary.LittleEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	n, _, err := c.WriteMsgUnix(buf, oob, nil)
	if err != nil {
		return err
	}
	if n < len(buf) {
		_, err = c.Write(buf[n:])
	}
	return err
}

// readFrame receives one message into v and returns the descriptors that came with it
// (close-on-exec).
func readFrame(c *net.UnixConn, v any) ([]int, error) {
	var hdr [4]byte
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := c.ReadMsgUnix(hdr[:], oob)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, io.EOF
	}
	var fds []int
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return nil, fmt.Errorf("parse the attached files: %w", err)
		}
		for _, m := range msgs {
			rights, err := unix.ParseUnixRights(&m)
			if err == nil {
				fds = append(fds, rights...)
			}
		}
		for _, fd := range fds {
			unix.CloseOnExec(fd)
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
	}
	if n < len(hdr) {
		if _, err := io.ReadFull(c, hdr[n:]); err != nil {
			closeAll()
			return nil, err
		}
	}
	size := binary.LittleEndian.Uint32(hdr[:])
	if size > maxFrameBytes {
		closeAll()
		return nil, fmt.Errorf("a message of %d bytes is larger than the %d allowed", size, maxFrameBytes)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(c, body); err != nil {
		closeAll()
		return nil, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		closeAll()
		return nil, fmt.Errorf("decode a message: %w", err)
	}
	return fds, nil
}

// incoming is one message as the supervisor received it.
type incoming struct {
	msg message
	fds []int
}

// serve is the long-lived supervisor: it runs the commands that arrive on descriptor 3 one
// at a time, answers each with its status, and ends, after sweeping, when the app closes the
// socket or dies (SIGTERM from the parent-death signal).
func serve(view, project bool) int {
	f := os.NewFile(3, "sandbox-supervisor")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return setupFailed(fmt.Errorf("use the socket to the app: %w", err))
	}
	conn := c.(*net.UnixConn)
	fail := func(err error) int {
		_ = writeFrame(conn, outcome{SetupError: err.Error()})
		return setupFailed(err)
	}
	shm := false
	if view {
		if shm, err = setUpView(); err != nil {
			return fail(err)
		}
	}
	stop, err := becomeSupervisor()
	if err != nil {
		return fail(err)
	}
	devNull, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("open /dev/null: %w", err))
	}
	if err := writeFrame(conn, outcome{}); err != nil {
		return 0
	}
	msgs := make(chan incoming)
	go func() {
		defer close(msgs)
		for {
			var m message
			fds, err := readFrame(conn, &m)
			if err != nil {
				return
			}
			msgs <- incoming{m, fds}
		}
	}()
	// A thread restricted, once a command has been answered, for a next one like it
	// (restrictedThread).
	var ahead *restrictedThread
	// The environment of the last request, for one that has the same (runRequest.SameEnv).
	var lastEnv []string
	haveEnv := false
	for {
		var in incoming
		select {
		case <-stop:
			return 0
		case m, ok := <-msgs:
			if !ok {
				return 0
			}
			in = m
		}
		if in.msg.Run != nil {
			if !in.msg.Run.SameEnv {
				lastEnv, haveEnv = in.msg.Run.Env, true
			} else if haveEnv {
				// Clipped, so that nothing appended for one command lands in the next's.
				in.msg.Run.Env = slices.Clip(lastEnv)
			} else {
				closeFds(in.fds)
				_ = writeFrame(conn, outcome{SetupError: "the request named an environment the supervisor had not received"})
				continue
			}
		}
		if in.msg.Run == nil || len(in.fds) < 2 || len(in.fds) > 4 {
			// A stop for a command that has ended already, or a malformed request.
			closeFds(in.fds)
			if in.msg.Run != nil {
				_ = writeFrame(conn, outcome{SetupError: "the request did not carry the output pipes"})
			}
			continue
		}
		in.msg.Run.MountView = view
		in.msg.Run.Shm = shm
		tempDirFd, proxyFd := -1, -1
		if len(in.fds) >= 3 {
			tempDirFd = in.fds[2]
		}
		if len(in.fds) == 4 {
			proxyFd = in.fds[3]
		}
		if (in.msg.Run.Project != nil) != project {
			closeFds(in.fds)
			_ = writeFrame(conn, outcome{SetupError: "a command was sent to a supervisor of the wrong kind (Project or not)"})
			continue
		}
		var ran helperConfig
		o, quit := runOne(*in.msg.Run, launch{files: [3]int{devNull, in.fds[0], in.fds[1]}, dir: in.msg.Run.Dir, env: in.msg.Run.Env}, tempDirFd, proxyFd, msgs, stop, ahead, &ran)
		ahead = nil
		// Closed before the answer: the app reads the output to its end once it has it.
		closeFds(in.fds)
		if quit {
			return 0
		}
		if err := writeFrame(conn, o); err != nil {
			return 0
		}
		if shm {
			// After the answer, which does not wait for it, and before the next request
			// is read, which must find /dev/shm empty.
			emptyShm()
		}
		if ran.Restricted && ran.MountView && o.SetupError == "" {
			// The next command of a conversation most often has the same policy, in
			// Project mode too (the tree's and repository's rules hold their directories,
			// and a new binding of the tree ends the thread: boundTree.unbind); should
			// this fail, that command restricts a thread of its own and reports why.
			ahead, _ = restrictThread(ran)
		}
	}
}

// runOne runs one command for serve. quit reports that the app is gone (the socket closed,
// or a signal), after which the supervisor ends. ahead is a thread restricted ahead, which
// runOne uses or ends (restrictedThread); ran receives the policy the command ran under.
func runOne(req runRequest, l launch, tempDirFd, proxyFd int, msgs <-chan incoming, stop <-chan os.Signal, ahead *restrictedThread, ran *helperConfig) (o outcome, quit bool) {
	defer ahead.end()
	if req.Restricted && req.TempDir == "" {
		return outcome{SetupError: "a restricted policy needs a temp dir"}, false
	}
	if req.MountView {
		if !req.Restricted {
			return outcome{SetupError: "an unrestricted command was sent to a supervisor in the mount view"}, false
		}
		if tempDirFd < 0 {
			return outcome{SetupError: "the request did not carry the temp dir"}, false
		}
		if err := prepareView(req.helperConfig, tempDirFd); err != nil {
			return outcome{SetupError: err.Error()}, false
		}
		req.Mounted = writableTempDir.caches
		if req.Project != nil {
			r, err := prepareProject(req.helperConfig, proxyFd)
			if err != nil {
				finishProject()
				return outcome{SetupError: err.Error()}, false
			}
			l.env = withGitShim(r.proxyEnv(l.env), req.TempDir, req.Project.Tree)
			defer func() { o.Notes = append(o.Notes, finishProject()...) }()
		}
	}
	// A stop or the app's end during set-up is seen only here, before the command may run.
	var pending *incoming
	stopped := func() bool {
		select {
		case <-stop:
			quit = true
			return true
		case m, ok := <-msgs:
			if !ok {
				quit = true
				return true
			}
			if m.msg.Stop {
				closeFds(m.fds)
				return true
			}
			pending = &m
		default:
		}
		return false
	}
	*ran = req.helperConfig
	pid, err := startCommand(req.helperConfig, req.Script, l, stopped, ahead)
	if err != nil {
		return outcome{SetupError: err.Error()}, quit
	}
	if pid == 0 {
		return outcome{Status: 128 + int(syscall.SIGKILL)}, quit
	}
	// Only ever true for a thread that fitted: one that did not was ended, not forked from.
	o.Ahead = ahead != nil && ahead.forked
	if pending != nil {
		// A second command while one runs: the app never sends one, so refuse it.
		closeFds(pending.fds)
	}
	status, _ := waitOrStop(pid, func(exited <-chan unix.WaitStatus) (unix.WaitStatus, bool) {
		for {
			select {
			case ws := <-exited:
				return ws, true
			case <-stop:
				quit = true
				return 0, false
			case m, ok := <-msgs:
				if !ok {
					quit = true
					return 0, false
				}
				closeFds(m.fds)
				if m.msg.Stop {
					return 0, false
				}
			}
		}
	})
	o.Status = status
	return o, quit
}

func closeFds(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}
