#!/usr/bin/env bash
# Real-window smoke test of the desktop app (issue 7).
#
# Builds ./cmd/phoenix-desktop, starts it under Xvfb with the offline demo model and a fresh
# data directory, creates a conversation with Ctrl+N and Enter, types a two-line message with
# xdotool (the demo model thinks its first line, as a thinking model does, and answers the
# second), waits for the conversation to take the message's title, saves a screenshot to
# .ci/artifacts/, sends a message whose reply is Markdown (the reply of issue 17), saves a
# screenshot of it (smoke-xvfb-markdown.png), selects a line of it with the mouse and checks
# that Ctrl+C put its words on the clipboard (xclip), moves and resizes the window, quits with
# Ctrl+Q, and then checks through the CLI (list, show --json) that the demo model's reply,
# with its reasoning apart from its text, is in the data directory. Finally
# it starts the app again and checks that the window comes back at the same place and size
# with the last conversation open. On the way it checks that Find highlights its matches and
# that "Undo last file change…" shows the Undo dialog, which Escape closes (issue 28), with
# screenshots of both. Every wait is bounded; the whole run stays well under two
# minutes. Exits non-zero with a message saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=env.sh
source scripts/env.sh 2>/dev/null
# Where the en_US.UTF-8 locale is not generated (setup.sh generates it), LC_ALL naming it
# makes every shell warn; LANG alone keeps Fyne's language and the shells quiet.
if ! locale -a 2>/dev/null | grep -qiE '^en_US\.utf-?8$'; then unset LC_ALL; export LANG=en_US.UTF-8; fi

ART=.ci/artifacts
BIN=./bin/phoenix-desktop
THOUGHT="weighing how to answer under xvfb"
FIRST="reason: $THOUGHT"
MESSAGE="echo: hello from xvfb"
REPLY="hello from xvfb"
# The reply of issue 17, which the chat's Markdown renderer must show as a developer expects
# (identifiers whole, a highlighted code block with its language and Copy button, a table).
# The demo model's echo: turns each \n into a line break.
# A list and a last line follow, long enough for the chat to scroll: the last line then sits
# just above the composer, where the test selects it with the mouse.
MARKDOWN='echo: Rename `read_text_file` to `read_file_text` in foo_bar.go, and a_b_c.\n```go\nfunc snake_case(x int) error { return nil }\n```\n| col_a | col_b |\n|---|---|\n| x_1 | y_2 |\n\n1. one\n2. two\n3. three\n4. four\n5. five\n\nThen run go_vet on foo_bar.go and read_file_text.'
MARKDOWN_REPLY='| x_1 | y_2 |'
LASTLINE_Y=${LASTLINE_Y:-638}
mkdir -p "$ART" bin

TMP=$(mktemp -d)
DATA="$TMP/data"
APP_HOME="$TMP/home"
mkdir -p "$DATA" "$APP_HOME"
XVFB_PID=""
APP_PID=""

say() { echo "smoke-xvfb: $*"; }

cleanup() {
  if [ -n "$APP_PID" ] && kill -0 "$APP_PID" 2>/dev/null; then
    kill "$APP_PID" 2>/dev/null || true
    wait "$APP_PID" 2>/dev/null || true
  fi
  if [ -n "$XVFB_PID" ] && kill -0 "$XVFB_PID" 2>/dev/null; then kill "$XVFB_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

shot() {
  if [ -n "${DISPLAY:-}" ]; then
    import -window root "$ART/smoke-xvfb-$1.png" 2>/dev/null && say "screenshot: $ART/smoke-xvfb-$1.png"
  fi
  return 0
}

fail() {
  echo "smoke-xvfb: FAIL: $*" >&2
  shot failure
  if [ -s "$ART/smoke-xvfb-app.log" ]; then
    echo "---- last lines of the app's log ($ART/smoke-xvfb-app.log) ----" >&2
    tail -n 30 "$ART/smoke-xvfb-app.log" >&2
  fi
  exit 1
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds.
wait_until() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then fail "timed out after ${limit}s waiting for $what"; fi
    if [ -n "$APP_PID" ] && ! kill -0 "$APP_PID" 2>/dev/null; then fail "the app exited while waiting for $what"; fi
    sleep 0.2
  done
}

for tool in Xvfb xdotool xclip import python3; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install xvfb xdotool xclip imagemagick python3)"
done

say "building ./cmd/phoenix-desktop"
if ! timeout 900 go build -o "$BIN" ./cmd/phoenix-desktop; then
  fail "go build ./cmd/phoenix-desktop failed (see the compiler output above)"
fi

