// Package hostexec finds the programs the app itself runs outside the sandbox (git for the
// checkpoints, ripgrep for keyword_search, the toolchains the package registries switch asks)
// so that none of them is a program the agent could have written: found on PATH like any
// program, but never one that lies inside a project's working tree, which a Project-mode
// command may write. (A PATH that holds a project's folder is ordinary: direnv, a shell's
// PATH=./node_modules/.bin:$PATH, a virtualenv inside the project.)
//
// # What it may import
//
// Nothing of ours: the standard library only, so that every package that runs a program can
// use it.
package hostexec
