package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// pricesFile, in the configuration directory, holds the person's own prices per model, over
// the built-in table (domain.PriceFor), in US dollars per million tokens:
//
//	{"my-local-model": {"input": 0, "cached_input": 0, "output": 0},
//	 "gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10}}
//
// A model in neither has no price, and its replies show tokens only (issue 27).
const pricesFile = "prices.json"

// readPrices reads the person's prices from dir; a missing file is no prices.
func readPrices(dir string) (map[string]domain.Price, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, pricesFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var raw map[string]domain.Price
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object of model → {input, cached_input, cache_write, output} in dollars per million tokens: %w", path, err)
	}
	out := make(map[string]domain.Price, len(raw))
	for model, p := range raw {
		if p.Input < 0 || p.CachedInput < 0 || p.CacheWrite < 0 || p.Output < 0 {
			return nil, fmt.Errorf("%s: the price of %q is negative; prices are dollars per million tokens", path, model)
		}
		out[strings.ToLower(strings.TrimSpace(model))] = p
	}
	return out, nil
}

// openPrices reads the person's prices; a file that cannot be used is left as it is, logged,
// and the built-in table applies until it is fixed.
func openPrices(dir string, log *slog.Logger) map[string]domain.Price {
	p, err := readPrices(dir)
	if err != nil {
		log.Warn("the person's prices cannot be used; the built-in price table applies until the file is fixed", "error", err)
		return nil
	}
	return p
}
