package main

import (
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// EnvPassivateAfter sets how long a conversation at rest stays in memory before the runtime
// unloads it (actors.Passivation.IdleAfter; 10 minutes unless set). It is for measuring: the
// bench's soak with a window (issue 43) lets its conversations rest in seconds, not minutes.
const EnvPassivateAfter = "PHOENIX_PASSIVATE_AFTER"

// passivationFromEnv is the runtime's passivation: the default, or the idle time
// PHOENIX_PASSIVATE_AFTER gives as a Go duration ("2s", "10m").
func passivationFromEnv(getenv func(string) string) (actors.Passivation, error) {
	p := actors.DefaultPassivation
	v := getenv(EnvPassivateAfter)
	if v == "" {
		return p, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return p, fmt.Errorf("%s=%q is not a length of time: give one such as 2s or 10m, or unset it for the default (%v)", EnvPassivateAfter, v, p.IdleAfter)
	}
	p.IdleAfter = d
	return p, nil
}
