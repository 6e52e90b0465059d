// Package providers is the one home of what Phoenix Desktop knows about model providers and
// their settings: the table of OpenAI-compatible providers it offers (name, label, base URL,
// first model, whether a key is needed), the environment variables that set the endpoint, the
// key and the model, the order in which flags, the environment, the saved settings and a
// preset's defaults win, and how an API key is shown masked.
//
// The LLM client (llm.ResolveConfig), the Settings dialog (ui) and the command line
// (cmd/phoenix-desktop) all read these from here, so the dialog, the flags and the client
// cannot disagree about a URL, a variable's name or who wins.
//
// It is pure: no I/O (the environment is passed in as a getenv function), no clock, and it
// imports no other package of this module, so that every layer, ui included, may import it.
package providers
