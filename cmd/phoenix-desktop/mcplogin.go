package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/secrets"
)

// Sign-in of URL MCP servers (issue 26): `phoenix-desktop mcp login NAME`, and the store of
// their tokens that every run shares with the window.

// EnvMCPClientMetadataURL is the HTTPS address of a Client ID Metadata Document for this app
// (its client_id where an authorization server takes such documents); unset, the app
// registers itself dynamically with each authorization server.
const EnvMCPClientMetadataURL = "PHOENIX_MCP_CLIENT_METADATA_URL"

// EnvMCPClientSecret gives `mcp login --client-secret` the secret without a prompt (the name
// Claude Code reads for it).
const EnvMCPClientSecret = "MCP_CLIENT_SECRET"

// signInTimeout bounds one sign-in: the person's time in the browser.
const signInTimeout = 10 * time.Minute

// mcpTokens opens the desktop's Secret Service (or the private file, as for the API key) once
// per hub, when a URL server first needs its tokens: runs without one never wait for the probe.
func mcpTokens() func() (mcp.TokenStore, error) { return sync.OnceValues(openMCPTokens) }

func openMCPTokens() (mcp.TokenStore, error) {
	dir, err := secretsDir()
	if err != nil {
		return nil, err
	}
	return secrets.Open(dir)
}

// runMCPLogin signs in to one URL server: the browser opens where there is a display, and the
// address is printed in any case, for a headless machine or a browser elsewhere.
func runMCPLogin(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common       commonFlags
		cwd          string
		noBrowser    bool
		clientSecret bool
	)
	common.registerMCP(fs)
	fs.StringVar(&cwd, "cwd", ".", "working directory whose .mcp.json is considered")
	fs.BoolVar(&noBrowser, "no-browser", false, "only print the sign-in address; do not open a browser")
	fs.BoolVar(&clientSecret, "client-secret", false, `keep the client secret of the server's "oauth" client in the keyring first: read from `+EnvMCPClientSecret+`, else the first line of standard input`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("mcp login: name one server: phoenix-desktop mcp login [--cwd DIR] [--no-browser] [--client-secret] NAME")
	}
	name := fs.Arg(0)
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("mcp login: working directory %s: %w", cwd, err)
	}
	hub, err := common.openMCP()
	if hub == nil {
		if err == nil {
			err = errors.New("MCP is off (--no-mcp)")
		}
		return fmt.Errorf("mcp login: %w", err)
	}
	if err != nil {
		return fmt.Errorf("mcp login: %w", err)
	}
	if clientSecret {
		secret, ok := os.LookupEnv(EnvMCPClientSecret)
		if !ok {
			fmt.Fprintf(stderr, "Client secret of %s (one line): ", name)
			line, err := bufio.NewReader(stdin).ReadString('\n')
			if err != nil && line == "" {
				return fmt.Errorf("mcp login: read the client secret from standard input: nothing came (set %s, or type it)", EnvMCPClientSecret)
			}
			secret = line
		}
		if err := hub.SaveClientSecret(name, abs, secret); err != nil {
			return fmt.Errorf("mcp login: %w", err)
		}
		fmt.Fprintf(stdout, "The client secret of %s is kept in the keyring (or the private secrets file).\n", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), signInTimeout)
	defer cancel()
	open := func(authURL string) error {
		fmt.Fprintf(stdout, "Sign in to %s in your browser; if it does not open, open this address:\n%s\n", name, authURL)
		if !noBrowser {
			openBrowser(authURL, stderr)
		}
		return nil
	}
	if err := hub.SignIn(ctx, name, abs, open); err != nil {
		return fmt.Errorf("mcp login: %w", err)
	}
	fmt.Fprintf(stdout, "Signed in to %s; the tokens are kept in the keyring (or the private secrets file), not in the configuration.\n", name)
	return nil
}

// openBrowser starts the desktop's browser with xdg-open where there is a display; without
// one (or without xdg-open) the printed address is all there is, and that is enough.
func openBrowser(authURL string, stderr io.Writer) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return
	}
	cmd := exec.Command("xdg-open", authURL)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "! the browser could not be opened (%v); open the address above by hand\n", err)
		return
	}
	go cmd.Wait() // reap it; xdg-open hands the address over and exits
}