# A free display number: no socket and no lock file.
DISPLAY_NUM=""
for n in $(seq 99 140); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then DISPLAY_NUM=$n; break; fi
done
[ -n "$DISPLAY_NUM" ] || fail "no free X display between :99 and :140"
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >"$TMP/xvfb.log" 2>&1 &
XVFB_PID=$!
export DISPLAY=":$DISPLAY_NUM"
wait_until 15 "Xvfb to start on $DISPLAY" xdotool getdisplaygeometry

say "starting the app on $DISPLAY with --demo --data-dir $DATA"
# A private HOME and configuration directory: the run neither reads nor changes the person's
# Fyne preferences, and the New conversation dialog proposes an empty working directory.
start_app() {
  HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" XDG_DATA_HOME="$APP_HOME/.local/share" \
    timeout 100 "$BIN" --demo --data-dir "$DATA" >>"$ART/smoke-xvfb-app.log" 2>&1 &
  APP_PID=$!
  WID=$(timeout 30 xdotool search --sync --onlyvisible --name "Phoenix Desktop" 2>/dev/null | head -n 1) || true
  [ -n "$WID" ] || fail "the window \"Phoenix Desktop\" did not appear within 30 s"
  say "window $WID appeared: $(xdotool getwindowname "$WID")"
}

# quit_app presses Ctrl+Q and waits (bounded) for the process to end.
quit_app() {
  xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+q
  local deadline=$((SECONDS + 20))
  while kill -0 "$APP_PID" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      kill "$APP_PID" 2>/dev/null || true
      wait "$APP_PID" 2>/dev/null || true
      APP_PID=""
      fail "the app did not quit on Ctrl+Q within 20 s"
    fi
    sleep 0.2
  done
  wait "$APP_PID" 2>/dev/null || true
  APP_PID=""
}

: >"$ART/smoke-xvfb-app.log"
start_app

title_has() { xdotool getwindowname "$WID" | grep -qF -- "$1"; }

xdotool windowfocus --sync "$WID" || fail "could not focus the window"
# The first frame and the conversation list load right after mapping, so the keys may come
# too early; Ctrl+N and Enter are tried again only if no conversation opened within 5 s.
opened=""
for attempt in 1 2 3 4; do
  kill -0 "$APP_PID" 2>/dev/null || fail "the app exited before a conversation opened"
  xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+n
  sleep 0.5
  xdotool key --clearmodifiers Return
  deadline=$((SECONDS + 5))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if title_has " — "; then opened=yes; break 2; fi
    sleep 0.2
  done
  say "no conversation after attempt $attempt of Ctrl+N, Enter; trying again"
done
[ -n "$opened" ] || fail "Ctrl+N and Enter did not open a new conversation"
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
# default size (a fresh HOME). The drag starts on its first letter (a drag that starts beside
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
  -fuzz 8% -fill black +opaque 'srgb(41,111,246)' -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null) ||
  fail "could not look for the approval card's button in the screenshot"
read -r BW BH BX BY <<<"$BOX"
[ "${BW:-0}" -gt 60 ] && [ "${BH:-0}" -gt 15 ] || fail "no \"Allow edits in this project\" button on the approval card (found \"$BOX\")"
xdotool mousemove --window "$WID" $((330 + BX + BW / 2)) $((160 + BY + BH / 2)) click 1
sleep 2
shot approved
say "clicked \"Allow edits in this project\" at $((330 + BX + BW / 2)),$((160 + BY + BH / 2))"

# Find (issue 28): Ctrl+F and a word of the Markdown reply highlight every match, the
# current one strongly (an orange wash in either theme); Escape closes the bar and takes the
# highlights away. count_pixels counts the screen's pixels whose r, g, b (0–255) pass a test.
count_pixels() {
  import -window root "$TMP/count.png" 2>/dev/null || return 1
  convert "$TMP/count.png" -depth 8 rgb:- | python3 -c '
import sys
d = sys.stdin.buffer.read()
test = eval("lambda r, g, b: " + sys.argv[1])
print(sum(1 for r, g, b in zip(d[0::3], d[1::3], d[2::3]) if test(r, g, b)))' "$1"
}
# The current match's orange wash, in either theme.
strong_marks() { count_pixels 'r > 153 and 89 < g < 204 and b < 102 and r - b > 102'; }
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
red_pixels() { count_pixels 'r > 204 and g < 102 and b < 102'; }
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

start_app
wait_until 15 "the last conversation to open again" title_has "$FIRST"
AGAIN=$(xdotool getwindowgeometry "$WID" | tail -n 2 | tr -s ' ' | tr '\n' ' ')
[ "$AGAIN" = "$GEOMETRY" ] || fail "the window came back as \"$AGAIN\", not as it was left: \"$GEOMETRY\""
shot reopened
quit_app
say "OK: the window appeared, \"$FIRST\" and \"$MESSAGE\" were typed, the reply and its reasoning are stored, the approval card granted Project mode, and the window came back at $GEOMETRY with the conversation open"
