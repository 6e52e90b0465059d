// Package rig assembles a complete runtime the way cmd/phoenix-desktop does, on fresh
// temporary directories: real actors, a Badger store, real tools under the real sandbox, and
// the local fake OpenAI server (llm/fakellm) over HTTP, whose predictable model reads each
// user message as a script. `phoenix-desktop bench` measures it, and the tests of other
// packages (ui, e2e) drive it.
//
// It is part of the app, not test code: the release binary links it for the bench command,
// so it must never import a test package (see cmd/phoenix-desktop's dependency test). It may
// import actors and what actors stands on (domain, llm, persistence, sandbox, tools).
//
// A binary that uses it runs bash through the sandbox helper, so its TestMain (or main) must
// call sandbox.MaybeRunHelper first.
package rig
