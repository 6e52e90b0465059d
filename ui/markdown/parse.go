package markdown

import (
	"bufio"
	"bytes"
	stdhtml "html"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// The block model: what a reply holds, without any widget. Parsing into it is pure, so tests
// can check it directly and the view can compare blocks between renders.

type blockKind uint8

const (
	blockParagraph blockKind = iota
	blockHeading
	blockCode
	blockList
	blockQuote
	blockRule
	blockTable
	blockHTML
)

// spanKind says how a run of inline text is drawn.
type spanKind uint8

const (
	spanText spanKind = iota
	spanCode
	spanLink
)

// span is a run of inline text in one style.
type span struct {
	text   string
	kind   spanKind
	bold   bool
	italic bool
	strike bool
	url    string // spanLink
}

type block struct {
	kind  blockKind
	level int    // heading level 1–6
	spans []span // paragraph, heading, HTML
	// code block
	code, lang string
	// list
	ordered bool
	start   int
	tight   bool
	items   []listItem
	// block quote
	children []*block
	// table
	align  []east.Alignment
	header [][]span
	rows   [][][]span
	// key identifies a top-level block's source for reuse between renders.
	key string
}

type listItem struct {
	task    taskState
	content []*block
}

type taskState uint8

const (
	taskNone taskState = iota
	taskOpen
	taskDone
)

var parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// parse turns Markdown into top-level blocks.
func parse(src string) []*block {
	source := []byte(src)
	doc := parser.Parse(text.NewReader(source))
	var out []*block
	var starts []int
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		b := convertBlock(n, source)
		if b == nil {
			continue
		}
		out = append(out, b)
		starts = append(starts, firstOffset(n))
	}
	// A block's key is its kind and language with the source from where it starts to where
	// the next one starts: equal keys render equally (reference definitions aside, which a
	// chat reply does not use across streaming frames). A block whose start is unknown gets no
	// key and is always built anew.
	for i, b := range out {
		a, e := starts[i], len(src)
		for j := i + 1; j < len(out); j++ {
			if starts[j] >= 0 {
				e = starts[j]
				break
			}
		}
		if a >= 0 && a <= e {
			b.key = strconv.Itoa(int(b.kind)) + "\x00" + b.lang + "\x00" + src[a:e]
		}
	}
	return out
}

// firstOffset is where a node's first source line or text starts, or -1.
func firstOffset(n ast.Node) int {
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l != nil && l.Len() > 0 {
			return l.At(0).Start
		}
	}
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if o := firstOffset(c); o >= 0 {
			return o
		}
	}
	return -1
}

func convertBlocks(parent ast.Node, src []byte) []*block {
	var out []*block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		if b := convertBlock(n, src); b != nil {
			out = append(out, b)
		}
	}
	return out
}

func convertBlock(n ast.Node, src []byte) *block {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		spans := inlines(n, src, span{})
		if len(spans) == 0 {
			return nil
		}
		return &block{kind: blockParagraph, spans: spans}
	case *ast.Heading:
		return &block{kind: blockHeading, level: n.Level, spans: inlines(n, src, span{})}
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang = string(n.Language(src))
		}
		return &block{kind: blockCode, code: lines(n, src), lang: lang}
	case *ast.CodeBlock:
		return &block{kind: blockCode, code: lines(n, src)}
	case *ast.HTMLBlock:
		s := lines(n, src)
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(src))
		}
		return &block{kind: blockHTML, spans: []span{{text: strings.TrimRight(s, "\n")}}}
	case *ast.ThematicBreak:
		return &block{kind: blockRule}
	case *ast.Blockquote:
		return &block{kind: blockQuote, children: convertBlocks(n, src)}
	case *ast.List:
		b := &block{kind: blockList, ordered: n.IsOrdered(), start: n.Start, tight: n.IsTight}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			item := listItem{content: convertBlocks(it, src)}
			if fc := it.FirstChild(); fc != nil {
				if cb, ok := fc.FirstChild().(*east.TaskCheckBox); ok {
					item.task = taskOpen
					if cb.IsChecked {
						item.task = taskDone
					}
				}
			}
			b.items = append(b.items, item)
		}
		return b
	case *east.Table:
		b := &block{kind: blockTable, align: n.Alignments}
		for r := n.FirstChild(); r != nil; r = r.NextSibling() {
			var cells [][]span
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, inlines(c, src, span{}))
			}
			if _, ok := r.(*east.TableHeader); ok {
				b.header = cells
			} else {
				b.rows = append(b.rows, cells)
			}
		}
		return b
	}
	return nil
}

