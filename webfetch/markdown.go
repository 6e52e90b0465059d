package webfetch

import (
	"net/url"
	"strings"
	"sync"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// markdown is the one converter (it locks itself per conversion).
var markdown = sync.OnceValue(func() *converter.Converter {
	c := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin()))
	c.Register.RendererFor("img", converter.TagTypeInline, renderImage, converter.PriorityEarly)
	return c
})

// toMarkdown returns the page's title and its content as Markdown, links made absolute
// against base.
func toMarkdown(page string, base *url.URL) (title, md string, err error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "", "", err
	}
	title = pageTitle(doc)
	removeNoise(doc)
	keepMain(doc)
	out, err := markdown().ConvertNode(doc, converter.WithDomain(base.String()))
	if err != nil {
		return "", "", err
	}
	return title, strings.TrimSpace(string(out)), nil
}

// renderImage writes an image as a link to it, so that nothing is downloaded or inlined; an
// inline data: image keeps only its alt text.
func renderImage(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	alt := strings.Join(strings.Fields(attr(n, "alt")), " ")
	if alt == "" {
		alt = strings.Join(strings.Fields(attr(n, "title")), " ")
	}
	label := "Image"
	if alt != "" {
		label += ": " + strings.NewReplacer(`[`, `\[`, `]`, `\]`).Replace(alt)
	}
	src := strings.TrimSpace(attr(n, "src"))
	if src == "" || strings.HasPrefix(strings.ToLower(src), "data:") {
		if alt != "" {
			w.WriteString("[" + label + "]")
		}
		return converter.RenderSuccess
	}
	w.WriteString("[" + label + "](" + ctx.AssembleAbsoluteURL(ctx, "img", src) + ")")
	return converter.RenderSuccess
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func pageTitle(doc *html.Node) string {
	var title string
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			title = strings.Join(strings.Fields(b.String()), " ")
			return false
		}
		return title == ""
	})
	return title
}

// noiseTags are elements that are never a page's content: the site's navigation, forms,
// drawings and scripts (some of which the converter drops by itself too).
var noiseTags = map[atom.Atom]bool{
	atom.Nav: true, atom.Aside: true, atom.Form: true, atom.Button: true, atom.Select: true,
	atom.Svg: true, atom.Canvas: true, atom.Template: true, atom.Dialog: true, atom.Script: true,
	atom.Style: true, atom.Noscript: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
}

// noiseRoles are ARIA roles of the same kinds of parts.
var noiseRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menubar": true, "dialog": true, "alertdialog": true,
}

// contentAtoms hold a page's own content: a header or footer inside one is the content's
// (an article's title, its date), outside it is the site's.
var contentAtoms = map[atom.Atom]bool{atom.Main: true, atom.Article: true, atom.Section: true}

// removeNoise takes out what is not content (see noiseTags, noiseRoles, hidden elements,
// and the site's header and footer).
func removeNoise(doc *html.Node) {
	var drop []*html.Node
	var visit func(n *html.Node, inContent bool)
	visit = func(n *html.Node, inContent bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if isNoise(c, inContent) {
				drop = append(drop, c)
				continue
			}
			visit(c, inContent || contentAtoms[c.DataAtom] || attr(c, "role") == "main")
		}
	}
	visit(doc, false)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

func isNoise(n *html.Node, inContent bool) bool {
	if noiseTags[n.DataAtom] || noiseRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] {
		return true
	}
	if !inContent && (n.DataAtom == atom.Header || n.DataAtom == atom.Footer) {
		return true
	}
	for _, a := range n.Attr {
		switch {
		case a.Key == "hidden":
			return true
		case a.Key == "aria-hidden" && strings.EqualFold(strings.TrimSpace(a.Val), "true"):
			return true
		case a.Key == "style" && strings.Contains(strings.ReplaceAll(strings.ToLower(a.Val), " ", ""), "display:none"):
			return true
		}
	}
	return false
}

// keepMain keeps only the page's <main> (or role="main") element in its body, when it has
// one: the page itself says where its content is.
func keepMain(doc *html.Node) {
	var body, main *html.Node
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if n.DataAtom == atom.Body && body == nil {
			body = n
		}
		if main == nil && (n.DataAtom == atom.Main || attr(n, "role") == "main") {
			main = n
			return false
		}
		return true
	})
	if body == nil || main == nil || main == body {
		return
	}
	main.Parent.RemoveChild(main)
	for c := body.FirstChild; c != nil; c = body.FirstChild {
		body.RemoveChild(c)
	}
	body.AppendChild(main)
}

// walk visits n and its descendants depth first while visit returns true for them (false
// skips a node's children).
func walk(n *html.Node, visit func(*html.Node) bool) {
	if !visit(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}
