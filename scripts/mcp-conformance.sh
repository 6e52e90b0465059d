#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, run against the app's CLI: every
# scenario that the 2025-11-25 and 2026-07-28 revisions require must pass (the suite's
# --requirements sets; the extensions it runs without scoring — DPoP, client credentials,
# enterprise-managed authorization, workload identity — are not supported and do not count).
#
#   bash scripts/mcp-conformance.sh            build the CLI, install the suite, run both sets
#   bash scripts/mcp-conformance.sh client URL what the suite runs for each scenario (below)
#
# The suite's client runner starts a mock MCP server (and authorization server) per scenario
# and runs `THIS-SCRIPT client URL` with MCP_CONFORMANCE_SCENARIO set; this script then does
# what a person would: `mcp login` (its "browser" is curl, following the authorization
# server's redirect back to the app's loopback listener), `mcp list`, and a `chat` turn with
# the offline demo model calling the server's tools. A scenario that needs more permission
# for a call (step-up) is signed in to again and the turn sent again, as a person would.
#
# The suite needs Node 22 (the machine may have an older one): Node and the suite come from
# the npm registry at pinned versions, into a tools directory, installed once.
set -euo pipefail

NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.2.0-alpha.12
REVISIONS=(2025-11-25 2026-07-28)
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="${PHOENIX_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/phoenix-desktop-tools}/mcp-conformance"

if [ "${1:-}" = client ]; then
  # --- One scenario: the suite passes the server's URL as the last argument. ---
  url="${*: -1}"
  scenario="${MCP_CONFORMANCE_SCENARIO:-}"
  bin="${PHOENIX_CONFORMANCE_BIN:?run through scripts/mcp-conformance.sh}"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # A home of its own: the tokens go to the private secrets file there, never to the
  # person's keyring, and no other configuration is read.
  export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
  unset DBUS_SESSION_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY
  # The app's Client ID Metadata Document, at the address the suite's authorization servers
  # take for one (they do not fetch it).
  export PHOENIX_MCP_CLIENT_METADATA_URL=https://conformance-test.local/client-metadata.json
  # The conversation's working directory holds nothing: the app's checkpoint of it before a
  # tool call is then instant.
  mkdir -p "$HOME" "$XDG_CONFIG_HOME/phoenix-desktop" "$XDG_DATA_HOME" "$work/project"
  oauth=""
  if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
    # A pre-registered client: its id in the configuration, its secret in the environment.
    read -r client_id client_secret < <(node -e '
      const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT);
      console.log((c.client_id || "") + " " + (c.client_secret || ""));') || true
    if [ -n "$client_id" ]; then
      export CONFORMANCE_CLIENT_SECRET="$client_secret"
      oauth=", \"oauth\": {\"clientId\": \"$client_id\""
      [ -n "$client_secret" ] && oauth+=", \"clientSecret\": \"\${CONFORMANCE_CLIENT_SECRET}\""
      oauth+="}"
    fi
  fi
  printf '{"mcpServers": {"conf": {"url": "%s"%s}}}\n' "$url" "$oauth" >"$XDG_CONFIG_HOME/phoenix-desktop/mcp.json"

  # The person's browser: follow the sign-in address to the app's loopback redirect.
  login() {
    "$bin" mcp login --no-browser conf | while IFS= read -r line; do
      echo "$line"
      case "$line" in http://* | https://*) curl -sS -L -o /dev/null --max-time 20 "$line" || true ;; esac
    done
    return "${PIPESTATUS[0]}"
  }
  # The calls of the turn: those the scenario names (MCP_CONFORMANCE_CONTEXT's toolCalls);
  # else every tool for the request-state scenario, the valid one among invalid ones, or
  # the first tool, with the arguments the suite's own example client sends.
  chat() {
    local steps
    steps="$("$bin" mcp list --json --unrestricted 2>/dev/null | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        const tools = [];
        try { for (const st of JSON.parse(s).servers || []) for (const t of st.Tools || []) if (!t.Skipped) tools.push(t.ServerTool); } catch {}
        const scenario = process.env.MCP_CONFORMANCE_SCENARIO || "";
        let calls = [];
        try { calls = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}").toolCalls || []; } catch {}
        if (calls.length === 0) {
          if (scenario === "sep-2322-client-request-state") calls = tools.map(name => ({ name, arguments: {} }));
          else if (tools.includes("valid_tool")) calls = [{ name: "valid_tool", arguments: { region: "us-west1" } }];
          else if (["initialize", "tools_call", "tools-call"].includes(scenario)) calls = tools.slice(0, 1).map(name => ({ name, arguments: { a: 2, b: 3 } }));
          else calls = tools.slice(0, 1).map(name => ({ name, arguments: {} }));
        }
        // The demo model reads \n, \t and \\ in a step as a newline, a tab and a backslash.
        const esc = j => j.replace(/\\/g, "\\\\");
        console.log(calls.map(c => "mcp: conf " + c.name + " " + esc(JSON.stringify(c.arguments || {}))).join("\n") || "echo: no tools");
      });')"
    # A server's form is filled with its defaults: an empty line keeps a field's default.
    yes '' | "$bin" chat --demo --unrestricted --cwd "$work/project" --timeout 60s --mcp-elicit stdin "$steps"
  }

  login || true
  out="$(chat 2>&1)" || true
  echo "$out"
  # The server wants a new sign-in (it moved to another authorization server) or more
  # permission for the call (a step-up: the app then asks for the wider scope): sign in
  # again and send the turn again, at most twice, as a person would.
  for _ in 1 2; do
    grep -q "needs more permission\|needs sign-in" <<<"$out" || break
    login || true
    out="$(chat 2>&1)" || true
    echo "$out"
  done
  exit 0
