package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// Queued messages: while the agent works, the person's next messages wait in a queue kept in
// the store (aux record "queue", flushed like a user message), so a restart does not lose
// them. The core still rejects a message while busy (REQ-BED-002); the queue lives outside
// the transition, in the conversation actor, which is its single writer: when a turn brings
// the conversation to rest (Idle), the actor sends the first item as an ordinary
// UserMessage. It does not send after an error, after Stop, after a restart, or into an
// exhausted conversation: the queue is then held, with the reason, until the person sends
// the next item themselves (ResumeQueue).

// QueuedMessage is one message waiting to be sent.
type QueuedMessage struct {
	ID     string            `json:"id"`
	Text   string            `json:"text"`
	Images []domain.ImageRef `json:"images,omitempty"`
	// Model is the model a command's turn runs on (EnqueueCommand), "" for the
	// conversation's.
	Model string    `json:"model,omitempty"`
	At    time.Time `json:"at"`
}

// Queue is a conversation's waiting messages, first to be sent first.
type Queue struct {
	Items []QueuedMessage `json:"items"`
	// Held says why the queue is not sent when the conversation comes to rest; empty when
	// the first item goes at the next rest.
	Held string `json:"held,omitempty"`
}

// QueueChanged announces a conversation's queue after any change.
type QueueChanged struct {
	ConvID string
	Queue  Queue
}

func (e QueueChanged) Conversation() string { return e.ConvID }

const auxQueue = "queue"

// Reasons a queue is held.
const (
	heldAfterError     = "The last turn ended in an error, so the queue waits: send the next message when you are ready."
	heldAfterStop      = "Stopped: the queue waits until you send the next message."
	heldAfterRestart   = "The app stopped while the agent worked, so the queue waits: send the next message when you are ready."
	heldExhausted      = "The context window is exhausted: these messages cannot be sent here; copy them into the continued conversation."
	heldSendFailedText = "The next message could not be sent: "
)

// ErrQueueItemNotFound rejects an edit of an item that was sent or removed meanwhile.
var ErrQueueItemNotFound = errors.New("that queued message is no longer in the queue")

// queueOp is one change to a queue, run by the conversation actor.
type queueOp struct {
	add    *QueuedMessage
	edit   *QueuedMessage
	remove string
	move   string
	to     int
	clear  bool
	resume bool
	// release clears Held without sending now.
	release bool
}

// cmdQueue asks a conversation actor to change its queue; the reply is replyQueue.
type cmdQueue struct {
	ID string
	Op queueOp
}

type replyQueue struct {
	Queue Queue
	Err   error
}

// Queue returns a conversation's queue as stored.
func (r *Runtime) Queue(ctx context.Context, id string) (Queue, error) {
	if err := ctx.Err(); err != nil {
		return Queue{}, err
	}
	return loadQueue(r.cfg.Store, id)
}

func loadQueue(s Store, id string) (Queue, error) {
	b, err := s.Aux(id, auxQueue)
	if errors.Is(err, persistence.ErrNotFound) {
		return Queue{}, nil
	}
	if err != nil {
		return Queue{}, fmt.Errorf("read the queued messages of %s: %w", id, err)
	}
	var q Queue
	if err := json.Unmarshal(b, &q); err != nil {
		return Queue{}, fmt.Errorf("the queued messages of %s do not decode: %w", id, err)
	}
	return q, nil
}

// Enqueue puts a message in the queue. If the conversation is at rest and the queue is not
// held, the message is sent at once (the person may have pressed Send just as the agent
// finished). Images are checked and stored first, as for Send.
func (r *Runtime) Enqueue(ctx context.Context, id, text string, images []Attachment) (Queue, error) {
	return r.enqueue(ctx, id, text, images, TurnOptions{})
}

// EnqueueCommand queues a command's message as Enqueue does; the model its turn runs on is
// worked out now (turnModel), and used when the message is sent.
func (r *Runtime) EnqueueCommand(ctx context.Context, id, text string, images []Attachment, opt TurnOptions) (Queue, error) {
	return r.enqueue(ctx, id, text, images, opt)
}

