package persistence

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The frozen on-disk fixtures (doc.go, "Schema changes"): testdata/schema-N.json holds every
// key and value a store of schema version N wrote, exported raw. TestFixturesOpen loads each
// into a fresh Badger database, opens it as the app does and decodes all of it with today's
// types. A fixture is never rewritten: -write-fixture only writes the current version's file
// when it does not exist yet, after a schema change has added its migration.
var writeFixture = flag.Bool("write-fixture", false, "write testdata/schema-N.json for the current schema version if it is missing")

// fixtureFile is the raw export of one database.
type fixtureFile struct {
	Schema  int            `json:"schema"`
	Note    string         `json:"note"`
	Entries []fixtureEntry `json:"entries"`
}

// fixtureEntry is one key and its value: JSON values as JSON so that a reviewer can read
// them, other values as text when they are text, and as base64 otherwise (image bytes).
type fixtureEntry struct {
	Key    string          `json:"key"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Text   *string         `json:"text,omitempty"`
	Base64 string          `json:"base64,omitempty"`
}

func (e fixtureEntry) value() []byte {
	switch {
	case e.JSON != nil:
		var b bytes.Buffer
		if err := json.Compact(&b, e.JSON); err != nil {
			panic(fmt.Sprintf("fixture entry %s: %v", e.Key, err))
		}
		return b.Bytes()
	case e.Text != nil:
		return []byte(*e.Text)
	}
	b, err := base64.StdEncoding.DecodeString(e.Base64)
	if err != nil {
		panic(fmt.Sprintf("fixture entry %s: %v", e.Key, err))
	}
	return b
}

func fixturePath(schema int) string {
	return filepath.Join("testdata", fmt.Sprintf("schema-%d.json", schema))
}

// TestWriteFixture writes the current schema's fixture when asked to and it is missing:
//
//	go test ./persistence -run TestWriteFixture -write-fixture
func TestWriteFixture(t *testing.T) {
	if !*writeFixture {
		t.Skip("pass -write-fixture to write the fixture of a new schema version")
	}
	path := fixturePath(currentSchema())
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s exists: fixtures are frozen; a change that needs a new one bumps the schema version first", path)
	}
	s := openDir(t, t.TempDir(), Options{Now: newFakeClock().Now})
	defer s.Close()
	fillFixture(t, s)
	var f fixtureFile
	f.Schema = currentSchema()
	f.Note = "Written by TestWriteFixture with schema version " + fmt.Sprint(f.Schema) + "; frozen: never edit it, see persistence/doc.go."
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			e := fixtureEntry{Key: string(it.Item().Key())}
			switch {
			case strings.HasPrefix(e.Key, prefixBlob):
				e.Base64 = base64.StdEncoding.EncodeToString(v)
			case json.Valid(v) && len(v) > 0 && v[0] == '{':
				e.JSON = v
			default:
				text := string(v)
				e.Text = &text
			}
			f.Entries = append(f.Entries, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s with %d keys", path, len(f.Entries))
}

// fillFixture stores one conversation in each state the core has, a sub-agent, an archived
// conversation and a history with every kind of message and an image: everything the store
// can hold.
func fillFixture(t *testing.T, s *Store) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 20)
	}
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	sha, err := s.PutBlob(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	ref := domain.ImageRef{SHA256: sha, MediaType: "image/png", Width: 3, Height: 2, Size: buf.Len(), Name: "screenshot.png"}
	call := func(id, name, args string) domain.ToolCall {
		return domain.ToolCall{ID: id, Name: name, Arguments: args}
	}
	bash := call("call_1", domain.ToolBash, `{"command":"go test ./..."}`)
	patch := call("call_2", domain.ToolPatch, `{"path":"main.go","patches":[{"old":"a","new":"b"}]}`)
	spawn := call("call_3", domain.ToolSpawnAgents, `{"tasks":["read the README"]}`)
	upgrade := call("call_4", domain.ToolRequestModeUpgrade, `{"reason":"needs the network"}`)
	usage := domain.Usage{InputTokens: 1200, OutputTokens: 340}
	round := domain.Round{Remaining: []domain.ToolCall{patch}, Completed: []string{"call_0"}, Notes: []string{"a note"}}
	outcomes := []domain.SubAgentOutcome{
		{AgentID: "fixture-child", Task: "read the README", Status: domain.SubAgentSucceeded, Result: "it says hello"},
		{AgentID: "fixture-child-2", Task: "count the files", Status: domain.SubAgentFailed, Error: "timed out", Kind: domain.ErrorTimeout},
		{AgentID: "fixture-child-3", Task: "wait", Status: domain.SubAgentPending},
	}
	states := []domain.State{
		domain.Idle{},
		domain.LLMRequesting{Exec: 7, Attempt: 2, RetryPending: true, RetryDelay: 4 * time.Second,
			LastError: "the server is overloaded", LastErrorKind: domain.ErrorServer},
		domain.ToolExecuting{Exec: 8, Current: bash, Round: round},
		domain.AwaitingModeApproval{Exec: 9, Call: upgrade, Reason: "needs the network", Round: round},
		domain.AwaitingSubAgents{Exec: 10, Call: spawn, Outcomes: outcomes, Round: round},
		domain.AwaitingContinuation{Exec: 11, Rejected: []domain.ToolCall{bash}, TriggerUsage: usage, Attempt: 1,
			RetryPending: true, RetryDelay: time.Second},
		domain.ContextExhausted{Summary: "we fixed the parser", FinalUsage: usage},
		domain.Error{Message: "the API key was refused", ErrKind: domain.ErrorAuth},
		domain.Completed{Result: "done", Success: true},
		domain.Failed{Message: "no result", ErrKind: domain.ErrorNoResult},
	}
	history := []domain.Message{
		{Kind: domain.KindUser, Text: "why does this fail?", Images: []domain.ImageRef{ref}},
		{Kind: domain.KindAssistant, Text: "Let me look.", ToolCalls: []domain.ToolCall{bash, patch}, Usage: &usage},
		{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: bash.ID, Name: bash.Name, Outcome: domain.OutcomeError,
			Content: "exit status 1\n--- FAIL", Display: &domain.ToolDisplay{Summary: "1 test failed"}}},
		{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: patch.ID, Name: patch.Name, Outcome: domain.OutcomeSuccess,
			Content: "patched main.go", Images: []domain.ImageRef{ref},
			Display: &domain.ToolDisplay{Diff: "--- a/main.go\n+++ b/main.go\n-a\n+b\n", SubAgents: outcomes[:1]}}},
		{Kind: domain.KindSystem, Text: "The mode changed to unrestricted."},
		{Kind: domain.KindError, Text: "the connection dropped", ErrorKind: domain.ErrorNetwork},
		{Kind: domain.KindContinuation, Text: "Summary of the previous conversation."},
	}
	for i, st := range states {
		c, err := domain.NewConversation(domain.NewConversationParams{ID: fmt.Sprintf("fixture-%02d-%s", i, st.Kind()),
			Title: "Fixture " + string(st.Kind()), Cwd: "/home/me/project", Model: "gpt-4o", LandlockAvailable: true})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			c.Mode, c.ContextWindow, c.ContinuedFrom = domain.ModeUnrestricted, 64_000, "fixture-00-idle"
		}
		if c, err = s.Create(c); err != nil {
			t.Fatal(err)
		}
		var msgs []domain.Message
		for j, m := range history {
			if i == 0 || j == 0 {
				m.Seq = uint64(len(msgs))
				msgs = append(msgs, m)
			}
		}
		c.State, c.NextSeq, c.Usage, c.LastExec = st, uint64(len(msgs)), usage, domain.ExecID(6+i)
		if _, _, err := s.Commit(c, msgs); err != nil {
			t.Fatal(err)
		}
	}
	parent := "fixture-04-awaiting_sub_agents"
	child, err := domain.NewConversation(domain.NewConversationParams{ID: "fixture-child", Cwd: "/home/me/project",
		Model: "gpt-4o", ParentID: parent, ParentExec: 10, Task: "read the README"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(child); err != nil {
		t.Fatal(err)
	}
	if err := s.SetArchived("fixture-08-completed", true); err != nil {
		t.Fatal(err)
	}
}

// TestFixturesOpen opens every frozen fixture as the app would and decodes all of it: every
// conversation, message, summary, sub-agent link and image. For the current schema, every
// field a value holds on disk must come back from today's types with the same value, so that
// a renamed JSON tag or a changed type fails here instead of on people's data.
func TestFixturesOpen(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "schema-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, fixturePath(currentSchema())) {
		t.Fatalf("there is no fixture for the current schema version %d: run go test ./persistence -run TestWriteFixture -write-fixture", currentSchema())
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var f fixtureFile
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatalf("the fixture itself does not parse: %v", err)
			}
			checkFixture(t, f, f.Schema == currentSchema())
		})
	}
}

func checkFixture(t *testing.T, f fixtureFile, current bool) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		for _, e := range f.Entries {
			if err := txn.Set([]byte(e.Key), e.value()); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	s := openDir(t, dir, Options{})
	defer s.Close()
	if v, _, err := s.readSchema(); err != nil || v != currentSchema() {
		t.Fatalf("after opening, the schema is %d (%v), want %d", v, err, currentSchema())
	}
	list, err := s.List(true)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	summaries := map[string]Summary{}
	for _, sum := range list {
		summaries[sum.ID] = sum
	}
	convs := map[string]domain.Conversation{}
	msgs := map[string]domain.Message{}
	kinds := map[domain.StateKind]bool{}
	var nMsgs, nKids, nBlobs int
	for _, e := range f.Entries {
		switch {
		case strings.HasPrefix(e.Key, prefixConv):
			id := strings.TrimPrefix(e.Key, prefixConv)
			c, ms, err := s.Load(id)
			if err != nil {
				t.Fatalf("load %s: %v", id, err)
			}
			convs[e.Key] = c
			kinds[c.State.Kind()] = true
			for _, m := range ms {
				msgs[string(msgKey(id, m.Seq))] = m
			}
		case strings.HasPrefix(e.Key, prefixMsg):
			nMsgs++
		case strings.HasPrefix(e.Key, prefixKid):
			nKids++
			parent, child, _ := strings.Cut(strings.TrimPrefix(e.Key, prefixKid), "/")
			kids, err := s.Children(parent)
			if err != nil || !slices.ContainsFunc(kids, func(c domain.Conversation) bool { return c.ID == child }) {
				t.Errorf("the sub-agents of %s lack %s (%v)", parent, child, err)
			}
		case strings.HasPrefix(e.Key, prefixBlob):
			nBlobs++
			data, err := s.Blob(strings.TrimPrefix(e.Key, prefixBlob))
			if err != nil || !bytes.Equal(data, e.value()) {
				t.Errorf("image %s reads back wrong (%v)", e.Key, err)
			}
		}
	}
	if nMsgs != len(msgs) {
		t.Errorf("the fixture holds %d messages, the store loaded %d", nMsgs, len(msgs))
	}
	if len(convs) == 0 || nKids == 0 || nBlobs == 0 {
		t.Fatalf("the fixture lacks conversations (%d), sub-agents (%d) or images (%d)", len(convs), nKids, nBlobs)
	}
	if current {
		for _, k := range []domain.StateKind{domain.StateIdle, domain.StateLLMRequesting, domain.StateToolExecuting,
			domain.StateAwaitingModeApproval, domain.StateAwaitingSubAgents, domain.StateAwaitingContinuation,
			domain.StateContextExhausted, domain.StateError, domain.StateCompleted, domain.StateFailed} {
			if !kinds[k] {
				t.Errorf("the current fixture has no conversation in state %s", k)
			}
		}
		// Every field on disk comes back with its value: encode what was decoded and find
		// the stored JSON inside it. New fields may appear (omitempty ones do not even
		// show); a stored field that is missing or different means old data lost meaning.
		for _, e := range f.Entries {
			var decoded any
			switch {
			case strings.HasPrefix(e.Key, prefixConv):
				decoded = convs[e.Key]
			case strings.HasPrefix(e.Key, prefixMsg):
				decoded = msgs[e.Key]
			case strings.HasPrefix(e.Key, prefixSummary):
				decoded = summaries[strings.TrimPrefix(e.Key, prefixSummary)]
			default:
				continue
			}
			again, err := json.Marshal(decoded)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			if err := json.Unmarshal(e.JSON, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(again, &got); err != nil {
				t.Fatal(err)
			}
			if path, ok := containsJSON(want, got, ""); !ok {
				t.Errorf("%s: the stored field %s does not come back from today's types (stored %s, decoded and encoded again %s). "+
					"A field was renamed, removed or changed type: keep its JSON name and type, or bump the schema version, "+
					"add a migration and a new fixture (persistence/doc.go)", e.Key, path, e.JSON, again)
			}
		}
	}
	// The app's start-up path: bring what a crash left busy to rest.
	if _, err := s.Recover(); err != nil {
		t.Errorf("recover: %v", err)
	}
}

// containsJSON reports whether every field of want is in got with the same value (objects
// may gain fields; arrays and scalars must be equal), and the path of the first that is not.
func containsJSON(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return path + "." + k, false
			}
			if p, ok := containsJSON(wv, gv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := containsJSON(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}

func TestContainsJSON(t *testing.T) {
	parse := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{`{"a":1}`, `{"a":1,"b":2}`, true},
		{`{"a":1,"b":2}`, `{"a":1}`, false},
		{`{"a":{"x":[1,2]}}`, `{"a":{"x":[1,2],"y":0}}`, true},
		{`{"a":[1,2]}`, `{"a":[1]}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
	} {
		if _, ok := containsJSON(parse(tc.want), parse(tc.got), ""); ok != tc.ok {
			t.Errorf("containsJSON(%s, %s) = %v", tc.want, tc.got, ok)
		}
	}
}

