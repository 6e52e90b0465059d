package ui

import (
	"sort"
	"strings"
	"unicode"
)

// sidebarTitlePrefix is how many characters of a title the sidebar is sure to show (its
// narrowest width still shows about this many, smallscreen.go): titles that agree on more than
// this read the same there.
const sidebarTitlePrefix = 12

// distinctTitles gives, for titles that agree on their first sidebarTitlePrefix characters
// and beyond (150 rows of "echo: conversation 1…", issue 41), the words where each starts to
// differ from its nearest neighbour, after an ellipsis: "…number 17". A title no other shares
// that much with is kept whole; titles equal to the end are kept whole too (the row's folder
// and time tell them apart).
func distinctTitles(titles []string) []string {
	out := append([]string(nil), titles...)
	order := make([]int, len(titles))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return titles[order[a]] < titles[order[b]] })
	for k, i := range order {
		// In sorted order, the longest prefix a title shares with any other is the one it
		// shares with a neighbour.
		shared := 0
		if k > 0 {
			shared = max(shared, commonPrefix(titles[i], titles[order[k-1]]))
		}
		if k+1 < len(order) {
			shared = max(shared, commonPrefix(titles[i], titles[order[k+1]]))
		}
		t := titles[i]
		if shared <= sidebarTitlePrefix || shared >= len(t) {
			continue
		}
		// Start at the word before the one where they differ, which names what differs:
		// "…number 17", not "…17".
		start := strings.LastIndexFunc(t[:shared], unicode.IsSpace)
		start = strings.LastIndexFunc(t[:max(start, 0)], unicode.IsSpace) + 1
		if start > 0 {
			out[i] = "…" + t[start:]
		}
	}
	return out
}

// commonPrefix is the length in bytes of the longest common prefix of a and b, at a rune
// boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !isRuneStart(a[n]) {
		n--
	}
	return n
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
