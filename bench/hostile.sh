#!/usr/bin/env bash
# Normal traffic while the server is under a connection attack, against the same traffic on a
# quiet server, in one run: wrk runs stateless demo turns for $DURATION alone, then again while
# 5,000 slowloris connections (a header dripped every 2 s, never finished) and 2,000 idle
# keep-alive connections are held open and reopened as the server closes them. Prints both p99s,
# the non-2xx answers, and the server's open file descriptors (sampled every second) against
# server.max_connections.
#
#   bash bench/hostile.sh [build-dir]     (default: build-release, built if missing)
#   SLOWLORIS=5000 IDLE=2000 CONNECTIONS=32 DURATION=15s
set -euo pipefail
cd "$(dirname "$0")/.."
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-15s}
source bench/setup.sh "$@"
SLOWLORIS=${SLOWLORIS:-5000}
IDLE=${IDLE:-2000}
ulimit -n "$(ulimit -Hn)"
export AGENTGATE_SERVER_MAX_CONNECTIONS=${AGENTGATE_SERVER_MAX_CONNECTIONS:-16384}  # the default
max_connections=$AGENTGATE_SERVER_MAX_CONNECTIONS

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

AGENTGATE_SERVER_LISTEN=127.0.0.1:$port AGENTGATE_STORE_URL=sqlite:$work/db/agentgate.db \
  "$BUILD/agentgate" serve --demo >"$work/server.log" 2>&1 &
server=$!
pids+=($server)
wait_ready "http://127.0.0.1:$port/healthz" "$work/server.log"
token=$(grep '^token=' "$work/db/demo-credentials.txt" | cut -d= -f2)
demo_turn_script "$work/invoke.lua" "$token"
url="http://127.0.0.1:$port/api/agents/demo-agent/invoke"
load() { wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency -s "$work/invoke.lua" "$url"; }
fds() { ls /proc/$server/fd | wc -l; }

quiet=$(load)
quiet_fds=$(fds)

python3 bench/hostile_clients.py 127.0.0.1 "$port" "$SLOWLORIS" "$IDLE" >"$work/hostile.log" 2>&1 &
hostile=$!
pids+=($hostile)
sleep 5  # every hostile connection opened
(while sleep 1; do fds; done) >"$work/fds.log" &
sampler=$!
pids+=($sampler)
attacked=$(load)
kill $sampler
kill -TERM $hostile
wait $hostile 2>/dev/null || true

p99() { awk '$1 == "99%" {print $2; exit}'; }
ms() {
  awk '{v=$1; if (v ~ /us$/) {sub(/us$/, "", v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)}
        else if (v ~ /s$/) {sub(/s$/, "", v); v*=1000}; printf "%.2f", v}'
}
rps() { awk '/Requests\/sec/ {print $2}'; }
non2xx() { awk '/Non-2xx/ {print $NF}' | grep . || echo 0; }
errors() { awk '/Socket errors/ {print $0}' | grep . || echo "none"; }
q99=$(echo "$quiet" | p99 | ms); a99=$(echo "$attacked" | p99 | ms)
echo "command: bash bench/hostile.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS -d$DURATION; $SLOWLORIS slowloris + $IDLE idle keep-alive; $(nproc) cores, the attackers on the same cores)"
echo "quiet:    $(echo "$quiet" | rps) req/s, p99 $q99 ms, non-2xx $(echo "$quiet" | non2xx), open fds $quiet_fds"
echo "attacked: $(echo "$attacked" | rps) req/s, p99 $a99 ms, non-2xx $(echo "$attacked" | non2xx), socket errors: $(echo "$attacked" | errors)"
echo "p99 ratio attacked/quiet: $(awk -v a="$a99" -v q="$q99" 'BEGIN {printf "%.2f", a/q}')x (goal <= 2x)"
echo "server open fds while attacked: max $(sort -n "$work/fds.log" | tail -1) (server.max_connections $max_connections)"
cat "$work/hostile.log"
echo "server: $(curl -s "http://127.0.0.1:$port/metrics" | grep '^agentgate_http_connections_closed_total' | tr '\n' ' ')"
