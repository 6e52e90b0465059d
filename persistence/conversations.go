package persistence

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Summary is what the sidebar lists for one conversation. It is stored beside the
// conversation record and rewritten by every commit, so List reads neither the conversation
// nor its messages.
type Summary struct {
	ID            string           `json:"id"`
	Title         string           `json:"title"`
	Cwd           string           `json:"cwd"`
	Model         string           `json:"model"`
	Mode          domain.Mode      `json:"mode"`
	State         domain.StateKind `json:"state"`
	Usage         domain.Usage     `json:"usage"`
	ContextWindow int              `json:"context_window"`
	CreatedAt     time.Time        `json:"created_at"`
	UpdatedAt     time.Time        `json:"updated_at"`
	Archived      bool             `json:"archived,omitempty"`
	ContinuedFrom string           `json:"continued_from,omitempty"`
	// Host is the SSH host of a project on another machine (domain.Conversation.Host).
	Host string `json:"host,omitempty"`
	// Spent is what the conversation's replies took and cost (issue 27).
	Spent domain.Spend `json:"spent,omitzero"`
	// Worktree is the conversation's own git worktree, nil for none (issue 34).
	Worktree *domain.Worktree `json:"worktree,omitempty"`
}

func summaryOf(c domain.Conversation) Summary {
	return Summary{
		ID: c.ID, Title: c.Title, Cwd: c.Cwd, Model: c.Model, Mode: c.Mode, State: c.State.Kind(),
		Usage: c.Usage, ContextWindow: c.ContextWindow, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		Archived: c.Archived, ContinuedFrom: c.ContinuedFrom, Host: c.Host, Spent: c.Spent, Worktree: c.Worktree,
	}
}

// stamp returns the current time in UTC without a monotonic reading, so that a stamped value
// equals the one read back from JSON.
func (s *Store) stamp() time.Time { return s.now().UTC().Round(0) }

// Create stores a new conversation. It stamps CreatedAt and UpdatedAt when they are zero and
// returns the stored value. The id must be new; a sub-agent's parent must exist. A new
// conversation has no messages, so its NextSeq must be 0.
func (s *Store) Create(c domain.Conversation) (domain.Conversation, error) {
	if err := s.acquireWrite(); err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation %s: %w", c.ID, err)
	}
	defer s.release()
	if err := checkID(c.ID); err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	if c.State == nil {
		return domain.Conversation{}, fmt.Errorf("create conversation %s: %w: state is nil", c.ID, ErrInvalid)
	}
	if c.NextSeq != 0 {
		return domain.Conversation{}, fmt.Errorf("create conversation %s: NextSeq is %d but there are no messages: %w", c.ID, c.NextSeq, ErrSequence)
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.stamp()
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	err := s.update(func(txn *badger.Txn) error {
		if err := absent(txn, convKey(c.ID), fmt.Errorf("conversation %s: %w", c.ID, ErrExists)); err != nil {
			return err
		}
		if err := absent(txn, deletingKey(c.ID), fmt.Errorf("conversation %s is still being deleted: %w", c.ID, ErrExists)); err != nil {
			return err
		}
		if c.ParentID != "" {
			if _, err := getConv(txn, c.ParentID); err != nil {
				return fmt.Errorf("parent: %w", err)
			}
			if err := txn.Set(kidKey(c.ParentID, c.ID), nil); err != nil {
				return err
			}
		}
		return putConv(txn, c)
	})
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation %s: %w", c.ID, err)
	}
	return c, nil
}

// Commit writes one transition (REQ-BED-007): the new conversation record and the messages
// the transition produced, in ONE Badger transaction, so that either all of it is stored or
// none of it is. The messages must be consecutive, start at the stored NextSeq, and
// c.NextSeq must follow the last of them (ErrSequence otherwise): histories stay gap-free.
// Commit stamps UpdatedAt and each message's At and returns the stamped values; it returns
// only after the write is as durable as Options.SyncWrites promises: a commit holding a user
// message is always flushed to disk first, so the UI may acknowledge the message once Commit
// returns.
//
// The stored CreatedAt and Archived are kept whatever c says: CreatedAt never changes, and
// Archived belongs to SetArchived, which the UI may call while an actor holds an older copy.
// The working directory and the parent link are fixed at creation (REQ-BED-010): a commit
// that changes them is refused with ErrInvalid.
func (s *Store) Commit(c domain.Conversation, msgs []domain.Message) (domain.Conversation, []domain.Message, error) {
	if err := s.acquireWrite(); err != nil {
		return domain.Conversation{}, nil, fmt.Errorf("commit %s: %w", c.ID, err)
	}
	defer s.release()
	return s.commit(c, msgs)
}

