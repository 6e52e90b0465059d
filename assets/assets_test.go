package assets

import (
	"os"
	"regexp"
	"testing"
)

// FyneApp.toml is read by the fyne packaging tool; the constants here are what the binary
// uses. They must agree.
func TestConstantsMatchFyneAppToml(t *testing.T) {
	b, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"ID": AppID, "Version": Version} {
		m := regexp.MustCompile(`(?m)^` + key + `\s*=\s*"([^"]*)"`).FindSubmatch(b)
		if m == nil || string(m[1]) != want {
			t.Errorf("FyneApp.toml %s = %q, the code says %q", key, m, want)
		}
	}
}
