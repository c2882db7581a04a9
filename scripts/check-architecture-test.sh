#!/usr/bin/env bash
# The architecture check itself: it passes on this tree, and fails on a copy of its domain with a
# folder loop added (agent -> runs -> agent), on one whose domain includes an adapter, and on one
# with a function over 80 lines in app.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/check-architecture.sh" "$here/.." >/dev/null
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
expect_failure() {  # what was added, for the message
  if bash "$here/check-architecture.sh" "$tree" >/dev/null; then
    echo "check-architecture passed a tree with $1"
    exit 1
  fi
}
mkdir -p "$tree/src"
cp -r "$here/../src/domain" "$tree/src/domain"
echo '#include "domain/runs/paused_turn.hpp"' >"$tree/src/domain/agent/loop_probe.hpp"
expect_failure "a folder loop in src/domain"
rm "$tree/src/domain/agent/loop_probe.hpp"
bash "$here/check-architecture.sh" "$tree" >/dev/null
echo '#include "adapters/store_sqlite/sqlite_db.hpp"' >"$tree/src/domain/agent/layer_probe.hpp"
expect_failure "the domain including an adapter"
rm "$tree/src/domain/agent/layer_probe.hpp"
cp -r "$here/../src/app" "$tree/src/app"
bash "$here/check-architecture.sh" "$tree" >/dev/null
echo '#include "app/runs/runs.hpp"' >"$tree/src/app/turn/loop_probe.hpp"
expect_failure "a folder loop in src/app"
rm "$tree/src/app/turn/loop_probe.hpp"
bash "$here/check-architecture.sh" "$tree" >/dev/null
{
  echo 'int LongProbe(int x) {'
  for i in $(seq 1 80); do echo "  x += $i;  // a brace in a comment { does not count"; done
  echo '  return x;'
  echo '}'
} >"$tree/src/app/turn/long_probe.cpp"
expect_failure "a function of 83 lines in src/app"
echo "check-architecture: catches loops, layer breaks and long functions"