func (s *Store) commit(c domain.Conversation, msgs []domain.Message) (domain.Conversation, []domain.Message, error) {
	if err := checkID(c.ID); err != nil {
		return domain.Conversation{}, nil, fmt.Errorf("commit: %w", err)
	}
	if c.State == nil {
		return domain.Conversation{}, nil, fmt.Errorf("commit %s: %w: state is nil", c.ID, ErrInvalid)
	}
	for _, m := range msgs {
		if err := m.Validate(); err != nil {
			return domain.Conversation{}, nil, fmt.Errorf("commit %s: %w: %w", c.ID, ErrInvalid, err)
		}
	}
	var (
		outConv domain.Conversation
		outMsgs []domain.Message
		raw     []byte // the record written
	)
	if slices.ContainsFunc(msgs, func(m domain.Message) bool { return len(imagesOf(m)) > 0 }) {
		s.blobMu.Lock()
		defer s.blobMu.Unlock()
	}
	err := s.update(func(txn *badger.Txn) error {
		stored, err := s.convs.storedHeadOf(txn, c.ID)
		if err != nil {
			return err
		}
		if err := checkSequence(stored.nextSeq, c.NextSeq, msgs); err != nil {
			return err
		}
		if c.Cwd != stored.cwd || c.ParentID != stored.parentID {
			return fmt.Errorf("%w: the working directory and parent are fixed at creation (stored %q, %q; got %q, %q)",
				ErrInvalid, stored.cwd, stored.parentID, c.Cwd, c.ParentID)
		}
		now := s.stamp()
		// Times never go backwards within a conversation, even if the wall clock does.
		if now.Before(stored.updatedAt) {
			now = stored.updatedAt
		}
		next := c
		next.CreatedAt, next.Archived, next.UpdatedAt = stored.createdAt, stored.archived, now
		stamped := make([]domain.Message, len(msgs))
		for i, m := range msgs {
			m.At = now
			data, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("encode message %d: %w", m.Seq, err)
			}
			if len(data) > s.maxValue {
				return fmt.Errorf("%w: message %d is %d bytes, more than the %d a message may take: "+
					"tool output must be truncated before it reaches the core", ErrTooLarge, m.Seq, len(data), s.maxValue)
			}
			if err := txn.Set(msgKey(c.ID, m.Seq), data); err != nil {
				return err
			}
			stamped[i] = m
		}
		if err := refBlobs(txn, c.ID, msgs); err != nil {
			return err
		}
		if raw, err = putConvRaw(txn, next); err != nil {
			return err
		}
		outConv, outMsgs = next, stamped
		return nil
	})
	if errors.Is(err, badger.ErrTxnTooBig) {
		return domain.Conversation{}, nil, fmt.Errorf("commit %s: %w: the transition's messages together exceed what one commit takes "+
			"(%w): tool output must be truncated before it reaches the core", c.ID, ErrTooLarge, err)
	}
	if err != nil {
		return domain.Conversation{}, nil, fmt.Errorf("commit %s: %w", c.ID, err)
	}
	s.convs.remember(outConv, raw)
	if s.syncUser && slices.ContainsFunc(msgs, func(m domain.Message) bool { return m.Kind == domain.KindUser }) {
		if err := s.db.Sync(); err != nil {
			return domain.Conversation{}, nil, fmt.Errorf("commit %s: the commit was applied but could not be flushed to disk in %s: %w; "+
				"the disk may be failing or full: reload the conversation", c.ID, s.dir, err)
		}
	}
	return outConv, outMsgs, nil
}

func checkSequence(storedNext, newNext uint64, msgs []domain.Message) error {
	want := storedNext
	for i, m := range msgs {
		if m.Seq != want {
			return fmt.Errorf("%w: message %d of the commit has sequence %d, want %d", ErrSequence, i, m.Seq, want)
		}
		want++
	}
	if newNext != want {
		return fmt.Errorf("%w: NextSeq is %d after %d new messages from %d, want %d", ErrSequence, newNext, len(msgs), storedNext, want)
	}
	return nil
}

