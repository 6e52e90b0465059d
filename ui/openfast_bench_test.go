package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// BenchmarkBuildMainWindow measures what issue 36's "open fast" pays on the UI goroutine
// before the map: the main window built with one conversation open, sized and drawn once by
// the test driver. BenchmarkBuildBareWindow is its baseline in the same run, a window with
// one label, built and drawn the same way, so the difference is what the app adds.
func BenchmarkBuildMainWindow(b *testing.B) {
	a := test.NewTempApp(b)
	f := newFakeBackend()
	f.add(domain.NewConversationParams{Title: "A conversation", Cwd: "/home/ada/src/p", Model: "gpt-4o"})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := newQueue()
		sub := &fakeSub{ch: make(chan actors.Event)}
		m := NewMainWindow(a, f, sub, Deps{Do: q.push, Now: func() time.Time { return testNow }})
		m.win.Resize(fyne.NewSize(1100, 720))
		m.win.Canvas().Capture()
		b.StopTimer()
		m.win.Close()
		q.drain()
		b.StartTimer()
	}
}

func BenchmarkBuildBareWindow(b *testing.B) {
	a := test.NewTempApp(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := a.NewWindow("Phoenix")
		w.SetContent(widget.NewLabel("Phoenix"))
		w.Resize(fyne.NewSize(1100, 720))
		w.Canvas().Capture()
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}
