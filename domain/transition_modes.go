package domain

import "slices"

// announce tells the agent about a mode change (REQ-BED-017). Inside a tool round the notice
// is held in the round (Round.Notes) and written after its last result; otherwise it is written
// at once.
func (t *tx) announce(text string) {
	switch st := t.c.State.(type) {
	case ToolExecuting:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	case AwaitingModeApproval:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	case AwaitingSubAgents:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	default:
		t.add(Message{Kind: KindSystem, Text: text})
	}
}

func (t *tx) modeDecision(e ModeDecision) error {
	st, ok := t.c.State.(AwaitingModeApproval)
	if !ok || st.Exec != e.Exec {
		return ErrNoPendingApproval
	}
	level := e.Mode
	if level == "" {
		level = ModeUnrestricted
	}
	// A change is announced once, by the mode notice (ModeChangeNotice), which follows the
	// round's last result (see Round.Notes); the call's result only answers the call. A
	// denial changes nothing, so its result is all that is said. An approval of a level that
	// gives nothing more (or that this build does not know) keeps the mode, and is said as a
	// denial.
	notes := slices.Clone(st.Notes)
	if e.Approve && level.Known() && level.Rank() > t.c.Mode.Rank() {
		t.c.Mode = level
		t.result(st.Call, OutcomeSuccess, ApprovedResultText, nil)
		notes = append(notes, ModeChangeNotice(level, ChangedByApproval))
	} else {
		t.result(st.Call, OutcomeError, DeniedResultText(t.c.Mode), nil)
	}
	next := st.Round
	next.Completed, next.Notes = append(slices.Clone(st.Completed), st.Call.ID), notes
	t.runRound(st.Remaining, next)
	return nil
}

// downgrade switches to a lower mode at once (REQ-BED-016): Unrestricted to Project or
// Restricted, Project to Restricted.
func (t *tx) downgrade(e UserDowngrade) error {
	if !t.c.LandlockAvailable {
		return ErrLandlockUnavailable
	}
	to := e.To
	if to == "" {
		to = ModeRestricted
	}
	if !to.Known() {
		return ErrNotADowngrade
	}
	switch t.c.State.(type) {
	case ContextExhausted, Completed, Failed:
		return nil
	}
	from := t.c.Mode
	if to == from {
		return nil
	}
	if to.Rank() > from.Rank() {
		return ErrNotADowngrade
	}
	t.c.Mode = to
	t.changed = true
	t.announce(ModeChangeNotice(to, ChangedBySwitch))
	// REQ-BED-016: the downgrade is immediate, also for work already running with more
	// access (stopsOnDowngrade).
	if st, ok := t.c.State.(ToolExecuting); ok && stopsOnDowngrade(st.Current.Name) {
		t.emit(KillTool{Exec: st.Exec})
		t.result(st.Current, OutcomeCancelled, DowngradeStoppedText(from, to), &ToolDisplay{Summary: "stopped: switched to " + to.Title()})
		next := st.Round
		next.Completed = append(slices.Clone(st.Completed), st.Current.ID)
		t.runRound(st.Remaining, next)
	}
	return nil
}

// stopsOnDowngrade reports whether a running call of the tool is killed when the person
// switches the mode down: the tools that go on using the access they started with — a bash
// command, an MCP call (its server, started under the old mode, is killed with it and starts
// again under the new one when next needed), a fetch_url on the network. patch writes at
// once, and killing it mid-write could leave a half-written file; the others only read.
func stopsOnDowngrade(tool string) bool {
	return tool == ToolBash || tool == ToolFetchURL || IsMCPTool(tool)
}