// reasoningMessageFixture is an assistant message of a thinking model exactly as the store
// wrote it when reasoning was added (a raw value under msg/…): the readable text, the
// provider's entries verbatim, and the reasoning tokens of its usage. It is frozen like the
// schema fixtures: a renamed or retyped field makes this test fail instead of silently
// dropping every stored reasoning.
const reasoningMessageFixture = "testdata/reasoning-message.json"

func TestStoredReasoningFormatIsFrozen(t *testing.T) {
	raw, err := os.ReadFile(reasoningMessageFixture)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.TrimSpace(raw)
	var m domain.Message
	if err := decodeMessage(raw, &m); err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	wantDetails := `[{"type":"reasoning.text","text":"The user wants the weather in Florence.","signature":"EqoDCkYICxgCKkBZ",` +
		`"format":"anthropic-claude-v1","index":0},{"type":"reasoning.encrypted","data":"gAAAAABpsx4R","id":"rs_03be",` +
		`"format":"openai-responses-v1","index":1}]`
	switch {
	case m.Seq != 2 || m.Kind != domain.KindAssistant || m.Text != "It is 40 °C in Florence.":
		t.Errorf("message %d %s %q", m.Seq, m.Kind, m.Text)
	case len(m.ToolCalls) != 1 || m.ToolCalls[0] != (domain.ToolCall{ID: "call_1", Name: "bash", Arguments: `{"command":"echo hi"}`}):
		t.Errorf("tool calls %+v", m.ToolCalls)
	case m.Reasoning == nil || m.Reasoning.Text != "The user wants the weather in Florence.":
		t.Errorf("reasoning.text lost: %+v", m.Reasoning)
	case string(m.Reasoning.Details) != wantDetails:
		t.Errorf("reasoning.details %s, want them verbatim", m.Reasoning.Details)
	case m.Usage == nil || *m.Usage != (domain.Usage{InputTokens: 100, OutputTokens: 143, ReasoningTokens: 99}):
		t.Errorf("usage %+v, want reasoning_tokens 99 kept", m.Usage)
	}
	// The store writes with encoding/json: what it writes today is still this fixture.
	again, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, raw) {
		t.Errorf("the store now writes\n%s\nwhere it wrote\n%s", again, raw)
	}
}

