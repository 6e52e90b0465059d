package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Asking the person on behalf of a conversation's servers: a server's request for input
// (elicitation) and the confirmation of a tool its server marks destructive. The set does not
// know who answers; the conversation's owner (the actors' runtime) gives it an Asker, which
// shows a card in the window or answers by the headless flags. A set without an Asker uses
// Options.Elicit and refuses confirmations (unless Options.AllowTools names the tool).

// Asker asks the person. Both methods block until the person answers or ctx ends (Stop, the
// conversation closing); they run on a server's or a call's goroutine, never a mailbox.
type Asker interface {
	Elicit(ctx context.Context, server string, req Elicitation) (ElicitAnswer, error)
	ConfirmTool(ctx context.Context, req ToolConfirmation) (ToolDecision, error)
}

// The actions of an elicitation's answer, as the protocol names them: the one home of these
// words.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ToolConfirmation is a call of a tool its server marks destructive (and not read-only),
// waiting for the person's yes outside Unrestricted mode.
type ToolConfirmation struct {
	Server, Tool string
	// Arguments are the call's arguments as the model wrote them (JSON).
	Arguments string
}

// ToolDecision is the person's answer to a ToolConfirmation.
type ToolDecision int

const (
	ToolDeny ToolDecision = iota
	ToolAllowOnce
	// ToolAlwaysAllow allows this call and every later call of the same server's tool
	// (Hub.AllowTool remembers it).
	ToolAlwaysAllow
)

func (d ToolDecision) String() string {
	switch d {
	case ToolAllowOnce:
		return "allowed once"
	case ToolAlwaysAllow:
		return "always allowed"
	}
	return "denied"
}

// DeniedText is what the model reads when the person (or the headless default) refused a
// destructive tool: the call did not run, and it should not try again unasked.
func DeniedText(server, tool, why string) string {
	return fmt.Sprintf("The person did not allow the tool %s of the MCP server %s to run (the server marks it as one that may change or delete data): %s. Nothing was run. Do not call it again unless the person asks for it; say what you wanted it to do instead.",
		tool, server, why)
}

// AllowToolsFlag is how a headless run allows destructive tools (Options.AllowTools): the one
// home of the flag's name, for messages and the command line.
const AllowToolsFlag = "--mcp-allow-tools"

// FieldKind is the kind of one form field an elicitation asks for.
type FieldKind string

// The kinds the protocol allows in a requested schema (a flat object of primitives).
const (
	FieldString  FieldKind = "string"
	FieldNumber  FieldKind = "number"
	FieldInteger FieldKind = "integer"
	FieldBoolean FieldKind = "boolean"
	FieldEnum    FieldKind = "enum"
	// FieldChoices is a multi-select enum (an array of enum strings, 2025-11-25 on): its
	// text holds the picked labels (or values), one a line (ChoicesSeparator).
	FieldChoices FieldKind = "choices"
)

// ChoicesSeparator separates the picks of a FieldChoices field in its text.
const ChoicesSeparator = "\n"

// FormField is one field of a form elicitation, read from its requested schema.
type FormField struct {
	Name        string
	Title       string
	Description string
	Kind        FieldKind
	// Options are an enum's values, Labels their titles where the schema gives them (else
	// the values themselves).
	Options, Labels []string
	Required        bool
	// Default is the schema's default, as text (empty when there is none; a multi-select's
	// picks one a line).
	Default string
	// MinItems and MaxItems bound a multi-select's picks (0: no bound).
	MinItems, MaxItems int
}

