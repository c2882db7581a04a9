#!/usr/bin/env bash
# Load against the real binary on loopback, bounded in time: start-up time, then requests per
# second for /healthz (the baseline: routing + logging only) and for a whole stateless agent turn
# on the demo agent (authentication, two offline-model calls with spend reservations, resource
# search, the turn's transcript written to SQLite). Figures are quoted as ratios to the baseline
# measured in the same run, because these machines are noisy.
#
#   bash bench/http_baseline.sh [build-dir]     (default: build-release, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/setup.sh "$@"

work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(free_port)

start_ms=$(date +%s%3N)
AGENTGATE_SERVER_LISTEN=127.0.0.1:$port AGENTGATE_STORE_URL=sqlite:$work/db/agentgate.db \
  "$BUILD/agentgate" serve --demo >"$work/server.log" 2>&1 &
pid=$!
wait_ready "http://127.0.0.1:$port/healthz" "$work/server.log"
ready_ms=$(date +%s%3N)
# A second start on the existing store (no demo provisioning, no migrations to apply).
kill $pid; wait $pid 2>/dev/null || true
start2_ms=$(date +%s%3N)
AGENTGATE_SERVER_LISTEN=127.0.0.1:$port AGENTGATE_STORE_URL=sqlite:$work/db/agentgate.db \
  "$BUILD/agentgate" serve >"$work/server.log" 2>&1 &
pid=$!
wait_ready "http://127.0.0.1:$port/healthz" "$work/server.log"
ready2_ms=$(date +%s%3N)

token=$(grep '^token=' "$work/db/demo-credentials.txt" | cut -d= -f2)
demo_turn_script "$work/invoke.lua" "$token"

rps() { awk '/Requests\/sec/ {print $2}'; }
p99() { awk '/ 99%/ {print $2}'; }
healthz=$(wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency "http://127.0.0.1:$port/healthz")
invoke=$(wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency -s "$work/invoke.lua" \
  "http://127.0.0.1:$port/api/agents/demo-agent/invoke")

h=$(echo "$healthz" | rps); i=$(echo "$invoke" | rps)
echo "command: bash bench/http_baseline.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(nproc) cores)"
echo "start-up to first healthz: $((ready_ms - start_ms)) ms on an empty store (migrations + demo), $((ready2_ms - start2_ms)) ms on an existing one"
echo "GET /healthz:            $h req/s, p99 $(echo "$healthz" | p99)   (baseline)"
echo "POST invoke (a turn):    $i req/s, p99 $(echo "$invoke" | p99)   ratio to baseline: $(awk -v a="$i" -v b="$h" 'BEGIN {printf "%.2f", a/b}')"
echo "non-2xx answers during the invoke run: $(echo "$invoke" | awk '/Non-2xx/ {print $NF}' | grep . || echo 0)"
