package actors

import (
	"context"
	"errors"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A turn the app stopped in (a crash, a full disk, a power cut) ends, on recovery, with the
// core's "Not answered" notice (domain.InterruptedTurnText): the person's message is kept but
// was never answered. Retry sends it again, text and images, as if the person had typed it
// once more; the window's Retry button and `chat --continue ID --retry` both come here.

// ErrNothingToRetry: the conversation's last turn was not interrupted.
var ErrNothingToRetry = errors.New("the last turn was not interrupted, so there is nothing to retry: send a message instead")

// InterruptedTurn returns the person's message of the turn the app stopped in, when the
// history ends with the notice that says so; nothing the person sent or saw follows it.
func InterruptedTurn(history []domain.Message) (domain.Message, bool) {
	if len(history) == 0 {
		return domain.Message{}, false
	}
	if !IsInterruptedNotice(history[len(history)-1]) {
		return domain.Message{}, false
	}
	for i := len(history) - 2; i >= 0; i-- {
		if history[i].Kind == domain.KindUser {
			return history[i], true
		}
	}
	return domain.Message{}, false
}

// IsInterruptedNotice reports whether m is the notice under a turn the app stopped in.
func IsInterruptedNotice(m domain.Message) bool {
	return m.Kind == domain.KindError && m.ErrorKind == domain.ErrorInterrupted
}

// Retry sends again the person's message of the turn the app stopped in. It fails with
// ErrNothingToRetry when the last turn was not interrupted, and as Send fails otherwise.
func (r *Runtime) Retry(ctx context.Context, id string) error {
	res, err := r.request(ctx, cmdEvent{ID: id, Retry: true})
	if err != nil {
		return err
	}
	return res.(reply).Err
}

// retryEvent is the message Retry sends, read from the actor's own history so that nothing
// sent in between can be mistaken for the interrupted turn.
func (a *conversationActor) retryEvent() (domain.Event, error) {
	m, ok := InterruptedTurn(a.history)
	if !ok {
		return nil, ErrNothingToRetry
	}
	return domain.UserMessage{Text: m.Text, Images: m.Images}, nil
}