func (r *Runtime) enqueue(ctx context.Context, id, text string, images []Attachment, opt TurnOptions) (Queue, error) {
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return Queue{}, domain.ErrEmptyMessage
	}
	// The prompt hooks see a queued message when the person sends it to the queue, as they
	// see one sent at once: a refusal keeps it out of the queue, and what they add goes
	// with it.
	text, err := r.promptHooks(ctx, id, text)
	if err != nil {
		return Queue{}, err
	}
	item := QueuedMessage{ID: newID(), Text: text, At: time.Now()}
	if len(images) > 0 || opt.Model != "" {
		conv, err := r.cfg.Store.Get(id)
		if err != nil {
			return Queue{}, fmt.Errorf("queue a message for %s: %w", id, err)
		}
		item.Model = r.turnModel(ctx, conv, opt, text, len(images))
		model := item.Model
		if model == "" {
			model = conv.Model
		}
		if len(images) > 0 && !llm.SupportsVision(model) {
			return Queue{}, noVisionError(model)
		}
		for _, img := range images {
			ref, err := r.storeImage(img, r.imageLimits(model))
			if err != nil {
				return Queue{}, err
			}
			item.Images = append(item.Images, ref)
		}
	}
	return r.queueOp(ctx, id, queueOp{add: &item})
}

// EditQueued replaces the text of a queued message.
func (r *Runtime) EditQueued(ctx context.Context, id, itemID, text string) (Queue, error) {
	if strings.TrimSpace(text) == "" {
		return Queue{}, fmt.Errorf("%w: remove the queued message instead", domain.ErrEmptyMessage)
	}
	return r.queueOp(ctx, id, queueOp{edit: &QueuedMessage{ID: itemID, Text: text}})
}

// RemoveQueued takes a message out of the queue.
func (r *Runtime) RemoveQueued(ctx context.Context, id, itemID string) (Queue, error) {
	return r.queueOp(ctx, id, queueOp{remove: itemID})
}

// MoveQueued moves a queued message to position to (0 is sent first).
func (r *Runtime) MoveQueued(ctx context.Context, id, itemID string, to int) (Queue, error) {
	return r.queueOp(ctx, id, queueOp{move: itemID, to: to})
}

// ClearQueue removes every queued message (Stop does not; the person can).
func (r *Runtime) ClearQueue(ctx context.Context, id string) (Queue, error) {
	return r.queueOp(ctx, id, queueOp{clear: true})
}

// ResumeQueue releases a held queue and, at rest, sends its first message now.
func (r *Runtime) ResumeQueue(ctx context.Context, id string) (Queue, error) {
	return r.queueOp(ctx, id, queueOp{resume: true})
}

// ReleaseQueue releases a held queue without sending: its first message goes when the next
// turn comes to rest.
func (r *Runtime) ReleaseQueue(ctx context.Context, id string) (Queue, error) {
	return r.queueOp(ctx, id, queueOp{release: true})
}

func (r *Runtime) queueOp(ctx context.Context, id string, op queueOp) (Queue, error) {
	res, err := r.request(ctx, cmdQueue{ID: id, Op: op})
	if err != nil {
		return Queue{}, err
	}
	switch rq := res.(type) {
	case replyQueue:
		return rq.Queue, rq.Err
	case reply:
		return Queue{}, rq.Err
	}
	return Queue{}, fmt.Errorf("internal error: unexpected reply %T", res)
}

// holdQueuesAfterRecovery holds the queues of the conversations that restart recovery
// brought to rest: a crash is not a turn that came to rest, and the person should see where
// things stand before more is sent. It runs before any actor, so it is the queue's only
// writer.
func holdQueuesAfterRecovery(s Store, recovered []string, log *slog.Logger) {
	for _, id := range recovered {
		q, err := loadQueue(s, id)
		if err != nil || len(q.Items) == 0 || q.Held != "" {
			continue
		}
		q.Held = heldAfterRestart
		b, err := json.Marshal(q)
		if err == nil {
			err = s.PutAux(id, auxQueue, b)
		}
		if err != nil {
			log.Warn("could not hold the queue of a recovered conversation", "conversation", id, "error", err)
		}
	}
}

// --- in the conversation actor -------------------------------------------------------------

