package persistence

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Generators for every state kind and message kind. Empty slices are generated as nil,
// because the domain's JSON omits them and they come back nil; the conversation is the same.

func genText() *rapid.Generator[string] {
	return rapid.OneOf(rapid.Just(""), rapid.String(), rapid.StringMatching(`[a-z ]{1,40}`))
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func genCall() *rapid.Generator[domain.ToolCall] {
	return rapid.Custom(func(t *rapid.T) domain.ToolCall {
		return domain.ToolCall{
			ID:        rapid.StringMatching(`call_[a-z0-9]{1,8}`).Draw(t, "id"),
			Name:      rapid.SampledFrom([]string{domain.ToolBash, domain.ToolPatch, domain.ToolThink, "weird"}).Draw(t, "name"),
			Arguments: rapid.OneOf(rapid.Just(`{"command":"ls"}`), rapid.String()).Draw(t, "args"),
		}
	})
}

func genCalls() *rapid.Generator[[]domain.ToolCall] {
	return rapid.Custom(func(t *rapid.T) []domain.ToolCall {
		return nilIfEmpty(rapid.SliceOfN(genCall(), 0, 3).Draw(t, "calls"))
	})
}

func genRound(t *rapid.T) domain.Round {
	return domain.Round{
		Remaining: genCalls().Draw(t, "remaining"),
		Completed: nilIfEmpty(rapid.SliceOfN(rapid.StringMatching(`call_[0-9]{1,3}`), 0, 3).Draw(t, "completed")),
	}
}

func genErrKind() *rapid.Generator[domain.ErrorKind] {
	return rapid.SampledFrom([]domain.ErrorKind{"", domain.ErrorAuth, domain.ErrorServer, domain.ErrorInterrupted, domain.ErrorContextExhausted})
}

// genReasoning draws reasoning in the shapes providers send: plain text, and the merged
// reasoning_details entries (signed text, summaries, encrypted blobs) kept verbatim.
func genReasoning(t *rapid.T) *domain.Reasoning {
	r := &domain.Reasoning{Text: genText().Draw(t, "reasoning-text")}
	if rapid.Bool().Draw(t, "has-details") {
		entries := rapid.SliceOfN(rapid.SampledFrom([]string{
			`{"type":"reasoning.text","text":"I should list the files.","signature":"EqoDCkYIC+/=","format":"anthropic-claude-v1","index":0}`,
			`{"type":"reasoning.summary","summary":"**Planning**\n\nList first.","format":"openai-responses-v1","index":0}`,
			`{"type":"reasoning.encrypted","data":"gAAAAABpsx4R==","id":"rs_01","format":"openai-responses-v1","index":0}`,
		}), 1, 3).Draw(t, "details")
		r.Details = json.RawMessage("[" + strings.Join(entries, ",") + "]")
	}
	if r.Empty() {
		r.Text = "thinking"
	}
	return r
}

func genUsage(t *rapid.T, label string) domain.Usage {
	return domain.Usage{InputTokens: rapid.IntRange(0, 1<<20).Draw(t, label+"-in"), OutputTokens: rapid.IntRange(0, 1<<16).Draw(t, label+"-out")}
}

func genOutcome() *rapid.Generator[domain.SubAgentOutcome] {
	return rapid.Custom(func(t *rapid.T) domain.SubAgentOutcome {
		return domain.SubAgentOutcome{
			AgentID: rapid.StringMatching(`p-sub-[0-9]-[0-9]`).Draw(t, "agent"),
			Task:    genText().Draw(t, "task"),
			Status:  rapid.SampledFrom([]domain.SubAgentStatus{domain.SubAgentPending, domain.SubAgentSucceeded, domain.SubAgentFailed}).Draw(t, "status"),
			Result:  genText().Draw(t, "result"),
			Error:   genText().Draw(t, "error"),
			Kind:    genErrKind().Draw(t, "kind"),
		}
	})
}

// allStateKinds is checked against the generator so that a state added to the domain
// without a generator here fails the test.
var allStateKinds = []domain.StateKind{
	domain.StateIdle, domain.StateLLMRequesting, domain.StateToolExecuting, domain.StateAwaitingModeApproval,
	domain.StateAwaitingSubAgents, domain.StateAwaitingContinuation, domain.StateContextExhausted,
	domain.StateError, domain.StateCompleted, domain.StateFailed,
}

func genState() *rapid.Generator[domain.State] {
	exec := func(t *rapid.T) domain.ExecID { return domain.ExecID(rapid.Uint64().Draw(t, "exec")) }
	delay := func(t *rapid.T) time.Duration {
		return time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "delay"))
	}
	return rapid.OneOf(
		rapid.Just[domain.State](domain.Idle{}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.LLMRequesting{Exec: exec(t), Attempt: rapid.IntRange(1, 3).Draw(t, "attempt"),
				RetryPending: rapid.Bool().Draw(t, "pending"), RetryDelay: delay(t),
				LastError: genText().Draw(t, "lasterr"), LastErrorKind: genErrKind().Draw(t, "lastkind")}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.ToolExecuting{Exec: exec(t), Current: genCall().Draw(t, "current"), Round: genRound(t)}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.AwaitingModeApproval{Exec: exec(t), Call: genCall().Draw(t, "call"), Reason: genText().Draw(t, "reason"), Round: genRound(t)}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.AwaitingSubAgents{Exec: exec(t), Call: genCall().Draw(t, "call"),
				Outcomes: rapid.SliceOfN(genOutcome(), 1, 4).Draw(t, "outcomes"), Round: genRound(t)}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.AwaitingContinuation{Exec: exec(t), Rejected: genCalls().Draw(t, "rejected"),
				TriggerUsage: genUsage(t, "trigger"), Attempt: rapid.IntRange(1, 3).Draw(t, "attempt"),
				RetryPending: rapid.Bool().Draw(t, "pending"), RetryDelay: delay(t)}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.ContextExhausted{Summary: genText().Draw(t, "summary"), FinalUsage: genUsage(t, "final")}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.Error{Message: genText().Draw(t, "message"), ErrKind: genErrKind().Draw(t, "kind")}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.Completed{Result: genText().Draw(t, "result"), Success: rapid.Bool().Draw(t, "success")}
		}),
		rapid.Custom(func(t *rapid.T) domain.State {
			return domain.Failed{Message: genText().Draw(t, "message"), ErrKind: genErrKind().Draw(t, "kind")}
		}),
	)
}

