#!/usr/bin/env bash
# The same stateless agent turn (the demo agent on the offline model: authentication, spend
# reservations and settlements, the transcript) against each store, in one run so the figures are
# comparable: one server on SQLite (the baseline), one server on PostgreSQL, and two servers on
# PostgreSQL behind nginx configured as docs/deployment.md says. Everything shares the machine's
# cores with wrk, so the two-server figure shows coordination cost, not scale-out.
#
#   bash bench/store_backends.sh [build-dir]     (default: build-release, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/setup.sh "$@"
BIN=$(realpath "$BUILD/agentgate")
pg=$(bash scripts/start-postgres.sh)
schema="bench_$$"
psql "$pg" -qc "CREATE SCHEMA $schema"
pg_store="$pg?options=-csearch_path%3D$schema"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export AGENTGATE_MASTER_KEY=$("$BUILD/agentgate" gen-master-key)

# start NAME STORE_URL: a server in $work/NAME on a free port, left in $port.
start() {
  port=$(free_port)
  mkdir -p "$work/$1"
  (cd "$work/$1" && AGENTGATE_SERVER_LISTEN=127.0.0.1:$port AGENTGATE_STORE_URL=$2 \
    exec "$BIN" serve --demo >"$work/$1/server.log" 2>&1) &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/healthz" "$work/$1/server.log"
}

turns() {  # turns PORT TOKEN: requests per second and p99 of the demo turn
  demo_turn_script "$work/invoke.lua" "$2"
  local out
  out=$(wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency -s "$work/invoke.lua" \
    "http://127.0.0.1:$1/api/agents/demo-agent/invoke")
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '/ 99%/ {print $2}') \
$(echo "$out" | awk '/Non-2xx/ {print $NF}' | grep . || echo 0)"
}
token_in() { grep '^token=' "$work/$1/var/demo-credentials.txt" 2>/dev/null ||
  grep '^token=' "$work/$1/db/demo-credentials.txt"; }

start sqlite "sqlite:$work/sqlite/db/agentgate.db"
sqlite_port=$port
read -r s_rps s_p99 s_err <<<"$(turns "$sqlite_port" "$(token_in sqlite | cut -d= -f2)")"
kill "${pids[-1]}"

start pg1 "$pg_store"
pg_port=$port
pg_token=$(token_in pg1 | cut -d= -f2)
read -r p_rps p_p99 p_err <<<"$(turns "$pg_port" "$pg_token")"

start pg2 "$pg_store"
pg2_port=$port
lb_port=$(free_port)
mkdir -p "$work/nginx"
python3 tests/e2e/nginx_site.py "$work/nginx" "$lb_port" "127.0.0.1:$pg_port" "127.0.0.1:$pg2_port"
sed -i 's|^ *access_log .*|    access_log off;|' "$work/nginx/nginx.conf"
nginx -e "$work/nginx/error.log" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g "daemon off;" &
pids+=($!)
wait_ready "http://127.0.0.1:$lb_port/healthz" "$work/nginx/error.log" any
read -r l_rps l_p99 l_err <<<"$(turns "$lb_port" "$pg_token")"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
echo "command: bash bench/store_backends.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(nproc) cores)"
echo "one server, SQLite:              $s_rps turns/s, p99 $s_p99, non-2xx $s_err   (baseline)"
echo "one server, PostgreSQL:          $p_rps turns/s, p99 $p_p99, non-2xx $p_err   ratio $(ratio "$p_rps" "$s_rps")"
echo "two servers, PostgreSQL, nginx:  $l_rps turns/s, p99 $l_p99, non-2xx $l_err   ratio $(ratio "$l_rps" "$s_rps")"
