#!/bin/bash
# Appends the event Claude Code gives on stdin to hook-log.jsonl in the project.
cat >> "$CLAUDE_PROJECT_DIR/hook-log.jsonl"
