package markdown

import "strings"

// PlainText is Markdown as the words a reader sees, on one line: markup, fences and list
// marks dropped, blocks joined by a space (a search result's line).
func PlainText(src string) string {
	var parts []string
	var add func(bs []*block)
	add = func(bs []*block) {
		for _, b := range bs {
			switch b.kind {
			case blockParagraph, blockHeading, blockHTML:
				parts = append(parts, plainText(b.spans))
			case blockCode:
				parts = append(parts, b.code)
			case blockList:
				for _, it := range b.items {
					add(it.content)
				}
			case blockQuote:
				add(b.children)
			case blockTable:
				for _, c := range b.header {
					parts = append(parts, plainText(c))
				}
				for _, r := range b.rows {
					for _, c := range r {
						parts = append(parts, plainText(c))
					}
				}
			}
		}
	}
	add(parse(src))
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}
