package domain

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Project mode (issue 24): the rows of the transition table that involve the third mode.

func project(p *NewConversationParams) { p.Mode = ModeProject }

// Row "NewConversation(Mode: Project)": the person's choice holds for their conversation; a
// sub-agent stays Restricted (REQ-BED-018); without Landlock only Unrestricted exists.
func TestNewConversation_ProjectMode_REQ_BED_014(t *testing.T) {
	if c := newConv(t, project); c.Mode != ModeProject {
		t.Fatalf("mode = %s; want project", c.Mode)
	}
	if c := newConv(t, project, subAgent); c.Mode != ModeRestricted {
		t.Fatalf("sub-agent mode = %s; want restricted", c.Mode)
	}
	if c := newConv(t, project, noLandlock); c.Mode != ModeUnrestricted {
		t.Fatalf("mode without Landlock = %s; want unrestricted", c.Mode)
	}
	if c := newConv(t, func(p *NewConversationParams) { p.Mode = ModeUnrestricted }); c.Mode != ModeUnrestricted {
		t.Fatalf("mode = %s; want unrestricted", c.Mode)
	}
}

// The table of mode words is complete and ordered: every mode has a title and says what it
// allows, and an unknown mode (a newer build's) reads and ranks as Restricted.
func TestModeWords(t *testing.T) {
	for i, m := range Modes {
		if m.Rank() != i || !m.Known() || m.Title() == "" || m.Allows() == "" || strings.HasSuffix(m.Allows(), ".") {
			t.Errorf("mode %q: rank %d, title %q, allows %q", m, m.Rank(), m.Title(), m.Allows())
		}
	}
	if Mode("sandboxed-v9").Rank() != 0 || Mode("sandboxed-v9").Title() != "Restricted" || Mode("").Known() {
		t.Error("an unknown mode must read as Restricted")
	}
	if !strings.Contains(ModeProject.Allows(), ".git/hooks") || !strings.Contains(ModeProject.Allows(), "proxy") {
		t.Errorf("Project mode's words do not name the protected files and the proxy: %q", ModeProject.Allows())
	}
}

// Rows "AwaitingModeApproval + ModeDecision(Project | Unrestricted | a level not above the
// mode)" (REQ-BED-015, REQ-BED-017): the click's level becomes the mode and the notice says in
// plain words what it allows, once (issue 28); a level that gives nothing more is a denial,
// answered by the result alone.
func TestTransition_REQ_BED_015_ModeDecisionLevels(t *testing.T) {
	tests := []struct {
		name        string
		start       []convOption
		level       Mode
		approve     bool
		wantMode    Mode
		wantOutcome Outcome
		wantResult  string
		wantSystem  string
	}{
		{"restricted to project", nil, ModeProject, true, ModeProject, OutcomeSuccess, "Approved", "Mode changed to Project"},
		{"restricted to full", nil, ModeUnrestricted, true, ModeUnrestricted, OutcomeSuccess, "Approved", "Mode changed to Unrestricted"},
		{"restricted, empty level is full", nil, "", true, ModeUnrestricted, OutcomeSuccess, "Approved", "Mode changed to Unrestricted"},
		{"restricted, denied", nil, ModeProject, false, ModeRestricted, OutcomeError, "Denied: the user kept Restricted mode", ""},
		{"project to full", []convOption{project}, ModeUnrestricted, true, ModeUnrestricted, OutcomeSuccess, "Approved", "Mode changed to Unrestricted"},
		{"project, project again", []convOption{project}, ModeProject, true, ModeProject, OutcomeError, "Denied: the user kept Project mode", ""},
		{"project, denied", []convOption{project}, ModeUnrestricted, false, ModeProject, OutcomeError, "kept Project mode", ""},
		{"restricted, restricted is no approval", nil, ModeRestricted, true, ModeRestricted, OutcomeError, "Denied", ""},
		{"unknown level", nil, Mode("everything"), true, ModeRestricted, OutcomeError, "Denied", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, effects := respond(t, requesting(t, tt.start...), "", upgradeCall("u", "edit"))
			exec := only[RequestApproval](t, effects).Exec
			next, effects := step(t, c, ModeDecision{Exec: exec, Approve: tt.approve, Mode: tt.level})
			if next.Mode != tt.wantMode {
				t.Fatalf("mode = %s; want %s", next.Mode, tt.wantMode)
			}
			msgs := persisted(t, effects)
			wantAnnouncedOnce(t, msgs, tt.wantSystem, tt.wantMode)
			wantResult(t, msgs[0], "u", tt.wantOutcome, tt.wantResult)
			wantState[LLMRequesting](t, next)
		})
	}
}

// Row "ToolExecuting + request_mode_upgrade in Unrestricted": refused at once, as before; in
// Project mode the agent may ask for more.
func TestTransition_REQ_BED_015_UpgradeFromProject(t *testing.T) {
	c, effects := respond(t, requesting(t, project), "", upgradeCall("u", "need the whole disk"))
	wantState[AwaitingModeApproval](t, c)
	only[RequestApproval](t, effects)
}

// Row "patch in Project mode": the core runs it under Project (the tool keeps it in the tree).
func TestTransition_REQ_BED_017_PatchInProject(t *testing.T) {
	_, effects := respond(t, requesting(t, project), "", patchCall("p"))
	if run := only[ExecuteTool](t, effects); run.Call.ID != "p" || run.Mode != ModeProject {
		t.Fatalf("ExecuteTool %+v; want the patch under Project", run)
	}
}

