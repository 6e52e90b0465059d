package remote

import (
	"os"
	"testing"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestMain lets the test binary act as the sandbox helper and as the remote agent, as the app
// binary does: the tests copy this very binary to the remote side and start it there.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	MaybeRunAgent()
	os.Exit(m.Run())
}
