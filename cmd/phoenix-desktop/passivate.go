package main

import (
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// passivationFromEnv is the runtime's passivation: the default, or the idle time
// PHOENIX_PASSIVATE_AFTER (actors.EnvPassivateAfter) gives as a Go duration ("2s", "10m"),
// for how long a conversation at rest stays in memory.
func passivationFromEnv(getenv func(string) string) (actors.Passivation, error) {
	p := actors.DefaultPassivation
	v := getenv(actors.EnvPassivateAfter)
	if v == "" {
		return p, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return p, fmt.Errorf("%s=%q is not a length of time: give one such as 2s or 10m, or unset it for the default (%v)", actors.EnvPassivateAfter, v, p.IdleAfter)
	}
	p.IdleAfter = d
	return p, nil
}
