#!/usr/bin/env bash
# Real-window test of the Changes view (issue 34).
#
# A headless demo turn (Unrestricted, so that it takes checkpoints) patches f.txt in two places
# far apart; the app then starts under Xvfb on the same data directory and reopens that
# conversation. Ctrl+Shift+D opens the Changes view of its last turn (two hunks); the keyboard
# selects the first line of hunk 1 (Down) and R reverts that hunk; f.txt must then hold hunk 2
# only. Down selects the line the agent wrote at line 25, C puts the keyboard in the comment
# box, a comment is typed and Enter adds it; a message sent from the chat carries it. The
# store (through `phoenix-desktop show --json`, served by the running app) must then hold, in
# the last user message — what the model was sent — the path, the line, the quoted line and the
# words. Screenshots of the view before and after the revert, with the comment, and of the
# chat go to .ci/artifacts/. Every wait is bounded; exits non-zero saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=review-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh

WORK="$TMP/work"
mkdir -p "$WORK"
lines() { # lines N1=TEXT N2=TEXT…: thirty numbered lines, some replaced
  python3 - "$@" <<'PY'
import sys
change = dict(a.split("=", 1) for a in sys.argv[1:])
for i in range(1, 31):
    print(change.get(str(i), f"line {i}"))
PY
}
lines >"$WORK/f.txt"
COMMENT="make this a named constant"

xvfb_start
app() { HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" XDG_DATA_HOME="$APP_HOME/.local/share" timeout 60 "$BIN" "$@"; }

say "a demo turn patches f.txt at lines 3 and 25"
app chat --demo --unrestricted --data-dir "$DATA" --cwd "$WORK" \
  'patch: f.txt ::: line 3\n ==> three by the agent\n ;; patch: f.txt ::: line 25\n ==> twenty-five by the agent\n' >"$TMP/chat.out" 2>&1 ||
  fail "the headless turn failed: $(tail -n 5 "$TMP/chat.out")"
[ "$(cat "$WORK/f.txt")" = "$(lines 3='three by the agent' 25='twenty-five by the agent')" ] || fail "the demo turn did not patch f.txt in two places: $(cat "$WORK/f.txt")"
ID=$(app list --data-dir "$DATA" --json | python3 -c 'import json,sys; d = json.load(sys.stdin)[0]; print(d.get("id") or d.get("ID"))')
say "conversation $ID"
# The window reopens the conversation it showed last.
PREFS="$APP_HOME/.config/fyne/dev.phoenixdesktop.app/preferences.json"
mkdir -p "$(dirname "$PREFS")"
printf '{"conversation.last": "%s"}\n' "$ID" >"$PREFS"

say "starting the app on $DISPLAY"
start_app
wait_until 20 "the conversation to open" title_has " — "
sleep 1

changes_window() { xdotool search --onlyvisible --name "^Changes — " | head -n 1; }
xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+shift+d
wait_until 20 "the Changes window (Ctrl+Shift+D)" changes_window
CWID=$(changes_window)
say "Changes window $CWID: $(xdotool getwindowname "$CWID")"
sleep 2
shot changes

say "reverting hunk 1 (Down, R)"
xdotool windowfocus --sync "$CWID" key --clearmodifiers Down
sleep 0.3
xdotool key --clearmodifiers r
want_after_revert=$(lines 25='twenty-five by the agent')
reverted() { [ "$(cat "$WORK/f.txt")" = "$want_after_revert" ]; }
wait_until 20 "hunk 1 to be reverted and hunk 2 kept in f.txt" reverted
sleep 2
shot reverted

say "commenting on line 25"
# The view shows the file again: its header, hunk 2's header, lines 22, 23, 24, the removed
# line 25 and the agent's line 25.
xdotool windowfocus --sync "$CWID"
for _ in 1 2 3 4 5; do xdotool key --clearmodifiers Down; sleep 0.1; done
xdotool key --clearmodifiers c
sleep 0.3
xdotool type --delay 15 -- "$COMMENT"
xdotool key --clearmodifiers Return
sleep 1
shot commented

say "sending a message from the chat"
# The chat in front (there is no window manager to raise it on focus), for its screenshot.
xdotool windowraise "$WID"
xdotool windowfocus --sync "$WID"
sleep 0.5
xdotool windowfocus --sync "$WID" type --delay 15 -- "echo: noted"
xdotool key --clearmodifiers Return
sent() { app show "$ID" --data-dir "$DATA" --json >"$TMP/show.json" 2>/dev/null && grep -q "echo: noted" "$TMP/show.json"; }
wait_until 30 "the message to be stored" sent
sleep 2
shot chat

python3 - "$TMP/show.json" "$COMMENT" <<'PY' || fail "the message the model was sent lacks the comment (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
msgs = doc.get("messages", doc if isinstance(doc, list) else [])
users = [m for m in msgs if m.get("kind") == "user"]
text = users[-1].get("text", "") if users else ""
# Whole lines: the words exactly as typed (no key that opened the box typed into it).
need = ["\nf.txt, line 25:\n", "\n> twenty-five by the agent\n", "\n" + sys.argv[2] + "\n", "echo: noted"]
missing = [n for n in need if n not in text]
if missing:
    print("missing", missing, "in:\n" + text, file=sys.stderr)
    sys.exit(1)
print("review-xvfb: the last user message carries the path, the line, the quoted line and the words")
PY
quit_app
say "PASS"
