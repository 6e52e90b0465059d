package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Term limits: a one-letter word matches nearly every message, and a longer "word" is a hash,
// a blob of base64 or minified code that nobody types.
const (
	minTermRunes = 2
	maxTermRunes = 40
	// maxIndexedBytes bounds the text indexed per message: a huge tool output is indexed by
	// its beginning, which is where people look.
	maxIndexedBytes = 64 << 10
)

// isWordRune says what a word is made of. Punctuation, including '_' and '.', separates words,
// so "request_mode_upgrade" is found by "mode" and by "request mode upgrade".
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokens splits text into lower-case terms in order, repeats included.
func tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		n := utf8.RuneCountInString(f)
		if n < minTermRunes || n > maxTermRunes {
			continue
		}
		out = append(out, strings.ToLower(f))
	}
	return out
}

// queryTerms are the distinct terms of a query, in the order typed.
func queryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tokens(q) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// minPrefixRunes is the shortest word being typed that is searched as a prefix: shorter ones
// would match a large part of every conversation's words.
const minPrefixRunes = 3

// typingLastWord reports whether the last of a query's terms is still being typed, and so is
// searched as the prefix of longer words: the query ends in a word character and that word
// is long enough.
func typingLastWord(q string, terms []string) bool {
	if len(terms) == 0 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(q)
	return isWordRune(last) && utf8.RuneCountInString(terms[len(terms)-1]) >= minPrefixRunes &&
		strings.HasSuffix(strings.ToLower(q), terms[len(terms)-1])
}