// lines joins a leaf block's source lines (code keeps its text exactly).
func lines(n ast.Node, src []byte) string {
	var sb strings.Builder
	l := n.Lines()
	for i := 0; i < l.Len(); i++ {
		seg := l.At(i)
		sb.Write(seg.Value(src))
	}
	return sb.String()
}

// inlines flattens a node's inline children into spans, merging neighbours of one style so
// that "foo_bar.go" (three text nodes to goldmark) is one run.
func inlines(n ast.Node, src []byte, st span) []span {
	var out []span
	add := func(s span) {
		if s.text == "" {
			return
		}
		if k := len(out) - 1; k >= 0 && sameStyle(out[k], s) {
			out[k].text += s.text
			return
		}
		out = append(out, s)
	}
	var walk func(n ast.Node, st span)
	// link shows a link's label as a link when its URL may be opened; otherwise as plain
	// text followed by the URL, so the person sees where it points and nothing opens it.
	link := func(n ast.Node, dest string, st span) {
		if openable(dest) {
			s := st
			s.kind, s.url = spanLink, dest
			walk(n, s)
			return
		}
		walk(n, st)
		if dest != "" && plainText(inlines(n, src, span{})) != dest {
			s := st
			s.text = " (" + dest + ")"
			add(s)
		}
	}
	walk = func(n ast.Node, st span) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				s := st
				v := c.Segment.Value(src)
				if c.IsRaw() {
					s.text = string(v)
				} else {
					s.text = unescape(v)
				}
				add(s)
				switch {
				case c.HardLineBreak():
					s.text = "\n"
					add(s)
				case c.SoftLineBreak():
					// A chat reply keeps its single line breaks, as GitHub shows comments:
					// a model's short lines (an address, a list of steps without markers)
					// mean lines, not one paragraph to be re-flowed.
					s.text = "\n"
					add(s)
				}
			case *ast.String:
				s := st
				s.text = string(c.Value)
				add(s)
			case *ast.CodeSpan:
				s := st
				s.kind = spanCode
				var sb strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						sb.Write(tx.Segment.Value(src))
					} else if str, ok := t.(*ast.String); ok {
						sb.Write(str.Value)
					}
				}
				s.text = strings.ReplaceAll(sb.String(), "\n", " ")
				add(s)
			case *ast.Emphasis:
				s := st
				if c.Level >= 2 {
					s.bold = true
				} else {
					s.italic = true
				}
				walk(c, s)
			case *east.Strikethrough:
				s := st
				s.strike = true
				walk(c, s)
			case *ast.Link:
				link(c, string(c.Destination), st)
			case *ast.Image:
				// Images are not fetched (the chat never reaches the network on its own): the
				// alt text stands in, linked to the image.
				link(c, string(c.Destination), st)
			case *ast.AutoLink:
				s := st
				s.text = string(c.Label(src))
				u := string(c.URL(src))
				if c.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
					u = "mailto:" + u
				}
				if openable(u) {
					s.kind, s.url = spanLink, u
				}
				add(s)
			case *ast.RawHTML:
				s := st
				var sb strings.Builder
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					sb.Write(seg.Value(src))
				}
				s.text = sb.String()
				add(s)
			case *east.TaskCheckBox:
				// Drawn as a check box by the list item.
			default:
				walk(c, st)
			}
		}
	}
	walk(n, st)
	// A hard break at the very end of a paragraph draws nothing.
	if k := len(out) - 1; k >= 0 {
		out[k].text = strings.TrimRight(out[k].text, "\n")
		if out[k].text == "" {
			out = out[:k]
		}
	}
	return out
}

func sameStyle(a, b span) bool {
	return a.kind == b.kind && a.bold == b.bold && a.italic == b.italic && a.strike == b.strike && a.url == b.url
}

// unescape resolves backslash escapes and character references as CommonMark requires, in
// one pass as goldmark's HTML writer does (an escaped "\\&ouml;" stays as written); the
// writer's HTML escaping is then undone.
func unescape(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	html.DefaultWriter.Write(w, v)
	_ = w.Flush()
	return stdhtml.UnescapeString(buf.String())
}

// openableSchemes are the URL schemes a click on a link may hand to the desktop: a reply is
// written by the model, and file:, smb: or an application's own scheme would let it open
// local files, network shares or other programs.
var openableSchemes = []string{"http", "https", "mailto"}

// openable says whether a link to rawURL may be opened by a click.
func openable(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && slices.Contains(openableSchemes, strings.ToLower(u.Scheme))
}

// plainText is the text of spans without styles.
func plainText(spans []span) string {
	var sb strings.Builder
	for _, s := range spans {
		sb.WriteString(s.text)
	}
	return sb.String()
}