// TestEncodeConvIsJSONMarshal: what a commit writes for a conversation is json.Marshal's
// bytes, for every conversation of the frozen fixture (one in each state the core has) and
// one whose texts json.Marshal escapes (HTML characters, a line separator, invalid UTF-8).
func TestEncodeConvIsJSONMarshal(t *testing.T) {
	raw, err := os.ReadFile(fixturePath(1))
	if err != nil {
		t.Fatal(err)
	}
	var f fixtureFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var convs []domain.Conversation
	for _, e := range f.Entries {
		if !strings.HasPrefix(e.Key, prefixConv) {
			continue
		}
		var c domain.Conversation
		if err := json.Unmarshal(e.value(), &c); err != nil {
			t.Fatalf("%s: %v", e.Key, err)
		}
		convs = append(convs, c)
	}
	if len(convs) < 5 {
		t.Fatalf("the fixture holds %d conversations; want one in each state", len(convs))
	}
	odd := "<b>&amp;</b> \u2028 \xff"
	c := convs[0]
	c.Title = odd
	c.State = domain.ToolExecuting{Exec: 7, Current: domain.ToolCall{ID: "call<1>", Name: "bash", Arguments: `{"command":"echo '` + odd + `'"}`}}
	convs = append(convs, c)
	for _, c := range convs {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeConv(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("conversation %s in state %s is written as\n%s\nwhere json.Marshal writes\n%s", c.ID, c.State.Kind(), got, want)
		}
	}
}
