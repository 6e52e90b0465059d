package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 33: an optional argument the model set to null, where the schema takes no null, is
// left out of the call instead of refusing it (the protocol reads null as "not given"); a
// required one, or one whose schema takes null, is left for the schema to judge.
func TestOptionalNullArgumentsAreLeftOut(t *testing.T) {
	params := `{"type":"object","properties":{"region":{"type":"string"},"verbose":{"type":"boolean"},` +
		`"note":{"type":["string","null"]},"any":{}},"required":["region"]}`
	schema, raw, err := compileInputSchema(mustJSON(params))
	if err != nil {
		t.Fatal(err)
	}
	o := offered{schema: schema, spec: domain.ToolSpec{Parameters: raw}}
	for in, want := range map[string]string{
		`{"region":"eu","verbose":null}`:             `{"region":"eu"}`,
		`{"region":"eu","note":null,"any":null}`:     `{"region":"eu","note":null,"any":null}`,
		`{"region":null,"verbose":true}`:             `{"region":null,"verbose":true}`,
		`{"region":"eu","verbose":false,"x":"null"}`: `{"region":"eu","verbose":false,"x":"null"}`,
	} {
		got := o.withoutNulls(in)
		if !sameJSON(t, got, want) {
			t.Errorf("withoutNulls(%s) = %s, want %s", in, got, want)
		}
	}
	if err := o.checkArgs(o.withoutNulls(`{"region":"eu","verbose":null}`)); err != nil {
		t.Errorf("the call without its null is still refused: %v", err)
	}
	if err := o.checkArgs(o.withoutNulls(`{"region":null}`)); err == nil || strings.Contains(err.Error(), "reflect") {
		t.Errorf("a required null: %v", err)
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}
