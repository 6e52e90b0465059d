// Package toolschema checks the JSON Schemas of tools that come from outside the app (an MCP
// server's input schemas) and validates a call's arguments against them, on
// google/jsonschema-go, the validator of the official MCP SDK, so that the app carries one
// JSON Schema implementation.
//
// A schema is first checked against the meta-schema of its draft (2020-12 unless its
// "$schema" says draft-07): a schema with a bad keyword value ("type": "nonsense") would
// otherwise reach the provider, which refuses every request that carries it. The
// meta-schemas are copies (meta/, as the SDK's validator module ships them for its own tests;
// TestMetaSchemasMatchTheModule catches drift) and are read on first use, not at start-up:
// santhosh-tekuri/jsonschema, used before, compiled five meta-schemas in its package
// initialisation (4–10 ms and 1.7 MB in every process, the headless ones included).
//
// A $ref outside the schema is refused: nothing is ever fetched or read for a schema.
//
// The package may import google/jsonschema-go and nothing of this module.
package toolschema
