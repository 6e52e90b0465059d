#!/usr/bin/env bash
# Real-window smoke test of the desktop app (issue 7).
#
# Builds ./cmd/phoenix-desktop, starts it under Xvfb with the offline demo model and a fresh
# data directory, creates a conversation with Ctrl+N and Enter, types a two-line message with
# xdotool (the demo model thinks its first line, as a thinking model does, and answers the
# second), waits for the conversation to take the message's title, saves a screenshot to
# .ci/artifacts/, sends a message whose reply is Markdown (the reply of issue 17), saves a
# screenshot of it (smoke-xvfb-markdown.png), selects a line of it with the mouse and checks
# that Ctrl+C put its words on the clipboard (xclip), drags from there up past the chat's top
# and copies the messages selected on the way (issue 28), pastes a PNG from the X clipboard with
# Ctrl+V and sends it, moves and resizes the window, quits with
# Ctrl+Q, and then checks through the CLI (list, show --json) that the demo model's reply,
# with its reasoning apart from its text, is in the data directory. Finally
# it starts the app again and checks that the window comes back at the same place and size
# with the last conversation open. On the way it checks that Find highlights its matches and
# that "Undo last file change…" shows the Undo dialog, which Escape closes (issue 28), with
# screenshots of both. Every wait is bounded; the whole run stays well under two
# minutes. Exits non-zero with a message saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
THOUGHT="weighing how to answer under xvfb"
FIRST="reason: $THOUGHT"
MESSAGE="echo: hello from xvfb"
REPLY="hello from xvfb"
# The reply of issue 17, which the chat's Markdown renderer must show as a developer expects
# (identifiers whole, a highlighted code block with its language and Copy button, a table).
# The demo model's echo: turns each \n into a line break.
# A list and a last line follow, long enough for the chat to scroll: the last line then sits
# just above the reply's usage line and the composer, where the test selects it with the mouse.
MARKDOWN='echo: Rename `read_text_file` to `read_file_text` in foo_bar.go, and a_b_c.\n```go\nfunc snake_case(x int) error { return nil }\n```\n| col_a | col_b |\n|---|---|\n| x_1 | y_2 |\n\n1. one\n2. two\n3. three\n4. four\n5. five\n\nThen run go_vet on foo_bar.go and read_file_text.'
MARKDOWN_REPLY='| x_1 | y_2 |'
PASTED="echo: what is in this screenshot"
LASTLINE_Y=${LASTLINE_Y:-566}
NAME=smoke-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh
# The Undo step patches smoke-undo.txt in the folder the app starts in (this checkout): a
# copy left by an earlier run makes the patch change nothing and the step fail, and a copy
# left behind would end up in a commit. So it goes before the run and after it.
UNDO_FILE="$PWD/smoke-undo.txt"
rm -f "$UNDO_FILE"
AFTER_STOP='rm -f "$UNDO_FILE"'

xvfb_start
say "starting the app on $DISPLAY with --demo --data-dir $DATA"
start_app
new_conversation
say "conversation open: $(xdotool getwindowname "$WID")"

xdotool type --delay 20 -- "$FIRST"
xdotool key --clearmodifiers shift+Return
xdotool type --delay 20 -- "$MESSAGE"
xdotool key --clearmodifiers Return
# The runtime titles a conversation after the first line of its first message, so the title
# proves the message was committed.
wait_until 20 "the message to be sent (window title naming it)" title_has "$FIRST"
say "message sent: $(xdotool getwindowname "$WID")"
# The demo model answers at once; give the reply a moment to be drawn before the screenshot.
sleep 2
shot window

# A reply in Markdown, for a screenshot of how it renders.
xdotool windowfocus --sync "$WID" type --delay 10 -- "$MARKDOWN"
xdotool key --clearmodifiers Return
# The demo streams its reply word by word; it is short.
sleep 4
shot markdown

