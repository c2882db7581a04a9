#!/usr/bin/env bash
# Fails when a tracked C++ file differs from .clang-format (run `make format` to fix).
set -u
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format: clang-format not installed"; exit 1; }
# Tracked and new files that are there (a file moved but not yet committed is listed twice).
files=$(git ls-files -co --exclude-standard '*.cpp' '*.hpp' 2>/dev/null |
  while read -r f; do [ -f "$f" ] && echo "$f"; done)
[ -n "$files" ] || files=$(find src tests bench -name '*.cpp' -o -name '*.hpp' 2>/dev/null)
echo "$files" | xargs clang-format --dry-run --Werror 2>&1 | head -20
exit "${PIPESTATUS[1]}"
