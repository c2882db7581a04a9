#!/usr/bin/env bash
# Dependencies point one way: main -> adapters -> app -> ports -> domain. The pure layers must not
# include Beast, libpq, sqlite3, or any adapter; the app layer may use Asio (coroutines) only.
set -u
cd "$(dirname "$0")/.."
status=0
check() {  # folder, forbidden-pattern, reason
  local hits
  hits=$(grep -rnE "$2" "$1" --include='*.cpp' --include='*.hpp' 2>/dev/null || true)
  if [ -n "$hits" ]; then
    echo "architecture: $1 must not include $3:"
    echo "$hits"
    status=1
  fi
}
check src/domain '#include [<"](boost/(beast|asio)|libpq|sqlite3|openssl/|adapters/|app/|ports/|config/)' "I/O or crypto libraries, or outer layers"
check src/ports  '#include [<"](boost/beast|boost/asio/(ip|ssl|io_context)|libpq|sqlite3|adapters/|app/)' "I/O libraries or outer layers"
check src/app    '#include [<"](boost/beast|libpq|sqlite3|adapters/)' "Beast, database drivers or adapters"
[ $status -eq 0 ] && echo "architecture: ok"
exit $status
