#!/bin/bash
# Refuses any bash command that runs rm (a Claude Code hook, used as written).
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command": *"[^"]*\brm\b'; then
  echo "rm is not allowed in this project: move files to ./trash instead" >&2
  exit 2
fi
exit 0