# Select the reply's last line with the mouse and copy it with Ctrl+C: the clipboard must hold
# the rendered words (identifiers whole, no Markdown backticks). The chat follows the newest
# row, so the line sits just above the composer: y LASTLINE_Y, from x 344, at the window's
# default size on this 1280x800 screen (1180x736: a fresh HOME, fitted to the screen). The drag starts on its first letter (a drag that starts beside
# the text scrolls the list instead).
xdotool mousemove --window "$WID" 346 "$LASTLINE_Y" mousedown 1
sleep 0.2
xdotool mousemove --window "$WID" 600 "$LASTLINE_Y"
sleep 0.2
xdotool mousemove --window "$WID" 1000 "$LASTLINE_Y"
sleep 0.2
xdotool mouseup 1
sleep 0.3
shot selected
xdotool key --clearmodifiers ctrl+c
sleep 0.5
COPIED=$(xclip -o -selection clipboard 2>/dev/null || true)
say "selected and copied: $COPIED"
case "$COPIED" in
  *'`'*) fail "Ctrl+C copied the Markdown source, not the selected text: $COPIED" ;;
  "Then run go_vet on foo_bar.go and read_file_text.") ;;
  *) fail "selecting the reply's last line and pressing Ctrl+C copied \"$COPIED\"" ;;
esac

# A selection across messages (issue 28): from the start of the same line, drag up past the
# top of the chat and hold there while the list scrolls on its own; Ctrl+C must copy the
# words of several messages in order, a blank line between: the first reply, the person's
# Markdown message as typed, the Markdown reply as shown down to (not including) that line.
xdotool mousemove --window "$WID" 346 "$LASTLINE_Y" mousedown 1
sleep 0.2
xdotool mousemove --window "$WID" 500 300
sleep 0.2
xdotool mousemove --window "$WID" 500 20
sleep 2
xdotool mouseup 1
sleep 0.3
shot selected-across
xdotool key --clearmodifiers ctrl+c
sleep 0.5
ACROSS=$(xclip -o -selection clipboard 2>/dev/null || true)
say "selected across messages and copied: $(printf '%s' "$ACROSS" | tr '\n' '|')"
case "$ACROSS" in
  *"$REPLY"$'\n\n'"echo: Rename \`read_text_file\`"*$'\n\n'"Rename read_text_file to read_file_text"*"x_1"*"five") ;;
  *) fail "a drag from the Markdown reply up to the first message copied \"$ACROSS\"" ;;
esac

# Paste a screenshot (issue 27): a PNG put on the X clipboard as screenshot tools do, pasted
# with Ctrl+V in the composer, must ride on the next message (checked in the store below).
# xclip serves the clipboard from the background until Xvfb goes.
convert -size 48x32 xc:'#e04040' "$TMP/paste.png" || fail "could not make a PNG to paste"
xclip -selection clipboard -target image/png -in "$TMP/paste.png" </dev/null >/dev/null 2>&1 ||
  fail "xclip could not put a PNG on the clipboard"
read -r PW PH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
xdotool windowfocus --sync "$WID" mousemove --window "$WID" $((PW / 2)) $((PH - 90)) click 1
sleep 0.3
xdotool key --clearmodifiers ctrl+v
sleep 1.5
shot pasted
xdotool type --delay 10 -- "$PASTED"
xdotool key --clearmodifiers Return
sleep 2
say "pasted a PNG with Ctrl+V and sent \"$PASTED\""

# Project mode from the approval card in the real window (issue 24): the demo model asks for
# an upgrade; the card's first button, "Allow edits in this project", is the one drawn in the
# theme's primary colour inside the chat column (the other primary buttons, New and Send,
# lie outside it); a click on it must put the conversation in Project mode (checked below).
# The selection above holds the focus: a click in the composer (above the status line, in the
# middle of the chat column) gives it back.
read -r WW WH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
xdotool windowfocus --sync "$WID" mousemove --window "$WID" $((WW / 2)) $((WH - 90)) click 1
sleep 0.3
xdotool type --delay 10 -- "upgrade: to edit the project"
xdotool key --clearmodifiers Return
sleep 2.5
shot approval
import -window "$WID" "$TMP/approval.png" || fail "could not take a picture of the window"
BOX=$(convert "$TMP/approval.png" -crop "$((WW - 420))x$((WH - 310))+330+160" +repage \
  -fuzz 8% -fill black +opaque 'srgb(111,158,249)' -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null) ||
  fail "could not look for the approval card's button in the screenshot"
