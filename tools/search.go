package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/hostexec"
)

// Search limits. Files over MaxSearchFileBytes are not searched (they are generated or data,
// and ripgrep is told the same with --max-filesize).
const (
	MaxSearchFileBytes = 1 << 20
	maxSearchTerms     = 16
	maxFilesShown      = 25
	maxLinesPerFile    = 6
	maxStoredHits      = 50
	maxSearchChars     = 16000
	maxShownLineRunes  = 200
	searchContextLines = 1
)

// KeywordSearch finds the files that contain the most of a list of terms, searching from the
// repository root (the nearest directory above the working directory with a .git) and
// honouring .gitignore. It runs ripgrep when it is installed and a Go implementation
// otherwise; both apply the same rules, and a test checks that they agree:
//
//   - terms are fixed strings, matched case-insensitively (Unicode simple case folding);
//   - .gitignore files at every level and .git/info/exclude are honoured, also outside a git
//     repository; ignore files above the root, the global excludes file, .ignore and .rgignore
//     are not;
//   - hidden files are searched; .git directories, symbolic links, files over 1 MB and files
//     containing a NUL byte (binary) are not;
//   - a term also counts for a file when it occurs in the file's path.
type KeywordSearch struct {
	// rg is the path of the ripgrep binary, empty for the Go implementation.
	rg string
}

// NewKeywordSearch returns the tool, using ripgrep if it is on the PATH.
func NewKeywordSearch() *KeywordSearch {
	rg, _ := exec.LookPath("rg")
	return &KeywordSearch{rg: rg}
}

// Name is the catalogue name.
func (*KeywordSearch) Name() string { return domain.ToolKeywordSearch }

type searchArgs struct {
	Query       string   `json:"query"`
	SearchTerms []string `json:"search_terms"`
}

// Run searches and renders the ranked result.
func (k *KeywordSearch) Run(ctx context.Context, env Env, raw json.RawMessage) Output {
	var args searchArgs
	if err := decodeArgs(k.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	terms, dropped := normalizeTerms(args.SearchTerms)
	if len(terms) == 0 {
		return errorf("search_terms has no non-empty term.")
	}
	root := searchRoot(env.Cwd)
	res, err := k.search(ctx, root, terms)
	if ctx.Err() != nil {
		return cancelled("The search was cancelled.")
	}
	if err != nil {
		return errorf("The search in %s failed: %v", root, err)
	}
	content, summary := renderSearch(env.Cwd, root, terms, dropped, res)
	return Output{Outcome: domain.OutcomeSuccess, Content: content, Display: &domain.ToolDisplay{Summary: summary}}
}

// normalizeTerms trims the terms, drops empty and repeated ones (case-insensitively) and
// keeps at most maxSearchTerms, in the order given. Terms are matched within a line, so a
// term spanning lines is split into its lines.
func normalizeTerms(in []string) (terms []string, dropped int) {
	seen := map[string]bool{}
	var split []string
	for _, t := range in {
		split = append(split, strings.FieldsFunc(t, func(r rune) bool { return r == '\n' || r == '\r' })...)
	}
	for _, t := range split {
		t = strings.TrimSpace(t)
		key := strings.ToLower(t)
		if t == "" || seen[key] {
			continue
		}
		seen[key] = true
		if len(terms) == maxSearchTerms {
			dropped++
			continue
		}
		terms = append(terms, t)
	}
	return terms, dropped
}

// searchRoot is the nearest ancestor of cwd (itself included) that has a .git entry (a
// directory, or a file in worktrees and submodules), else cwd.
func searchRoot(cwd string) string {
	for dir := filepath.Clean(cwd); ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(cwd)
		}
		dir = parent
	}
}

// lineHit is one matching line.
type lineHit struct {
	N    int
	Text string
}

// fileMatch is what a search found in one file.
type fileMatch struct {
	Path        string // relative to the root, slash-separated
	ContentMask uint64 // bit i: term i occurs in the content
	PathMask    uint64 // bit i: term i occurs in the path
	Lines       int    // matching lines in all
	Hits        []lineHit
}

func (m *fileMatch) mask() uint64 { return m.ContentMask | m.PathMask }

// searchResult is the whole finding, the same whichever implementation produced it.
type searchResult struct {
	Files   int // files searched
	Matches []*fileMatch
}

