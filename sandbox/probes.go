//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// What a question about the machine's tools answered, kept between runs of the app (issue
// 39). The first command of every process asked go where its caches are (`go env`) and
// setpriv whether it knows --pdeathsig, a process start each (about 15 ms of CPU together on
// the 2-core VM): a headless chat pays them in its first tool call, every time. An answer is
// kept with the identity of every file it depends on (the program's, and Go's env file:
// device, inode, size, modification and change times, see fileIdentity) and the variables
// it was asked under, and is asked again when any of them differs, when it is older than
// probeMaxAge, or when one of those files changed less than probeSettle ago (a file system
// with coarse times could change it again without a visible difference).

const (
	probeMaxAge = 24 * time.Hour
	probeSettle = 2 * time.Second
	// probeFileLimit bounds what is read of the file: it holds a handful of short answers.
	probeFileLimit = 64 << 10
)

// probeNow is the clock of the answers' ages and of probeSettle; tests move it on.
var probeNow = time.Now

var probeStore struct {
	sync.Mutex
	path string
}

// SetProbeFile says where the answers are kept between runs: a file in the app's own cache
// directory, which the secrets table hides from every sandboxed command (a command that
// could write it could choose what is shared with the next). "" keeps them in memory only.
func SetProbeFile(path string) {
	probeStore.Lock()
	probeStore.path = path
	probeStore.Unlock()
}

type probeAnswer struct {
	Key    string    `json:"key"`
	Answer string    `json:"answer"`
	At     time.Time `json:"at"`
}

// rememberedProbe returns the kept answer to the question named name, asked under key.
func rememberedProbe(name, key string, now time.Time) (string, bool) {
	all := readProbes()
	a, ok := all[name]
	if !ok || a.Key != key || now.Sub(a.At) > probeMaxAge || a.At.After(now) {
		return "", false
	}
	return a.Answer, true
}

// rememberProbe keeps an answer; failing to write it costs only the next run's question.
func rememberProbe(name, key, answer string, now time.Time) {
	probeStore.Lock()
	defer probeStore.Unlock()
	if probeStore.path == "" {
		return
	}
	all := readProbesLocked()
	all[name] = probeAnswer{Key: key, Answer: answer, At: now}
	b, err := json.Marshal(all)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(probeStore.path), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(probeStore.path), ".probes-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), probeStore.path) != nil {
		_ = os.Remove(tmp.Name())
	}
}

func readProbes() map[string]probeAnswer {
	probeStore.Lock()
	defer probeStore.Unlock()
	return readProbesLocked()
}

// readProbesLocked reads the file; a missing, oversized or unreadable one is no answers.
func readProbesLocked() map[string]probeAnswer {
	all := map[string]probeAnswer{}
	if probeStore.path == "" {
		return all
	}
	f, err := os.Open(probeStore.path)
	if err != nil {
		return all
	}
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Size > probeFileLimit {
		return all
	}
	b := make([]byte, st.Size)
	if n, err := f.ReadAt(b, 0); err != nil && n != len(b) {
		return all
	}
	if json.Unmarshal(b, &all) != nil {
		return map[string]probeAnswer{}
	}
	return all
}

// fileIdentity names what path is now: its device, inode, size, and modification and change
// times in nanoseconds ("absent" when it cannot be stat'ed). settled is false when it
// changed less than probeSettle before now.
func fileIdentity(path string, now time.Time) (id string, settled bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return path + "|absent", true
	}
	mtime := time.Unix(st.Mtim.Unix())
	ctime := time.Unix(st.Ctim.Unix())
	settled = now.Sub(mtime) >= probeSettle && now.Sub(ctime) >= probeSettle
	return fmt.Sprintf("%s|%d|%d|%d|%d|%d", path, st.Dev, st.Ino, st.Size, mtime.UnixNano(), ctime.UnixNano()), settled
}
