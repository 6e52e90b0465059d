package i18n

import (
	"encoding/json"
	"sync"
	"testing"

	"golang.org/x/text/language"
)

// TestMessageFilesAreParsedOnFirstRead (the patch, third_party/go-i18n/README.md): adding a
// message file unmarshals nothing and builds no matcher; the first Localize parses every file
// once, and later ones, from many goroutines at once, parse none again.
func TestMessageFilesAreParsedOnFirstRead(t *testing.T) {
	var mu sync.Mutex
	unmarshals := 0
	bundle := NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("json", func(data []byte, v interface{}) error {
		mu.Lock()
		unmarshals++
		mu.Unlock()
		return json.Unmarshal(data, v)
	})
	for _, f := range []struct{ name, body string }{
		{"en.json", `{"Cancel": "Cancel"}`},
		{"de.json", `{"Cancel": "Abbrechen"}`},
		{"fr.json", `{"Cancel": "Annuler"}`},
	} {
		mf, err := bundle.ParseMessageFileBytes([]byte(f.body), f.name)
		if err != nil {
			t.Fatal(err)
		}
		if mf.Tag != language.Make(f.name[:2]) {
			t.Fatalf("%s: tag %s", f.name, mf.Tag)
		}
	}
	if unmarshals != 0 || bundle.matcher != nil {
		t.Fatalf("adding the files unmarshalled %d and built a matcher (%v)", unmarshals, bundle.matcher != nil)
	}
	if got := len(bundle.LanguageTags()); got != 3 { // en (the default), de, fr
		t.Fatalf("%d language tags, want 3", got)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := NewLocalizer(bundle, "de-DE").Localize(&LocalizeConfig{MessageID: "Cancel"})
			if err != nil || got != "Abbrechen" {
				t.Errorf("Localize in German: %q, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if got, _ := NewLocalizer(bundle, "fr").Localize(&LocalizeConfig{MessageID: "Cancel"}); got != "Annuler" {
		t.Errorf("Localize in French: %q", got)
	}
	if unmarshals != 3 {
		t.Fatalf("%d unmarshals, want each of the 3 files once", unmarshals)
	}
}