// Rows "UserDowngrade{To}" (REQ-BED-016) from every mode to every mode: a lower mode is
// taken at once and announced, the same mode changes nothing, a higher one is rejected.
func TestTransition_REQ_BED_016_DowngradeAnyMode(t *testing.T) {
	start := map[Mode]convOption{ModeRestricted: func(*NewConversationParams) {}, ModeProject: project, ModeUnrestricted: unrestricted}
	for _, from := range Modes {
		for _, to := range append([]Mode{""}, Modes...) {
			target := to
			if target == "" {
				target = ModeRestricted
			}
			c, _ := respond(t, requesting(t, start[from]), "hi")
			switch {
			case target.Rank() > from.Rank():
				wantRejected(t, c, UserDowngrade{To: to}, ErrNotADowngrade)
			case target == from:
				wantUnchanged(t, c, UserDowngrade{To: to})
			default:
				next, effects := step(t, c, UserDowngrade{To: to})
				if next.Mode != target {
					t.Fatalf("%s → %q: mode = %s", from, to, next.Mode)
				}
				msgs := persisted(t, effects)
				wantKinds(t, msgs, KindSystem)
				if !strings.Contains(msgs[0].Text, "Mode changed to "+target.Title()) || !strings.Contains(msgs[0].Text, target.Allows()) {
					t.Fatalf("%s → %s: notice %q", from, target, msgs[0].Text)
				}
			}
		}
	}
	wantRejected(t, newConv(t), UserDowngrade{To: "everything"}, ErrNotADowngrade)
}

// Rows "ToolExecuting(bash | MCP | fetch_url, mode M) + UserDowngrade to a lower mode → KillTool, the
// call answered as stopped, the rest of the round under the new mode" (REQ-BED-016): the
// same for Unrestricted → Project, Unrestricted → Restricted and Project → Restricted.
func TestTransition_REQ_BED_016_DowngradeStopsRunningCommand(t *testing.T) {
	cases := []struct {
		from convOption
		to   Mode
		was  string
	}{
		{unrestricted, ModeProject, "Unrestricted"},
		{unrestricted, ModeRestricted, "Unrestricted"},
		{project, ModeRestricted, "Project"},
	}
	for _, tc := range cases {
		for _, running := range []ToolCall{bashCall("a"), call("a", MCPToolPrefix+"files__write", `{"path":"a"}`),
			call("a", ToolFetchURL, `{"url":"https://example.org/"}`)} {
			c, _ := respond(t, requesting(t, tc.from), "", running, bashCall("b"))
			st := wantState[ToolExecuting](t, c)
			next, effects := step(t, c, UserDowngrade{To: tc.to})
			if k := only[KillTool](t, effects); k.Exec != st.Exec {
				t.Fatalf("KillTool %+v; want %d", k, st.Exec)
			}
			msgs := persisted(t, effects)
			wantResult(t, msgs[0], "a", OutcomeCancelled, "switched the conversation to "+tc.to.Title()+" mode")
			wantResult(t, msgs[0], "a", OutcomeCancelled, "ran in "+tc.was+" mode until then")
			if run := only[ExecuteTool](t, effects); run.Call.ID != "b" || run.Mode != tc.to {
				t.Fatalf("ExecuteTool %+v; want b under %s", run, tc.to)
			}
			if next.Mode != tc.to {
				t.Fatalf("mode = %s", next.Mode)
			}
		}
	}
	// A running patch is left to finish, in every mode.
	c, _ := respond(t, requesting(t, project), "", patchCall("p"))
	_, effects := step(t, c, UserDowngrade{})
	for _, e := range effects {
		if _, ok := e.(KillTool); ok {
			t.Fatal("a running patch was killed by the downgrade")
		}
	}
}

// REQ-BED-017: the tools offered do not depend on the mode, whatever the mode does during a
// conversation: ToolsFor takes no mode, and its answer is the same after any mode change.
func TestProperty_REQ_BED_017_ToolsStaticAcrossModes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sub := rapid.Bool().Draw(rt, "sub")
		before := ToolsFor(sub)
		c := newConv(t, func(p *NewConversationParams) {
			p.Mode = rapid.SampledFrom(Modes).Draw(rt, "start")
		})
		for range rapid.IntRange(1, 6).Draw(rt, "switches") {
			c, _, _ = Transition(c, UserDowngrade{To: rapid.SampledFrom(Modes).Draw(rt, "to")})
		}
		after := ToolsFor(sub)
		if len(after) != len(before) {
			rt.Fatalf("tools changed with the mode: %d then %d", len(before), len(after))
		}
		for i := range before {
			if before[i].Name != after[i].Name || before[i].Description != after[i].Description || string(before[i].Parameters) != string(after[i].Parameters) {
				rt.Fatalf("tool %s changed with the mode", before[i].Name)
			}
		}
	})
}

// wantAnnouncedOnce checks what a mode decision wrote (issue 28: a change was said three
// times): the call's result, then, for a change, one system notice (ModeChangeNotice) that
// names the mode and what it allows; no other message repeats the mode's words. A denial
// (system "") writes the result alone.
func wantAnnouncedOnce(t *testing.T, msgs []Message, system string, mode Mode) {
	t.Helper()
	if system == "" {
		wantKinds(t, msgs, KindToolResult)
		return
	}
	wantKinds(t, msgs, KindToolResult, KindSystem)
	if !strings.Contains(msgs[1].Text, system) || !strings.Contains(msgs[1].Text, mode.Allows()) {
		t.Fatalf("system message = %q; want %q and what the mode allows", msgs[1].Text, system)
	}
	if msgs[1].Text != ModeChangeNotice(mode, ChangedByApproval) {
		t.Fatalf("system message = %q; want the one announcement %q", msgs[1].Text, ModeChangeNotice(mode, ChangedByApproval))
	}
	if res := msgs[0].ToolResult.Content; strings.Contains(res, mode.Allows()) || strings.Contains(res, "Mode changed") {
		t.Fatalf("the call's result repeats the announcement: %q", res)
	}
}
