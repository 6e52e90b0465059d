#!/usr/bin/env bash
# Tests the .deb as a person would use it: installs it on this machine (apt resolves its
# Depends, as `dpkg -i` would demand them), checks that `phoenix-desktop --version` names the
# version and this checkout's revision, that the desktop entry and icon are in place, and that
# a headless `chat --demo` answers; then removes the package. It needs root (CI runs as root)
# and skips otherwise. Exits non-zero with a message saying what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "test-deb: $*"; }
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then say "skipped: installing a package needs root"; exit 0; fi

deb=$(bash scripts/package-deb.sh | tail -n 1)
[ -f "$deb" ] || fail "scripts/package-deb.sh made no package"
version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
TMP=$(mktemp -d)
cleanup() {
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq -o DPkg::Lock::Timeout=120 phoenix-desktop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

say "installing $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=120 --no-install-recommends "./$deb" >"$TMP/apt.log" 2>&1 ||
  { cat "$TMP/apt.log" >&2; fail "apt-get install ./$deb failed"; }
dpkg-query -W -f='${Status}' phoenix-desktop | grep -q "install ok installed" || fail "the package is not installed"
for f in /usr/bin/phoenix-desktop /usr/share/applications/dev.phoenixdesktop.app.desktop \
  /usr/share/icons/hicolor/512x512/apps/phoenix-desktop.png; do
  [ -e "$f" ] || fail "$f is missing"
done

# The AppArmor profile ships with the package; postinst installs it only where AppArmor 4
# restricts user namespaces (checked on fake roots with and without it).
[ -f /usr/share/phoenix-desktop/apparmor/phoenix-desktop ] || fail "the AppArmor profile is missing"
for with in yes no; do
  fake="$TMP/root-$with"
  mkdir -p "$fake/usr/share/phoenix-desktop/apparmor" "$fake/etc/apparmor.d"
  cp /usr/share/phoenix-desktop/apparmor/phoenix-desktop "$fake/usr/share/phoenix-desktop/apparmor/"
  if [ "$with" = yes ]; then mkdir -p "$fake/etc/apparmor.d/abi" && touch "$fake/etc/apparmor.d/abi/4.0"; fi
  PHOENIX_APPARMOR_ROOT="$fake" sh packaging/postinst.sh || fail "postinst failed on a fake root (AppArmor 4: $with)"
  if [ "$with" = yes ]; then
    [ -f "$fake/etc/apparmor.d/phoenix-desktop" ] || fail "postinst did not install the profile where AppArmor 4 is"
    PHOENIX_APPARMOR_ROOT="$fake" sh packaging/prerm.sh || fail "prerm failed on a fake root"
    [ ! -e "$fake/etc/apparmor.d/phoenix-desktop" ] || fail "prerm left the profile behind"
  else
    [ ! -e "$fake/etc/apparmor.d/phoenix-desktop" ] || fail "postinst installed the profile without AppArmor 4"
  fi
done
say "the AppArmor profile ships, and is installed only where AppArmor 4 is"

out=$(/usr/bin/phoenix-desktop --version) || fail "phoenix-desktop --version failed"
say "$out"
case "$out" in "Phoenix Desktop $version "*) ;; *) fail "--version does not name version $version: $out" ;; esac
if rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  case "$out" in *"revision $rev"*) ;; *) fail "--version does not name revision $rev: $out" ;; esac
fi

mkdir -p "$TMP/home" "$TMP/cwd"
chat=$(HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" XDG_DATA_HOME="$TMP/home/.local/share" \
  timeout 60 /usr/bin/phoenix-desktop chat --demo --cwd "$TMP/cwd" "echo: hello from the package" 2>&1) ||
  fail "chat --demo failed: $chat"
case "$chat" in *"hello from the package"*) ;; *) fail "chat --demo did not answer: $chat" ;; esac

# The remote agent ships beside the app, static (a machine without a desktop runs it), and
# answers its --version with the app's version.
agent=/usr/lib/phoenix-desktop/phoenix-remote-agent
[ -x "$agent" ] || fail "$agent is missing"
if LC_ALL=C ldd "$agent" 2>&1 | grep -q '=>'; then fail "$agent needs shared libraries: $(ldd "$agent" 2>&1)"; fi
case "$("$agent" --version)" in "phoenix-remote-agent $version") ;; *) fail "$agent --version: $("$agent" --version 2>&1)" ;; esac
say "the remote agent ships static beside the app"
say "OK: installed, --version names $version and the revision, chat --demo answered"