// genMessage draws a message of any kind that Validate accepts. images are the blobs the
// store holds, for messages to reference.
func genMessage(images []domain.ImageRef) *rapid.Generator[domain.Message] {
	imgs := func(t *rapid.T, label string) []domain.ImageRef {
		if len(images) == 0 {
			return nil
		}
		return nilIfEmpty(rapid.SliceOfN(rapid.SampledFrom(images), 0, 2).Draw(t, label))
	}
	return rapid.Custom(func(t *rapid.T) domain.Message {
		m := domain.Message{Kind: rapid.SampledFrom([]domain.MessageKind{domain.KindUser, domain.KindAssistant,
			domain.KindToolResult, domain.KindSystem, domain.KindError, domain.KindContinuation}).Draw(t, "kind")}
		switch m.Kind {
		case domain.KindUser:
			m.Images = imgs(t, "images")
			m.Text = genText().Draw(t, "text")
			if m.Text == "" && len(m.Images) == 0 {
				m.Text = "hello"
			}
		case domain.KindAssistant:
			m.Text = genText().Draw(t, "text")
			m.ToolCalls = genCalls().Draw(t, "calls")
			if rapid.Bool().Draw(t, "has-usage") {
				u := genUsage(t, "usage")
				u.ReasoningTokens = rapid.IntRange(0, u.OutputTokens).Draw(t, "reasoning-tokens")
				m.Usage = &u
			}
			if rapid.Bool().Draw(t, "has-reasoning") {
				m.Reasoning = genReasoning(t)
			}
		case domain.KindToolResult:
			r := &domain.ToolResult{CallID: genCall().Draw(t, "for").ID, Name: domain.ToolBash,
				Outcome: rapid.SampledFrom([]domain.Outcome{domain.OutcomeSuccess, domain.OutcomeError, domain.OutcomeCancelled,
					domain.OutcomeSkipped, domain.OutcomeInterrupted}).Draw(t, "outcome"),
				Content: genText().Draw(t, "content"), Images: imgs(t, "result-images")}
			if rapid.Bool().Draw(t, "has-display") {
				r.Display = &domain.ToolDisplay{Summary: genText().Draw(t, "summary"), Diff: genText().Draw(t, "diff"),
					SubAgents: nilIfEmpty(rapid.SliceOfN(genOutcome(), 0, 2).Draw(t, "subagents"))}
			}
			m.ToolResult = r
		case domain.KindError:
			m.Text = genText().Draw(t, "text")
			m.ErrorKind = genErrKind().Draw(t, "errkind")
		default:
			m.Text = genText().Draw(t, "text")
		}
		return m
	})
}

var roundTripIDs atomic.Int64

