package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// searchDelay is how long typing pauses before the search runs: a query per keystroke would
// only be thrown away by the next one.
const searchDelay = 200 * time.Millisecond

// globalSearch is the search over every conversation at the top of the sidebar (Ctrl+Shift+F).
// While its field holds a query, the sidebar lists the matching messages instead of the
// conversations; a click opens the conversation at that message. Owned by the UI goroutine.
type globalSearch struct {
	entry *widget.Entry
	info  *widget.Label
	list  *widget.List
	panel *fyne.Container
	hits  []SearchHit
	// query is what the hits shown were found for.
	query string
	// gen numbers the searches; an answer for an older one is dropped.
	gen   int
	timer *time.Timer
	// more shows the next page of hits when the search found more than it shows; limit is
	// how many the next search asks for, every hit of a conversation (not the best three)
	// once the person asked for more.
	more  *button.Button
	limit int
}

// searchPage is how many more hits "Show more" asks for.
const searchPage = 50

func (m *MainWindow) newGlobalSearch() *globalSearch {
	g := &globalSearch{entry: widget.NewEntry(), info: widget.NewLabel("")}
	g.entry.SetPlaceHolder("Search all conversations")
	g.entry.OnChanged = func(string) { m.scheduleSearch() }
	g.entry.OnSubmitted = func(string) {
		if len(g.hits) > 0 {
			m.openHit(g.hits[0])
		}
	}
	g.info.Wrapping = fyne.TextWrapWord
	g.info.SizeName = theme.SizeNameCaptionText
	g.list = widget.NewList(func() int { return len(g.hits) },
		func() fyne.CanvasObject {
			title := widget.NewLabel("")
			title.TextStyle.Bold = true
			title.Truncation = fyne.TextTruncateEllipsis
			line := widget.NewRichText()
			line.Truncation = fyne.TextTruncateEllipsis
			return container.New(&column{Gap: -pad() * 2}, title, line)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(g.hits) {
				return
			}
			h := g.hits[id]
			c := o.(*fyne.Container)
			title := h.Title
			if title == "" {
				title = "Untitled"
			}
			if h.Archived {
				title += " (archived)"
			}
			c.Objects[0].(*widget.Label).SetText(title)
			line := c.Objects[1].(*widget.RichText)
			line.Segments = hitSegments(h, g.query)
			line.Refresh()
		})
	g.list.OnSelected = func(id widget.ListItemID) {
		g.list.Unselect(id)
		if id < len(g.hits) {
			m.openHit(g.hits[id])
		}
	}
	clear := button.NewWithIcon("", theme.CancelIcon(), func() { g.entry.SetText("") })
	clear.Importance = widget.LowImportance
	g.entry.ActionItem = clear
	g.more = button.New("Show more", func() { m.moreHits() })
	g.more.Importance = widget.LowImportance
	g.more.Hide()
	g.panel = container.NewBorder(g.info, g.more, nil, nil, g.list)
	g.panel.Hide()
	return g
}

// showGlobalSearch is Ctrl+Shift+F.
func (m *MainWindow) showGlobalSearch() {
	m.win.Canvas().Focus(m.sidebar.search.entry)
}

// scheduleSearch runs the search once typing pauses; an empty field shows the conversations
// again.
func (m *MainWindow) scheduleSearch() {
	g := m.sidebar.search
	g.gen++
	g.limit = 0
	if g.timer != nil {
		g.timer.Stop()
	}
	if strings.TrimSpace(g.entry.Text) == "" {
		g.hits = nil
		g.panel.Hide()
		m.sidebar.list.Show()
		return
	}
	gen := g.gen
	g.timer = time.AfterFunc(searchDelay, func() { m.do(func() { m.runSearch(gen) }) })
}

// runSearch queries the backend off the UI goroutine.
func (m *MainWindow) runSearch(gen int) {
	g := m.sidebar.search
	if m.closed || gen != g.gen {
		return
	}
	q := SearchQuery{Text: g.entry.Text, IncludeArchived: m.sidebar.showArchived, Limit: g.limit, EveryHit: g.limit > 0}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		res, err := m.b.Search(ctx, q)
		m.do(func() { m.showSearchResult(gen, res, err) })
	}()
}

