package main

import (
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui"
)

// modelOptions are Settings' reply limits and reasoning efforts as the runtime takes them
// (actors.Runtime.SetModelOptions): the limits of --output-limit and PHOENIX_OUTPUT_LIMITS win
// over the saved ones, as flags and the environment win over every setting.
func modelOptions(flags commonFlags, getenv func(string) string, s ui.Settings) (map[string]int, map[string]string, error) {
	over, err := flags.outputLimitMap(getenv)
	if err != nil {
		return nil, nil, err
	}
	limits := map[string]int{}
	for k, v := range s.OutputLimits {
		limits[strings.ToLower(strings.TrimSpace(k))] = v
	}
	for k, v := range over {
		limits[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return limits, s.ReasoningEfforts, nil
}

// applyModelOptions hands them to the runtime, for the next request of every conversation.
func applyModelOptions(rt *actors.Runtime, flags commonFlags, getenv func(string) string, s ui.Settings) error {
	limits, efforts, err := modelOptions(flags, getenv, s)
	if err != nil {
		return err
	}
	rt.SetModelOptions(limits, efforts)
	return nil
}