// onQueue applies a queue command. The queue is read from the store each time, so an actor
// that was passivated or restarted needs no state of its own.
func (a *conversationActor) onQueue(ctx actor.Context, op queueOp) (Queue, error) {
	if a.loadErr != nil {
		return Queue{}, a.loadErr
	}
	if a.conv.IsSubAgent() {
		return Queue{}, domain.ErrSubAgentReadOnly
	}
	q, err := loadQueue(a.rt.cfg.Store, a.id)
	if err != nil {
		return Queue{}, err
	}
	find := func(id string) int {
		return slices.IndexFunc(q.Items, func(m QueuedMessage) bool { return m.ID == id })
	}
	switch {
	case op.add != nil:
		if _, exhausted := a.conv.State.(domain.ContextExhausted); exhausted {
			return q, domain.ErrContextExhausted
		}
		q.Items = append(q.Items, *op.add)
	case op.edit != nil:
		i := find(op.edit.ID)
		if i < 0 {
			return q, ErrQueueItemNotFound
		}
		q.Items[i].Text = op.edit.Text
	case op.remove != "":
		i := find(op.remove)
		if i < 0 {
			return q, ErrQueueItemNotFound
		}
		q.Items = slices.Delete(q.Items, i, i+1)
	case op.move != "":
		i := find(op.move)
		if i < 0 {
			return q, ErrQueueItemNotFound
		}
		item := q.Items[i]
		q.Items = slices.Delete(q.Items, i, i+1)
		q.Items = slices.Insert(q.Items, max(0, min(op.to, len(q.Items))), item)
	case op.clear:
		q = Queue{}
	case op.resume, op.release:
		q.Held = ""
	}
	if len(q.Items) == 0 {
		q.Held = ""
	}
	if _, failed := a.conv.State.(domain.Error); failed && q.Held == "" && len(q.Items) > 0 && !op.resume && !op.release {
		// No turn will end by itself: the queue waits for the person.
		q.Held = heldAfterError
	}
	if err := a.saveQueue(q); err != nil {
		return Queue{}, err
	}
	// Sent at once when nothing else will bring the conversation to rest; a restore that
	// runs holds it until it ends (restore.go).
	if q.Held == "" && len(q.Items) > 0 && !op.release && !a.restoring() {
		if _, idle := a.conv.State.(domain.Idle); idle || (op.resume && !domain.Busy(a.conv.State)) {
			q = a.sendNext(ctx, q)
		}
	}
	return q, nil
}

func (a *conversationActor) saveQueue(q Queue) error {
	b, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode the queue of %s: %w", a.id, err)
	}
	if err := a.rt.cfg.Store.PutAux(a.id, auxQueue, b); err != nil {
		return fmt.Errorf("save the queue of %s: %w", a.id, err)
	}
	a.rt.publish(QueueChanged{ConvID: a.id, Queue: q})
	return nil
}

// afterTransition runs after every committed transition: when a turn has brought the
// conversation to rest, the queue's first message goes, or the queue is held with the reason.
func (a *conversationActor) afterTransition(ctx actor.Context, ev domain.Event, was domain.State) {
	if a.conv.IsSubAgent() || !domain.Busy(was) || domain.Busy(a.conv.State) {
		return
	}
	q, err := loadQueue(a.rt.cfg.Store, a.id)
	if err != nil || len(q.Items) == 0 || q.Held != "" {
		if err != nil {
			a.rt.log.Warn("queued messages unavailable", "conversation", a.id, "error", err)
		}
		return
	}
	held := ""
	switch a.conv.State.(type) {
	case domain.Error:
		held = heldAfterError
	case domain.ContextExhausted:
		held = heldExhausted
	case domain.Idle:
		switch ev.(type) {
		case domain.UserCancel:
			held = heldAfterStop
		case domain.RestoreAfterRestart:
			held = heldAfterRestart
		}
	default:
		return
	}
	if held != "" {
		q.Held = held
		if err := a.saveQueue(q); err != nil {
			a.rt.log.Warn("could not hold the queue", "conversation", a.id, "error", err)
		}
		return
	}
	a.sendNext(ctx, q)
}

// sendNext sends the queue's first message as a user message, then removes it from the
// queue. The message is committed first: a crash between the two leaves it both sent and
// queued (visible, so the person can remove it), never lost.
func (a *conversationActor) sendNext(ctx actor.Context, q Queue) Queue {
	item := q.Items[0]
	if err := a.apply(ctx, domain.UserMessage{Text: item.Text, Images: item.Images, Model: item.Model}); err != nil {
		q.Held = heldSendFailedText + err.Error()
		if serr := a.saveQueue(q); serr != nil {
			a.rt.log.Warn("could not hold the queue", "conversation", a.id, "error", serr)
		}
		return q
	}
	q.Items = slices.Delete(slices.Clone(q.Items), 0, 1)
	if err := a.saveQueue(q); err != nil {
		a.rt.log.Warn("a sent message stays in the queue", "conversation", a.id, "error", err)
	}
	return q
}
