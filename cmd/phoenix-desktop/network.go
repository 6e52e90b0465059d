package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// networkRulesFile is where, in the app's configuration directory, the allowed hosts of
// every project are kept (package proxy reads and writes it).
const networkRulesFile = "network.json"

// appProxy is the app's network proxy for Project mode as the runtime uses it: the proxy's
// server (HostProxy) and its allowed hosts (HostRules, for Settings).
type appProxy struct {
	*proxy.Server
	rules *proxy.Rules
	// tempDir is a directory made for the sockets when the data directory's path is too
	// long for a unix socket's; removed on close.
	tempDir string
}

func (p *appProxy) AllowedHosts(project string) []string     { return p.rules.List(project) }
func (p *appProxy) RemoveHost(project, pattern string) error { return p.rules.Remove(project, pattern) }
func (p *appProxy) AddHost(project, pattern string) error    { return p.rules.Allow(project, pattern) }
func (p *appProxy) Registries(project string) bool           { return p.rules.Registries(project) }
func (p *appProxy) SetRegistries(project string, on bool) error {
	return p.rules.SetRegistries(project, on)
}

func (p *appProxy) Close() {
	_ = p.Server.Close()
	if p.tempDir != "" {
		_ = os.RemoveAll(p.tempDir)
	}
}

// openProxy starts the proxy: its sockets in the data directory (hidden from commands; the
// sandbox hands each command its socket as a descriptor), the allowed hosts in the
// configuration directory, and every new host asked about through the runtime, which
// shows a card in the window and lets a headless run answer from --allow-hosts. runtime is
// read when a host is asked about, after the runtime has started. Without Project mode on
// this machine no proxy is started (nil).
func openProxy(dataDir string, runtime func() *actors.Runtime, log *slog.Logger) (*appProxy, error) {
	if ok, _ := sandbox.ProjectAvailable(); !ok {
		return nil, nil
	}
	cfgDir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("find the configuration directory for the allowed hosts: %w", err)
	}
	rules, err := proxy.LoadRules(filepath.Join(cfgDir, "phoenix-desktop", networkRulesFile))
	if err != nil {
		return nil, err
	}
	p := &appProxy{rules: rules}
	dir := filepath.Join(dataDir, "proxy")
	// A unix socket's path holds at most 107 bytes; the proxy names each "<16 hex>.sock".
	if len(dir)+22 > 100 {
		if p.tempDir, err = os.MkdirTemp("", "phoenix-proxy-"); err != nil {
			return nil, fmt.Errorf("make a directory for the proxy's sockets: %w", err)
		}
		dir = p.tempDir
	}
	if p.Server, err = proxy.Start(proxy.Options{Dir: dir, Rules: rules, Ask: hostAsker(runtime)}); err != nil {
		if p.tempDir != "" {
			_ = os.RemoveAll(p.tempDir)
		}
		return nil, err
	}
	log.Debug("network proxy for Project mode", "sockets", dir)
	return p, nil
}

// hostAsker shows the person the card about a host a Project-mode command wants to reach,
// through the runtime once it has started: for the local proxy and for the proxies that the
// agents of remote projects run on their machines (remote.Options.Ask).
func hostAsker(runtime func() *actors.Runtime) proxy.Asker {
	return func(ctx context.Context, r proxy.Request) (proxy.Decision, error) {
		rt := runtime()
		if rt == nil {
			return proxy.Deny, nil
		}
		var d actors.HostDecision
		var err error
		if len(r.Many) > 0 {
			d, err = rt.AskManyHosts(ctx, r.Project, r.Conversation, r.Many, r.Port)
		} else {
			d, err = rt.AskHost(ctx, r.Project, r.Conversation, r.Host, r.Port)
		}
		if err != nil {
			return proxy.Deny, err
		}
		switch d {
		case actors.HostAllowAlways:
			return proxy.AllowAlways, nil
		case actors.HostAllowOnce:
			return proxy.AllowOnce, nil
		}
		return proxy.Deny, nil
	}
}
