package persistence

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestDiskFullScriptFillsBelowTheReserve: the real-window disk-full script fills its disk to
// LEAVE_FREE_MIB free. Above DefaultReserve nothing is refused and the banner never shows (as
// when the memtables shrank from 16 to 4 MiB and the script still left 40 MiB); below the
// ballast the last flush has no room. The number lives in the script; this keeps it between
// the two.
func TestDiskFullScriptFillsBelowTheReserve(t *testing.T) {
	b, err := os.ReadFile("../scripts/diskfull-xvfb.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LEAVE_FREE_MIB=(\d+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("scripts/diskfull-xvfb.sh has no line LEAVE_FREE_MIB=N")
	}
	n, _ := strconv.Atoi(string(m[1]))
	left := int64(n) << 20
	if left >= DefaultReserve {
		t.Errorf("the script leaves %d MiB free, not below the store's reserve of %d MiB: writes are not refused", n, DefaultReserve>>20)
	}
	if left < ballastSize {
		t.Errorf("the script leaves %d MiB free, less than the %d MiB ballast the last flush needs", n, ballastSize>>20)
	}
}
