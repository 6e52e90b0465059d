package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitDiff is the diff git prints from old to new for one file named name ("" content with
// ok false means the file does not exist on that side).
func gitDiff(t *testing.T, name string, old, new *string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for side, content := range map[string]*string{a: old, b: new} {
		if err := os.MkdirAll(side, 0o755); err != nil {
			t.Fatal(err)
		}
		if content != nil {
			if err := os.WriteFile(filepath.Join(side, name), []byte(*content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-renames", "a", "b")
	cmd.Dir = dir
	out, _ := cmd.Output() // exit 1: they differ
	// --no-index names the sides a/a/name and b/b/name: make them what diff-tree prints.
	return strings.NewReplacer("a/a/", "a/", "b/b/", "b/").Replace(string(out))
}

func ptr(s string) *string { return &s }

func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c)
			continue
		}
		b.WriteString("line " + strings.Repeat("x", i%3) + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// TestParseNumbersHunksAndLines: a file changed in two places far apart has two hunks,
// numbered 1 and 2, whose lines carry their numbers in both files.
func TestParseNumbersHunksAndLines(t *testing.T) {
	old := numbered(40, nil)
	new := numbered(40, map[int]string{5: "five changed\n", 30: "thirty changed\nand one more\n"})
	files, err := Parse(gitDiff(t, "f.go", &old, &new))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "f.go" || files[0].Status != Modified {
		t.Fatalf("files: %+v", files)
	}
	f := files[0]
	if len(f.Hunks) != 2 || f.Hunks[0].N != 1 || f.Hunks[1].N != 2 {
		t.Fatalf("hunks: %+v", f.Hunks)
	}
	if f.Added != 3 || f.Deleted != 2 {
		t.Fatalf("added %d deleted %d, want 3 and 2", f.Added, f.Deleted)
	}
	var sawAdd bool
	for _, l := range f.Hunks[1].Lines {
		if l.Kind == Add && l.Text == "and one more" {
			sawAdd = true
			if l.New != 31 || l.Old != 0 {
				t.Fatalf("the added line is numbered old %d new %d, want 0 and 31", l.Old, l.New)
			}
		}
		if l.Kind == Delete && l.Old != 30 {
			t.Fatalf("the deleted line is numbered %d, want 30", l.Old)
		}
	}
	if !sawAdd {
		t.Fatalf("no added line in hunk 2: %+v", f.Hunks[1])
	}
}

// TestParseAddedDeletedBinary: statuses and binary files come from git's extended headers.
func TestParseAddedDeletedBinary(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new *string
		status   Status
		binary   bool
	}{
		{"new.txt", nil, ptr("a\nb\n"), Added, false},
		{"gone.txt", ptr("a\n"), nil, Deleted, false},
		{"img.bin", ptr("\x00\x01\x02"), ptr("\x00\x01\x03"), Modified, true},
	} {
		files, err := Parse(gitDiff(t, tc.name, tc.old, tc.new))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != tc.name || files[0].Status != tc.status || files[0].Binary != tc.binary {
			t.Fatalf("%s: %+v", tc.name, files)
		}
	}
}

// TestRevertHunkKeepsEverythingElse: reverting hunk 1 of two brings its lines back and
// keeps hunk 2 and every other byte; reverting both gives the base again, including a
// missing final newline and CRLF line endings.
func TestRevertHunkKeepsEverythingElse(t *testing.T) {
	for _, tc := range []struct{ name, old, new string }{
		{"two hunks", numbered(40, nil), numbered(40, map[int]string{5: "five changed\n", 30: "thirty changed\nand one more\n"})},
		{"crlf and no final newline", "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nk\r\nl", "a\r\nB\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nk\r\nL\r\nm\r\n"},
		{"lines removed and added at the ends", "x\n" + numbered(20, nil), numbered(20, nil) + "tail\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Parse(gitDiff(t, "f", &tc.old, &tc.new))
			if err != nil || len(files) != 1 || len(files[0].Hunks) != 2 {
				t.Fatalf("parse: %v %+v", err, files)
			}
			h := files[0].Hunks
			one, err := RevertHunk([]byte(tc.old), []byte(tc.new), h[0])
			if err != nil {
				t.Fatal(err)
			}
			// What is left is exactly hunk 2.
			rest, err := Parse(gitDiff(t, "f", &tc.old, ptr(string(one))))
			if err != nil || len(rest) != 1 || len(rest[0].Hunks) != 1 {
				t.Fatalf("after reverting hunk 1: %v %+v\n%q", err, rest, one)
			}
			if got, want := rest[0].Hunks[0].Lines, h[1].Lines; len(got) != len(want) {
				t.Fatalf("the hunk left is not hunk 2:\n%+v\n%+v", got, want)
			}
			// Hunk 2, numbered against the file now, takes the rest back.
			both, err := RevertHunk([]byte(tc.old), one, rest[0].Hunks[0])
			if err != nil {
				t.Fatal(err)
			}
			if string(both) != tc.old {
				t.Fatalf("both hunks reverted: %q, want %q", both, tc.old)
			}
		})
	}
}

// TestRevertHunkRefusesStale: a hunk whose lines are no longer in the file is refused, not
// applied somewhere else.
func TestRevertHunkRefusesStale(t *testing.T) {
	old := numbered(20, nil)
	new := numbered(20, map[int]string{10: "ten changed\n"})
	files, err := Parse(gitDiff(t, "f", &old, &new))
	if err != nil || len(files) != 1 {
		t.Fatal(err, files)
	}
	edited := strings.Replace(new, "ten changed", "ten changed again", 1)
	if _, err := RevertHunk([]byte(old), []byte(edited), files[0].Hunks[0]); err != ErrStale {
		t.Fatalf("got %v, want ErrStale", err)
	}
}

// TestFormatCommentsCarriesPathLinesAndWords: each comment names its file and lines, quotes
// them, and gives the words.
func TestFormatCommentsCarriesPathLinesAndWords(t *testing.T) {
	got := FormatComments([]Comment{
		{Path: "a/f.go", Start: 3, End: 4, Lines: []string{"x := 1", "y := 2"}, Text: " name these better "},
		{Path: "b.txt", Start: 7, End: 7, Old: true, Lines: []string{"gone"}, Text: "keep this line"},
	})
	for _, want := range []string{"a/f.go, lines 3–4:\n> x := 1\n> y := 2\nname these better\n", "b.txt, line 7 (removed lines, numbered as the file was):\n> gone\nkeep this line\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("no %q in\n%s", want, got)
		}
	}
	if FormatComments(nil) != "" {
		t.Fatal("no comments gave a message")
	}
}
