#!/usr/bin/env bash
# Real-window full-disk test (issue 25), as root on a real small file system (a tmpfs; skipped
# with a message where it cannot be mounted).
#
# Starts the app under Xvfb with the offline demo model and its data directory on the small
# file system, sends a message, then sends a two-step turn (a command that takes a few
# seconds, then a reply) and fills the disk while the command runs: the window must stay up
# and show the red full-disk banner. Space is then freed without a restart: the banner must
# go, the interrupted turn must come to rest with its "Not answered" notice and Retry, and a
# new message must be answered. Then the app is quit with the disk full again and started
# on it: it must open (read-only, banner shown) and quit cleanly. Finally the CLI checks that
# every committed message is in the data directory. Screenshots go to .ci/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=diskfull-xvfb
# shellcheck source=xvfb-lib.sh
source scripts/xvfb-lib.sh
DISK="$TMP/disk"
DATA="$DISK/data"
mkdir -p "$DISK"
AFTER_STOP='umount "$DISK" 2>/dev/null'

if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=512m tmpfs "$DISK" 2>"$TMP/mount.err"; then
  say "SKIP: a small tmpfs cannot be mounted here (needs root: $(cat "$TMP/mount.err" 2>/dev/null))"
  exit 0
fi
mkdir -p "$DATA"

free_bytes() { df --output=avail -B1 "$DISK" | tail -n 1 | tr -d ' '; }

# What the filled disk leaves free: below the store's reserve (persistence.DefaultReserve, six
# memtables: 12 MiB), so every write is refused before Badger sees it, and at least the
# ballast the last flush needs (two memtables: 4 MiB). TestDiskFullScriptFillsBelowTheReserve
# holds this number to those two.
LEAVE_FREE_MIB=8

fill_disk() {
  local avail count
  avail=$(free_bytes)
  count=$(((avail - LEAVE_FREE_MIB * 1024 * 1024) / 1048576))
  if [ "$count" -gt 0 ]; then
    dd if=/dev/zero of="$DISK/filler" bs=1M count="$count" oflag=append conv=notrunc status=none 2>/dev/null || true
  fi
  say "filled the disk: $(($(free_bytes) / 1048576)) MiB free"
}

# banner_box prints the size and place of the window's red (the app theme's error colour in the dark
# variant, #F7776D: ui.Theme lightens Fyne's #F44336 to read on the dark background) area
# at the top of the window, where the full-disk banner is drawn; "0 0 0 0" when there is none.
banner_box() {
  import -window "$WID" "$TMP/win.png" 2>/dev/null || { echo "0 0 0 0"; return; }
  local width
  width=$(identify -format %w "$TMP/win.png" 2>/dev/null) || width=1280
  convert "$TMP/win.png" -crop "${width}x160+0+0" +repage -fuzz 10% -fill black +opaque 'srgb(247,119,109)' \
    -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null || echo "0 0 0 0"
}
banner_shown() { local w; read -r w _ < <(banner_box); [ "${w:-0}" -gt 100 ]; }
banner_gone() { ! banner_shown; }

xvfb_start
say "starting the app on $DISPLAY with its data on a 512 MiB tmpfs ($DATA)"
start_app
new_conversation
FIRST="echo: written before the disk filled"
xdotool windowfocus --sync "$WID" type --delay 15 -- "$FIRST"
xdotool key --clearmodifiers Return
wait_until 20 "the first message to be sent (window title naming it)" title_has "$FIRST"
banner_gone || fail "the full-disk banner shows before the disk filled"

# A two-step turn: a command that takes four seconds, then a reply. The disk fills while the
# command runs, so its result cannot be committed.
xdotool type --delay 15 -- "bash: sleep 4"
xdotool key --clearmodifiers shift+Return
xdotool type --delay 15 -- "echo: the second step ran"
xdotool key --clearmodifiers Return
sleep 1
fill_disk
wait_until 20 "the full-disk banner" banner_shown
kill -0 "$APP_PID" 2>/dev/null || fail "the app died when the disk filled"
shot banner
say "the banner shows and the app is alive"
# A message typed while the disk is full is refused before it is written, and stays in the
# composer: nothing typed is lost.
DRAFT="echo: typed while the disk was full"
xdotool type --delay 15 -- "$DRAFT"
xdotool key --clearmodifiers Return
sleep 2
kill -0 "$APP_PID" 2>/dev/null || fail "the app died when a message was sent on the full disk"
shot refused

