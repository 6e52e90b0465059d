package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/review"
	uireview "github.com/phoenix-desktop/phoenix/ui/review"
)

// The Changes view's rows (issue 34): a real window under Xvfb shows the view of a change
// of 200 files and 20,000 lines, and, as the baseline in the same run, of one file of 100
// lines. The rows time each action to the X server's DAMAGE on the window, what the
// person sees (changesdamage.go). The same actions are also timed, in a second window, to
// the window's own capture of its frame (Fyne's Canvas.Capture draws the scene and reads
// it back, 1180×780 pixels): those medians are in the rows' notes, to show what the
// readback costs. The view's own cost, without any renderer, is BenchmarkChangesView* in
// ui/review.

// ChangesWindowArg is the hidden first argument that makes the app binary the window these
// rows measure; it prints its samples as JSON and exits.
const ChangesWindowArg = "__phoenix_bench_changes_window"

const changesRowName = "Changes view, 200 files / 20,000 lines: first paint (to X DAMAGE)"

// changesSamples are what the window measured, in milliseconds.
type changesSamples struct {
	FirstLarge, FirstSmall, ScrollLarge, ScrollSmall []float64
	Err                                              string
}

// MaybeRunChangesWindow runs the measuring window when this process was started as one,
// and never returns then; otherwise it returns at once. main (and TestMain of this package)
// call it.
func MaybeRunChangesWindow() {
	if len(os.Args) < 2 || os.Args[1] != ChangesWindowArg {
		return
	}
	damage := slices.Contains(os.Args[2:], "damage")
	paints, steps := changesDamageCounts(slices.Contains(os.Args[2:], "quick"))
	a := app.NewWithID(assets.AppID + ".bench.changes")
	w := a.NewWindow("Changes view bench")
	w.Resize(fyne.NewSize(idleWidth, idleHeight))
	a.Lifecycle().SetOnStarted(func() {
		go func() {
			if damage {
				runChangesDamageWindow(w, changesScript(paints, steps))
				os.Exit(0)
			}
			s := measureChangesWindow(w, paints, steps)
			_ = json.NewEncoder(os.Stdout).Encode(s)
			// Straight out: nothing is kept, and the driver's teardown of a window that
			// is still drawing has crashed under Xvfb's software OpenGL.
			os.Exit(0)
		}()
	})
	w.ShowAndRun()
	os.Exit(0)
}

// measureChangesWindow times, off the UI goroutine, the first paint of a new view of each
// change and a scroll of three lines at a time down the large one (the small one's diff
// fits the window; it scrolls by the same steps as far as it goes).
func measureChangesWindow(w fyne.Window, paints, steps int) (s changesSamples) {
	large, small := SampleChanges(200, 100), SampleChanges(1, 100)
	// Capture makes the window's GL context current on the calling thread: it runs on the
	// UI goroutine, where the driver draws, never beside it. The first frame of the window
	// itself is not the view's.
	capture := func() { w.Canvas().Capture() }
	fyne.DoAndWait(capture)
	for range paints {
		for _, c := range []struct {
			ch  review.Changes
			out *[]float64
		}{{large, &s.FirstLarge}, {small, &s.FirstSmall}} {
			start := time.Now()
			fyne.DoAndWait(func() {
				v := uireview.NewView(uireview.Options{})
				w.SetContent(v)
				v.SetChanges(c.ch)
				capture()
			})
			*c.out = append(*c.out, ms(time.Since(start)))
		}
	}
	for _, c := range []struct {
		ch  review.Changes
		out *[]float64
	}{{large, &s.ScrollLarge}, {small, &s.ScrollSmall}} {
		var v *uireview.View
		fyne.DoAndWait(func() {
			v = uireview.NewView(uireview.Options{})
			w.SetContent(v)
			v.SetChanges(c.ch)
			capture()
		})
		for i := 1; i <= steps; i++ {
			start := time.Now()
			fyne.DoAndWait(func() {
				v.ScrollToRow(i * 3)
				capture()
			})
			*c.out = append(*c.out, ms(time.Since(start)))
		}
	}
	return s
}

// SampleChanges is a change of files files of lines changed lines each, in Go, as the
// Changes view shows it: hunks of five added and five removed lines between context.
func SampleChanges(files, lines int) review.Changes {
	ch := review.Changes{Scope: review.Conversation, From: "a", To: "b"}
	for f := range files {
		file := review.File{Path: fmt.Sprintf("pkg/d%02d/file%03d.go", f/20, f), Status: review.Modified}
		at := 1
		for n := 1; n*10 <= lines; n++ {
			h := review.Hunk{N: n, OldStart: at, OldLines: 11, NewStart: at, NewLines: 11}
			h.Lines = append(h.Lines, review.Line{Kind: review.Context, Old: at, New: at, Text: "func handler(w http.ResponseWriter, r *http.Request) {"})
			for i := range 5 {
				h.Lines = append(h.Lines, review.Line{Kind: review.Delete, Old: at + 1 + i, Text: fmt.Sprintf("\tvalue%d := compute(r.Context(), %d) // old", i, i)})
			}
			for i := range 5 {
				h.Lines = append(h.Lines, review.Line{Kind: review.Add, New: at + 1 + i, Text: fmt.Sprintf("\tvalue%d, err := computeChecked(r.Context(), %d, \"new\")", i, i)})
			}
			file.Added, file.Deleted = file.Added+5, file.Deleted+5
			file.Hunks = append(file.Hunks, h)
			at += 20
		}
		ch.Files = append(ch.Files, file)
	}
	return ch
}

// changesRows starts the measuring window on its own Xvfb display and reads its samples.
func changesRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "draw the window off screen", "changes")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	home, display := wb.dir, wb.display
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	d, err := measureChangesDamage(ctx, o.App, display, filepath.Join(home, "home"), o.Quick)
	if err != nil {
		return nil, err
	}
	args := []string{ChangesWindowArg}
	if o.Quick {
		args = append(args, "quick")
	}
	cmd := exec.CommandContext(ctx, o.App, args...)
	cmd.Env = append(appEnv(filepath.Join(home, "home")), "DISPLAY="+display)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	var s changesSamples
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		if runErr != nil {
			err = runErr
		}
		return nil, fmt.Errorf("the measuring window printed no samples: %w: %s", err, lastLines(errb.String()))
	}
	if s.Err != "" {
		return nil, errors.New(s.Err)
	}
	const where = "a real window (1180×780) on Xvfb (software OpenGL): from the action on the UI goroutine to the first X DAMAGE on the window after it, heard by a separate X client"
	capture := func(c []float64) string {
		return "; timed instead to Canvas.Capture (draw + readback of the frame) in a second window of the same run: " + medianNote(c)
	}
	r1 := summarise(changesRowName, "ms", 150, d.FirstLarge)
	r1.Note = "a new view made, shown and drawn, " + where + capture(s.FirstLarge)
	r2 := summarise("Changes view, 1 file / 100 lines: first paint (to X DAMAGE, baseline)", "ms", 0, d.FirstSmall)
	r2.Note = "the same, the same window and run" + capture(s.FirstSmall)
	r3 := summarise("Changes view, 200 files / 20,000 lines: scroll step (to X DAMAGE)", "ms", 16, d.ScrollLarge)
	r3.Note = "three lines down, laid out and drawn, " + where + capture(s.ScrollLarge)
	r4 := summarise("Changes view, 1 file / 100 lines: scroll step (to X DAMAGE, baseline)", "ms", 0, d.ScrollSmall)
	r4.Note = "the same steps, back up near the short diff's end" + capture(s.ScrollSmall)
	return []Row{r1, r2, r3, r4}, nil
}
