#!/bin/sh
# Installs the AppArmor profile where AppArmor 4 is present: it is what restricts
# unprivileged user namespaces (Ubuntu 24.04 and later), and only it parses the profile's
# userns rule. Elsewhere (Debian 12, no AppArmor) nothing is needed and nothing is done.
# PHOENIX_APPARMOR_ROOT prefixes the paths, so that a test can run this on a fake root.
set -e
root="${PHOENIX_APPARMOR_ROOT:-}"
profile="$root/usr/share/phoenix-desktop/apparmor/phoenix-desktop"
if [ -e "$root/etc/apparmor.d/abi/4.0" ] && [ -f "$profile" ]; then
  install -m 0644 "$profile" "$root/etc/apparmor.d/phoenix-desktop"
  if [ -z "$root" ] && command -v apparmor_parser >/dev/null 2>&1 && [ -d /sys/kernel/security/apparmor ]; then
    apparmor_parser -r -T -W /etc/apparmor.d/phoenix-desktop ||
      echo "phoenix-desktop: loading the AppArmor profile failed; Restricted commands then run without the mount view (phoenix-desktop doctor says why)" >&2
  fi
fi
exit 0
