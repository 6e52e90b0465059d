package mcp

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server's request for input from the person: a message and, for a form,
// the JSON Schema of the answer (a flat object of strings, numbers, booleans and enums).
type Elicitation struct {
	Message string
	// Schema is the requested schema as the server sent it; nil for a URL elicitation.
	Schema any
	// URL is set when the server asks the person to open a page instead (URL mode).
	URL string
}

// ElicitAnswer is the person's answer: "accept" with Content, "decline" or "cancel".
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// ElicitFunc asks the person (Options.Elicit).
type ElicitFunc = func(ctx context.Context, server string, req Elicitation) (ElicitAnswer, error)

// ErrNoElicitation is the answer to a server's request for input where nobody can give one
// (headless, no Options.Elicit): the server sees a JSON-RPC error with this text, and
// usually passes it on in its result.
const ErrNoElicitation = "phoenix-desktop cannot ask the person for input here (no window answers requests for input); the request was refused"

// elicitFor answers one elicitation: through ask, or with a clear refusal.
func elicitFor(ctx context.Context, server string, ask ElicitFunc, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation without parameters"}
	}
	if ask == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ErrNoElicitation}
	}
	ans, err := ask(ctx, server, Elicitation{Message: req.Params.Message, Schema: req.Params.RequestedSchema, URL: req.Params.URL})
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the person could not be asked: %v", err)}
	}
	switch ans.Action {
	case "accept", "decline", "cancel":
	default:
		ans.Action = "cancel"
	}
	return &sdk.ElicitResult{Action: ans.Action, Content: ans.Content}, nil
}
