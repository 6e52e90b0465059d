package remote

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestConvIDOKIsTheFolderRule: the hand-written check accepts exactly the ids the rule's
// regular expression does (the check replaced it to keep its compilation out of every
// start, issue 39): every byte in the first and a later place, the length limits, runes
// beyond ASCII and newlines, and random ids.
func TestConvIDOKIsTheFolderRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	check := func(id string) {
		t.Helper()
		if got, want := convIDOK(id), rule.MatchString(id); got != want {
			t.Fatalf("convIDOK(%q) = %v, the rule says %v", id, got, want)
		}
	}
	for _, id := range []string{"", "a", "mx02eb58-dcd88463aabe", "-a", ".a", "_a", "a b", "a\n", "a/b", "é", "aé",
		strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 129), "a" + strings.Repeat(".", 127)} {
		check(id)
	}
	for c := range 256 {
		check(string(rune(c)))
		check("a" + string(rune(c)))
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	rapid.Check(t, func(rt *rapid.T) {
		id := rapid.StringOfN(rapid.SampledFrom([]rune("aZ09._-:/ \né")), 0, 140, -1).Draw(rt, "id")
		if got, want := convIDOK(id), rule.MatchString(id); got != want {
			rt.Fatalf("convIDOK(%q) = %v, the rule says %v", id, got, want)
		}
	})
}