fi

# --- The whole run. ---
mkdir -p "$tools"
if [ "$("$tools/node_modules/.bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ] ||
  [ ! -f "$tools/node_modules/@modelcontextprotocol/conformance/package.json" ] ||
  ! grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$tools/node_modules/@modelcontextprotocol/conformance/package.json"; then
  echo "mcp-conformance: installing node@$NODE_VERSION and @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $tools"
  (cd "$tools" && [ -f package.json ] || echo '{"private": true}' >"$tools/package.json")
  (cd "$tools" && npm install --no-fund --no-audit --save-exact \
    "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null)
fi
export PATH="$tools/node_modules/.bin:$PATH"

bin_dir="$(mktemp -d)"
trap 'rm -rf "$bin_dir"' EXIT
# shellcheck source=env.sh
source "$root/scripts/env.sh" >/dev/null
(cd "$root" && go build -o "$bin_dir/phoenix-desktop" ./cmd/phoenix-desktop)
export PHOENIX_CONFORMANCE_BIN="$bin_dir/phoenix-desktop"

# The suite's own total counts the extensions it runs without scoring; the closing line
# counts the required scenarios alone.
status=0 passed=0 failed=0
for rev in "${REVISIONS[@]}"; do
  echo "== MCP conformance, client scenarios required by $rev"
  log="$bin_dir/$rev.log"
  (cd "$bin_dir" && conformance client --requirements "$rev" --timeout 60000 \
    --command "bash $root/scripts/mcp-conformance.sh client") 2>&1 | tee "$log" || status=1
  read -r p f < <(awk '
    /^Not scored/ { extras = 1; next }
    extras && /^  [^ ]+ [^ ]+ \(/ { skip[$2] = 1; next }
    /^(✓|✗) [^ ]+: / { name = $2; sub(/:$/, "", name); ok[name] = ($1 == "✓") }
    END { for (n in ok) if (!(n in skip)) { if (ok[n]) p++; else f++ } print p + 0, f + 0 }' "$log")
  echo "mcp-conformance $rev: $p required client scenarios passed, $f failed"
  passed=$((passed + p)) failed=$((failed + f))
done
[ "$failed" -eq 0 ] || status=1
echo "mcp-conformance: $passed passed, $failed failed"
exit $status
