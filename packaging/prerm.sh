#!/bin/sh
# Unloads and removes the AppArmor profile postinst installed, if it did.
set -e
root="${PHOENIX_APPARMOR_ROOT:-}"
if [ -f "$root/etc/apparmor.d/phoenix-desktop" ]; then
  if [ -z "$root" ] && command -v apparmor_parser >/dev/null 2>&1 && [ -d /sys/kernel/security/apparmor ]; then
    apparmor_parser -R /etc/apparmor.d/phoenix-desktop 2>/dev/null || true
  fi
  rm -f "$root/etc/apparmor.d/phoenix-desktop"
fi
exit 0