// Get reads one conversation record without its messages.
func (s *Store) Get(id string) (domain.Conversation, error) {
	if err := s.acquire(); err != nil {
		return domain.Conversation{}, fmt.Errorf("get conversation %s: %w", id, err)
	}
	defer s.release()
	return s.get(id)
}

func (s *Store) get(id string) (domain.Conversation, error) {
	var c domain.Conversation
	err := s.db.View(func(txn *badger.Txn) error {
		var err error
		c, err = getConv(txn, id)
		return err
	})
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("get conversation: %w", err)
	}
	return c, nil
}

// Load reads a conversation and all its messages from one consistent snapshot. A value that
// does not decode, or a history with a hole in it, is a *CorruptError naming the
// conversation.
func (s *Store) Load(id string) (domain.Conversation, []domain.Message, error) {
	if err := s.acquire(); err != nil {
		return domain.Conversation{}, nil, fmt.Errorf("load conversation %s: %w", id, err)
	}
	defer s.release()
	c, msgs, err := s.load(id)
	// The whole history is now in the caller's memory; the pages of the tables it was read
	// from go back to the page cache rather than stay in the app's resident memory until
	// the next rest (ReleaseMappedFiles): a conversation loaded again is read from there.
	ReleaseMappedFiles()
	return c, msgs, err
}

func (s *Store) load(id string) (domain.Conversation, []domain.Message, error) {
	var (
		c    domain.Conversation
		msgs []domain.Message
	)
	err := s.db.View(func(txn *badger.Txn) error {
		var err error
		if c, err = getConv(txn, id); err != nil {
			return err
		}
		if msgs, err = readMessages(txn, id, 0, c.NextSeq); err != nil {
			return err
		}
		if uint64(len(msgs)) != c.NextSeq {
			return corrupt(id, string(convKey(id)),
				fmt.Errorf("the conversation has %d messages stored but its next sequence is %d", len(msgs), c.NextSeq))
		}
		return nil
	})
	if err != nil {
		return domain.Conversation{}, nil, fmt.Errorf("load conversation: %w", err)
	}
	return c, msgs, nil
}

func getConv(txn *badger.Txn, id string) (domain.Conversation, error) {
	key := convKey(id)
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return domain.Conversation{}, fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("read conversation %s: %w", id, err)
	}
	return decodeConv(item, id)
}

func decodeConv(item *badger.Item, id string) (domain.Conversation, error) {
	var c domain.Conversation
	if err := item.Value(func(v []byte) error { return decodeInto(v, &c) }); err != nil {
		return domain.Conversation{}, classifyValueErr(id, string(item.Key()), err)
	}
	if c.ID != id {
		return domain.Conversation{}, corrupt(id, string(item.Key()), fmt.Errorf("record says it is conversation %q", c.ID))
	}
	return c, nil
}

// putConv writes the conversation record and, for a conversation the person started, its
// summary.
func putConv(txn *badger.Txn, c domain.Conversation) error {
	_, err := putConvRaw(txn, c)
	return err
}

// putConvRaw is putConv, and returns the record's bytes as written.
func putConvRaw(txn *badger.Txn, c domain.Conversation) ([]byte, error) {
	data, err := encodeConv(c)
	if err != nil {
		return nil, fmt.Errorf("encode conversation %s: %w", c.ID, err)
	}
	if err := txn.Set(convKey(c.ID), data); err != nil {
		return nil, err
	}
	if !c.UserInitiated() {
		return data, nil
	}
	sum, err := json.Marshal(summaryOf(c))
	if err != nil {
		return nil, fmt.Errorf("encode summary of %s: %w", c.ID, err)
	}
	return data, txn.Set(summaryKey(c.ID), sum)
}

func exists(txn *badger.Txn, key []byte) (bool, error) {
	_, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	return true, nil
}

// absent returns ifPresent when key exists.
func absent(txn *badger.Txn, key []byte, ifPresent error) error {
	ok, err := exists(txn, key)
	if err != nil {
		return err
	}
	if ok {
		return ifPresent
	}
	return nil
}

// encodeConv is json.Marshal(c), byte for byte (TestEncodeConvIsJSONMarshal), without the
// scan json.Marshal gives what a MarshalJSON returns to compact it: Conversation's returns
// json.Marshal's own output, compact already, and every commit encodes its conversation
// (issue 39).
func encodeConv(c domain.Conversation) ([]byte, error) { return c.MarshalJSON() }
