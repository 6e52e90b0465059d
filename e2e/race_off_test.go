//go:build !race

package e2e

// raceEnabled is true when the tests run under the race detector, which makes everything
// several times slower; the soak test then runs fewer turns.
const raceEnabled = false
