// Package assets holds the files bundled into the binary: the application icon.
package assets

import _ "embed"

// Icon is the application icon, a 512×512 PNG (also named in FyneApp.toml).
//
//go:embed icon.png
var Icon []byte

// AppID is the application id, the same as in FyneApp.toml; Fyne keys preferences on it.
const AppID = "dev.phoenixdesktop.app"

// Version is the release, the same as in FyneApp.toml (a test checks they agree).
const Version = "0.1.0"
