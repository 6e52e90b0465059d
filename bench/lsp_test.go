package bench

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// The language servers' rows measure (issue 35): a warm gopls's patch rounds beside the
// same rounds without it, and a conversation that touches no language with the servers on
// and off. Whether the targets are met is the bench command's to say.
func TestLanguageServerRowsMeasure(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gopls is not installed; bash scripts/setup.sh installs it")
		}
		t.Skip("gopls is not installed; bash scripts/setup.sh installs it")
	}
	for _, f := range []func(context.Context, Options) ([]Row, error){lspRows, noLanguageRows} {
		rows, err := f(context.Background(), Options{Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			t.Logf("%s: %.2f %s", r.Name, r.Median, r.Unit)
			if r.Samples == 0 || (r.Median <= 0 && !r.Signed) {
				t.Errorf("%s: implausible figures %+v", r.Name, r)
			}
		}
	}
}
