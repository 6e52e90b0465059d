package webfetch

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// docsPage is a documentation page of about 300 KB: a site header and navigation, then
// sections of prose with links, code, a table and an image each.
var docsPage = func() string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Bench</title><style>p{}</style><script>x()</script></head><body><header>Site</header><nav>`)
	for i := range 200 {
		fmt.Fprintf(&b, `<a href="/p/%d">Page %d</a>`, i, i)
	}
	b.WriteString(`</nav><main>`)
	for i := range 150 {
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d</h2><p>Some <em>prose</em> with <a href="../ref/%d.html">a link</a> and <code>inline()</code> code.</p>`, i, i, i)
		fmt.Fprintf(&b, `<pre><code class="language-go">func f%d() int {
	return %d
}
</code></pre><table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-n%d</td><td>count</td></tr></table><img src="img/%d.png" alt="figure %d">`, i, i, i, i, i)
		b.WriteString(strings.Repeat(`<p>Filler text that a real page would hold, long enough to matter for the measurement.</p>`, 10))
	}
	b.WriteString(`</main><footer>Footer</footer></body></html>`)
	return b.String()
}()

// BenchmarkParse is the baseline: only parsing the page, which any reading of it costs.
func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(docsPage)))
	for b.Loop() {
		if _, err := html.Parse(strings.NewReader(docsPage)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToMarkdown is what fetch_url adds after the download: parse, cut the noise,
// convert. Compare it with BenchmarkParse in the same run.
func BenchmarkToMarkdown(b *testing.B) {
	base, _ := url.Parse("https://docs.example.org/guide/")
	b.SetBytes(int64(len(docsPage)))
	for b.Loop() {
		if _, md, err := toMarkdown(docsPage, base); err != nil || !strings.Contains(md, "## Section 149") {
			b.Fatal(err)
		}
	}
}