// TestRoundTrip_REQ_BED_007 commits random conversations in random states with random
// messages in random batches and reads everything back unchanged.
func TestRoundTrip_REQ_BED_007(t *testing.T) {
	s := openMem(t)
	var images []domain.ImageRef
	for i := range 3 {
		data := fmt.Appendf(nil, "image %d", i)
		sha, err := s.PutBlob(data)
		if err != nil {
			t.Fatal(err)
		}
		images = append(images, domain.ImageRef{SHA256: sha, MediaType: "image/png", Width: i + 1, Height: 2, Size: len(data), Name: fmt.Sprintf("i%d.png", i)})
	}
	kindsSeen := map[domain.StateKind]bool{}
	rapid.Check(t, func(t *rapid.T) {
		id := fmt.Sprintf("c%d", roundTripIDs.Add(1))
		c0 := domain.Conversation{
			ID: id, Title: genText().Draw(t, "title"), Cwd: "/" + rapid.StringMatching(`[a-z]{0,8}`).Draw(t, "cwd"),
			Model:             rapid.SampledFrom([]string{"gpt-4o", "claude-x", "demo"}).Draw(t, "model"),
			ContextWindow:     rapid.IntRange(1, 2_000_000).Draw(t, "window"),
			Mode:              rapid.SampledFrom([]domain.Mode{domain.ModeRestricted, domain.ModeUnrestricted}).Draw(t, "mode"),
			LandlockAvailable: rapid.Bool().Draw(t, "landlock"),
			ContinuedFrom:     rapid.SampledFrom([]string{"", "older"}).Draw(t, "continued"),
			State:             genState().Draw(t, "state0"),
		}
		created, err := s.Create(c0)
		if err != nil {
			t.Fatal(err)
		}
		cur := created
		var all []domain.Message
		for b := range rapid.IntRange(0, 4).Draw(t, "batches") {
			msgs := rapid.SliceOfN(genMessage(images), 0, 5).Draw(t, fmt.Sprintf("batch%d", b))
			for i := range msgs {
				msgs[i].Seq = cur.NextSeq + uint64(i)
			}
			next := cur
			next.NextSeq += uint64(len(msgs))
			next.State = genState().Draw(t, fmt.Sprintf("state%d", b+1))
			next.Title = genText().Draw(t, fmt.Sprintf("title%d", b+1))
			next.Usage = genUsage(t, fmt.Sprintf("usage%d", b+1))
			next.LastExec = domain.ExecID(rapid.Uint64().Draw(t, fmt.Sprintf("last%d", b+1)))
			got, stamped, err := s.Commit(next, slices.Clone(msgs))
			if err != nil {
				t.Fatalf("commit batch %d: %v", b, err)
			}
			next.UpdatedAt = got.UpdatedAt
			if !reflect.DeepEqual(got, next) {
				t.Fatalf("Commit returned\n%+v\nwant\n%+v", got, next)
			}
			for i := range msgs {
				msgs[i].At = got.UpdatedAt
			}
			if !reflect.DeepEqual(stamped, nilIfEmpty(msgs)) && !(len(stamped) == 0 && len(msgs) == 0) {
				t.Fatalf("Commit returned messages\n%+v\nwant\n%+v", stamped, msgs)
			}
			cur, all = got, append(all, msgs...)
		}
		kindsSeen[cur.State.Kind()] = true

		loadedConv, loadedMsgs, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(loadedConv, cur) {
			t.Fatalf("Load returned\n%+v\nwant\n%+v", loadedConv, cur)
		}
		if !reflect.DeepEqual(loadedMsgs, all) && !(len(loadedMsgs) == 0 && len(all) == 0) {
			t.Fatalf("Load returned messages\n%+v\nwant\n%+v", loadedMsgs, all)
		}
		from := rapid.Uint64Range(0, cur.NextSeq+1).Draw(t, "since")
		since, err := s.MessagesSince(id, from)
		if err != nil {
			t.Fatal(err)
		}
		var want []domain.Message
		if from < uint64(len(all)) {
			want = all[from:]
		}
		if len(since) != len(want) || (len(want) > 0 && !reflect.DeepEqual(since, want)) {
			t.Fatalf("MessagesSince(%d) returned %d messages, want %d", from, len(since), len(want))
		}
		list, err := s.List(true)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(list, func(x Summary) bool { return x.ID == id })
		if i < 0 || !reflect.DeepEqual(list[i], summaryOf(cur)) {
			t.Fatalf("summary of %s missing or stale: %+v", id, list)
		}
	})
	for _, k := range allStateKinds {
		if !kindsSeen[k] {
			t.Errorf("state kind %s was never generated", k)
		}
	}
}
