package main

import (
	"log/slog"
	"path/filepath"

	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/lsp"
)

// openLanguageServers is the language servers' configuration: the known servers on PATH and
// the `lsp` section of lsp.json in the app's configuration directory. A broken file does not
// stop the app: the known servers are used, and the log says what to fix.
func openLanguageServers(log *slog.Logger) *lsp.Options {
	path := filepath.Join(instructions.ConfigDir(), lsp.ConfigFileName)
	specs, err := lsp.ReadConfig(path)
	if err != nil {
		log.Warn("the language servers' configuration was not read; only the known servers are used", "error", err)
		specs = lsp.Known
	}
	return &lsp.Options{Specs: specs}
}
