#!/usr/bin/env bash
# Builds and starts Phoenix Desktop. Without an API key it uses the built-in offline demo model.
# Extra arguments go to the app (for example --data-dir DIR, or a sub-command such as chat).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/env.sh
go build -o bin/phoenix-desktop ./cmd/phoenix-desktop
# The agent a remote project's machine runs, built alone and static (no libGL there); the app
# copies it from beside itself (remote.AgentBinaryName).
CGO_ENABLED=0 go build -o bin/phoenix-remote-agent ./cmd/phoenix-remote-agent
exec ./bin/phoenix-desktop "$@"
