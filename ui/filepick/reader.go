package filepick

import (
	"context"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
)

// disk is what the picker reads: folders and a file's or folder's details. Every call runs
// on the picker's reader, never on the UI goroutine, since a folder on a mount whose server
// went away (NFS, sshfs) can block a read for minutes. Tests put in one that blocks.
type disk interface {
	// ReadDir lists dir. It may stop early when ctx ends; a read the kernel holds cannot be
	// stopped, and its result is then dropped by the reader.
	ReadDir(ctx context.Context, dir string) ([]fs.DirEntry, error)
	// Stat describes path, following links.
	Stat(path string) (fs.FileInfo, error)
}

// osDisk is the real disk.
type osDisk struct{}

// readBatch is how many names ReadDir takes from the kernel between looks at ctx, so that a
// huge folder on a slow mount stops soon after the person went elsewhere.
const readBatch = 1024

func (osDisk) ReadDir(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	// O_DIRECTORY, as os.ReadDir opens: a FIFO named as a folder is "not a folder" at once
	// instead of an open that waits for a writer.
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []fs.DirEntry
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		des, err := f.ReadDir(readBatch)
		out = append(out, des...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func (osDisk) Stat(path string) (fs.FileInfo, error) { return os.Stat(path) }

// readingDelay is how long a read may take before the list says "Reading <folder>…": shorter
// reads (nearly all) show no flash of it.
const readingDelay = 150 * time.Millisecond

// The reader's two lanes. A new job in a lane supersedes the one before it there: what the
// picker shows or chooses (a folder gone to, a typed path checked, a file checked before it is
// chosen), and the names Tab completes from, which must not cancel the folder being opened.
const (
	laneFolder = iota
	laneNames
	lanes
)

// reader is the picker's worker: it runs the picker's disk reads off the UI goroutine and
// hands each result to the UI goroutine (do), where it is applied only if it is still the
// latest of its lane and the picker is still open. Its fields are the UI goroutine's.
type reader struct {
	do     func(func())
	disk   disk
	ctx    context.Context // ends when the picker closes
	close_ context.CancelFunc
	wg     sync.WaitGroup // jobs under way, for tests
	lane   [lanes]job
}

// job is a lane's latest read.
type job struct {
	gen     uint64
	cancel  context.CancelFunc // nil once applied: nothing is under way in the lane
	reading *time.Timer        // shows "Reading …" if the read takes long
}

func newReader(do func(func()), d disk) *reader {
	r := &reader{do: do, disk: d}
	if r.do == nil {
		r.do = fyne.Do
	}
	if r.disk == nil {
		r.disk = osDisk{}
	}
	r.ctx, r.close_ = context.WithCancel(context.Background())
	return r
}

// run starts work in lane off the UI goroutine, superseding the lane's job under way, and
// applies what work returns on the UI goroutine. slow, if not nil, runs on the UI goroutine
// when the work is still under way after readingDelay.
func (r *reader) run(lane int, slow func(), work func(ctx context.Context) (apply func())) {
	if r.ctx.Err() != nil {
		return // the picker closed
	}
	j := &r.lane[lane]
	j.stop()
	j.gen++
	gen := j.gen
	ctx, cancel := context.WithCancel(r.ctx)
	j.cancel = cancel
	current := func() bool { return j.gen == gen && j.cancel != nil && r.ctx.Err() == nil }
	if slow != nil {
		j.reading = time.AfterFunc(readingDelay, func() {
			r.do(func() {
				if current() {
					slow()
				}
			})
		})
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		apply := work(ctx)
		r.do(func() {
			if !current() {
				return // a later job, or the picker's closing, came first
			}
			j.stop()
			apply()
		})
	}()
}

// busy reports whether a job in lane is under way.
func (r *reader) busy(lane int) bool { return r.lane[lane].cancel != nil }

// stop cancels the job under way, if any, and its "Reading …" timer.
func (j *job) stop() {
	if j.cancel != nil {
		j.cancel()
		j.cancel = nil
	}
	if j.reading != nil {
		j.reading.Stop()
		j.reading = nil
	}
}

// close cancels every job: nothing read after this is applied. A read the kernel holds ends
// when the kernel lets it go, and its goroutine with it.
func (r *reader) close() {
	r.close_()
	for i := range r.lane {
		r.lane[i].stop()
	}
}
