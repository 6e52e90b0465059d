package ui

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The "Sign in" button of a URL server's card in Settings → MCP (issue 26): the sign-in runs
// off the UI goroutine (it waits for the person's browser), the sign-in page opens in the
// desktop's browser, and its address stays on the dialog's message line for a browser
// elsewhere. Only streamable-HTTP servers sign in; the SSE transport has no OAuth.

// signInTimeout bounds the wait for the browser (and the loopback listener's life); closing
// the window ends it sooner.
const signInTimeout = 10 * time.Minute

// openSignInPage shows the sign-in page; tests replace it with a client that follows the page.
var openSignInPage = func(m *MainWindow, authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return err
	}
	return m.app.OpenURL(u)
}

// signInButton is the card's "Sign in" button, or nil for a server that cannot sign in.
func (p *mcpPanel) signInButton(st actors.MCPStatus) *button.Button {
	if !st.Config.IsURL() || st.Config.IsSSE() || st.State == actors.MCPStateInvalid {
		return nil
	}
	name := st.Name
	b := button.New("Sign in", nil)
	if st.State == actors.MCPStateNeedsSignIn {
		b.Importance = widget.HighImportance
	}
	b.OnTapped = func() {
		b.Disable()
		b.SetText("Signing in…")
		ctx, cancel := context.WithTimeout(p.m.ctx, signInTimeout)
		go func() {
			defer cancel()
			err := p.mcp.SignIn(ctx, name, p.cwd, func(authURL string) error {
				p.m.do(func() {
					p.message.Importance = widget.MediumImportance
					p.message.SetText(fmt.Sprintf("Sign in to %s in your browser. If it did not open, open %s", name, authURL))
				})
				if err := openSignInPage(p.m, authURL); err != nil {
					p.m.do(func() {
						p.message.SetText(fmt.Sprintf("The browser could not be opened (%v). Open %s to sign in to %s.", err, authURL, name))
					})
				}
				return nil
			})
			p.m.do(func() {
				if err != nil {
					p.message.Importance = widget.DangerImportance
					p.message.SetText(err.Error())
				} else {
					p.message.Importance = widget.SuccessImportance
					p.message.SetText("Signed in to " + name + ".")
				}
				p.reload()
			})
		}()
	}
	return b
}
