package tools

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	// A stream of numbered lines, written in chunks of many sizes so that the ring buffer
	// wraps at every offset.
	var all bytes.Buffer
	for i := range 50000 {
		all.WriteString(strings.Repeat("x", i%7) + "line " + strconv.Itoa(i) + "\n")
	}
	for _, chunk := range []int{1, 7, 4096, half - 1, half, half + 1, 3 * half} {
		t.Run("chunk "+strconv.Itoa(chunk), func(t *testing.T) {
			var c capture
			data := all.Bytes()
			for len(data) > 0 {
				n := min(chunk, len(data))
				if k, err := c.Write(data[:n]); k != n || err != nil {
					t.Fatalf("Write returned %d, %v", k, err)
				}
				data = data[n:]
			}
			head, tail := c.kept()
			if !bytes.Equal(head, all.Bytes()[:half]) {
				t.Errorf("head is not the first %d bytes", half)
			}
			if !bytes.Equal(tail, all.Bytes()[all.Len()-half:]) {
				t.Errorf("tail is not the last %d bytes", half)
			}
			if c.total != int64(all.Len()) || c.lineCount() != 50000 {
				t.Errorf("total %d lines %d", c.total, c.lineCount())
			}
			text, cut := c.render(OutputLimit)
			if !cut || !strings.HasPrefix(text, "line 0\n") || !strings.HasSuffix(text, "line 49999\n") {
				t.Errorf("render lost the ends: cut=%v start %q end %q", cut, text[:20], text[len(text)-20:])
			}
			if !strings.Contains(text, "omitted") || len(text) > OutputLimit+200 {
				t.Errorf("render: %d bytes, note present %v", len(text), strings.Contains(text, "omitted"))
			}
		})
	}
}

func TestCaptureSmallStreamIsWhole(t *testing.T) {
	var c capture
	c.Write([]byte("one\ntwo"))
	text, cut := c.render(OutputLimit)
	if cut || text != "one\ntwo" || c.lineCount() != 2 {
		t.Errorf("got %q cut=%v lines=%d", text, cut, c.lineCount())
	}
	// Just over the head: nothing is dropped, head and tail join seamlessly.
	var d capture
	in := strings.Repeat("a", half+10)
	d.Write([]byte(in))
	if text, cut := d.render(OutputLimit); cut || text != in {
		t.Errorf("stream of %d bytes was cut", len(in))
	}
}

func TestRenderCutsAtCharacterBoundaries(t *testing.T) {
	var c capture
	c.Write([]byte(strings.Repeat("é", OutputLimit))) // 2 bytes each, no newlines
	text, cut := c.render(OutputLimit / 3)
	if !cut || !utf8.ValidString(text) || strings.Contains(text, "\uFFFD") {
		t.Errorf("cut=%v valid=%v replacement=%v", cut, utf8.ValidString(text), strings.Contains(text, "\uFFFD"))
	}
}

func TestSplitBudget(t *testing.T) {
	cases := []struct {
		name       string
		out, err   int64
		wantOut    int
		wantErrOut int
	}{
		{"both fit", 100, 50, 100, 50},
		{"small stderr leaves the rest to stdout", 1 << 20, 1000, OutputLimit - 1000, 1000},
		{"small stdout leaves the rest to stderr", 10, 1 << 20, 10, OutputLimit - 10},
		{"both big share equally", 1 << 20, 1 << 20, OutputLimit / 2, OutputLimit / 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, e := splitBudget(c.out, c.err, OutputLimit)
			if o != c.wantOut || e != c.wantErrOut {
				t.Errorf("got %d/%d, want %d/%d", o, e, c.wantOut, c.wantErrOut)
			}
		})
	}
}

func TestIsSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "PHOENIX_API_KEY": true, "ANTHROPIC_API_KEY": true, "OPENROUTER_API_KEY": true,
		"MY_SERVICE_API_KEY": true, "GITHUB_TOKEN": true, "aws_secret_access_key": true, "DB_PASSWORD": true,
		"CLIENT_SECRET_ID": true, "HOME": false, "PATH": false, "TOKENIZERS_PARALLELISM": false, "GOPATH": false,
	} {
		if got := IsSecret(name); got != want {
			t.Errorf("IsSecret(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestCommandEnv(t *testing.T) {
	base := []string{"HOME=/home/p", "OPENAI_API_KEY=sk-1", "PAGER=less", "GOCACHE=/home/p/.cache/go-build"}
	env := strings.Join(commandEnv(base, true, "/tmp/conv"), "\n")
	for _, want := range []string{"HOME=/home/p", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "XDG_CACHE_HOME=/tmp/conv/.cache", "GOCACHE=/tmp/conv/.cache/go-build"} {
		if !strings.Contains(env, want+"\n") && !strings.HasSuffix(env, want) {
			t.Errorf("restricted env lacks %s:\n%s", want, env)
		}
	}
	if strings.Contains(env, "sk-1") || strings.Contains(env, "less") || strings.Contains(env, "/home/p/.cache") {
		t.Errorf("restricted env kept a removed or replaced value:\n%s", env)
	}
	env = strings.Join(commandEnv(base, false, "/tmp/conv"), "\n")
	if strings.Contains(env, "XDG_CACHE_HOME") || !strings.Contains(env, "GOCACHE=/home/p/.cache/go-build") {
		t.Errorf("unrestricted env changed the caches:\n%s", env)
	}
}