// matcher decides which terms a line or a path contains. Terms match case-insensitively
// with Unicode simple case folding, as ripgrep's --ignore-case does; for ASCII terms in ASCII
// text a byte comparison gives the same answer (no other character folds to an ASCII letter
// but the Kelvin sign and the long s, which are not ASCII) and is much faster than a regexp.
type matcher struct {
	any   *regexp.Regexp
	terms []*regexp.Regexp
	lower []string // the terms in lower case, for the ASCII path; nil if a term is not ASCII
}

func newMatcher(terms []string) *matcher {
	m := &matcher{}
	quoted := make([]string, len(terms))
	ascii := true
	for i, t := range terms {
		quoted[i] = regexp.QuoteMeta(t)
		m.terms = append(m.terms, regexp.MustCompile("(?i)"+quoted[i]))
		ascii = ascii && isASCII(t)
	}
	m.any = regexp.MustCompile("(?i)(?:" + strings.Join(quoted, "|") + ")")
	if ascii {
		for _, t := range terms {
			m.lower = append(m.lower, strings.ToLower(t))
		}
	}
	return m
}

// maskOf returns the set of terms s contains.
func (m *matcher) maskOf(s string) uint64 {
	var mask uint64
	if m.lower != nil && isASCII(s) {
		for i, t := range m.lower {
			if containsFoldASCII(s, t) {
				mask |= 1 << i
			}
		}
		return mask
	}
	for i, re := range m.terms {
		if re.MatchString(s) {
			mask |= 1 << i
		}
	}
	return mask
}

