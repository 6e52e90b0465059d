package custom

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestValidNameIsTheNameRule: the hand-written check accepts exactly the names the rule's
// regular expression does (the check replaced it to keep its compilation out of every
// start, issue 39): every byte in the first and a later place, the length limits, runes
// beyond ASCII and newlines, and random names.
func TestValidNameIsTheNameRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`)
	check := func(name string) {
		t.Helper()
		if got, want := validName(name), rule.MatchString(name); got != want {
			t.Fatalf("validName(%q) = %v, the rule says %v", name, got, want)
		}
	}
	for _, name := range []string{"", "a", "review", "git:commit", "-a", ":a", "a b", "a\n", "a/b", "é", "aé",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), "a" + strings.Repeat(":", 63)} {
		check(name)
	}
	for c := range 256 {
		check(string(rune(c)))
		check("a" + string(rune(c)))
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.StringOfN(rapid.SampledFrom([]rune("aZ09._-:/ \né")), 0, 70, -1).Draw(rt, "name")
		if got, want := validName(name), rule.MatchString(name); got != want {
			rt.Fatalf("validName(%q) = %v, the rule says %v", name, got, want)
		}
	})
}
