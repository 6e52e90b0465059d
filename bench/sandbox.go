package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// The sandbox's own rows: what Project mode adds to a Restricted command, and what a first
// `go build` in a new conversation costs now that the person's caches are shared
// copy-on-write. Each sample pairs the two sides back to back, so load changes hit both.

// projectRowName is the row of what Project mode adds to a Restricted command.
const projectRowName = "Project command − Restricted command (bash true, warm supervisors)"

// projectRows pairs a Restricted `true` with a Project `true` on warm supervisors (the tree
// bound, the relay listening): a row for each, and one for the difference, which noise can
// make negative.
func projectRows(ctx context.Context, o Options) ([]Row, error) {
	if ok, reason := sandbox.ProjectAvailable(); !ok {
		return nil, fmt.Errorf("project mode is unavailable: %s", reason)
	}
	tree, err := os.MkdirTemp("", "phoenix-bench-tree-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tree)
	tmp, err := sandbox.MakeTempDir("bench-project")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	run := func(p sandbox.Policy) (float64, error) {
		start := time.Now()
		code, err := sandbox.Run(ctx, p, "true", sandbox.RunOptions{Dir: tree, Env: os.Environ()})
		if err == nil && code != 0 {
			err = fmt.Errorf("exit %d", code)
		}
		return ms(time.Since(start)), err
	}
	restricted := sandbox.Policy{TempDir: tmp}
	project := sandbox.Policy{TempDir: tmp, Project: &sandbox.Project{Tree: tree}}
	// Warm both kinds of supervisor.
	for range 3 {
		if _, err := run(restricted); err != nil {
			return nil, err
		}
		if _, err := run(project); err != nil {
			return nil, err
		}
	}
	var rs, ps, diff []float64
	for range samplesOf(o, 40, 5) {
		r, err := run(restricted)
		if err != nil {
			return nil, err
		}
		p, err := run(project)
		if err != nil {
			return nil, err
		}
		rs, ps, diff = append(rs, r), append(ps, p), append(diff, p-r)
	}
	r1 := summarise("sandbox.Run true, Restricted (warm supervisor)", "ms", 0, rs)
	r2 := summarise("sandbox.Run true, Project (warm supervisor)", "ms", 0, ps)
	r2.Note = "the tree writable with its protected files bound read-only, the proxy relay listening"
	r3 := differenceRow(projectRowName, 0.5, diff, "each sample runs `true` Restricted and then in Project mode, back to back; the row is the difference")
	return []Row{r1, r2, r3}, nil
}

// firstGoBuild pairs a `go build` in a new Restricted conversation (a new temp dir, so a
// new copy-on-write layer over the person's caches) with the same build outside, after a
// change to the program that both must compile, and returns the ratio.
func firstGoBuild(ctx context.Context, o Options) ([]float64, error) {
	if !sandbox.Probe().Available {
		return nil, fmt.Errorf("the sandbox is unavailable: %s", sandbox.Probe().Reason)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, errors.New("go is not installed")
	}
	mod, err := os.MkdirTemp("", "phoenix-bench-gomod-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(mod)
	write := func(i int) error {
		src := fmt.Sprintf("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(%d) }\n", i)
		if err := os.WriteFile(filepath.Join(mod, "main.go"), []byte(src), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/bench\n\ngo 1.21\n"), 0o644)
	}
	outside := func() (float64, error) {
		start := time.Now()
		cmd := exec.CommandContext(ctx, gobin, "build", "-o", filepath.Join(mod, "out"), ".")
		cmd.Dir = mod
		if b, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("go build outside: %v: %s", err, b)
		}
		return ms(time.Since(start)), nil
	}
	if err := write(0); err != nil {
		return nil, err
	}
	if _, err := outside(); err != nil { // the person's cache holds the standard library
		return nil, err
	}
	var out []float64
	for i := range samplesOf(o, 5, 2) {
		if err := write(i + 1); err != nil {
			return out, err
		}
		tmp, err := sandbox.MakeTempDir(fmt.Sprintf("bench-gobuild-%d", i))
		if err != nil {
			return out, err
		}
		start := time.Now()
		code, err := sandbox.Run(ctx, sandbox.Policy{TempDir: tmp}, `go build -o "$TMPDIR/out" .`,
			sandbox.RunOptions{Dir: mod, Env: append(os.Environ(), "GOCACHE="+filepath.Join(tmp, ".cache", "go-build"))})
		inside := ms(time.Since(start))
		os.RemoveAll(tmp)
		if err == nil && code != 0 {
			err = fmt.Errorf("go build inside: exit %d", code)
		}
		if err != nil {
			return out, err
		}
		// The same build outside: the program changed again so both compile it.
		if err := write(1000 + i); err != nil {
			return out, err
		}
		o, err := outside()
		if err != nil {
			return out, err
		}
		out = append(out, inside/o)
	}
	return out, nil
}
