#!/usr/bin/env bash
# The Salesforce package's checks: the Apex parses, and its labels and fields match the contract.
# Installs the parser from the npm registry into the build folder once.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${1:-$root/build}/apex-check"
mkdir -p "$work"
cp "$here/package.json" "$here/check_apex.js" "$work/"
if [ ! -d "$work/node_modules/@apexdevtools/apex-parser" ]; then
  (cd "$work" && npm install --no-audit --no-fund --silent >/dev/null 2>&1) || (cd "$work" && npm install --no-audit --no-fund)
fi
node "$work/check_apex.js" "$root/salesforce/force-app"
/usr/bin/python3 -m pytest -q -p no:cacheprovider "$here/test_package.py"
