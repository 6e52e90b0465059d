package remote

import "context"

// Sandbox is what the host's agent said of its machine when it greeted the app (HelloReply:
// the system, the processor, the remote kernel's sandbox layers — what `doctor --remote`
// prints): the live connection's answer when there is one, so it crosses the wire once per
// connection, else the answer of a connection made now (which the conversation's next call
// then uses). A reconnection asks again: the agent there may be another build, the machine
// rebooted into another kernel.
func (h *Hosts) Sandbox(ctx context.Context, dest string) (Info, error) {
	s := h.Session(dest)
	if s == nil {
		return Info{}, ErrSessionClosed
	}
	// Connect, not Info: Info still holds a connection that dropped and was not used since;
	// Connect answers from the live one without a round trip, and reconnects otherwise.
	return s.Connect(ctx)
}
