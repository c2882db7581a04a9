#!/usr/bin/env bash
# Installs the operator console's third-party files (console/package.json, pinned by
# console/package-lock.json) into console/node_modules, once per lock file. The C++ build embeds
# them from there and so needs no network once this has run (make deps, scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/../console"
stamp=node_modules/.agentgate-lock-sha256
sum=$(sha256sum package-lock.json | cut -d' ' -f1)
[ "$(cat "$stamp" 2>/dev/null || true)" = "$sum" ] && exit 0
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
# npm keeps the archives' old file times: touched, the build sees them as new and embeds them again.
find node_modules -type f -exec touch {} +
echo "$sum" >"$stamp"