// Label is what the form shows for the field.
func (f FormField) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// FormFields reads the fields of a requested schema: {"type": "object", "properties": …},
// each property a string (with an optional format), number, integer, boolean or enum of
// strings. They come required first, then by name (a JSON object's order does not survive
// decoding). A schema the app cannot show as a form is an error that says which field.
func FormFields(schema any) ([]FormField, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("the requested schema cannot be read: %w", err)
	}
	var top struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the requested schema is not an object schema: %w", err)
	}
	if top.Type != "" && top.Type != "object" {
		return nil, fmt.Errorf("the requested schema has type %q; a form needs an object", top.Type)
	}
	var fields []FormField
	for name, p := range top.Properties {
		var prop struct {
			Type        string        `json:"type"`
			Title       string        `json:"title"`
			Description string        `json:"description"`
			Enum        []any         `json:"enum"`
			EnumNames   []string      `json:"enumNames"`
			OneOf       []titledConst `json:"oneOf"`
			Default     any           `json:"default"`
			Items       *struct {
				Enum  []any         `json:"enum"`
				AnyOf []titledConst `json:"anyOf"`
			} `json:"items"`
			MinItems int `json:"minItems"`
			MaxItems int `json:"maxItems"`
		}
		if err := json.Unmarshal(p, &prop); err != nil {
			return nil, fmt.Errorf("the field %q of the requested schema cannot be read: %w", name, err)
		}
		f := FormField{Name: name, Title: prop.Title, Description: prop.Description, Required: slices.Contains(top.Required, name)}
		if prop.Default != nil {
			f.Default = fmt.Sprint(prop.Default)
		}
		switch {
		case len(prop.Enum) > 0:
			f.Kind = FieldEnum
			f.addChoices(prop.Enum, prop.EnumNames, nil)
		case len(prop.OneOf) > 0:
			f.Kind = FieldEnum
			f.addChoices(nil, nil, prop.OneOf)
		case prop.Type == "array" && prop.Items != nil && (len(prop.Items.Enum) > 0 || len(prop.Items.AnyOf) > 0):
			f.Kind, f.MinItems, f.MaxItems = FieldChoices, prop.MinItems, prop.MaxItems
			f.addChoices(prop.Items.Enum, nil, prop.Items.AnyOf)
			f.Default = ""
			if picks, ok := prop.Default.([]any); ok {
				var texts []string
				for _, p := range picks {
					texts = append(texts, fmt.Sprint(p))
				}
				f.Default = strings.Join(texts, ChoicesSeparator)
			}
		case prop.Type == string(FieldString), prop.Type == string(FieldNumber),
			prop.Type == string(FieldInteger), prop.Type == string(FieldBoolean):
			f.Kind = FieldKind(prop.Type)
		default:
			return nil, fmt.Errorf("the field %q has type %q, which a form cannot ask for (strings, numbers, booleans, choices and multiple choices only)", name, prop.Type)
		}
		fields = append(fields, f)
	}
	slices.SortFunc(fields, func(a, b FormField) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return fields, nil
}

// Value turns what the person typed or picked into the field's JSON value. present is false
// for an optional field left empty (it is left out of the answer); a required one left empty,
// a number that is not one, or a choice that is not offered is an error that says so.
func (f FormField) Value(text string) (v any, present bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" && f.Kind != FieldBoolean {
		if f.Required {
			return nil, false, fmt.Errorf("%s is required", f.Label())
		}
		return nil, false, nil
	}
	switch f.Kind {
	case FieldBoolean:
		b, err := strconv.ParseBool(cmp(text, "false"))
		if err != nil {
			return nil, false, fmt.Errorf("%s must be true or false", f.Label())
		}
		return b, true, nil
	case FieldNumber:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false, fmt.Errorf("%s must be a number, not %q", f.Label(), text)
		}
		return n, true, nil
	case FieldInteger:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%s must be a whole number, not %q", f.Label(), text)
		}
		return n, true, nil
	case FieldEnum:
		return f.option(text)
	case FieldChoices:
		picks := []any{}
		for _, line := range strings.Split(text, ChoicesSeparator) {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			v, _, err := f.option(line)
			if err != nil {
				return nil, false, err
			}
			picks = append(picks, v)
		}
		switch {
		case f.MinItems > 0 && len(picks) < f.MinItems:
			return nil, false, fmt.Errorf("%s needs at least %d picks", f.Label(), f.MinItems)
		case f.MaxItems > 0 && len(picks) > f.MaxItems:
			return nil, false, fmt.Errorf("%s takes at most %d picks", f.Label(), f.MaxItems)
		}
		return picks, true, nil
	}
	return text, true, nil
}

// option is the value of a choice, given by its label or its value.
func (f FormField) option(text string) (any, bool, error) {
	if i := slices.Index(f.Labels, text); i >= 0 {
		return f.Options[i], true, nil
	}
	if slices.Contains(f.Options, text) {
		return text, true, nil
	}
	return nil, false, fmt.Errorf("%s must be one of %s", f.Label(), strings.Join(f.Labels, ", "))
}

// FormContent builds an answer's content from the person's entries, by field name; the first
// problem is returned, naming the field.
func FormContent(fields []FormField, entries map[string]string) (map[string]any, error) {
	out := map[string]any{}
	var errs []error
	for _, f := range fields {
		v, ok, err := f.Value(entries[f.Name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			out[f.Name] = v
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// titledConst is one choice of a oneOf or anyOf list: a value and its title.
type titledConst struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// addChoices adds the choices of an enum (labelled by the legacy enumNames where given) and of
// a oneOf or anyOf list of consts (labelled by their titles), each value labelled by itself
// otherwise.
func (f *FormField) addChoices(enum []any, names []string, consts []titledConst) {
	for i, v := range enum {
		label := fmt.Sprint(v)
		if i < len(names) && names[i] != "" {
			label = names[i]
		}
		f.Options, f.Labels = append(f.Options, fmt.Sprint(v)), append(f.Labels, label)
	}
	for _, o := range consts {
		f.Options, f.Labels = append(f.Options, fmt.Sprint(o.Const)), append(f.Labels, cmp(o.Title, fmt.Sprint(o.Const)))
	}
}
