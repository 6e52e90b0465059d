package main

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/phoenix-desktop/phoenix/assets"
)

// Set with -ldflags -X by scripts/package-deb.sh, only used when the build info has no
// revision: the Go toolchain stamps it in a plain git clone, but not in a git worktree (whose
// .git is a file) nor under GOFLAGS=-buildvcs=false.
var (
	linkedRevision string
	linkedModified string
)

// versionLine is what --version prints: the release (assets.Version, kept equal to
// FyneApp.toml) and the source revision the Go toolchain stamped into the binary when it was
// built from a git checkout.
func versionLine() string {
	info, _ := debug.ReadBuildInfo()
	if info != nil && linkedRevision != "" && !slices.ContainsFunc(info.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" }) {
		info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.revision", Value: linkedRevision},
			debug.BuildSetting{Key: "vcs.modified", Value: linkedModified})
	}
	return formatVersion(assets.Version, info)
}

func formatVersion(version string, info *debug.BuildInfo) string {
	rev, when, modified := "", "", false
	goVersion := "unknown Go"
	if info != nil {
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	source := "source revision unknown (not built from a git checkout)"
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		source = "revision " + rev
		if modified {
			source += " with uncommitted changes"
		}
		if when != "" {
			source += " of " + when
		}
	}
	return fmt.Sprintf("Phoenix Desktop %s (%s, %s)", version, source, goVersion)
}
