// Package bench measures the numbers a person feels — per-round overhead, cancel latency,
// sandbox cost, store speed with a large history, memory, time to first delta — on this
// machine, against the local fake server, and prints them as one table with the target
// beside each. `phoenix-desktop bench` runs it; the README shows the latest table.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Row is one measurement: its samples summarised, and the target it is held to.
type Row struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Samples int     `json:"samples"`
	Median  float64 `json:"median"`
	P90     float64 `json:"p90"`
	P99     float64 `json:"p99"`
	// Target is the bound for the median (or the single value), in Unit; 0 means none.
	Target float64 `json:"target,omitempty"`
	// Met is whether the median is within the target.
	Met bool `json:"met"`
	// Signed says the samples are differences, which noise can make negative.
	Signed bool   `json:"signed,omitempty"`
	Note   string `json:"note,omitempty"`
	Err    string `json:"error,omitempty"`
}

// Options tune a run.
type Options struct {
	// Quick takes fewer samples, for tests.
	Quick bool
	// Progress receives a line per measurement as it starts; nil is silent.
	Progress io.Writer
	// App is the path of the app binary, which the cold-start and idle rows start; without
	// it those rows report an error.
	App string
	// Only, when not empty, keeps the measurements whose name holds it (any case): a quick
	// look at the rows a change is about, with bench --baseline comparing just those (and
	// the calibration row, which always runs).
	Only string
}

type measurement struct {
	name   string
	unit   string
	target float64
	note   string
	run    func(ctx context.Context, o Options) ([]float64, error)
	// rows, instead of run, takes several rows from one set-up (a large store built once);
	// count is how many it returns.
	rows  func(ctx context.Context, o Options) ([]Row, error)
	count int
}

// rowCount is how many rows a measurement produces.
func (m measurement) rowCount() int {
	if m.rows != nil {
		return m.count
	}
	return 1
}

// Run takes every measurement and returns the rows in a fixed order.
func Run(ctx context.Context, o Options) []Row {
	var rows []Row
	for _, m := range measurements() {
		// The calibration row always runs: bench --baseline scales by it.
		if o.Only != "" && m.name != calibrationRowName && !strings.Contains(strings.ToLower(m.name), strings.ToLower(o.Only)) {
			continue
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "measuring %s…\n", m.name)
		}
		if m.rows != nil {
			got, err := m.rows(ctx, o)
			if err == nil && len(got) != m.count {
				err = fmt.Errorf("internal error: %d rows, want %d", len(got), m.count)
			}
			if err != nil {
				rows = append(rows, Row{Name: m.name, Unit: m.unit, Err: err.Error()})
				continue
			}
			rows = append(rows, got...)
			continue
		}
		samples, err := m.run(ctx, o)
		row := summarise(m.name, m.unit, m.target, samples)
		row.Note = m.note
		if err != nil {
			row.Err = err.Error()
			row.Met = false
		}
		rows = append(rows, row)
	}
	return rows
}

func summarise(name, unit string, target float64, samples []float64) Row {
	r := Row{Name: name, Unit: unit, Samples: len(samples), Target: target}
	if len(samples) == 0 {
		return r
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	q := func(p float64) float64 {
		i := int(p*float64(len(s)-1) + 0.5)
		return s[i]
	}
	r.Median, r.P90, r.P99 = q(0.5), q(0.9), q(0.99)
	r.Met = target == 0 || r.Median <= target
	return r
}

// PrintTable writes the rows as an aligned table.
func PrintTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measurement\tmedian\tp90\tp99\ttarget\tmet\tsamples")
	for _, r := range rows {
		target := "—"
		if r.Target > 0 {
			target = "≤ " + format(r.Target, r.Unit)
		}
		met := "yes"
		if !r.Met {
			met = "NO"
		}
		if r.Err != "" {
			met = "error: " + r.Err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.Name, format(r.Median, r.Unit),
			format(r.P90, r.Unit), format(r.P99, r.Unit), target, met, r.Samples)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Name, r.Note)
		}
	}
	return nil
}

// PrintJSON writes the rows as one JSON document.
func PrintJSON(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

func format(v float64, unit string) string {
	switch unit {
	case "ms":
		if v < 1 {
			return fmt.Sprintf("%.3f ms", v)
		}
		return fmt.Sprintf("%.1f ms", v)
	case "MiB":
		return fmt.Sprintf("%.1f MiB", v)
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "events":
		return fmt.Sprintf("%.0f events", v)
	}
	return strings.TrimSpace(fmt.Sprintf("%.2f %s", v, unit))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// differenceRow is the row of a paired measurement: each sample is one variant minus the
// other, taken back to back so that load changes hit both alike; noise can make a sample
// negative, so the row is signed.
func differenceRow(name string, target float64, diff []float64, note string) Row {
	r := summarise(name, "ms", target, diff)
	r.Signed = true
	r.Note = note
	return r
}
