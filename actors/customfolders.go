package actors

import "github.com/phoenix-desktop/phoenix/custom"

// CommandFolders are the folders below a project that hold custom commands, in order of
// precedence (custom.CommandFolders), for the window's hint where commands come from.
func CommandFolders() []string { return append([]string(nil), custom.CommandFolders...) }
