package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/lsp"
)

// Language servers in the loop (issue 35), each row beside its baseline in the same run:
// the cost of a patch's diagnostics in a warm gopls, and that a conversation that never
// touches a language pays nothing for the servers being on.

const lspRowName = "patch round with diagnostics (warm gopls, 200-file module)"

// lspEnv is a rig whose runtime has the language servers on (the known ones from PATH) or
// off.
func lspEnv(on bool) (*env, error) {
	e := &env{}
	inner, err := rig.Start(rig.Options{Runtime: func(c *actors.Config) {
		e.client = &timedClient{inner: c.LLM}
		e.tools = &timedTools{inner: c.Tools}
		c.LLM, c.Tools = e.client, e.tools
		if on {
			c.LSP = &lsp.Options{}
		}
	}})
	if err != nil {
		return nil, err
	}
	e.Env = inner
	return e, nil
}

// writeModule writes a Go module of 200 files: 10 packages of 20 files, each package but the
// first using the one before it, so that a change is type-checked with its dependents.
func writeModule(dir string) error {
	files := map[string]string{"go.mod": "module example.com/big\n\ngo 1.22\n"}
	for p := range 10 {
		for f := range 20 {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%d\n\n", p)
			if p > 0 {
				fmt.Fprintf(&b, "import \"example.com/big/p%d\"\n\n", p-1)
			}
			fmt.Fprintf(&b, "// T%d is a record.\ntype T%d struct {\n\tName  string\n\tCount int\n}\n\n", f, f)
			fmt.Fprintf(&b, "// F%d sums.\nfunc F%d(xs []T%d) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x.Count + len(x.Name)\n\t}\n", f, f, f)
			if p > 0 {
				fmt.Fprintf(&b, "\tn += p%d.F%d(nil)\n", p-1, f)
			}
			b.WriteString("\treturn n\n}\n")
			files[fmt.Sprintf("p%d/f%02d.go", p, f)] = b.String()
		}
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// patchRounds runs n one-line patches of one file of the module in a new Unrestricted
// conversation and returns each round (answer received → tool → result committed → next
// request sent), the first left out: it starts gopls and loads the module.
func patchRounds(ctx context.Context, on bool, n int) ([]float64, error) {
	e, err := lspEnv(on)
	if err != nil {
		return nil, err
	}
	defer e.close()
	if err := writeModule(e.Cwd); err != nil {
		return nil, err
	}
	conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: true})
	if err != nil {
		return nil, err
	}
	var script strings.Builder
	for i := range n + 1 {
		fmt.Fprintf(&script, "patch: p0/f00.go >>> // edit %d\\n\n", i)
	}
	e.client.reset()
	if _, err := e.turn(ctx, conv.ID, script.String()); err != nil {
		return nil, err
	}
	if on {
		if st := e.Runtime.LanguageServers(conv.ID); len(st) != 1 || st[0].State != "running" {
			return nil, fmt.Errorf("gopls did not run in the conversation: %+v", st)
		}
	}
	e.client.mu.Lock()
	defer e.client.mu.Unlock()
	var out []float64
	for i := 2; i < len(e.client.starts) && i-1 < len(e.client.ends); i++ {
		out = append(out, ms(e.client.starts[i].Sub(e.client.ends[i-1])))
	}
	return out, nil
}

func lspRows(ctx context.Context, o Options) ([]Row, error) {
	if _, err := exec.LookPath("gopls"); err != nil {
		return nil, errors.New("gopls is not installed (bash scripts/setup.sh installs it)")
	}
	n := samplesOf(o, 30, 5)
	without, err := patchRounds(ctx, false, n)
	if err != nil {
		return nil, err
	}
	with, err := patchRounds(ctx, true, n)
	if err != nil {
		return nil, err
	}
	r1 := summarise("patch round without language servers (200-file module)", "ms", 0, without)
	r1.Note = "the baseline of the next rows: a one-line patch's tool round with the language servers off"
	r2 := summarise(lspRowName, "ms", 0, with)
	r2.Note = "the same rounds with gopls warm: the patch, then gopls's diagnostics of the new text compared with the old"
	ratio := summarise("patch round with diagnostics ÷ without", "×", 0, []float64{medianOf(with) / medianOf(without)})
	ratio.Note = "no target of its own: the next row holds the target, 1.3× or +300 ms"
	// The target is the larger allowance: 30% of the round without diagnostics, or 300 ms.
	allowed := max(300, 0.3*medianOf(without))
	added := summarise("patch round, added by diagnostics", "ms", allowed, []float64{medianOf(with) - medianOf(without)})
	added.Signed = true
	added.Note = fmt.Sprintf("with − without; target: ≤ 0.3 × the round without (%.0f ms here) or ≤ 300 ms, whichever is larger", 0.3*medianOf(without))
	return []Row{r1, r2, ratio, added}, nil
}

// noLanguageRows: a conversation that never touches a language pays nothing for the
// servers being on: a bash round and a new conversation's first request, each sample
// pairing the servers off and on.
func noLanguageRows(ctx context.Context, o Options) ([]Row, error) {
	bashRound := func(on bool) (float64, error) {
		e, err := lspEnv(on)
		if err != nil {
			return 0, err
		}
		defer e.close()
		conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: true})
		if err != nil {
			return 0, err
		}
		e.client.reset()
		if _, err := e.turn(ctx, conv.ID, strings.Repeat("bash: true\n", 6)); err != nil {
			return 0, err
		}
		e.client.mu.Lock()
		defer e.client.mu.Unlock()
		var rounds []float64
		for i := 1; i < len(e.client.starts) && i-1 < len(e.client.ends); i++ {
			rounds = append(rounds, ms(e.client.starts[i].Sub(e.client.ends[i-1])))
		}
		return medianOf(rounds), nil
	}
	firstRequest := func(on bool) (float64, error) {
		e, err := lspEnv(on)
		if err != nil {
			return 0, err
		}
		defer e.close()
		conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: true})
		if err != nil {
			return 0, err
		}
		return e.firstRequestAfterTurn(ctx, conv.ID)
	}
	var bashOff, bashOn, chatOff, chatOn []float64
	for i := 0; i < samplesOf(o, 15, 3); i++ {
		for _, m := range []struct {
			f   func(bool) (float64, error)
			on  bool
			out *[]float64
		}{{bashRound, false, &bashOff}, {bashRound, true, &bashOn}, {firstRequest, false, &chatOff}, {firstRequest, true, &chatOn}} {
			v, err := m.f(m.on)
			if err != nil {
				return nil, err
			}
			*m.out = append(*m.out, v)
		}
	}
	bash := summarise("bash round, language servers on ÷ off (no language touched)", "×", 1.05, []float64{medianOf(bashOn) / medianOf(bashOff)})
	bash.Note = fmt.Sprintf("bash `true` tool rounds in a new conversation whose project has no source file: %.2f ms on, %.2f ms off", medianOf(bashOn), medianOf(bashOff))
	chat := summarise("cold one-turn chat, language servers on ÷ off (no language touched)", "×", 1.05, []float64{medianOf(chatOn) / medianOf(chatOff)})
	chat.Note = fmt.Sprintf("a new conversation: Send pressed → its first model request sent: %.2f ms on, %.2f ms off", medianOf(chatOn), medianOf(chatOff))
	return []Row{bash, chat}, nil
}

// medianOf is the median of xs, 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
