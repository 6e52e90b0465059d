#!/usr/bin/env bash
# Real-window keyboard-only run (issue 36): the window for someone who uses no mouse, at
# 800×600 (a small laptop at 150%, a VM console).
#
# Starts the app under Xvfb with the offline demo model in a scratch project folder, makes
# the window 800×600 and then uses xdotool key and type events only: a new conversation
# (Ctrl+N, Enter), a message sent (Enter), an image attached with the app's picker (Ctrl+Shift+A,
# its name, Enter) and sent, the agent's request for write access approved
# (Alt+A), a file written by the agent, Find (Ctrl+F) and its Escape, the file change undone
# (Ctrl+Alt+Z, then the dialog's confirm button reached with Tab and pressed with Enter), a
# fork (Ctrl+Shift+N), the Keyboard shortcuts sheet (Ctrl+/), the sidebar shown and hidden
# (Ctrl+B), Export (Ctrl+E) closed with Escape and then saved with Enter, and Ctrl+Q. On the way it checks, in the screenshots, that a hint line (the model
# line of New conversation) is drawn in the theme's readable hint grey, at least 4.5:1 on
# its background, and it takes screenshots at 800×600 and 1024×640 into .ci/artifacts/.
# Afterwards the CLI checks the data directory: the approval, the undo and the fork happened.
# Every wait is bounded. Exits non-zero with a message saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=keyboard-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh
WORK="$TMP/work-kb"
mkdir -p "$WORK"
REPO=$(pwd)

