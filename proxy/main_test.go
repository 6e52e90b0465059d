package proxy

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine behind: every tunnel, ask and
// accept loop must end with Forget or Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