rm -f "$DISK/filler"
say "freed the disk: $(($(free_bytes) / 1048576)) MiB free"
wait_until 20 "the full-disk banner to go once space returned" banner_gone
# The interrupted turn came to rest with its notice and Retry: the notice is the row with the
# theme's warning colour (its stripe and icon) in the chat column; Retry is at its right end.
notice_box() {
  import -window "$WID" "$TMP/win.png" 2>/dev/null || { echo "0 0 0 0"; return; }
  convert "$TMP/win.png" -crop "400x$((WH - 200))+320+150" +repage -fuzz 10% -fill black +opaque 'srgb(255,152,0)' \
    -fuzz 0 -trim -format '%w %h %X %Y' info: 2>/dev/null || echo "0 0 0 0"
}
notice_shown() { local h; read -r _ h _ < <(notice_box); [ "${h:-0}" -gt 15 ]; }
read -r WW WH < <(xdotool getwindowgeometry "$WID" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
wait_until 20 "the interrupted turn's notice" notice_shown
NOTICE=$(notice_box)
read -r _ NH _ NY <<<"$NOTICE"
shot interrupted
xdotool mousemove --window "$WID" $((WW - 50)) $((150 + NY + NH / 2)) click 1
say "clicked Retry at $((WW - 50)),$((150 + NY + NH / 2))"
# The retried turn runs its command (four seconds) and answers.
sleep 7
# The refused message is still in the composer: a click in it, then Enter sends it.
xdotool mousemove --window "$WID" $((WW / 2)) $((WH - 90)) click 1
sleep 0.3
xdotool key --clearmodifiers Return
sleep 3
shot recovered
quit_app

LIST=$("$BIN" list --json --data-dir "$DATA") || fail "phoenix-desktop list failed"
ID=$(printf '%s' "$LIST" | python3 -c 'import json,sys; l=json.load(sys.stdin) or []; print(l[0]["id"] if l else "")') ||
  fail "could not read the conversation list: $LIST"
[ -n "$ID" ] || fail "the data directory holds no conversation"
SHOW=$("$BIN" show "$ID" --json --data-dir "$DATA") || fail "phoenix-desktop show $ID failed"
printf '%s' "$SHOW" | python3 -c '
import json, sys
d = json.load(sys.stdin)
msgs = d["messages"]
texts = [(m.get("kind"), m.get("text") or "") for m in msgs]
def has(kind, words):
    return any(k == kind and words in t for k, t in texts)
want = [("user", "written before the disk filled"), ("assistant", "written before the disk filled"),
        ("user", "bash: sleep 4"), ("error", "Not answered"), ("assistant", "the second step ran"),
        ("user", "typed while the disk was full"), ("assistant", "typed while the disk was full")]
missing = [w for w in want if not has(*w)]
if missing:
    sys.exit("missing %r; messages: %r" % (missing, texts))
if d["conversation"].get("state_kind") != "idle":
    sys.exit("the conversation is not at rest: %r" % d["conversation"].get("state_kind"))
' || fail "the data directory does not hold every committed message"
say "every committed message is stored, the interrupted turn said so and Retry answered it"

# The disk full at start: the app opens on it read-only, with the banner, and quits cleanly.
fill_disk
start_app
wait_until 20 "the full-disk banner at start" banner_shown
wait_until 15 "the last conversation to open on the full disk" title_has "$FIRST"
shot full-at-start
quit_app
# Headless on the same full disk: reading works, a turn is refused in the same words.
"$BIN" list --data-dir "$DATA" >/dev/null 2>"$TMP/list.err" || fail "list on the full disk failed: $(cat "$TMP/list.err")"
"$BIN" show "$ID" --data-dir "$DATA" >/dev/null 2>"$TMP/show.err" || fail "show on the full disk failed: $(cat "$TMP/show.err")"
if "$BIN" chat --demo --data-dir "$DATA" --continue "$ID" "echo: headless on the full disk" >"$TMP/chat.out" 2>&1; then
  fail "chat on the full disk succeeded: $(cat "$TMP/chat.out")"
fi
tail -n 1 "$TMP/chat.out" | grep -q "^phoenix-desktop: The disk holding your conversations is full" ||
  fail "chat on the full disk did not end in the banner's words: $(cat "$TMP/chat.out")"
say "headless on the full disk: list and show work, chat ends with: $(tail -n 1 "$TMP/chat.out")"
rm -f "$DISK/filler"
"$BIN" chat --demo --data-dir "$DATA" --continue "$ID" "echo: headless after freeing" >"$TMP/chat.out" 2>&1 ||
  fail "chat after freeing the disk failed: $(cat "$TMP/chat.out")"
grep -q "headless after freeing" "$TMP/chat.out" || fail "chat after freeing the disk did not answer: $(cat "$TMP/chat.out")"
say "OK: the window stayed up through a full disk, showed the banner, recovered by itself, kept every committed message, and opened on a full disk"
