package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// A regression shows itself: `phoenix-desktop bench --json` output kept as a baseline is
// compared row by row with a new run (Compare). Time rows are first scaled by the machine's
// speed in each run (the calibration row, a fixed amount of CPU work measured in the same
// run), so a slower or busier machine is told apart from slower code.

// calibrationRowName is the row that tells the machine's speed in a run.
const calibrationRowName = "calibration: SHA-256 of 64 MiB (this machine's speed in this run)"

// worseBy is how much worse than the baseline a row may read before Compare names it.
const worseBy = 0.10

// signedSlack is what a signed row (a difference, near zero) may move beyond worseBy: ten
// per cent of almost nothing is noise.
const signedSlack = 0.2 // ms

// calibration hashes 64 MiB: pure CPU and memory bandwidth, no system calls.
func calibration(ctx context.Context, o Options) ([]float64, error) {
	buf := make([]byte, 1<<20)
	var out []float64
	for range samplesOf(o, 9, 3) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		start := time.Now()
		h := sha256.New()
		for range 64 {
			h.Write(buf)
		}
		_ = h.Sum(nil)
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

// Regression is a row that reads worse than its baseline.
type Regression struct {
	Name string
	// Now and Base are the medians, Scaled the baseline's median as the machine of this run
	// would read it (time rows only; otherwise Base).
	Now, Base, Scaled float64
	Unit              string
}

func (r Regression) String() string {
	if r.Scaled != r.Base {
		return fmt.Sprintf("%s: %s, baseline %s (%s at this run's machine speed)", r.Name,
			format(r.Now, r.Unit), format(r.Base, r.Unit), format(r.Scaled, r.Unit))
	}
	return fmt.Sprintf("%s: %s, baseline %s", r.Name, format(r.Now, r.Unit), format(r.Base, r.Unit))
}

// ReadBaseline reads rows that PrintJSON wrote.
func ReadBaseline(r io.Reader) ([]Row, error) {
	var rows []Row
	if err := json.NewDecoder(r).Decode(&rows); err != nil {
		return nil, fmt.Errorf("the baseline is not bench --json output: %w", err)
	}
	return rows, nil
}

// ReadBaselineFile reads a baseline file.
func ReadBaselineFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the baseline: %w", err)
	}
	defer f.Close()
	return ReadBaseline(f)
}

// Compare names every row of now that reads more than worseBy worse than the same row of
// base (every row is lower-is-better). Rows in milliseconds are compared at the speed of this
// run's machine: the baseline's figure is scaled by the ratio of the two calibration rows.
// A machine that reads faster than the baseline's is compared as if it were as fast. Rows
// missing from either side, or that failed, are left out.
func Compare(now, base []Row) []Regression {
	byName := map[string]Row{}
	for _, r := range base {
		if r.Err == "" && r.Samples > 0 {
			byName[r.Name] = r
		}
	}
	// A slower machine forgives; a faster one does not make the baseline stricter: the
	// calibration is pure CPU work, which can speed up while system calls do not (seen: the
	// hash 15% faster in a run whose process starts were 10% slower).
	speed := 1.0
	if c, ok := byName[calibrationRowName]; ok && c.Median > 0 {
		for _, r := range now {
			if r.Name == calibrationRowName && r.Err == "" && r.Median > 0 {
				speed = max(1, r.Median/c.Median)
			}
		}
	}
	var out []Regression
	for _, r := range now {
		b, ok := byName[r.Name]
		if !ok || r.Err != "" || r.Samples == 0 || r.Unit != b.Unit || r.Name == calibrationRowName {
			continue
		}
		scaled := b.Median
		if r.Unit == "ms" {
			scaled *= speed
		}
		limit := scaled + math.Abs(scaled)*worseBy
		if r.Signed || b.Signed {
			limit += signedSlack
		}
		if r.Median > limit {
			out = append(out, Regression{Name: r.Name, Now: r.Median, Base: b.Median, Scaled: scaled, Unit: r.Unit})
		}
	}
	return out
}