func (m *MainWindow) showSearchResult(gen int, res SearchResult, err error) {
	g := m.sidebar.search
	if m.closed || gen != g.gen {
		return
	}
	paging := g.limit > 0 && g.query == g.entry.Text
	g.hits, g.query = res.Hits, g.entry.Text
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		return
	case err != nil:
		g.hits = nil
		g.info.SetText(strings.TrimSuffix(err.Error(), ".") + ".")
	case len(res.Hits) == 0:
		g.info.SetText("No message holds every word.")
	case res.Matches > len(res.Hits) && g.limit > 0:
		g.info.SetText(fmt.Sprintf("%d of %d matching messages:", len(res.Hits), res.Matches))
	case res.Matches > len(res.Hits):
		g.info.SetText(fmt.Sprintf("The best %d of %d matching messages:", len(res.Hits), res.Matches))
	default:
		g.info.SetText(fmt.Sprintf("%d matching messages:", len(res.Hits)))
	}
	if err == nil && res.Indexing {
		g.info.SetText(g.info.Text + " (the index is still being built; some may be missing)")
	}
	left := res.Matches - len(g.hits)
	g.more.Hidden = err != nil || left <= 0
	g.more.SetText(fmt.Sprintf("Show %d more", min(left, searchPage)))
	g.list.Refresh()
	if !paging {
		g.list.ScrollToTop()
	}
	m.sidebar.list.Hide()
	g.panel.Show()
}

// moreHits is "Show more": the same search again, for every matching message (not only the
// best three of each conversation), a page more than shown.
func (m *MainWindow) moreHits() {
	g := m.sidebar.search
	g.limit = len(g.hits) + searchPage
	g.gen++
	m.runSearch(g.gen)
}

// openHit opens a hit's conversation at its message.
func (m *MainWindow) openHit(h SearchHit) {
	cs := m.conv(h.ConvID)
	if !cs.hasState && cs.conv.ID == "" {
		cs.conv.ID, cs.conv.Title = h.ConvID, h.Title
	}
	seq := h.Seq
	cs.jumpTo, cs.jumpWords = &seq, m.sidebar.search.query
	if cs == m.current {
		m.jumpIfPending(cs)
		return
	}
	m.open(h.ConvID)
}

// jumpIfPending scrolls the open conversation to the message a search hit named, once its
// rows are there.
func (m *MainWindow) jumpIfPending(cs *convState) {
	if cs != m.current || cs.jumpTo == nil || !cs.loaded || m.cv == nil {
		return
	}
	if i := cs.model.rowOf(*cs.jumpTo); i >= 0 {
		// The hit's words stay highlighted until the next click in the chat.
		m.cv.hitWords, m.cv.hitKey = strings.Fields(cs.jumpWords), cs.model.at(i).key
		m.cv.list.Refresh()
		m.cv.center(i)
	}
	cs.jumpTo = nil
}

// hitSegments is a search hit's line as the list shows it: who wrote it, then the words of
// the message without their Markdown, every word of the query highlighted.
func hitSegments(h SearchHit, query string) []widget.RichTextSegment {
	text := transcript.OneLine(markdown.PlainText(h.Line), 200)
	merged := markdown.MatchesAny(text, strings.Fields(query))
	plain := widget.RichTextStyle{Inline: true, SizeName: theme.SizeNameCaptionText}
	match := plain
	match.ColorName, match.TextStyle = theme.ColorNamePrimary, fyne.TextStyle{Bold: true}
	segs := []widget.RichTextSegment{&widget.TextSegment{Text: transcript.Speaker(h.Kind) + ": ", Style: plain}}
	at := 0
	for _, r := range merged {
		if r[0] > at {
			segs = append(segs, &widget.TextSegment{Text: text[at:r[0]], Style: plain})
		}
		segs = append(segs, &widget.TextSegment{Text: text[r[0]:r[1]], Style: match})
		at = r[1]
	}
	if at < len(text) {
		segs = append(segs, &widget.TextSegment{Text: text[at:], Style: plain})
	}
	return segs
}
