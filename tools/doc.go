// Package tools runs the tools the model calls: bash, patch, think, keyword_search,
// read_image, fetch_url (which leaves fetching and converting a page to package webfetch)
// and todo. Each is a small type with a name and a Run function that takes a context (the
// Stop button cancels it) and the conversation's environment, and returns two things kept
// apart: what the model reads (Content, Images) and what the UI shows (Display).
//
// The tool names, descriptions and argument schemas belong to the domain catalogue; this
// package implements them and never changes them with the mode (REQ-BED-017). Tools the core
// decides itself — spawn_agents, submit_result, request_mode_upgrade — are not here.
//
// Tools never panic out of Run (the Registry recovers and reports an error result), never
// hang on a full pipe, and never hand the model unbounded output. They know nothing of
// actors or storage: images come back as bytes for the caller to store.
package tools
