package persistence

import (
	"fmt"
	"os"
	"testing"
)

// crashChildEnv makes the test binary act as the crash test's child process (see
// crash_test.go) instead of running tests: it names the data directory to write to.
const crashChildEnv = "PHOENIX_PERSISTENCE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		if err := runCrashChild(dir, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}
