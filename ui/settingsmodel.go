package ui

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Settings' per-model choices (issue 28): a reply limit (max tokens) for any model and a
// reasoning effort for a model that thinks (domain.Thinks), shown under the default model and
// kept per model name, so that switching the field between models keeps each one's choice.
// Deps.Apply hands them to the runtime (actors.Runtime.SetModelOptions), which the next
// request of every conversation reads.

// Preference keys of the per-model choices: lists of "MODEL=VALUE".
const (
	prefOutputLimits = "settings.output_limits"
	prefEfforts      = "settings.reasoning_efforts"
)

// maxReplyLimit bounds what the field accepts: more than any model's reply, less than a typo.
const maxReplyLimit = 10_000_000

// defaultEffort is the effort list's first choice: send none, so the provider decides.
const defaultEffort = "Provider default"

// readPairs reads a list of "MODEL=VALUE" from the preferences; a malformed entry is skipped.
func readPairs(p fyne.Preferences, key string) map[string]string {
	out := map[string]string{}
	for _, kv := range p.StringList(key) {
		k, v, ok := strings.Cut(kv, "=")
		if k, v = strings.TrimSpace(k), strings.TrimSpace(v); ok && k != "" && v != "" {
			out[k] = v
		}
	}
	return out
}

// writePairs writes a map as a sorted list of "MODEL=VALUE".
func writePairs[V any](p fyne.Preferences, key string, m map[string]V) {
	list := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		list = append(list, fmt.Sprintf("%s=%v", k, m[k]))
	}
	p.SetStringList(key, list)
}

// loadModelChoices fills the per-model choices of s from the preferences.
func loadModelChoices(p fyne.Preferences, s *Settings) {
	s.OutputLimits = map[string]int{}
	for k, v := range readPairs(p, prefOutputLimits) {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			s.OutputLimits[k] = n
		}
	}
	s.ReasoningEfforts = map[string]string{}
	for k, v := range readPairs(p, prefEfforts) {
		if slices.Contains(domain.ReasoningEfforts, v) {
			s.ReasoningEfforts[k] = v
		}
	}
}

// saveModelChoices writes the per-model choices of s; nil maps (settings saved by the welcome
// card, which has no such rows) leave the saved ones as they are.
func saveModelChoices(p fyne.Preferences, s Settings) {
	if s.OutputLimits == nil && s.ReasoningEfforts == nil {
		return
	}
	writePairs(p, prefOutputLimits, s.OutputLimits)
	writePairs(p, prefEfforts, s.ReasoningEfforts)
}

// modelChoices are the dialog's rows for the model in the default-model field.
type modelChoices struct {
	limit     *escEntry
	effort    *widget.Select
	effortRow *fyne.Container
	note      *widget.Label
	box       *fyne.Container
	// model is the model the rows show; limits and efforts the choices per model so far.
	model   string
	limits  map[string]int
	efforts map[string]string
}

func newModelChoices(saved Settings) *modelChoices {
	c := &modelChoices{limit: newEscEntry(), note: hintLabel(""),
		limits: maps.Clone(saved.OutputLimits), efforts: maps.Clone(saved.ReasoningEfforts)}
	if c.limits == nil {
		c.limits = map[string]int{}
	}
	if c.efforts == nil {
		c.efforts = map[string]string{}
	}
	c.effort = widget.NewSelect(append([]string{defaultEffort}, domain.ReasoningEfforts...), nil)
	c.effortRow = container.NewBorder(nil, nil, widget.NewLabel("Reasoning effort"), nil, c.effort)
	c.box = container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("Reply limit"), nil, c.limit), c.effortRow, c.note)
	c.limit.OnChanged = func(string) { c.check() }
	c.show(saved.Model)
	return c
}

// show keeps what the rows hold for the model they showed and shows model's choices.
func (c *modelChoices) show(model string) {
	c.keep()
	c.model = strings.TrimSpace(model)
	c.limit.SetPlaceHolder(fmt.Sprintf("%d tokens, the model table's (empty keeps it)", domain.MaxOutputFor(c.model)))
	if n := c.limits[c.model]; n > 0 {
		c.limit.SetText(strconv.Itoa(n))
	} else {
		c.limit.SetText("")
	}
	if e := c.efforts[c.model]; e != "" {
		c.effort.SetSelected(e)
	} else {
		c.effort.SetSelected(defaultEffort)
	}
	// Only a thinking model takes an effort; the row is not even shown for another.
	c.effortRow.Hidden = !domain.Thinks(c.model)
	c.effortRow.Refresh()
	c.check()
}

// keep stores what the rows hold under the model they show; a limit that is not a number
// stays in the field until it is fixed (check says why).
func (c *modelChoices) keep() {
	if c.model == "" {
		return
	}
	if n, err := parseLimit(c.limit.Text, c.model); err == nil {
		if n > 0 {
			c.limits[c.model] = n
		} else {
			delete(c.limits, c.model)
		}
	}
	if e := c.effort.Selected; e != "" && e != defaultEffort && domain.Thinks(c.model) {
		c.efforts[c.model] = e
	} else if e == defaultEffort {
		delete(c.efforts, c.model)
	}
}

// parseLimit reads the field for a model: empty is 0 (the table's limit).
func parseLimit(text, model string) (int, error) {
	text = strings.TrimSpace(strings.ReplaceAll(text, ",", ""))
	if text == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n <= 0 || n > maxReplyLimit {
		return 0, fmt.Errorf("the reply limit must be a whole number of tokens from 1 to %d, or empty for the model table's %d", maxReplyLimit, domain.MaxOutputFor(model))
	}
	return n, nil
}

// check says under the rows why the limit cannot be saved, and returns that.
func (c *modelChoices) check() error {
	_, err := parseLimit(c.limit.Text, c.model)
	if err != nil {
		c.note.Importance = widget.DangerImportance
		setHint(c.note, err.Error()+".")
		return err
	}
	c.note.Importance = widget.LowImportance
	note := "The most tokens one reply of this model may have."
	if !c.effortRow.Hidden {
		note += " A thinking model spends more of them at a higher effort."
	}
	setHint(c.note, note)
	return nil
}

// apply puts the choices into s, for saving.
func (c *modelChoices) apply(s *Settings) {
	c.keep()
	s.OutputLimits, s.ReasoningEfforts = maps.Clone(c.limits), maps.Clone(c.efforts)
}
