package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"

	"github.com/phoenix-desktop/phoenix/bench"
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

// EnvHeapProfile names a file that receives heap profiles (go tool pprof -sample_index=
// inuse_space) of the desktop app: each SIGUSR2 writes the next, FILE.1, FILE.2, …, as of the
// last collection (none is forced, so the process is measured as it runs). How the window
// soak of issue 43 names what the Go heap holds at each of its points (`go tool pprof -top
// -base FILE.1 FILE.3`). Like EnvCPUProfile it is read from the app's own environment, which
// nothing the model runs can set.
const EnvHeapProfile = bench.EnvAppHeapProfile

// A heap profile samples every 64 KiB allocated instead of Go's 512 when one is asked for:
// the differences between the soak's points are a few MiB, made of many small objects. Set
// before main, as Go asks (a sample's weight is the rate when the profile is written).
func init() {
	if os.Getenv(EnvHeapProfile) != "" {
		runtime.MemProfileRate = 64 << 10
	}
}

// startHeapProfiles writes a heap profile on each SIGUSR2 when PHOENIX_HEAP_PROFILE is set,
// and returns the function that stops listening; without the variable it does nothing.
func startHeapProfiles(stderr io.Writer) (stop func()) {
	path := os.Getenv(EnvHeapProfile)
	if path == "" {
		return func() {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := 0
		for range sig {
			n++
			if err := writeHeapProfile(fmt.Sprintf("%s.%d", path, n)); err != nil {
				fmt.Fprintf(stderr, "phoenix-desktop: %s: %v\n", EnvHeapProfile, err)
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(sig)
		<-done
	}
}

func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
