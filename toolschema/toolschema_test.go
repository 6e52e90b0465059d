package toolschema

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Nothing is read or resolved when the package is initialised: the meta-schemas wait for
// the first schema to check.
func TestMain(m *testing.M) {
	if metas.byURL != nil {
		fmt.Fprintln(os.Stderr, "the meta-schemas were resolved at package initialisation")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestSchemasAreCheckedAgainstTheirDraft(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		refused      string // a part of the error, "" when the schema is fine
	}{
		{"2020-12 by default", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, ""},
		{"2020-12 declared", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"p":{"type":"string"}},"properties":{"path":{"$ref":"#/$defs/p"}}}`, ""},
		{"draft-07 as zod writes it", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"p":{"type":"string"}},"properties":{"path":{"$ref":"#/definitions/p"},"n":{"type":"integer","exclusiveMinimum":0}},"additionalProperties":false}`, ""},
		{"draft-07 over https, no fragment", `{"$schema":"https://json-schema.org/draft-07/schema","type":"object"}`, ""},
		{"2019-09 as 2020-12", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, ""},
		{"draft-04 as draft-07", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number"}}}`, ""},
		{"a bad type", `{"type":"object","properties":{"x":{"type":"nonsense"}}}`, "not a valid JSON Schema"},
		{"a bad keyword value", `{"type":"object","required":"path"}`, "not a valid JSON Schema"},
		{"draft-04's boolean exclusiveMaximum", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":3,"exclusiveMaximum":true}}}`, "not a valid JSON Schema"},
		{"an unknown draft", `{"$schema":"http://example.com/my-schema","type":"object"}`, "cannot check"},
		{"a reference outside", `{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`, "nothing is loaded from outside"},
		{"not JSON", `{"type":`, "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile([]byte(tc.schema))
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("err = %v; want one saying %q", err, tc.refused)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("the error is not one line: %q", err)
			}
		})
	}
}

func TestArgumentsAreValidated(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`,
	} {
		s, err := Compile([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		for _, good := range []string{`{"path":"a"}`, `{"path":"a","n":2}`} {
			if err := s.Validate([]byte(good)); err != nil {
				t.Errorf("%s refused: %v", good, err)
			}
		}
		for bad, why := range map[string]string{`{}`: "path", `{"path":1}`: "", `{"path":"a","n":0}`: "", `{"path":"a","x":1}`: "", `[1]`: "", `{"path":`: "not JSON"} {
			err := s.Validate([]byte(bad))
			if err == nil || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: err = %v; want one line naming %q", bad, err, why)
			}
		}
	}
}

// Issue 33: a null where the schema wants a value is called null, not by Go's reflection.
func TestNullIsNamedInWords(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"verbose":{"type":"boolean"}},"required":["verbose"]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate([]byte(`{"verbose":null}`))
	if err == nil || strings.Contains(err.Error(), "reflect") || !strings.Contains(err.Error(), "null") {
		t.Fatalf("err = %v; want a refusal that names null", err)
	}
}

// Schemas are checked from several goroutines at once (servers start in parallel).
func TestFirstUseFromManyGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := Compile([]byte(`{"type":"object"}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// The meta-schemas are the validator module's own copies, byte for byte.
func TestMetaSchemasMatchTheModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("the module's directory is not known here (go list: %v)", err)
	}
	upstream := filepath.Join(dir, "jsonschema", "meta-schemas")
	if _, err := os.Stat(upstream); err != nil {
		t.Skipf("the module ships no meta-schemas at %s: %v", upstream, err)
	}
	n := 0
	err = fs.WalkDir(metaFS, "meta", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		ours, _ := metaFS.ReadFile(path)
		theirs, err := os.ReadFile(filepath.Join(upstream, strings.TrimPrefix(path, "meta/")))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s differs from the module's copy: copy it again", path)
		}
		return nil
	})
	if err != nil || n != 9 {
		t.Fatalf("walked %d meta-schemas (%v), want 9", n, err)
	}
}

// BenchmarkCompile: a tool's schema checked and resolved, once the meta-schemas are (the
// first use costs their resolution once: BenchmarkFirstUse).
func BenchmarkCompile(b *testing.B) {
	doc := []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path"]}`)
	for b.Loop() {
		if _, err := Compile(doc); err != nil {
			b.Fatal(err)
		}
	}
}
