#!/usr/bin/env bash
# Real-window MCP card test (issue 26): an MCP server asks the person for input and the window's
# form card answers it.
#
# Starts the app under Xvfb with the offline demo model and one configured MCP server of our
# own on the 2026-07-28 TypeScript SDK (mcp/mcptest/node/asker.mjs, installed by setup.sh),
# whose tool asks for a name through the multi-round-trip input_required flow. The demo model
# calls the tool; the form card must appear in the chat, take a typed name and Submit, and the
# server's greeting must come back as the tool's result (checked through the CLI afterwards).
# Screenshots of the card go to .ci/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=mcp-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh
mkdir -p "$APP_HOME/.config/phoenix-desktop"

ASKER="$PWD/mcp/mcptest/node/asker.mjs"
[ -d mcp/mcptest/node/node_modules/@modelcontextprotocol/server ] ||
  fail "the test MCP server's packages are missing (bash scripts/setup.sh installs them)"
NODE=$(command -v node) || fail "node is not installed (bash scripts/setup.sh installs it)"
cat >"$APP_HOME/.config/phoenix-desktop/mcp.json" <<JSON
{"mcpServers": {"asker": {"command": "$NODE", "args": ["$ASKER"]}}}
JSON

xvfb_start
start_app
new_conversation
CALL='mcp: asker ask_name {}'
xdotool windowfocus --sync "$WID" type --delay 15 -- "$CALL"
xdotool key --clearmodifiers Return
wait_until 20 "the message to be sent (window title naming it)" title_has "$CALL"
read -r WW WH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')

# The card's Submit is the one button drawn in the theme's primary colour inside the chat
# column above the composer (New and Send lie outside it).
submit_box() {
  import -window "$WID" "$TMP/win.png" 2>/dev/null || { echo "0 0 0 0"; return; }
  convert "$TMP/win.png" -crop "$((WW - 420))x$((WH - 260))+330+160" +repage \
    -fuzz 8% -fill black +opaque 'srgb(111,158,249)' -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null || echo "0 0 0 0"
}
submit_shown() { local w h; read -r w h _ < <(submit_box; echo); [ "${w:-0}" -gt 60 ] && [ "${h:-0}" -gt 15 ]; }
wait_until 30 "the MCP server's form card" submit_shown
shot card
BOX=$(submit_box)
read -r BW BH BX BY <<<"$BOX"
SX=$((330 + BX + BW / 2))
SY=$((160 + BY + BH / 2))
# The form's one field, Name, sits on the line above the buttons, right of its label.
xdotool mousemove --window "$WID" $((SX + 300)) $((SY - 40)) click 1
sleep 0.3
xdotool type --delay 15 -- "Ada Lovelace"
sleep 0.3
shot card-filled
xdotool mousemove --window "$WID" "$SX" "$SY" click 1
say "typed a name in the card and clicked Submit at $SX,$SY"
submit_gone() { ! submit_shown; }
wait_until 20 "the card to go once answered" submit_gone
sleep 2
shot answered
quit_app

LIST=$("$BIN" list --json --data-dir "$DATA") || fail "phoenix-desktop list failed"
ID=$(printf '%s' "$LIST" | python3 -c 'import json,sys; l=json.load(sys.stdin) or []; print(l[0]["id"] if l else "")') ||
  fail "could not read the conversation list: $LIST"
SHOW=$("$BIN" show "$ID" --json --data-dir "$DATA") || fail "phoenix-desktop show $ID failed"
printf '%s' "$SHOW" | python3 -c '
import json, sys
msgs = json.load(sys.stdin)["messages"]
results = [(m.get("tool_result") or {}).get("content", "") for m in msgs if m.get("kind") == "tool_result"]
if not any("hello Ada Lovelace" in r for r in results):
    sys.exit("the server did not get the name: tool results %r" % results)
' || fail "the answer typed in the card did not reach the server"
say "OK: the MCP server's form card appeared in the window, took a typed name, and the server greeted it"
