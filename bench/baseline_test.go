package bench

import (
	"bytes"
	"slices"
	"testing"
)

// Compare names the rows more than 10% worse, at this run's machine speed, and no other.
func TestCompareNamesRowsWorseThanTheBaseline(t *testing.T) {
	row := func(name, unit string, median float64, signed bool) Row {
		return Row{Name: name, Unit: unit, Samples: 5, Median: median, Signed: signed}
	}
	base := []Row{
		row(calibrationRowName, "ms", 100, false),
		row("round", "ms", 4, false),
		row("start", "ms", 10, false),
		row("rss", "MiB", 30, false),
		row("diff", "ms", 0.1, true),
		row("gone", "ms", 1, false),
		{Name: "failed", Unit: "ms", Err: "x"},
	}
	// This run's machine is twice as slow: times double without the code changing.
	now := []Row{
		row(calibrationRowName, "ms", 200, false),
		row("round", "ms", 8.5, false),   // 8.5 ≤ 8 × 1.1: the machine, not the code
		row("start", "ms", 23, false),    // 23 > 20 × 1.1
		row("rss", "MiB", 34, false),     // memory is not scaled: 34 > 33
		row("diff", "ms", 0.35, true),    // within the slack of a difference
		row("new", "ms", 1000, false),    // no baseline
		row("failed", "ms", 1000, false), // its baseline failed
	}
	var names []string
	for _, r := range Compare(now, base) {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"start", "rss"}) {
		t.Errorf("Compare named %v, want [start rss]", names)
	}
	now[2].Median = 21
	now[3].Median = 32
	now[4].Median = 0.9
	names = nil
	for _, r := range Compare(now, base) {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"diff"}) {
		t.Errorf("Compare named %v, want [diff]", names)
	}
}

// A faster calibration does not make the baseline stricter.
func TestCompareDoesNotTightenOnAFasterMachine(t *testing.T) {
	row := func(name string, median float64) Row { return Row{Name: name, Unit: "ms", Samples: 5, Median: median} }
	base := []Row{row(calibrationRowName, 60), row("start", 20)}
	now := []Row{row(calibrationRowName, 51), row("start", 21.5)}
	if got := Compare(now, base); len(got) != 0 {
		t.Errorf("Compare named %v on a machine whose hash ran faster", got)
	}
	now[1].Median = 22.5
	if got := Compare(now, base); len(got) != 1 {
		t.Errorf("Compare named %v, want start (more than 10%% worse unscaled)", got)
	}
}

func TestBaselineReadsWhatPrintJSONWrote(t *testing.T) {
	rows := []Row{{Name: "a", Unit: "ms", Samples: 3, Median: 1.5}}
	var b bytes.Buffer
	if err := PrintJSON(&b, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(&b)
	if err != nil || len(back) != 1 || back[0] != rows[0] {
		t.Fatalf("ReadBaseline = %+v, %v", back, err)
	}
	if _, err := ReadBaseline(bytes.NewBufferString("measurement median\n")); err == nil {
		t.Error("a table was read as a baseline")
	}
}