read -r BW BH BX BY <<<"$BOX"
[ "${BW:-0}" -gt 60 ] && [ "${BH:-0}" -gt 15 ] || fail "no \"Allow edits in this project\" button on the approval card (found \"$BOX\")"
xdotool mousemove --window "$WID" $((330 + BX + BW / 2)) $((160 + BY + BH / 2)) click 1
sleep 2
shot approved
say "clicked \"Allow edits in this project\" at $((330 + BX + BW / 2)),$((160 + BY + BH / 2))"

# The task list (issue 27): the demo model calls todo; the panel above the composer shows the
# list (screenshot), and show prints it from the data directory (checked after quitting). A
# click in the composer takes the focus back from the card's button.
xdotool windowfocus --sync "$WID" mousemove --window "$WID" $((WW / 2)) $((WH - 90)) click 1
sleep 0.3
xdotool type --delay 10 -- "todo: [x] read the code | [>] fix the bug | run the tests"
xdotool key --clearmodifiers Return
sleep 2
shot tasks

# Find (issue 28): Ctrl+F and a word of the Markdown reply highlight every match, the
# current one strongly (an amber mark in either theme); Escape closes the bar and takes the
# highlights away. count_pixels counts the screen's pixels whose r, g, b (0–255) pass a test.
count_pixels() {
  import -window root "$TMP/count.png" 2>/dev/null || return 1
  convert "$TMP/count.png" -depth 8 rgb:- | python3 -c '
import sys
d = sys.stdin.buffer.read()
test = eval("lambda r, g, b: " + sys.argv[1])
print(sum(1 for r, g, b in zip(d[0::3], d[1::3], d[2::3]) if test(r, g, b)))' "$1"
}
# The current match's mark (ui.Theme's markdown.ColorNameFindMarkStrong), in either theme: the
# warning orange washed over the background, about (96,63,16) dark and (255,203,127) light.
strong_marks() { count_pixels '(abs(r - 96) < 14 and abs(g - 63) < 14 and abs(b - 16) < 14) or (r > 240 and abs(g - 203) < 14 and abs(b - 127) < 14)'; }
xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+f
sleep 0.3
xdotool type --delay 20 -- "foo_bar"
sleep 1
shot find
MARKED=$(strong_marks) || fail "could not count Find's highlights in the window"
xdotool key --clearmodifiers Escape
sleep 0.5
UNMARKED=$(strong_marks) || fail "could not count Find's highlights in the window"
say "Find \"foo_bar\": $MARKED highlighted pixels, $UNMARKED after Escape"
[ "$((MARKED - UNMARKED))" -gt 300 ] || fail "Find highlighted nothing (or Escape left the highlights): $MARKED pixels, then $UNMARKED"

# Undo (issue 28): the agent writes a file in Project mode; "Undo last file change…"
# (Ctrl+Alt+Z) opens the Undo dialog with its diff (screenshot) and its red Undo button;
# Escape closes it and restores nothing (the file is checked below).
# The theme's error red (the Undo button) reads at 4.5:1 on the dark surfaces: about (247,119,109).
red_pixels() { count_pixels 'r > 204 and g < 150 and b < 150 and r - g > 80'; }
xdotool type --delay 10 -- "patch: smoke-undo.txt <<< written by the smoke test"
xdotool key --clearmodifiers Return
sleep 3
BEFORE=$(red_pixels) || fail "could not look at the window"
xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+alt+z
sleep 1.5
shot undo
SHOWN=$(red_pixels) || fail "could not look at the window"
xdotool key --clearmodifiers Escape
sleep 0.5
AFTER=$(red_pixels) || fail "could not look at the window"
say "Undo dialog: $BEFORE red pixels before, $SHOWN with it, $AFTER after Escape"
[ "$((SHOWN - BEFORE))" -gt 300 ] || fail "Ctrl+Alt+Z did not open the Undo dialog ($BEFORE red pixels before, $SHOWN after)"
[ "$((SHOWN - AFTER))" -gt 300 ] || fail "Escape did not close the Undo dialog ($SHOWN red pixels with it, $AFTER after)"

