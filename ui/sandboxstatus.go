package ui

// The sandbox's description (Backend.Sandbox) is worked out by starting a sandbox supervisor,
// tens of milliseconds that the first frame does not need: the window asks for it once it
// is on the screen (probeSandbox, from Run), and a part that needs the answer before then
// (a dialog opened at once, the conversation menu) waits for it (issue 36).

// sandboxStatus is what the sandbox enforces on this machine, asked now if the probe has not
// answered yet (the backend works it out once, so asking twice waits for the one answer).
func (m *MainWindow) sandboxStatus() SandboxStatus {
	if !m.sandboxKnown {
		m.sandbox, m.sandboxKnown = m.b.Sandbox(), true
	}
	return m.sandbox
}

// sandboxKnownAvailable is whether the sandbox is known to be available, without waiting:
// what the window draws as a conversation opens (the mode switch, the conversation menu's
// mode items) leaves out what needs it until the probe has answered, and shows it then, so
// that opening the conversation the app showed last never waits for the probe.
func (m *MainWindow) sandboxKnownAvailable() bool { return m.sandboxKnown && m.sandbox.Available }

// probeSandbox asks for the sandbox's description off the UI goroutine and shows what it
// says (the Landlock note, the mode switch) when it answers.
func (m *MainWindow) probeSandbox() {
	go func() {
		s := m.b.Sandbox()
		m.do(func() {
			if m.closed || m.sandboxKnown {
				return
			}
			m.sandbox, m.sandboxKnown = s, true
			m.refreshAll()
		})
	}()
}