# start_in_project starts the app as start_app does, from the scratch project folder, so New
# conversation offers that folder (the folder the app was started in).
start_in_project() {
  (cd "$WORK" && HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" XDG_DATA_HOME="$APP_HOME/.local/share" \
    exec timeout 150 "$REPO/$BIN" --demo --data-dir "$DATA" >>"$REPO/$ART/$NAME-app.log" 2>&1) &
  APP_PID=$!
  WID=$(timeout 60 xdotool search --sync --onlyvisible --name "Phoenix Desktop" 2>/dev/null | head -n 1) || true
  [ -n "$WID" ] || fail "the window \"Phoenix Desktop\" did not appear within 60 s"
  say "window $WID appeared: $(xdotool getwindowname "$WID")"
}

key() { xdotool windowfocus --sync "$WID" key --clearmodifiers "$@"; }
typed() { xdotool windowfocus --sync "$WID" type --delay 15 -- "$1"; }

resize() {
  xdotool windowsize --sync "$WID" "$1" "$2" 2>/dev/null || xdotool windowsize "$WID" "$1" "$2"
  sleep 0.8
  read -r WW WH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
  [ "$WW" = "$1" ] && [ "$WH" = "$2" ] || fail "the window is ${WW}x${WH}, not $1x$2"
}

# hint_check SHOT: the model hint of New conversation is drawn in the theme's hint grey
# (ui.Theme's "disabled": #A1A1A1 in the dark variant, #5B5B5B in the light one), at least
# 4.5:1 on the dialog's background. Fyne's own #39393A on #171718 read at 1.5:1.
hint_check() {
  local png=$1 grey bg count ratio
  for pair in "161,161,161 23,23,24" "91,91,91 255,255,255"; do
    read -r grey bg <<<"$pair"
    count=$(convert "$png" -fill white -opaque "srgb($grey)" -fill black +opaque white -format '%[fx:round(mean*w*h)]' info:)
    if [ "${count:-0}" -ge 20 ]; then
      ratio=$(python3 - "$grey" "$bg" <<'EOF'
import sys
def lum(c):
    def lin(v):
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (int(x) for x in c.split(","))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
a, b = lum(sys.argv[1]), lum(sys.argv[2])
print(f"{(max(a, b) + 0.05) / (min(a, b) + 0.05):.2f}")
EOF
)
      say "hint line: $count pixels of srgb($grey) on srgb($bg), contrast $ratio:1"
      python3 -c "import sys; sys.exit(0 if float('$ratio') >= 4.5 else 1)" || fail "the hint grey reads at $ratio:1, below 4.5:1"
      return 0
    fi
  done
  fail "no pixels of the theme's hint grey in $png: the hint line is not drawn in it"
}

ATTACHED="echo: the picture attached by keyboard"
cli() { HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" "$BIN" "$@" --data-dir "$DATA"; }

xvfb_start
say "starting the app on $DISPLAY in $WORK with --demo --data-dir $DATA"
start_in_project
resize 800 600
shot 800x600-start

# New conversation: Ctrl+N opens the dialog (its model line is a hint), Enter creates it.
ATTEMPT=0
until title_has " — "; do
  ATTEMPT=$((ATTEMPT + 1))
  [ "$ATTEMPT" -le 4 ] || fail "Ctrl+N and Enter did not open a new conversation"
  key ctrl+n
  sleep 0.8
  if [ "$ATTEMPT" = 1 ]; then
    shot 800x600-new-conversation
    import -window "$WID" "$TMP/newconv.png" || fail "could not take a picture of the window"
    hint_check "$TMP/newconv.png"
  fi
  key Return
  sleep 1
done
say "conversation open: $(xdotool getwindowname "$WID")"

# Send: Enter in the composer, which has the focus.
typed "echo: hello by keyboard"
key Return
wait_until 20 "the message to be sent (window title naming it)" title_has "echo: hello by keyboard"
sleep 1
shot 800x600-sent

# Attach: Ctrl+Shift+A opens the app's own picker in the project folder with the focus in its
# path field (Fyne's file dialog took Space but not Enter); the file's name typed and Enter
# attach it, and the next message carries it (checked in the store below).
convert -size 40x24 xc:'#3070e0' "$WORK/kb-shot.png" || fail "could not make a PNG to attach"
key ctrl+shift+a
sleep 0.8
shot 800x600-attach
typed "kb-shot.png"
key Return
sleep 1
typed "$ATTACHED"
key Return
sent_attached() { cli search "picture attached" | grep -qi "picture attached"; }
wait_until 20 "the message typed after attaching (did Enter in the picker leave it open?)" sent_attached
shot 800x600-attached

# Approve: the agent asks for write access; Alt+A answers "Allow edits in this project".
typed "upgrade: to write notes.txt"
key Return
sleep 2.5
shot 800x600-approval
key alt+a
sleep 2
shot 800x600-approved
typed "patch: notes.txt <<< written by keyboard"
key Return
wait_until 20 "the agent to write notes.txt" test -s "$WORK/notes.txt"
sleep 1
shot 800x600-patched

# Find: Ctrl+F, the words, Enter for the next match, Escape closes the bar.
key ctrl+f
sleep 0.3
typed "keyboard"
key Return
sleep 0.8
shot 800x600-find
key Escape
sleep 0.3

# Undo: Ctrl+Alt+Z shows the change; Tab reaches the confirm button, Enter presses it (as
# Space does: every button of the window and its dialogs takes both).
key ctrl+alt+z
sleep 1.5
shot 800x600-undo
UNDONE=""
for tabs in 1 2 3 4 5 6; do
  key Tab
  sleep 0.2
  # Enter presses the focused button; the dialog's Cancel closes it without restoring, so a
  # wrong button reopens the dialog and tries one more Tab.
  key Return
  sleep 1.2
  if [ ! -e "$WORK/notes.txt" ]; then UNDONE="after $tabs Tab"; break; fi
  if ! xdotool search --name "Phoenix Desktop" >/dev/null; then fail "the window went away"; fi
  key Escape
  sleep 0.3
  key ctrl+alt+z
  sleep 1.2
  for _ in $(seq 1 "$tabs"); do key Tab; sleep 0.1; done
done
[ -n "$UNDONE" ] || fail "the Undo dialog's confirm button was not reached with Tab and Enter (notes.txt is still there)"
say "undone by keyboard ($UNDONE)"
sleep 0.5
shot 800x600-undone

# Fork: Ctrl+Shift+N continues from the last message in a new conversation.
BEFORE=$(xdotool getwindowname "$WID")
key ctrl+shift+n
forked() { [ "$(xdotool getwindowname "$WID")" != "$BEFORE" ]; }
wait_until 20 "the fork to open (the window title to change)" forked
sleep 1
shot 800x600-fork

# The Keyboard shortcuts sheet, then Escape; the sidebar shown with Ctrl+B, hidden again.
key ctrl+slash
sleep 0.8
shot 800x600-shortcuts
key Escape
sleep 0.3
key ctrl+b
sleep 0.8
shot 800x600-sidebar
key ctrl+b
sleep 0.3

# Export: Ctrl+E opens it with the focus in the file name; Escape closes it, so the words typed
# next go to the composer and are sent (Fyne's save dialog kept Escape in its field). Then
# Ctrl+E and Enter save the conversation into the project folder.
key ctrl+e
sleep 0.8
shot 800x600-export
key Escape
sleep 0.5
typed "echo: zebraquux after Export closed"
key Return
sent_after_export() { cli search zebraquux | grep -qi zebraquux; }
wait_until 20 "the message typed after Escape closed Export (Escape left the dialog open?)" sent_after_export
key ctrl+e
sleep 0.8
key Return
exported() { compgen -G "$WORK/*.md" >/dev/null; }
wait_until 10 "Enter in Export to save a .md file into $WORK" exported
say "exported by keyboard: $(cd "$WORK" && ls ./*.md)"

resize 1024 640
shot 1024x640
quit_app

# What the keys did, as the data directory has it.
LIST=$(cli list) || fail "phoenix-desktop list failed"
N=$(grep -c . <<<"$LIST" || true)
[ "$N" -ge 2 ] || fail "the data directory lists $N conversations, want the conversation and its fork:\n$LIST"
grep -qw "project" <<<"$LIST" || fail "no conversation is in Project mode after Alt+A:\n$LIST"
ATTACHED_OK=""
for id in $(awk 'NR > 1 {print $1}' <<<"$LIST"); do
  if cli show "$id" --json | ATTACHED="$ATTACHED" python3 -c '
import json, os, sys
msgs = json.load(sys.stdin)["messages"]
sent = [m for m in msgs if m.get("kind") == "user" and m.get("text") == os.environ["ATTACHED"]]
imgs = (sent[0].get("images") or []) if sent else []
sys.exit(0 if len(imgs) == 1 and (imgs[0].get("width"), imgs[0].get("height")) == (40, 24) else 1)
'; then ATTACHED_OK=$id; break; fi
done
[ -n "$ATTACHED_OK" ] || fail "no stored message \"$ATTACHED\" carries the 40x24 kb-shot.png attached with Ctrl+Shift+A, its name and Enter"
say "PASS: new conversation, send, attach (Ctrl+Shift+A, a name, Enter), approve, find, undo (Enter on its button), fork and export (Escape, Enter) by keyboard at 800×600; screenshots in $ART/$NAME-*.png"
