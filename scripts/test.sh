#!/usr/bin/env bash
# Runs every test: all packages with the race detector (GUI tests on Fyne's headless driver),
# then the real-window smoke test of the built binary under Xvfb, the real-window full-disk
# test (on a small tmpfs; as root only), the everyday window under Openbox (daily-xvfb.sh:
# search hits, paging, Wrap up, drafts and the window's place), an MCP server's form card in a
# real window, the keyboard-only run (keyboard-xvfb.sh), the Changes view (review-xvfb.sh:
# revert a hunk, comment, send), the
# official MCP conformance suite's client scenarios against the CLI (mcp-conformance.sh),
# then the .deb installed and started (scripts/test-deb.sh; as root only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/env.sh
go test -race -count=1 -timeout 45m ./...
bash scripts/smoke-xvfb.sh
bash scripts/diskfull-xvfb.sh
bash scripts/daily-xvfb.sh
bash scripts/mcp-xvfb.sh
bash scripts/keyboard-xvfb.sh
bash scripts/review-xvfb.sh
bash scripts/mcp-conformance.sh
bash scripts/test-deb.sh
