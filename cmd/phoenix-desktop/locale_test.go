package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"
)

// TestNoLocaleErrorUnderTheCLocale runs the built binary under the C locale, spelled as
// containers and minimal systems spell it, and expects nothing on stderr. Fyne reads the
// locale while its packages initialise, before main, through go-locale, which turned
// LANG=C.UTF-8 into the language "C" and made Fyne log "Error parsing user locale C" for
// every command (issue 28; the patched copy is third_party/go-locale).
func TestNoLocaleErrorUnderTheCLocale(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to build the app: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "phoenix-desktop")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The locale variables that win over LANG are taken out, so that LANG is what is read.
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_")
	})
	for _, lang := range []string{"C.UTF-8", "C.utf8", "C", "POSIX"} {
		for _, args := range [][]string{{"--version"}, {"help"}} {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(slices.Clone(base), "LANG="+lang)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("LANG=%s phoenix-desktop %s: %v\n%s", lang, strings.Join(args, " "), err, stderr.String())
				continue
			}
			if stderr.Len() != 0 {
				t.Errorf("LANG=%s phoenix-desktop %s printed on stderr:\n%s", lang, strings.Join(args, " "), stderr.String())
			}
		}
	}
}

// envFyneWord makes the test binary print Fyne's translation of the word it names, in the
// locale its environment gives, and exit (TestFyneTranslatesAfterLazyParse).
const envFyneWord = "PHOENIX_TEST_FYNE_WORD"

func maybePrintFyneWord() {
	if w := os.Getenv(envFyneWord); w != "" {
		os.Stdout.WriteString(lang.L(w))
		os.Exit(0)
	}
}

// TestFyneTranslatesAfterLazyParse: Fyne's words (its dialogs' buttons) are still translated
// into the person's language now that its translation files are parsed on first use, not
// while the packages initialise (the patched go-i18n, third_party/go-i18n, issue 39).
func TestFyneTranslatesAfterLazyParse(t *testing.T) {
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_")
	})
	for _, c := range []struct{ lang, want string }{
		{"de_DE.UTF-8", "Abbrechen"}, {"fr_FR.UTF-8", "Annuler"}, {"en_US.UTF-8", "Cancel"}, {"C.UTF-8", "Cancel"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(slices.Clone(base), "LANG="+c.lang, envFyneWord+"=Cancel")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("LANG=%s: the test binary as Fyne: %v", c.lang, err)
		}
		if string(out) != c.want {
			t.Errorf("LANG=%s: Fyne says %q for Cancel, want %q", c.lang, out, c.want)
		}
	}
}
