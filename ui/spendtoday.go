package ui

import (
	"context"
	"errors"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// SpendBackend adds up what the model's answers cost since a moment, over every conversation
// (*actors.Runtime does): Settings shows the total for today (issue 27).
type SpendBackend interface {
	SpentSince(ctx context.Context, since time.Time) (domain.Spend, error)
}

var _ SpendBackend = (*actors.Runtime)(nil)

// spentTodayItem is Settings' line for what today's answers took and cost, in the words of
// the per-conversation totals; it is added up off the UI goroutine and shown when known. nil
// when the backend cannot add it up.
func (m *MainWindow) spentTodayItem() *widget.FormItem {
	b, ok := m.b.(SpendBackend)
	if !ok {
		return nil
	}
	label := widget.NewLabel("Adding up…")
	label.Wrapping = fyne.TextWrapWord
	midnight := actors.StartOfDay(m.now())
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		s, err := b.SpentSince(ctx, midnight)
		m.do(func() {
			var partial *actors.IncompleteSpendError
			switch {
			case errors.As(err, &partial):
				label.SetText(transcript.SpendLine(s) + " — not counted: " + partial.Error())
			case err != nil:
				label.SetText("Could not add it up: " + err.Error())
			default:
				label.SetText(transcript.SpendLine(s))
			}
		})
	}()
	return &widget.FormItem{Text: "Spent today", Widget: label, HintText: "Every conversation's answers since midnight, sub-agents included; a price you have not set counts tokens only."}
}
