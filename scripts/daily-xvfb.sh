#!/usr/bin/env bash
# Real-window check of the everyday window (issue 41) under a real window manager: Openbox
# from Debian on Xvfb, which frames the window (a title bar, frame edges) as a desktop does.
#
# A store of one 400-turn conversation whose context is 85% full is written first
# (scripts/testdata/dailyseed). Then, with screenshots in .ci/artifacts/:
#   3. Ctrl+Shift+F, "number 123", Enter: the conversation opens with the hit's words
#      highlighted in the middle of the chat (the amber mark of the current match counted
#      in the middle third of the window, against the thirds above and below);
#   4. PageUp moves the chat (the window's picture changes), PageDown brings it back;
#   1. the orange "Wrap up now" in the header asks first (a dialog with its blue "Wrap up"
#      button appears), and Escape keeps working;
#   2. words typed in the composer come back after Ctrl+Q and a new start (Ctrl+A, Ctrl+C and
#      the clipboard);
#   6. the window moved to 100,60 comes back at 100,60 after three starts, its title bar on
#      the screen, and closed maximized it comes back maximized.
# Every wait is bounded; the run takes well under two minutes. Exits non-zero with a message
# saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=daily-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh

for tool in openbox xprop xwininfo wmctrl convert; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/setup.sh installs openbox, x11-utils, wmctrl and imagemagick)"
done

xvfb_start
go build -o "$TMP/dailyseed" ./scripts/testdata/dailyseed || fail "could not build scripts/testdata/dailyseed"
"$TMP/dailyseed" "$DATA" || fail "could not write the 400-turn conversation into $DATA"
openbox --sm-disable >"$ART/$NAME-openbox.log" 2>&1 &
OB_PID=$!
AFTER_STOP="kill $OB_PID 2>/dev/null"
wait_until 15 "Openbox to manage the display" sh -c "xprop -root _NET_SUPPORTING_WM_CHECK | grep -q 'window id'"
say "Openbox runs on $DISPLAY"

