package persistence

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// RecoveryReport says what Recover did.
type RecoveryReport struct {
	// Recovered lists the conversations brought to rest, sub-agents first.
	Recovered []string
	// Failed maps a conversation to why it could not be recovered: its record or messages
	// do not decode (ErrCorrupt), or the core refused. Those conversations are left exactly
	// as they were; everything else is usable.
	Failed map[string]error
}

// Recover brings every conversation a crash left busy to rest (REQ-BED-007), through the pure
// core so that what an interrupted tool, request or sub-agent becomes is decided in one
// place (domain.Transition):
//
//  1. a parent waiting in AwaitingSubAgents first receives SubAgentFinished for each pending
//     sub-agent whose own record already says Completed or Failed, so a result persisted just
//     before the crash is not lost;
//  2. then RestoreAfterRestart answers every tool call the history leaves open with an
//     "interrupted by restart" result and puts the conversation at rest (Idle, or
//     ContextExhausted for an interrupted summary; a sub-agent becomes Failed);
//  3. everything is committed as ONE commit per conversation.
//
// Sub-agents are recovered before parents, so a parent sees its sub-agents' final outcomes.
// Effects other than Persist are ignored: nothing is started during recovery. Recovery is
// idempotent: a second run finds nothing busy and changes nothing. Call it once after Open,
// before any actor starts. The error is for a failure to read the store at all; per
// conversation failures are in the report.
func (s *Store) Recover() (RecoveryReport, error) {
	report := RecoveryReport{Failed: map[string]error{}}
	if err := s.acquireWrite(); err != nil {
		return report, fmt.Errorf("recover: %w", err)
	}
	defer s.release()
	type busyConv struct {
		id  string
		sub bool
	}
	var busy []busyConv
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefixConv)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			id := strings.TrimPrefix(string(it.Item().Key()), prefixConv)
			c, err := decodeConv(it.Item(), id)
			if errors.Is(err, ErrCorrupt) {
				report.Failed[id] = err
				continue
			}
			if err != nil {
				return err
			}
			if domain.Busy(c.State) {
				busy = append(busy, busyConv{id, c.IsSubAgent()})
			}
		}
		return nil
	})
	if err != nil {
		return report, fmt.Errorf("recover: scan conversations in %s: %w", s.dir, err)
	}
	slices.SortStableFunc(busy, func(a, b busyConv) int {
		switch {
		case a.sub == b.sub:
			return strings.Compare(a.id, b.id)
		case a.sub:
			return -1
		}
		return 1
	})
	for _, b := range busy {
		if err := s.recoverOne(b.id); err != nil {
			report.Failed[b.id] = err
			s.log.Warn("could not recover conversation after restart", "id", b.id, "err", err)
			continue
		}
		report.Recovered = append(report.Recovered, b.id)
	}
	return report, nil
}

// recoverOne applies steps 1–3 of Recover to one conversation.
func (s *Store) recoverOne(id string) error {
	conv, history, err := s.load(id)
	if err != nil {
		return err
	}
	if !domain.Busy(conv.State) {
		return nil
	}
	var produced []domain.Message
	apply := func(ev domain.Event) error {
		next, effects, err := domain.Transition(conv, ev)
		if err != nil {
			return fmt.Errorf("recover %s: the core refused %T: %w", id, ev, err)
		}
		for _, e := range effects {
			if p, ok := e.(domain.Persist); ok {
				produced = append(produced, p.Messages...)
			}
		}
		conv = next
		return nil
	}
	if st, ok := conv.State.(domain.AwaitingSubAgents); ok {
		for _, o := range st.Outcomes {
			if o.Status != domain.SubAgentPending {
				continue
			}
			outcome, finished, err := s.finishedOutcome(o)
			if err != nil {
				return err
			}
			if !finished {
				continue
			}
			if err := apply(domain.SubAgentFinished{Exec: st.Exec, Outcome: outcome}); err != nil {
				return err
			}
		}
	}
	all := slices.Concat(history, produced)
	if err := apply(domain.RestoreAfterRestart{Unanswered: domain.UnansweredCalls(all)}); err != nil {
		return err
	}
	if domain.Busy(conv.State) {
		return fmt.Errorf("recover %s: the core left it busy in %s after RestoreAfterRestart", id, conv.State.Kind())
	}
	if _, _, err := s.commit(conv, produced); err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	return nil
}

// finishedOutcome reads a pending sub-agent's own record and, when it has already finished,
// the outcome its parent should have received. A sub-agent that was never created, is still
// busy, or does not decode is not finished: the core then reports it as interrupted.
func (s *Store) finishedOutcome(o domain.SubAgentOutcome) (domain.SubAgentOutcome, bool, error) {
	child, err := s.get(o.AgentID)
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		return o, false, nil
	case err != nil:
		return o, false, err
	}
	out := domain.SubAgentOutcome{AgentID: o.AgentID, Task: o.Task}
	switch st := child.State.(type) {
	case domain.Completed:
		out.Status, out.Result = domain.SubAgentFailed, st.Result
		if st.Success {
			out.Status = domain.SubAgentSucceeded
		}
	case domain.Failed:
		out.Status, out.Error, out.Kind = domain.SubAgentFailed, st.Message, st.ErrKind
	default:
		return o, false, nil
	}
	return out, true, nil
}
