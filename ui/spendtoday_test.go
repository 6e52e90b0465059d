package ui

import (
	"context"
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// todaySpend is what the fake backend says today's answers cost, and since the moment asked.
var todaySpend = domain.Spend{Responses: 3, InputTokens: 12_000, CachedTokens: 9_000, OutputTokens: 400, CostNanoUSD: 15_000_000}

func (f *fakeBackend) SpentSince(_ context.Context, since time.Time) (domain.Spend, error) {
	f.mu.Lock()
	f.spentSince = since
	err := f.spendErr
	f.mu.Unlock()
	return todaySpend, err
}

// Issue 27: Settings says what today's answers took and cost, in the words of the
// conversations' totals, added up since local midnight.
func TestSettingsShowsTodaysSpending(t *testing.T) {
	h := newHarness(t, nil)
	waitForSpendLine(t, h, transcript.SpendLine(todaySpend))
	h.f.mu.Lock()
	since := h.f.spentSince
	h.f.mu.Unlock()
	if y, m, d := testNow.Date(); !since.Equal(time.Date(y, m, d, 0, 0, 0, 0, testNow.Location())) {
		t.Errorf("added up since %v, want midnight of %v", since, testNow)
	}
}

// A total that leaves unreadable conversations out says so beside the total of the rest.
func TestSettingsSaysWhatTodaysTotalLeavesOut(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.spendErr = &actors.IncompleteSpendError{Unreadable: 2, First: errors.New("record of c1: corrupt")}
	})
	waitForSpendLine(t, h, transcript.SpendLine(todaySpend)+" — not counted: 2 conversations could not be read and are not counted (record of c1: corrupt)")
}

// waitForSpendLine opens Settings and waits until its "Spent today" line reads want.
func waitForSpendLine(t *testing.T, h *harness, want string) {
	t.Helper()
	f := h.openSettings()
	var item *widget.FormItem
	for _, it := range f.items {
		if it.Text == "Spent today" {
			item = it
		}
	}
	if item == nil {
		t.Fatal("Settings has no \"Spent today\" line")
	}
	h.waitFor("today's total", func() bool {
		found := false
		walk(item.Widget, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok && l.Text == want {
				found = true
			}
		})
		return found
	})
}
