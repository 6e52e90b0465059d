package bench

import (
	"context"
	"testing"
)

// The proxy rows on their own, quickly: three rows with numbers, the last held to 1 ms.
func TestProxyRows(t *testing.T) {
	rows, err := proxyRows(context.Background(), Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2].Name != proxyRowName || rows[2].Target != 1 || !rows[2].Signed {
		t.Fatalf("rows: %+v", rows)
	}
	for _, r := range rows {
		t.Logf("%s: median %.3f ms, p90 %.3f ms", r.Name, r.Median, r.P90)
	}
	for _, r := range rows[:2] {
		if r.Samples == 0 || r.Median <= 0 {
			t.Errorf("%s: implausible figures %+v", r.Name, r)
		}
	}
}
