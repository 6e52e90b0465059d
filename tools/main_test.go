package tools

import (
	"os"
	"testing"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestMain lets the test binary act as the sandbox helper, as the app binary does.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
