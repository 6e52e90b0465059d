package tools

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// searchGo is the implementation used without ripgrep: it walks the tree with the
// .gitignore rules, then searches the files on every core.
func searchGo(ctx context.Context, root string, c *collector) ([]string, error) {
	var base []gitignore.Pattern
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		// .git/info/exclude has the lowest priority, below every .gitignore.
		base = readIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), nil)
	}
	var files []string
	if err := walkTree(ctx, root, nil, base, &files); err != nil {
		return nil, err
	}

	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				searchFile(filepath.Join(root, filepath.FromSlash(p)), p, c)
			}
		}()
	}
	for _, p := range files {
		if ctx.Err() != nil {
			break
		}
		work <- p
	}
	close(work)
	wg.Wait()
	return files, ctx.Err()
}

// walkTree lists the files below dir (rel is dir's path from the root) that no ignore rule
// excludes, in lexical order. patterns are the rules in force, in increasing priority.
func walkTree(ctx context.Context, dir string, rel []string, patterns []gitignore.Pattern, files *[]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		// An unreadable directory is skipped, as ripgrep skips it.
		return nil
	}
	if own := readIgnoreFile(filepath.Join(dir, ".gitignore"), rel); len(own) > 0 {
		patterns = append(patterns[:len(patterns):len(patterns)], own...)
	}
	m := gitignore.NewMatcher(patterns)
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		path := append(rel[:len(rel):len(rel)], name)
		isDir := e.IsDir()
		if m.Match(path, isDir) {
			continue
		}
		switch {
		case isDir:
			if err := walkTree(ctx, filepath.Join(dir, name), path, patterns, files); err != nil {
				return err
			}
		case e.Type().IsRegular():
			info, err := e.Info()
			if err != nil || info.Size() > MaxSearchFileBytes {
				continue
			}
			*files = append(*files, strings.Join(path, "/"))
		}
	}
	return nil
}

// readIgnoreFile parses one ignore file; its patterns apply below domain. A missing file has
// no patterns.
func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		// Git negates a character class with "[!"; Go's path.Match, which the library uses,
		// spells it "[^".
		line = strings.ReplaceAll(line, "[!", "[^")
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// searchFile reports the matching lines of one file, unless it is binary.
func searchFile(abs, rel string, c *collector) {
	data, err := os.ReadFile(abs)
	if err != nil || len(data) > MaxSearchFileBytes || bytes.IndexByte(data, 0) >= 0 {
		return
	}
	if !c.m.matchAny(data) {
		return
	}
	n := 0
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if c.m.matchAny(line) {
			c.hit(rel, n, string(line))
		}
	}
}
