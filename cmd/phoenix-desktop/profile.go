package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
	"syscall"
)

// EnvCPUProfile names a file that receives a CPU profile (go tool pprof) of the desktop app
// or of a headless chat: how one finds what keeps an idle window busy (issue 28) or what a
// headless tool round pays (issue 39), on a person's machine as in the bench. The profile runs from the start; each SIGUSR2 writes the one running and starts the
// next, in FILE.1, FILE.2, … (so `kill -USR2` twice profiles just the time between); quitting
// writes the last one. Time spent in C threads (a software OpenGL's rasterizer) is not in
// it: compare with the process's CPU time.
const EnvCPUProfile = "PHOENIX_CPU_PROFILE"

// startCPUProfile starts the profiles PHOENIX_CPU_PROFILE asks for, and returns the function
// that writes the last one; without the variable it does nothing.
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv(EnvCPUProfile)
	if path == "" {
		return func() {}
	}
	var (
		mu      sync.Mutex
		f       *os.File
		n       int
		stopped bool
	)
	// begin starts the next profile; called with mu held.
	begin := func() {
		name := path
		if n > 0 {
			name = fmt.Sprintf("%s.%d", path, n)
		}
		n++
		out, err := os.Create(name)
		if err == nil {
			if err = pprof.StartCPUProfile(out); err != nil {
				_ = out.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "phoenix-desktop: %s: %v; no profile is taken\n", EnvCPUProfile, err)
			return
		}
		f = out
	}
	// end writes the running profile; called with mu held.
	end := func() {
		if f == nil {
			return
		}
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "phoenix-desktop: write the CPU profile %s: %v\n", f.Name(), err)
		}
		f = nil
	}
	begin()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	go func() {
		for range sig {
			mu.Lock()
			if !stopped {
				end()
				begin()
			}
			mu.Unlock()
		}
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		end()
		signal.Stop(sig)
	}
}
