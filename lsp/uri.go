package lsp

import (
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the path of a file: URI, "" for another scheme.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// lineText is line n (zero-based) of text, without its end of line.
func lineText(text string, n int) string {
	for range n {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return ""
		}
		text = text[i+1:]
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSuffix(text, "\r")
}

// column turns a server's character offset on line into a one-based column in characters
// (runes), as a person counts them in an editor.
func column(line string, character int, utf8Units bool) int {
	runes, units := 0, 0
	for _, r := range line {
		if units >= character {
			break
		}
		if utf8Units {
			units += utf8.RuneLen(r)
		} else {
			units += len(utf16.Encode([]rune{r}))
		}
		runes++
	}
	return runes + 1
}

// character turns a one-based column in characters into the server's offset on line.
func character(line string, col int, utf8Units bool) int {
	units, n := 0, 0
	for _, r := range line {
		if n >= col-1 {
			break
		}
		if utf8Units {
			units += utf8.RuneLen(r)
		} else {
			units += len(utf16.Encode([]rune{r}))
		}
		n++
	}
	return units
}
