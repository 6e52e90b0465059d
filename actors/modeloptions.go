package actors

import (
	"maps"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// modelOptions are the per-model choices every request reads when it goes out: the reply limit
// (max tokens) and a thinking model's reasoning effort. They start as Config.OutputLimits and
// change with SetModelOptions (Settings), so the next request of every conversation uses them.
type modelOptions struct {
	limits  map[string]int
	efforts map[string]string
}

// SetModelOptions replaces the reply limits and reasoning efforts by model name (any case);
// the next request of every conversation uses them. A model without an entry gets the model
// table's limit and the provider's default effort. The maps are copied.
func (r *Runtime) SetModelOptions(limits map[string]int, efforts map[string]string) {
	r.opts.Store(&modelOptions{limits: lowerKeys(limits), efforts: lowerKeys(efforts)})
}

// options are the choices in force: Start stores Config.OutputLimits, SetModelOptions
// replaces them.
func (r *Runtime) options() *modelOptions { return r.opts.Load() }

// ReasoningEffort is the effort sent with a request of the model: the one set for it when the
// model thinks (domain.Thinks), else "" (the provider's default).
func (r *Runtime) ReasoningEffort(model string) string {
	if !domain.Thinks(model) {
		return ""
	}
	return r.options().efforts[strings.ToLower(strings.TrimSpace(model))]
}

func lowerKeys[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range maps.All(m) {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}
