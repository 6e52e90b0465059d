# Shared by the real-window tests (smoke-xvfb.sh, diskfull-xvfb.sh, mcp-xvfb.sh): sourced, not
# run, from the repository's root after `set -euo pipefail`.
#
# The caller sets NAME (the prefix of its messages and screenshots) first. This file sets up
# what every run needs — the Go environment, the locale, ART (screenshots and logs), BIN, a
# private TMP with APP_HOME and DATA in it (a caller may point DATA elsewhere), and the clean-up
# on exit (AFTER_STOP is a command the caller adds to it, run before TMP goes) — and
# provides xvfb_start, then start_app/quit_app, which start and stop the app on that display
# with a private HOME, so a run neither reads nor changes the person's Fyne preferences. Every
# wait is bounded and every failure says what was being waited for.

# shellcheck source=env.sh
source scripts/env.sh 2>/dev/null
# Where the en_US.UTF-8 locale is not generated (setup.sh generates it), LC_ALL naming it
# makes every shell warn; LANG alone keeps Fyne's language and the shells quiet.
if ! locale -a 2>/dev/null | grep -qiE '^en_US\.utf-?8$'; then unset LC_ALL; export LANG=en_US.UTF-8; fi
ART=.ci/artifacts
BIN=./bin/phoenix-desktop
mkdir -p "$ART" bin
TMP=$(mktemp -d)
APP_HOME="$TMP/home"
DATA="$TMP/data"
mkdir -p "$APP_HOME" "$DATA"
AFTER_STOP=""
cleanup() {
  xvfb_stop
  if [ -n "$AFTER_STOP" ]; then eval "$AFTER_STOP" || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

XVFB_PID=""
APP_PID=""
WID=""

say() { echo "$NAME: $*"; }

shot() {
  if [ -n "${DISPLAY:-}" ]; then
    import -window root "$ART/$NAME-$1.png" 2>/dev/null && say "screenshot: $ART/$NAME-$1.png"
  fi
  return 0
}

fail() {
  echo "$NAME: FAIL: $*" >&2
  shot failure
  if [ -s "$ART/$NAME-app.log" ]; then
    echo "---- last lines of the app's log ($ART/$NAME-app.log) ----" >&2
    tail -n 30 "$ART/$NAME-app.log" >&2
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

xvfb_stop() {
  if [ -n "$APP_PID" ] && kill -0 "$APP_PID" 2>/dev/null; then
    kill "$APP_PID" 2>/dev/null || true
    wait "$APP_PID" 2>/dev/null || true
  fi
  if [ -n "$XVFB_PID" ] && kill -0 "$XVFB_PID" 2>/dev/null; then kill "$XVFB_PID" 2>/dev/null || true; fi
  return 0
}

# xvfb_start checks the tools, builds the binary and starts Xvfb on a free display.
xvfb_start() {
  for tool in Xvfb xdotool xclip import python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install xvfb xdotool xclip imagemagick python3)"
  done
  say "building ./cmd/phoenix-desktop"
  if ! timeout 900 go build -o "$BIN" ./cmd/phoenix-desktop; then
    fail "go build ./cmd/phoenix-desktop failed (see the compiler output above)"
  fi
  # A free display number: no socket and no lock file.
  local n num=""
  for n in $(seq 99 140); do
    if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then num=$n; break; fi
  done
  [ -n "$num" ] || fail "no free X display between :99 and :140"
  Xvfb ":$num" -screen 0 1280x800x24 -nolisten tcp >"$TMP/xvfb.log" 2>&1 &
  XVFB_PID=$!
  export DISPLAY=":$num"
  wait_until 15 "Xvfb to start on $DISPLAY" xdotool getdisplaygeometry
  : >"$ART/$NAME-app.log"
}

start_app() {
  HOME="$APP_HOME" XDG_CONFIG_HOME="$APP_HOME/.config" XDG_DATA_HOME="$APP_HOME/.local/share" \
    timeout 150 "$BIN" --demo --data-dir "$DATA" >>"$ART/$NAME-app.log" 2>&1 &
  APP_PID=$!
  WID=$(timeout 60 xdotool search --sync --onlyvisible --name "Phoenix Desktop" 2>/dev/null | head -n 1) || true
  [ -n "$WID" ] || fail "the window \"Phoenix Desktop\" did not appear within 60 s"
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

title_has() { xdotool getwindowname "$WID" | grep -qF -- "$1"; }

# new_conversation presses Ctrl+N and Enter until a conversation is open (the first frame
# and the conversation list load right after mapping, so the keys may come too early).
new_conversation() {
  local attempt deadline
  for attempt in 1 2 3 4; do
    kill -0 "$APP_PID" 2>/dev/null || fail "the app exited before a conversation opened"
    xdotool windowfocus --sync "$WID" key --clearmodifiers ctrl+n
    sleep 0.5
    xdotool key --clearmodifiers Return
    deadline=$((SECONDS + 5))
    while [ "$SECONDS" -lt "$deadline" ]; do
      if title_has " — "; then return 0; fi
      sleep 0.2
    done
    say "no conversation after attempt $attempt of Ctrl+N, Enter; trying again"
  done
  fail "Ctrl+N and Enter did not open a new conversation"
}
