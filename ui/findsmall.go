package ui

// Find at small sizes (issue 36): in a window shorter than shortWindowHeight, the open Find bar
// takes the context meter's row, so that with the task list's summary, a notice and the
// composer below, the chat still keeps at least half the window (at 800×600 it got 272 px of
// 600). The meter comes back when Find closes or the window grows; Wrap up stays in the
// Conversation menu meanwhile.

// meterFolded is whether the context meter's row gives way to the Find bar.
func (m *MainWindow) meterFolded() bool {
	return m.small != nil && m.small.short() && m.find != nil && m.find.box.Visible()
}

// foldMeter shows or folds the context meter's row as meterFolded says; it reports whether
// that changed, for the caller to lay the window out again.
func (m *MainWindow) foldMeter() bool {
	if m.header == nil || m.current == nil {
		return false
	}
	fold := m.meterFolded()
	if m.header.meterRow.Hidden == fold {
		return false
	}
	m.header.meterRow.Hidden = fold
	m.header.meterRow.Refresh()
	return true
}
