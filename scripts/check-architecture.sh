#!/usr/bin/env bash
# Dependencies point one way: main -> adapters -> app -> runtime -> ports -> domain. The pure layers
# must not include Beast, libpq, sqlite3, or any outer layer; app and runtime may use Asio
# (coroutines, timers, thread pools) only; app reads time through the Clock port.
set -u
cd "${1:-$(dirname "$0")/..}"  # the tree to check: this repository unless told
status=0
check() {  # folder, forbidden-pattern, reason
  local hits
  hits=$(grep -rnE "$2" "$1" --include='*.cpp' --include='*.hpp' 2>/dev/null || true)
  if [ -n "$hits" ]; then
    echo "architecture: $1 must not $3:"
    echo "$hits"
    status=1
  fi
}
check src/domain '#include [<"](boost/(beast|asio)|libpq|sqlite3|openssl/|adapters/|app/|runtime/|ports/|config/)' \
  "include I/O or crypto libraries, or outer layers"
check src/ports '#include [<"](boost/beast|boost/asio/(ip|ssl|io_context)|libpq|sqlite3|adapters/|app/|runtime/)' \
  "include I/O libraries or outer layers"
check src/runtime '#include [<"](boost/beast|libpq|sqlite3|adapters/|app/)' \
  "include Beast, database drivers, adapters or use cases"
check src/app '#include [<"](boost/beast|libpq|sqlite3|adapters/)' "include Beast, database drivers or adapters"
check src/app 'std::chrono::(steady|system)_clock::now' "read the clock directly (use the Clock port)"
# Inside the domain and inside app, folders depend one way too: no loop (agent -> runs -> agent),
# however long.
folder_edges() {  # layer: its folders as nodes, each include of a sibling folder as an edge
  local folder name
  for folder in "src/$1"/*/; do
    [ -d "$folder" ] || continue
    name=$(basename "$folder")
    echo "$name $name"  # every folder is a node, even one that includes no other
    grep -rhoE "#include \"$1/[a-z_]+/" "$folder" --include='*.cpp' --include='*.hpp' |
      sed -E "s#.*$1/([a-z_]+)/#\\1#" | sort -u | grep -vx "$name" | sed "s#^#$name #"
  done
}
for layer in domain app; do
  if ! loop=$(folder_edges "$layer" | tsort 2>&1 >/dev/null) || [ -n "$loop" ]; then
    echo "architecture: the folders of src/$layer must not include each other in a loop:"
    echo "$loop"
    status=1
  fi
done
# app holds its capabilities in folders: at most 12 files at its top level.
if [ -d src/app ] && [ "$(find src/app -maxdepth 1 -type f | wc -l)" -gt 12 ]; then
  echo "architecture: src/app has more than 12 files at its top level: put them in a capability's folder"
  status=1
fi
# A function in app reads whole on one screen: at most 80 lines, longer ones are named steps.
if [ -d src/app ]; then
  if ! long=$(find src/app -name '*.cpp' ! -name '*_test.cpp' -print0 | sort -z |
    xargs -0 python3 "$(dirname "$0")/function_lengths.py" 80); then
    echo "architecture: functions in src/app must be at most 80 lines (split them into named steps):"
    echo "$long"
    status=1
  fi
fi
[ $status -eq 0 ] && echo "architecture: ok"
exit $status