# Move and resize the window; the next start must bring it back like this.
xdotool windowmove --sync "$WID" 130 70 windowsize --sync "$WID" 1000 650 || fail "could not move the window"
GEOMETRY=$(xdotool getwindowgeometry "$WID" | tail -n 2 | tr -s ' ' | tr '\n' ' ')
quit_app

LIST=$("$BIN" list --json --data-dir "$DATA") || fail "phoenix-desktop list failed"
ID=$(printf '%s' "$LIST" | python3 -c 'import json,sys; l=json.load(sys.stdin) or []; print(l[0]["id"] if l else "")') ||
  fail "could not read the conversation list: $LIST"
[ -n "$ID" ] || fail "the data directory holds no conversation"
SHOW=$("$BIN" show "$ID" --json --data-dir "$DATA") || fail "phoenix-desktop show $ID failed"
printf '%s' "$SHOW" | REPLY="$REPLY" MESSAGE="$FIRST
$MESSAGE" THOUGHT="$THOUGHT" MARKDOWN_REPLY="$MARKDOWN_REPLY" python3 -c '
import json, os, sys
d = json.load(sys.stdin)
msgs = d["messages"]
user = [m for m in msgs if m.get("kind") == "user"]
reply = [m for m in msgs if m.get("kind") == "assistant" and os.environ["REPLY"] in (m.get("text") or "")]
if not user or user[0].get("text") != os.environ["MESSAGE"]:
    sys.exit("the user message is not stored: %r" % [m.get("text") for m in user])
if not reply:
    sys.exit("no assistant reply containing %r; messages: %r" % (os.environ["REPLY"], [(m.get("kind"), m.get("text")) for m in msgs]))
if (reply[0].get("reasoning") or {}).get("text") != os.environ["THOUGHT"] or os.environ["THOUGHT"] in reply[0]["text"]:
    sys.exit("the reply does not keep its reasoning apart from its text: %r" % reply[0])
md = [m for m in msgs if m.get("kind") == "assistant" and os.environ["MARKDOWN_REPLY"] in (m.get("text") or "")]
if not md:
    sys.exit("no Markdown reply containing %r; messages: %r" % (os.environ["MARKDOWN_REPLY"], [(m.get("kind"), m.get("text")) for m in msgs]))
if not os.path.exists(os.path.join(d["conversation"]["cwd"], "smoke-undo.txt")):
    sys.exit("smoke-undo.txt is not in %r: the patch did not run, or Escape on the Undo dialog restored" % d["conversation"]["cwd"])
if d["conversation"].get("mode") != "project":
    sys.exit("the approval card did not grant Project mode: %r" % d["conversation"].get("mode"))
' || fail "the reply is not in the data directory"
say "the reply and its reasoning are stored in conversation $ID"
printf '%s' "$SHOW" | PASTED="$PASTED" python3 -c '
import json, os, sys
msgs = json.load(sys.stdin)["messages"]
sent = [m for m in msgs if m.get("kind") == "user" and m.get("text") == os.environ["PASTED"]]
if not sent:
    sys.exit("the message sent after pasting is not stored: %r" % [m.get("text") for m in msgs if m.get("kind") == "user"])
imgs = sent[0].get("images") or []
if len(imgs) != 1 or (imgs[0].get("media_type"), imgs[0].get("width"), imgs[0].get("height")) != ("image/png", 48, 32):
    sys.exit("the pasted 48x32 PNG is not attached to it: %r" % imgs)