// matchAny reports whether b contains any term.
func (m *matcher) matchAny(b []byte) bool {
	if m.lower != nil && isASCII(string(b)) {
		for _, t := range m.lower {
			if containsFoldASCII(string(b), t) {
				return true
			}
		}
		return false
	}
	return m.any.Match(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains lower (an ASCII lower-case string) ignoring
// ASCII case.
func containsFoldASCII(s, lower string) bool {
	if lower == "" {
		return true
	}
	first := lower[0]
	upperFirst := first
	if 'a' <= first && first <= 'z' {
		upperFirst -= 'a' - 'A'
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if c := s[i]; c != first && c != upperFirst {
			continue
		}
		j := 1
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// collector gathers hits as a backend reports them; it is safe for concurrent use.
type collector struct {
	m     *matcher
	mu    sync.Mutex
	files map[string]*fileMatch
}

func (c *collector) hit(path string, n int, text string) {
	mask := c.m.maskOf(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[path]
	if f == nil {
		f = &fileMatch{Path: path}
		c.files[path] = f
	}
	f.ContentMask |= mask
	f.Lines++
	if len(f.Hits) < maxStoredHits {
		f.Hits = append(f.Hits, lineHit{N: n, Text: text})
	}
}

// search runs the backend and combines content hits with path matches.
func (k *KeywordSearch) search(ctx context.Context, root string, terms []string) (searchResult, error) {
	c := &collector{m: newMatcher(terms), files: map[string]*fileMatch{}}
	var files []string
	var err error
	// A ripgrep inside the tree (the agent's, found on PATH) is never run outside the
	// sandbox: the Go implementation reads the tree instead.
	if k.rg != "" && !hostexec.InsideTree(root, k.rg) {
		files, err = searchRipgrep(ctx, k.rg, root, terms, c)
	} else {
		files, err = searchGo(ctx, root, c)
	}
	if err != nil {
		return searchResult{}, err
	}
	for _, p := range files {
		if mask := c.m.maskOf(p); mask != 0 {
			f := c.files[p]
			if f == nil {
				f = &fileMatch{Path: p}
				c.files[p] = f
			}
			f.PathMask = mask
		}
	}
	res := searchResult{Files: len(files)}
	for _, f := range c.files {
		slices.SortFunc(f.Hits, func(a, b lineHit) int { return a.N - b.N })
		res.Matches = append(res.Matches, f)
	}
	rank(res.Matches, len(terms))
	return res, nil
}

// rank orders files by the number of terms they contain, then by the importance of those
// terms (the first term weighs most), then by the number of matching lines, then by path.
func rank(ms []*fileMatch, n int) {
	weight := func(mask uint64) int {
		w := 0
		for i := range n {
			if mask&(1<<i) != 0 {
				w += n - i
			}
		}
		return w
	}
	slices.SortFunc(ms, func(a, b *fileMatch) int {
		if d := bits.OnesCount64(b.mask()) - bits.OnesCount64(a.mask()); d != 0 {
			return d
		}
		if d := weight(b.mask()) - weight(a.mask()); d != 0 {
			return d
		}
		if d := b.Lines - a.Lines; d != 0 {
			return d
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// rgArgs are the ripgrep flags that give the rules documented on KeywordSearch.
var rgArgs = []string{
	"--no-config", "--hidden", "--glob", "!.git", "--no-ignore-parent", "--no-ignore-global",
	"--no-ignore-dot", "--no-require-git", "--max-filesize", "1M", "--no-messages",
}

// searchRipgrep lists the files, finds the matching lines and lists the binary files with
// three ripgrep runs at once.
func searchRipgrep(ctx context.Context, rg, root string, terms []string, c *collector) ([]string, error) {
	var (
		wg                        sync.WaitGroup
		files                     []string
		binary                    = map[string]bool{}
		listErr, binErr, matchErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		listErr = runRipgrep(ctx, rg, root, append(slices.Clone(rgArgs), "--files", "."), func(line []byte) error {
			files = append(files, strings.TrimPrefix(string(line), "./"))
			return nil
		})
	}()
	go func() {
		defer wg.Done()
		// ripgrep stops reading a file at its first NUL byte but may already have reported
		// lines before it; the rule is that a file with a NUL anywhere is binary and not
		// searched at all. This run finds those files, reading them as text.
		args := append(slices.Clone(rgArgs), "--files-with-matches", "--text", "--encoding", "none", "-e", `\x00`, "--", ".")
		binErr = runRipgrep(ctx, rg, root, args, func(line []byte) error {
			binary[strings.TrimPrefix(string(line), "./")] = true
			return nil
		})
	}()
	args := append(slices.Clone(rgArgs), "--null", "--line-number", "--with-filename", "--no-heading",
		"--color", "never", "--encoding", "none", "--ignore-case", "--fixed-strings")
	for _, t := range terms {
		args = append(args, "-e", t)
	}
	matchErr = runRipgrep(ctx, rg, root, append(args, "--", "."), func(line []byte) error {
		path, rest, ok := bytes.Cut(line, []byte{0})
		num, text, ok2 := bytes.Cut(rest, []byte{':'})
		n, err := strconv.Atoi(string(num))
		if !ok || !ok2 || err != nil {
			return fmt.Errorf("unexpected ripgrep output %q", abbreviate(string(line), 200))
		}
		c.hit(strings.TrimPrefix(string(path), "./"), n, string(text))
		return nil
	})
	wg.Wait()
	if err := errors.Join(listErr, binErr, matchErr); err != nil {
		return nil, err
	}
	for p := range binary {
		delete(c.files, p)
	}
	slices.Sort(files)
	return files, nil
}

// runRipgrep runs ripgrep in root and hands each output line to fn. Exit status 1 means "no
// match"; 2 with nothing on stderr means some files could not be read, which the Go
// implementation also skips silently.
func runRipgrep(ctx context.Context, rg, root string, args []string, fn func([]byte) error) error {
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("ripgrep: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ripgrep: %w", err)
	}
	sc := bufio.NewScanner(out)
	// Lines are at most a file long, and files over 1 MB are skipped.
	sc.Buffer(make([]byte, 64*1024), 2*MaxSearchFileBytes+4096)
	sc.Split(splitNewline)
	var fnErr error
	for sc.Scan() {
		if fnErr == nil {
			fnErr = fn(sc.Bytes())
		}
	}
	scanErr := sc.Err()
	if scanErr != nil {
		// Keep draining is impossible after a scanner error; stop ripgrep instead of
		// letting it block on a full pipe.
		_ = cmd.Process.Kill()
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case scanErr != nil:
		return fmt.Errorf("read ripgrep output: %w", scanErr)
	case fnErr != nil:
		return fnErr
	case err == nil:
		return nil
	case errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 2 && stderr.Len() == 0):
		return nil
	}
	return fmt.Errorf("ripgrep: %w: %s", err, strings.TrimSpace(stderr.String()))
}

// splitNewline splits at "\n" only: bufio.ScanLines would also drop a "\r" that belongs to
// the text of a line in a file with Windows line endings.
func splitNewline(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
