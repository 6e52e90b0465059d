#!/usr/bin/env bash
# Installs what Phoenix Desktop needs to build, run and test on Debian 12, idempotently.
# Safe to run again: it only installs what is missing.
set -euo pipefail

need_pkgs=(gcc pkg-config git ca-certificates
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  xvfb xdotool xclip imagemagick ripgrep locales python3 curl openbox x11-utils wmctrl
  gnome-keyring dbus-daemon libsecret-tools strace iproute2 util-linux)
missing=()
for p in "${need_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# OpenSSH's server for the remote package's tests, which start their own sshd on 127.0.0.1
# (remote/sshd_test.go). Debian's package starts a system daemon on port 22 when it installs:
# stop and disable it, nothing here needs it.
if ! dpkg-query -W -f='${Status}' openssh-server 2>/dev/null | grep -q "install ok installed"; then
  echo "setup: installing openssh-server (its system daemon stays off)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq openssh-server >/dev/null
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
  else
    service ssh stop >/dev/null 2>&1 || true
    update-rc.d ssh disable >/dev/null 2>&1 || true
  fi
fi

# A UTF-8 locale for the shells and tools of the tests (the app needs none).
if ! locale -a 2>/dev/null | grep -qi '^en_US.utf8$'; then
  sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen 2>/dev/null || true
  locale-gen >/dev/null 2>&1 || true
fi

# Go 1.26 or newer. The machine image ships it in /usr/local/go; elsewhere Debian's Go
# fetches the 1.26 toolchain from the Go module proxy (GOTOOLCHAIN).
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
if ! command -v go >/dev/null 2>&1; then
  echo "setup: installing Go from Debian backports"
  export DEBIAN_FRONTEND=noninteractive
  grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/ ||
    echo "deb http://deb.debian.org/debian bookworm-backports main" >/etc/apt/sources.list.d/backports.list
  apt-get update -qq
  apt-get install -y -qq -t bookworm-backports golang-go >/dev/null
fi
if ! go version | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])'; then
  export GOTOOLCHAIN=go1.26.8
fi
go version

# Real MCP servers for the mcp package's tests: the reference file-system and "everything"
# servers from the npm registry. Node comes from Debian's packages where it is missing.
if ! command -v node >/dev/null 2>&1; then
  echo "setup: installing nodejs"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq npm >/dev/null
fi
mcp_missing=()
for s in server-filesystem server-everything; do
  command -v "mcp-$s" >/dev/null 2>&1 || mcp_missing+=("@modelcontextprotocol/$s")
done
if [ ${#mcp_missing[@]} -gt 0 ]; then
  echo "setup: installing ${mcp_missing[*]}"
  npm install -g --no-fund --no-audit "${mcp_missing[@]}" >/dev/null
fi
# Language servers for the lsp package's tests (issue 35): gopls from the Go module proxy,
# typescript-language-server and typescript from npm, pinned, installed outside the repository
# (~/go/bin and npm's global prefix, both on PATH in scripts/env.sh and CI).
if ! command -v gopls >/dev/null 2>&1 || ! gopls version 2>/dev/null | grep -q 'v0\.23\.0'; then
  echo "setup: installing gopls v0.23.0"
  GOFLAGS= go install golang.org/x/tools/gopls@v0.23.0
fi
if ! command -v typescript-language-server >/dev/null 2>&1 || ! command -v tsserver >/dev/null 2>&1; then
  echo "setup: installing typescript-language-server 5.1.3 and typescript 5.9.3"
  npm install -g --no-fund --no-audit typescript-language-server@5.1.3 typescript@5.9.3 >/dev/null
fi
# Small MCP servers of our own on the 2026-07-28 TypeScript SDK (mcp/mcptest/node), with the
# exact versions of its lock file.
test_servers="$(cd "$(dirname "$0")/.." && pwd)/mcp/mcptest/node"
if [ ! -d "$test_servers/node_modules/@modelcontextprotocol/server" ]; then
  echo "setup: installing the test MCP servers' packages ($test_servers)"
  (cd "$test_servers" && npm ci --no-fund --no-audit >/dev/null)
fi