' || fail "Ctrl+V did not attach the PNG on the X clipboard"
say "the pasted PNG is stored with its message"
TASKS=$("$BIN" show "$ID" --data-dir "$DATA") || fail "phoenix-desktop show $ID failed"
case "$TASKS" in
  *"tasks: 1 of 3 done · now: fix the bug"*) ;;
  *) fail "show does not print the task list the demo model wrote: $TASKS" ;;
esac

start_app
wait_until 15 "the last conversation to open again" title_has "$FIRST"
AGAIN=$(xdotool getwindowgeometry "$WID" | tail -n 2 | tr -s ' ' | tr '\n' ' ')
[ "$AGAIN" = "$GEOMETRY" ] || fail "the window came back as \"$AGAIN\", not as it was left: \"$GEOMETRY\""
shot reopened
# The command line beside the open window (issue 28): chat runs in the app, on the open
# conversation, and answers like chat on its own; list works while the window is open.
CLI_REPLY="typed in a terminal beside the window"
HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" XDG_DATA_HOME="$APP_HOME/.local/share" \
  timeout 60 "$BIN" chat --continue "$ID" --data-dir "$DATA" "echo: $CLI_REPLY" >"$TMP/cli.out" 2>&1 ||
  fail "chat beside the open window failed: $(cat "$TMP/cli.out")"
grep -qF -- "$CLI_REPLY" "$TMP/cli.out" || fail "chat beside the window did not print the reply: $(cat "$TMP/cli.out")"
timeout 30 "$BIN" list --data-dir "$DATA" | grep -qF -- "$ID" || fail "list beside the open window does not list $ID"
sleep 1
shot cli-beside
say "chat and list ran beside the open window"
quit_app
# First run (issue 28): a fresh HOME and data directory, no provider in the environment and
# no keyring on the bus: the window opens on the welcome card, on a 1024×640 screen, and must
# fit on it. Screenshot: smoke-xvfb-first-run.png.
kill "$XVFB_PID" 2>/dev/null || true
wait "$XVFB_PID" 2>/dev/null || true
for n in $(seq 141 180); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then DISPLAY_NUM=$n; break; fi
done
Xvfb ":$DISPLAY_NUM" -screen 0 1024x640x24 -nolisten tcp >"$TMP/xvfb-small.log" 2>&1 &
XVFB_PID=$!
export DISPLAY=":$DISPLAY_NUM"
wait_until 15 "a 1024x640 Xvfb on $DISPLAY" xdotool getdisplaygeometry
mkdir -p "$TMP/first-home" "$TMP/first-data"
env -u PHOENIX_API_KEY -u OPENAI_API_KEY -u PHOENIX_BASE_URL -u OPENAI_BASE_URL -u PHOENIX_PRESET \
  -u PHOENIX_MODEL -u DBUS_SESSION_BUS_ADDRESS HOME="$TMP/first-home" XDG_CONFIG_HOME="$TMP/first-home/.config" \
  XDG_DATA_HOME="$TMP/first-home/.local/share" timeout 60 "$BIN" --data-dir "$TMP/first-data" >>"$ART/smoke-xvfb-app.log" 2>&1 &
APP_PID=$!
WID=$(timeout 30 xdotool search --sync --onlyvisible --name "Phoenix Desktop" 2>/dev/null | head -n 1) || true
[ -n "$WID" ] || fail "the first-run window did not appear within 30 s"
sleep 2
shot first-run
read -r FW FH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
[ "${FW:-9999}" -le 1024 ] && [ "${FH:-9999}" -le 640 ] || fail "the first window is ${FW}x${FH}, larger than the 1024x640 screen"
say "first run: the window (${FW}x${FH}) fits the 1024x640 screen"
quit_app

say "OK: the window appeared, \"$FIRST\" and \"$MESSAGE\" were typed, the reply and its reasoning are stored, the approval card granted Project mode, and the window came back at $GEOMETRY with the conversation open"
