package toolschema

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed meta
var metaFS embed.FS

// The drafts a schema can declare, as the validator names them, and where their meta-schemas
// are in metaFS.
const (
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
	draft07     = "http://json-schema.org/draft-07/schema#"
)

// normalURL is a meta-schema's URL without its scheme and its empty fragment, as drafts are
// written either way ("http://json-schema.org/draft-07/schema#", "https://…/schema").
func normalURL(u string) string {
	u = strings.TrimSuffix(u, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return rest
	}
	return strings.TrimPrefix(u, "http://")
}

// metaFile maps a meta-schema's URL to its copy; ok is false for any other URL.
func metaFile(u string) (string, bool) {
	rest := normalURL(u)
	if rest == "json-schema.org/draft-07/schema" {
		return "meta/draft7/schema.json", true
	}
	name, ok := strings.CutPrefix(rest, "json-schema.org/draft/2020-12/")
	if ok && (name == "schema" || strings.HasPrefix(name, "meta/") && !strings.Contains(strings.TrimPrefix(name, "meta/"), "/")) {
		return "meta/draft2020-12/" + name + ".json", true
	}
	return "", false
}

// loadMeta is the loader of the meta-schemas' own references (2020-12's vocabularies).
func loadMeta(u *url.URL) (*jsonschema.Schema, error) {
	name, ok := metaFile(u.String())
	if !ok {
		return nil, fmt.Errorf("no copy of the meta-schema %s", u)
	}
	data, err := metaFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("the copy of %s: %w", u, err)
	}
	return &s, nil
}

var metas struct {
	once    sync.Once
	byURL   map[string]*jsonschema.Resolved
	loadErr error
}

// meta returns the resolved meta-schema of a draft, resolving both on first use.
func meta(draft string) (*jsonschema.Resolved, error) {
	metas.once.Do(func() {
		metas.byURL = map[string]*jsonschema.Resolved{}
		for _, d := range []string{draft202012, draft07} {
			u, _ := url.Parse(d)
			s, err := loadMeta(u)
			if err == nil {
				var rs *jsonschema.Resolved
				rs, err = s.Resolve(&jsonschema.ResolveOptions{BaseURI: strings.TrimSuffix(d, "#"), Loader: loadMeta})
				metas.byURL[d] = rs
			}
			if err != nil {
				metas.loadErr = fmt.Errorf("internal error: the %s meta-schema: %w", d, err)
				return
			}
		}
	})
	if metas.loadErr != nil {
		return nil, metas.loadErr
	}
	return metas.byURL[draft], nil
}

// checkedDraft is the draft a schema is checked and applied as: the two the validator knows
// as themselves; draft-04 and draft-06 as draft-07, their successor (a draft-04 schema using
// its own boolean exclusiveMaximum then fails the check, with the reason), and 2019-09 as
// 2020-12.
func checkedDraft(declared string) (string, error) {
	switch normalURL(declared) {
	case "", "json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2019-09/schema", "json-schema.org/schema":
		return draft202012, nil
	case "json-schema.org/draft-07/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-04/schema":
		return draft07, nil
	}
	return "", fmt.Errorf("it declares \"$schema\": %q, a JSON Schema draft the app cannot check (2020-12 and draft-07 are)", declared)
}

// Schema is a tool's input schema, checked and ready to validate arguments.
type Schema struct{ resolved *jsonschema.Resolved }

// Compile checks doc, a JSON Schema, against its draft's meta-schema and prepares it to
// validate arguments. A $ref to anything outside doc is refused. Errors are one line.
func Compile(doc []byte) (*Schema, error) {
	var value any
	if err := json.Unmarshal(doc, &value); err != nil {
		return nil, fmt.Errorf("it is not JSON: %w", err)
	}
	obj, _ := value.(map[string]any)
	declared, _ := obj["$schema"].(string)
	draft, err := checkedDraft(declared)
	if err != nil {
		return nil, err
	}
	m, err := meta(draft)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(value); err != nil {
		return nil, errors.New("it is not a valid JSON Schema: " + oneLine(metaTrail.ReplaceAllString(err.Error(), "")))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	// The validator reads a schema as the draft it declares, and knows two spellings of two
	// drafts: a declared draft is read as the one it was checked as (the model still gets
	// the schema as the server wrote it).
	if s.Schema != "" {
		s.Schema = draft
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{Loader: refuseOutside})
	if err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	return &Schema{resolved: rs}, nil
}

// refuseOutside is the loader of a $ref outside the schema: a schema never makes the app
// fetch or read anything.
func refuseOutside(u *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("schemas may not refer to %s: nothing is loaded from outside", u)
}

// Validate checks a call's arguments (JSON) against the schema; errors are one line.
func (s *Schema) Validate(args []byte) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if err := s.resolved.Validate(v); err != nil {
		// The validator prints a null value as Go's reflection sees it.
		return errors.New(strings.ReplaceAll(oneLine(err.Error()), "<invalid reflect.Value>", "null"))
	}
	return nil
}

// metaTrail matches the validator's "validating LOCATION: " steps through the meta-schema,
// which name the meta-schema's parts rather than the tool schema's; what is left says what
// is wrong ("enum: nonsense does not equal any of …").
var metaTrail = regexp.MustCompile(`validating (?:https?://)?[^: ]+: `)

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