# count_pixels TEST [Y0 Y1]: the window's pixels whose r, g, b (0–255) pass TEST, in the rows
# from Y0 to Y1 of the window (all of them without).
count_pixels() {
  import -window "$WID" "$TMP/count.png" 2>/dev/null || return 1
  local size
  size=$(identify -format '%w %h' "$TMP/count.png") || return 1
  convert "$TMP/count.png" -depth 8 rgb:- | python3 -c '
import sys
w, h = map(int, sys.argv[2].split())
y0, y1 = int(sys.argv[3]), int(sys.argv[4]) if sys.argv[4] != "-1" else h
d = sys.stdin.buffer.read()[y0 * w * 3:y1 * w * 3]
test = eval("lambda r, g, b: " + sys.argv[1])
print(sum(1 for r, g, b in zip(d[0::3], d[1::3], d[2::3]) if test(r, g, b)))' "$1" "$size" "${2:-0}" "${3:--1}"
}
# Find's strong mark in the dark variant (ui.Theme's markdown.ColorNameFindMarkStrong: the
# warning orange washed over the background, about (96,63,16), dark enough for light text on it).
MARK='abs(r - 96) < 14 and abs(g - 63) < 14 and abs(b - 16) < 14'
# The readable theme's primary blue (the dialog's Wrap up button), about (111,158,249).
BLUE='abs(r - 111) < 20 and abs(g - 158) < 20 and abs(b - 249) < 20'
win_size() { xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p'; }
# client_at: the window's own corner on the screen; frame_top: the top of Openbox's frame.
client_at() { xwininfo -id "$WID" | awk '/Absolute upper-left X/ {x=$NF} /Absolute upper-left Y/ {y=$NF} END {print x "," y}'; }
frame_top() { xwininfo -id "$WID" | awk '/Absolute upper-left Y/ {a=$NF} /Relative upper-left Y/ {r=$NF} END {print a - r}'; }
maximized() { xprop -id "$WID" _NET_WM_STATE | grep -q MAXIMIZED_VERT; }

start_app
sleep 2

# 3. A search hit opens in the middle of the chat, its words highlighted.
xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+shift+f
sleep 0.3
xdotool type --delay 20 -- "number 123"
sleep 1.5
xdotool key --clearmodifiers Return
wait_until 10 "the conversation to open at the hit" title_has "Four hundred numbers"
sleep 1.5
shot search-hit
read -r WW WH < <(win_size)
TOP=$(count_pixels "$MARK" 0 $((WH / 3))) || fail "could not look at the window"
MID=$(count_pixels "$MARK" $((WH / 3)) $((2 * WH / 3))) || fail "could not look at the window"
LOW=$(count_pixels "$MARK" $((2 * WH / 3)) "$WH") || fail "could not look at the window"
say "search hit: highlighted pixels by thirds of the window: $TOP above, $MID in the middle, $LOW below"
[ "$MID" -gt 300 ] && [ "$MID" -gt "$LOW" ] || fail "the hit's words are not highlighted in the middle of the chat ($TOP / $MID / $LOW)"

# 4. PageUp moves the chat; PageDown moves it back.
import -window "$WID" "$TMP/before.png"
xdotool key --clearmodifiers Page_Up
sleep 0.7
shot page-up
import -window "$WID" "$TMP/after.png"
CHANGED=$(compare -metric AE "$TMP/before.png" "$TMP/after.png" null: 2>&1 || true)
say "PageUp changed $CHANGED pixels"
[ "${CHANGED%%.*}" -gt 5000 ] 2>/dev/null || fail "PageUp did not move the chat ($CHANGED pixels changed)"
xdotool key --clearmodifiers Page_Down
sleep 0.5

# 1. Wrap up asks first: the orange button at the header's right, then the question.
import -window "$WID" "$TMP/header.png"
BOX=$(convert "$TMP/header.png" -crop "$((WW - 300))x160+300+0" +repage \
  -fuzz 10% -fill black +opaque 'srgb(255,152,0)' -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null) ||
  fail "could not look for \"Wrap up now\" in the header"
read -r BW BH BX BY <<<"$BOX"
[ "${BW:-0}" -gt 40 ] && [ "${BH:-0}" -gt 10 ] || fail "no orange \"Wrap up now\" button in the header at 85% (found \"$BOX\")"
BLUE0=$(count_pixels "$BLUE" $((WH / 3)) $((2 * WH / 3))) || fail "could not look at the window"
xdotool mousemove --window "$WID" $((300 + BX + BW - 30)) $((BY + BH / 2)) click 1
sleep 1
shot wrap-up-asks
BLUE1=$(count_pixels "$BLUE" $((WH / 3)) $((2 * WH / 3))) || fail "could not look at the window"
say "Wrap up now: blue pixels in the middle of the window: $BLUE0 before, $BLUE1 with the question"
[ $((BLUE1 - BLUE0)) -gt 300 ] || fail "\"Wrap up now\" did not ask first (no dialog with a Wrap up button)"
xdotool key --clearmodifiers Escape
sleep 0.5

# 2. A draft comes back after a new start; 6. so does the place.
xdotool windowfocus --sync "$WID" mousemove --window "$WID" $((WW / 2)) $((WH - 60)) click 1
sleep 0.3
DRAFT="a draft that outlives the window"
xdotool type --delay 10 -- "$DRAFT"
sleep 1
xdotool windowmove --sync "$WID" 100 60 || true
sleep 0.5
PLACE=$(client_at)
say "window moved to $PLACE (frame top $(frame_top))"
[ "$PLACE" = "100,60" ] || fail "could not move the window to 100,60 (it is at $PLACE)"
quit_app
for i in 1 2 3; do
  start_app
  sleep 1.5
  AT=$(client_at)
  FT=$(frame_top)
  say "start $i: the window is at $AT, its frame's top at $FT"
  [ "$AT" = "$PLACE" ] || { shot "place-$i"; fail "start $i: the window came back at $AT, not $PLACE"; }
  [ "$FT" -ge 0 ] || fail "start $i: the title bar is above the screen (frame top $FT)"
  if [ "$i" = 1 ]; then
    shot draft
    printf '' | xclip -selection clipboard
    xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+a ctrl+c
    sleep 0.3
    GOT=$(xclip -o -selection clipboard 2>/dev/null || true)
    [ "$GOT" = "$DRAFT" ] || fail "the draft did not come back after a new start: the composer holds \"$GOT\""
    say "the draft came back: \"$GOT\""
  fi
  quit_app
done

# 6. Closed maximized, it opens maximized.
start_app
sleep 1.5
wmctrl -i -r "$WID" -b add,maximized_vert,maximized_horz
wait_until 5 "Openbox to maximize the window" maximized
quit_app
start_app
wait_until 5 "the window to open maximized again" maximized
sleep 1
shot maximized
say "closed maximized, the window opened maximized"
quit_app
say "PASS"
