#!/usr/bin/env bash
# A stateless agent turn and a metadata gateway call against their network baseline, in one run:
# an instant upstream (nginx `return 200` with a fixed chat.completion, or a fixed Salesforce
# describeGlobal, in an nginx process of its own, as a provider is another machine), then
#   baseline: nginx proxy_pass (keep-alive) to a copy of that upstream inside its own worker, as
#             the issue's goals were measured;
#   also printed: nginx proxy_pass from a second nginx process to the upstream's process, whose
#             hop wakes another process as agentgate's does (on 2 cores it also runs on both);
#   agentgate: POST /api/agents/bench/invoke, whose one model call goes to the same upstream
#              (SQLite store, org and agent spend limits set, the model priced), and
#              POST /api/metadata-gateway {"method":"GET","path":"sobjects"} on a cached session;
#   and the HTTP layer alone: GET /healthz against nginx `return 200` of the same body.
# Throughput with wrk -c$CONNECTIONS, then latency with one connection (p50 added over nginx, the
# median of C1_ROUNDS alternating runs).
#
#   bash bench/turn_vs_nginx.sh [build-dir]     (default: build-release, built if missing)
#   TURN=stateful bash bench/turn_vs_nginx.sh   each turn is a stateful first call instead: it
#                                                 starts a conversation and stores its messages
#   PROFILE=/tmp/prof bash bench/turn_vs_nginx.sh   also records perf profiles of agentgate
#   PERF_STAT=/tmp/stat bash bench/turn_vs_nginx.sh  instead counts its task clock, context
#   switches and instructions during the same runs (perf stat; divide by the run's requests)
#   ALLOCATIONS=1 bash bench/turn_vs_nginx.sh   also counts malloc calls per turn and per gateway
#   call (one connection, a uprobe on glibc's malloc: perf, as root)
#   (PERF_CALLGRAPH=dwarf for whole stacks through code built without frame pointers)
#   COMMITS=1 bash bench/turn_vs_nginx.sh   also times the store's commit at one connection
#   (uprobes at SqliteStore::CommitTurns' entry and return) and counts pwrite calls per turn
#   TRACING=1.0 bash bench/turn_vs_nginx.sh  agentgate exports OpenTelemetry traces at that sample
#   ratio to the instant upstream (its `return 200` takes any POST, as a collector would); compare
#   the turn's ratio with a run without TRACING (docs/tracing.md)
#   TRACING_AB=1.0 bash bench/turn_vs_nginx.sh  tracing's cost where the host drifts: a second
#   agentgate tracing at that ratio beside one without, and SLICES (10) loaded slices of SLICE (3s)
#   alternating between them; prints on / off throughput and each one's CPU per turn
#   COUNTED=1 bash bench/turn_vs_nginx.sh  the same two turns counted rather than timed: a second
#   server of this build under valgrind's callgrind (handoff spin off: a spin counts waiting, not
#   work), 200 turns of each to warm it, then 300 plain and 300 streamed on one connection, each
#   batch's instructions dumped apart; the same on a noisy host as on a quiet one (COUNTED=a2a:
#   the keyed stateful invoke and an A2A SendMessage instead, a task each)
#   STREAMED_AB=1 bash bench/turn_vs_nginx.sh  the streamed turn against the plain one the same way:
#   alternating slices on one server
#   CHAT_AB=1 bash bench/turn_vs_nginx.sh  the same turn as an OpenAI chat completion (POST
#   /v1/chat/completions with an API key, docs/openai.md) against the invoke, the same way
#   A2A_AB=1 bash bench/turn_vs_nginx.sh  an A2A SendMessage (JSON-RPC, a new messageId each, so a
#   task each: a run with its conversation and key, docs/a2a.md) against the /api turn that does
#   the same work (stateful, a new Idempotency-Key each), the same way; A2A_AB=streamed against that
#   invoke streamed (a run, as each task is)
#   BINARY_AB=/tmp/agentgate-before bash bench/turn_vs_nginx.sh  a change's before and after the
#   same way: the plain turn on a second server running that binary (a copy of the build before
#   the change) against this build's, alternating slices; prints after / before
#   (BINARY_AB_STREAMED=1: the streamed turn instead)
#   TURN_ONLY=1 bash bench/turn_vs_nginx.sh  only the loaded turn and its baseline (with agentgate's
#   CPU time per turn under that load): quick runs to alternate, e.g. with and without TRACING
#   PHASES=1 bash bench/turn_vs_nginx.sh    also splits a one-connection turn's server time into
#   phases, from syscall tracepoints (bench/turn_phases.py)
#   STREAMED=1 bash bench/turn_vs_nginx.sh  also loads the same turn streamed (Accept:
#   text/event-stream: a run with its events, docs/runs.md) and prints it against the plain turn,
#   once from the instant upstream's JSON reply and once from the same upstream streaming the reply
#   as OpenAI does (a word a chunk, usage, [DONE]: the model's stream read and released as it comes)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/setup.sh "$@"
BIN=$(realpath "$BUILD/agentgate")
command -v nginx >/dev/null || /usr/sbin/nginx -v 2>/dev/null || bash scripts/install-deps.sh
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for n in upstream proxy; do
    [ -f "$work/$n.pid" ] && kill "$(cat "$work/$n.pid")" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
upstream=$(free_port)
proxy=$(free_port)
gate=$(free_port)

completion='{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-bench","choices":[{"index":0,"message":{"role":"assistant","content":"All good."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":4}}'
# The same reply as an OpenAI stream (STREAMED=1's streaming provider): a word a chunk, usage, [DONE]
# (the blank line that ends the last event is written in the upstream's config: $(...) drops it).
stream_completion=$(python3 -c '
import json
words = ("All good, streamed from the instant upstream a word at a time as a provider sends it, long "
         "enough that the safety hold-back releases some of it before the model has written the rest.").split(" ")
chunk = lambda delta: {"choices": [{"index": 0, "delta": delta}]}  # short: nginx bounds a return text
events = [chunk({"role": "assistant", "content": ""})]
events += [chunk({"content": w + ("" if i == len(words) - 1 else " ")}) for i, w in enumerate(words)]
events += [{"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 40}}]
print("".join("data: " + json.dumps(e, separators=(",", ":")) + "\n\n" for e in events) + "data: [DONE]")')
sobjects='{"encoding":"UTF-8","maxBatchSize":200,"sobjects":[{"name":"Account","custom":false},{"name":"Widget__c","custom":true}]}'
mkdir -p "$work/nginx"
own_process=$(free_port)
same_worker_upstream=$(free_port)
# nginx_conf NAME SERVERS: one single-worker nginx (its own pid file and temp paths).
nginx_conf() {
  cat >"$work/$1.conf" <<NGINX
pid $work/$1.pid;
error_log $work/nginx/$1.error.log;
worker_processes 1;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
$2
}
NGINX
  "$NGINX" -c "$work/$1.conf" -p "$work"
}
instant() {  # an instant upstream listening on $1: an LLM provider and a Salesforce instance
  echo "  server { listen 127.0.0.1:$1;
    location = /healthz { default_type application/json; return 200 '{\"status\":\"ok\"}'; }
    location /services/ { default_type application/json; return 200 '$sobjects'; }
    location /sse/ { default_type text/event-stream; return 200 '$stream_completion

'; }
    location / { default_type application/json; return 200 '$completion'; } }"
}
proxy_to() {  # a plain reverse proxy on $1 to upstream block $2
  echo "  server { listen 127.0.0.1:$1;
    location / { proxy_pass http://$2; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
}
nginx_conf upstream "$(instant "$upstream")"
nginx_conf proxy "  upstream llm { server 127.0.0.1:$upstream; keepalive 64; }
  upstream local_copy { server 127.0.0.1:$same_worker_upstream; keepalive 64; }
$(proxy_to "$own_process" llm)
$(instant "$same_worker_upstream")
$(proxy_to "$proxy" local_copy)"

cat >"$work/agentgate.toml" <<TOML
[[providers]]
name = "bench"
kind = "openai"
base_url = "http://127.0.0.1:$upstream/v1"
api_key_env = "BENCH_LLM_KEY"

[[providers]]
name = "bench-sse"
kind = "openai"
base_url = "http://127.0.0.1:$upstream/sse/v1"
api_key_env = "BENCH_LLM_KEY"

$([ -n "${TRACING:-}" ] && printf '[tracing]\nendpoint = "http://127.0.0.1:%s/v1/traces"\nsample_ratio = %s\n' "$upstream" "$TRACING")

[prices."bench/gpt-bench"]
input_per_mtok = 0.15
output_per_mtok = 0.60

[prices."bench-sse/gpt-bench"]
input_per_mtok = 0.15
output_per_mtok = 0.60
TOML
admin="bench-admin-$RANDOM$RANDOM$RANDOM"
# start_gate DIR PORT [VAR=value ...]: an agentgate on PORT with the config above (and the
# variables given), its SQLite store and log under DIR, set up as the bench needs: an organization
# and its token, the agents and their grants, a CRM session. Sets gate_pid and token.
start_gate() {
  local dir=$1 port=$2; shift 2
  mkdir -p "$dir/db"
  (cd "$work" && exec env "$@" BENCH_LLM_KEY=sk-bench AGENTGATE_CRM_ALLOW_HTTP=true \
    AGENTGATE_ADMIN_TOKEN=$admin AGENTGATE_MASTER_KEY=$("$BIN" gen-master-key) \
    AGENTGATE_SERVER_LISTEN=127.0.0.1:$port AGENTGATE_STORE_URL=sqlite:$dir/db/agentgate.db \
    "$BIN" serve --config "$work/agentgate.toml" >"$dir/server.log" 2>&1) &
  gate_pid=$!
  pids+=($gate_pid)
  wait_ready "http://127.0.0.1:$port/healthz" "$dir/server.log"
  api() { curl -sf -X "$1" "http://127.0.0.1:$port/admin/v1$2" -H "authorization: Bearer $admin" -d "$3"; }
  api POST /orgs '{"id":"acme","name":"Acme","monthly_spend_limit_usd":1000000}' >/dev/null
  api POST /orgs/acme/environments '{"name":"prod"}' >/dev/null
  local token_json token_id
  token_json=$(api POST /orgs/acme/tokens '{"name":"bench"}')
  token=$(echo "$token_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  token_id=$(echo "$token_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  api POST /orgs/acme/agents '{"id":"bench","config":{"name":"Bench","instructions":"Answer briefly.",
    "model":{"provider":"bench","name":"gpt-bench","max_output_tokens":256},"monthly_spend_limit_usd":1000000}}' >/dev/null
  api PUT /orgs/acme/agents/bench/deployments/prod '{"version":1}' >/dev/null
  api PUT /orgs/acme/grants "{\"token_id\":\"$token_id\",\"agent_id\":\"bench\",\"permissions\":[\"chat\"]}" >/dev/null
  # The same agent on a provider that streams (STREAMED=1).
  api POST /orgs/acme/agents '{"id":"bench-sse","config":{"name":"Bench","instructions":"Answer briefly.",
    "model":{"provider":"bench-sse","name":"gpt-bench","max_output_tokens":256},"monthly_spend_limit_usd":1000000}}' >/dev/null
  api PUT /orgs/acme/agents/bench-sse/deployments/prod '{"version":1}' >/dev/null
  api PUT /orgs/acme/grants "{\"token_id\":\"$token_id\",\"agent_id\":\"bench-sse\",\"permissions\":[\"chat\"]}" >/dev/null
  # The gateway's grant (a build from before grants has no such route and needs none: BINARY_AB).
  api PUT /orgs/acme/environments/prod/grants "{\"token_id\":\"$token_id\",\"permissions\":[\"metadata_read\"]}" >/dev/null || true
  api PUT /orgs/acme/environments/prod/crm \
    "{\"instance_url\":\"http://127.0.0.1:$upstream\",\"access_token\":\"00D000000000001!bench\"}" >/dev/null
}
start_gate "$work" "$gate"

cat >"$work/proxy.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"model":"gpt-bench","messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"hi"}]}'
wrk.headers["content-type"] = "application/json"
wrk.headers["authorization"] = "Bearer sk-bench"
LUA
case "${TURN:-stateless}" in
  stateless) invoke_body='{"message":"hi"}' ;;
  stateful) invoke_body='{"message":"hi","stateful":true}' ;;
  *) echo "TURN is stateless or stateful" >&2; exit 2 ;;
esac
# turn_script FILE TOKEN [ACCEPT]: a wrk script that runs one turn of the bench agent.
turn_script() {
  cat >"$1" <<LUA
wrk.method = "POST"
wrk.body = '$invoke_body'
wrk.headers["content-type"] = "application/json"
wrk.headers["fl-api-org"] = "acme"
wrk.headers["fl-api-env"] = "prod"
wrk.headers["fl-api-token"] = "$2"
LUA
  [ -z "${3:-}" ] || echo "wrk.headers[\"accept\"] = \"$3\"" >>"$1"
}
turn_script "$work/invoke.lua" "$token"
turn_script "$work/streamed.lua" "$token" text/event-stream
cat >"$work/chat.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"model":"bench","messages":[{"role":"user","content":"hi"}]}'
wrk.headers["content-type"] = "application/json"
wrk.headers["authorization"] = "Bearer agk_acme.prod.$token"
wrk.path = "/v1/chat/completions"  -- the slices' URL names the invoke's
LUA
# A2A_AB's pair: each request its own key, as each message is its own task. A2A_AB=streamed: the
# invoke streamed, a run as each A2A task is (what the A2A layer adds over the run it makes).
keyed_accept=""
[ "${A2A_AB:-}" != streamed ] || keyed_accept=', ["accept"] = "text/event-stream"'

# A key per request: the slice's start, the wrk thread, the request's number.
unique_lua='local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
local salt = tostring(os.time())'
cat >"$work/keyed.lua" <<LUA
$unique_lua
request = function()
  n = n + 1
  return wrk.format("POST", "/api/agents/bench/invoke", {["content-type"] = "application/json",
    ["fl-api-org"] = "acme", ["fl-api-env"] = "prod", ["fl-api-token"] = "$token",
    ["idempotency-key"] = "k" .. salt .. "-" .. tostring(tid) .. "-" .. n$keyed_accept}, '{"message":"hi","stateful":true}')
end
LUA
cat >"$work/a2a.lua" <<LUA
$unique_lua
request = function()
  n = n + 1
  return wrk.format("POST", "/a2a/acme/prod/bench/", {["content-type"] = "application/json",
    ["authorization"] = "Bearer agk_acme.prod.$token", ["a2a-version"] = "1.0"},
    '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m' ..
    salt .. '-' .. tostring(tid) .. '-' .. n .. '","role":"ROLE_USER","parts":[{"text":"hi"}]}}}')
end
LUA
cat >"$work/sobjects.lua" <<'LUA'
wrk.headers["authorization"] = "Bearer 00D000000000001!bench"
LUA
cat >"$work/gateway.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"method":"GET","path":"sobjects"}'
wrk.headers["content-type"] = "application/json"
wrk.headers["fl-api-org"] = "acme"
wrk.headers["fl-api-env"] = "prod"
wrk.headers["fl-api-token"] = "$token"
LUA
gw_check=$(curl -s "http://127.0.0.1:$gate/api/metadata-gateway" -H "content-type: application/json" \
  -H "fl-api-org: acme" -H "fl-api-env: prod" -H "fl-api-token: $token" -d '{"method":"GET","path":"sobjects"}')
echo "$gw_check" | grep -q '"ok":true' || { echo "the gateway did not answer: $gw_check"; exit 1; }
check=$(curl -s "http://127.0.0.1:$gate/api/agents/bench/invoke" -H "content-type: application/json" \
  -H "fl-api-org: acme" -H "fl-api-env: prod" -H "fl-api-token: $token" -d "$invoke_body")
echo "$check" | grep -q '"response":"All good."' || { echo "the turn did not answer: $check"; exit 1; }
chat_check=$(curl -s "http://127.0.0.1:$gate/v1/chat/completions" -H "content-type: application/json" \
  -H "authorization: Bearer agk_acme.prod.$token" -d '{"model":"bench","messages":[{"role":"user","content":"hi"}]}')
echo "$chat_check" | grep -q '"content":"All good."' || { echo "the chat completion did not answer: $chat_check"; exit 1; }

rps() { awk '/Requests\/sec/ {print $2}'; }
pct() { awk -v p="$1%" '$1 == p {print $2; exit}'; }
ms() {  # wrk latency (e.g. 95.00us, 1.20ms) in ms
  awk '{v=$1; if (v ~ /us$/) {sub(/us$/, "", v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)}
        else if (v ~ /s$/) {sub(/s$/, "", v); v*=1000}; printf "%.3f", v}'
}
load() { wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency -s "$1" "$2"; }
# PROFILE=dir records a perf profile of agentgate during each of its loaded runs (dir/NAME.perf).
# PERF_STAT=dir instead counts (perf stat: task clock, context switches, instructions) during them.
profiled() {
  local name=$1; shift
  if [ -n "${PERF_STAT:-}" ]; then
    mkdir -p "$PERF_STAT"
    perf stat -e task-clock,context-switches,cpu-migrations,instructions,cycles -p "$gate_pid" \
      -o "$PERF_STAT/$name.txt" -- sleep "${DURATION%s}" 2>/dev/null &
    load "$@"
    wait $!
    return
  fi
  if [ -z "${PROFILE:-}" ]; then load "$@"; return; fi
  mkdir -p "$PROFILE"
  perf record -F 999 --call-graph "${PERF_CALLGRAPH:-fp}" -p "$gate_pid" -o "$PROFILE/$name.perf" -- sleep "${DURATION%s}" 2>/dev/null &
  load "$@"
  wait $!
}
single() { wrk -t1 -c1 -d${C1_DURATION:-4s} --latency -s "$1" "$2"; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

# agentgate's CPU time (all its threads, from /proc: user + system ticks) per request of a run.
cpu_ticks() { awk '{print $14 + $15}' "/proc/${1:-$gate_pid}/stat"; }
cpu_per_request() {  # ticks spent, wrk's output
  awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v n="$(echo "$2" | awk '/requests in/ {print $1}')" \
    'BEGIN {printf "%.0f", t / hz * 1e6 / n}'
}

# slice PID SCRIPT PORT [AGENT]: one loaded slice of turns; prints its requests and PID's CPU ticks.
slice() {
  local before out
  before=$(cpu_ticks "$1")
  out=$(wrk -t$THREADS -c$CONNECTIONS -d${SLICE:-3s} -s "$2" "http://127.0.0.1:$3/api/agents/${4:-bench}/invoke")
  echo "$(echo "$out" | awk '/requests in/ {print $1}') $(($(cpu_ticks "$1") - before))"
}
# alternate NAME_A PID_A SCRIPT_A PORT_A NAME_B PID_B SCRIPT_B PORT_B: SLICES slices of each, ABBA,
# then B's throughput over A's with each one's CPU per turn.
alternate() {
  local a_n=0 a_t=0 b_n=0 b_t=0 ratios="" n1 t1 n2 t2 hz
  for i in $(seq "${SLICES:-10}"); do
    if [ $((i % 2)) -eq 1 ]; then
      read -r n1 t1 < <(slice "$2" "$3" "$4")
      read -r n2 t2 < <(slice "$6" "$7" "$8")
    else
      read -r n2 t2 < <(slice "$6" "$7" "$8")
      read -r n1 t1 < <(slice "$2" "$3" "$4")
    fi
    a_n=$((a_n + n1)); a_t=$((a_t + t1)); b_n=$((b_n + n2)); b_t=$((b_t + t2))
    ratios="$ratios $(ratio "$n2" "$n1")"
  done
  hz=$(getconf CLK_TCK)
  echo "$1: $a_n turns, agentgate CPU per turn $(awk -v t=$a_t -v h=$hz -v n=$a_n 'BEGIN {printf "%.0f", t / h * 1e6 / n}') us"
  echo "$5: $b_n turns, agentgate CPU per turn $(awk -v t=$b_t -v h=$hz -v n=$b_n 'BEGIN {printf "%.0f", t / h * 1e6 / n}') us"
  echo "throughput, $5 / $1: $(ratio "$b_n" "$a_n")x   (slices:$ratios; median $(echo "$ratios" | median)x)"
}
# ab_command MODE: the command line an A/B mode prints before its slices.
ab_command() {
  echo "command: $1 SLICES=${SLICES:-10} SLICE=${SLICE:-3s} bash bench/turn_vs_nginx.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS; $(nproc) cores)"
}
if [ -n "${COUNTED:-}" ]; then
  command -v callgrind_control >/dev/null || apt-get install -y -q valgrind >/dev/null
  cat >"$work/counted.sh" <<SH
#!/bin/sh
exec valgrind -q --tool=callgrind --callgrind-out-file=$work/counted.out $BIN "\$@"
SH
  chmod +x "$work/counted.sh"
  counted=$(free_port)
  BIN=$work/counted.sh start_gate "$work/counted" "$counted" AGENTGATE_SERVER_HANDOFF_SPIN_MICROSECONDS=0
  python3 - "$counted" "$token" "$gate_pid" "$COUNTED" <<'PY'
import http.client, json, subprocess, sys, time
port, token, pid, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
kinds = ("keyed", "a2a") if mode == "a2a" else ("plain", "streamed")
def turns(n, kind):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": token}
    for i in range(n):
        key = f"{kind}-{time.time_ns()}-{i}"  # a task, a run and a key each, as each message is
        if kind == "a2a":
            c.request("POST", "/a2a/acme/prod/bench/", json.dumps({"jsonrpc": "2.0", "id": 1,
                      "method": "SendMessage", "params": {"message": {"messageId": key,
                      "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}),
                      {"content-type": "application/json", "a2a-version": "1.0",
                       "authorization": "Bearer agk_acme.prod." + token})
        elif kind == "keyed":
            c.request("POST", "/api/agents/bench/invoke", '{"message":"hi","stateful":true}',
                      dict(h, **{"idempotency-key": key}))
        else:
            c.request("POST", "/api/agents/bench/invoke", '{"message":"hi"}',
                      dict(h, accept="text/event-stream") if kind == "streamed" else h)
        r = c.getresponse(); body = r.read()
        assert r.status == 200 and (b"run.completed" in body) == (kind == "streamed"), (r.status, body)
    c.close()
turns(200, kinds[0]); turns(200, kinds[1])
subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
turns(300, kinds[0])
subprocess.run(["callgrind_control", "-d", "first", pid], check=True, capture_output=True)
turns(300, kinds[1])
subprocess.run(["callgrind_control", "-d", "second", pid], check=True, capture_output=True)
PY
  per_turn() { awk '/^summary:/ {printf "%.0f", $2 / 300}' "$1"; }
  first=$(per_turn "$(grep -l '^desc: Trigger: .*first' "$work"/counted.out.*)")
  second=$(per_turn "$(grep -l '^desc: Trigger: .*second' "$work"/counted.out.*)")
  echo "command: COUNTED=$COUNTED bash bench/turn_vs_nginx.sh $BUILD  (callgrind; 300 turns of each on one connection)"
  if [ "$COUNTED" = a2a ]; then
    echo "instructions per turn: invoke (stateful, keyed) $first, A2A SendMessage $second; invoke / SendMessage: $(awk -v p="$first" -v s="$second" 'BEGIN {printf "%.3f", p / s}')"
  else
    echo "instructions per turn: plain $first, streamed $second; plain / streamed: $(awk -v p="$first" -v s="$second" 'BEGIN {printf "%.3f", p / s}')"
  fi
  exit 0
fi
if [ -n "${STREAMED_AB:-}" ]; then
  # The streamed turn against the plain one on the same server, in alternating slices.
  ab_command "STREAMED_AB=1"
  alternate "plain turn" "$gate_pid" "$work/invoke.lua" "$gate" "streamed turn" "$gate_pid" "$work/streamed.lua" "$gate"
  exit 0
fi
if [ -n "${CHAT_AB:-}" ]; then
  # The same turn through the OpenAI-compatible route against the invoke, on the same server.
  ab_command "CHAT_AB=1"
  alternate "invoke" "$gate_pid" "$work/invoke.lua" "$gate" "chat completion" "$gate_pid" "$work/chat.lua" "$gate"
  exit 0
fi
if [ -n "${A2A_AB:-}" ]; then
  # The same work through A2A against the invoke, on the same server.
  ab_command "A2A_AB=$A2A_AB"
  ab_label="invoke (stateful, keyed)"
  [ "$A2A_AB" != streamed ] || ab_label="invoke streamed (stateful, keyed: a run)"
  alternate "$ab_label" "$gate_pid" "$work/keyed.lua" "$gate" "A2A SendMessage" "$gate_pid" "$work/a2a.lua" "$gate"
  exit 0
fi
if [ -n "${TRACING_AB:-}" ]; then
  # Tracing's cost where this host's speed drifts by more than the cost itself: a second server,
  # the same but tracing at ratio $TRACING_AB, and short loaded slices alternating between the two
  # (ABBA, so that a drift favours neither). The figure is the traced server's turns over the
  # other's, with each one's CPU per turn.
  plain_pid=$gate_pid
  traced=$(free_port)
  start_gate "$work/traced" "$traced" AGENTGATE_TRACING_ENDPOINT="http://127.0.0.1:$upstream/v1/traces" \
    AGENTGATE_TRACING_SAMPLE_RATIO="$TRACING_AB"
  traced_pid=$gate_pid
  turn_script "$work/traced.lua" "$token"
  ab_command "TRACING_AB=$TRACING_AB"
  alternate "tracing off" "$plain_pid" "$work/invoke.lua" "$gate" "tracing at $TRACING_AB" "$traced_pid" "$work/traced.lua" "$traced"
  exit 0
fi
if [ -n "${BINARY_AB:-}" ]; then
  # A hot-path change's effect where the host drifts by more than the effect: the build before
  # the change on a second server, the same in everything else, in alternating slices.
  after_pid=$gate_pid
  after_script=$work/invoke.lua
  [ -z "${BINARY_AB_STREAMED:-}" ] || after_script=$work/streamed.lua
  before=$(free_port)
  BIN=$BINARY_AB start_gate "$work/before" "$before"
  before_pid=$gate_pid
  turn_script "$work/before.lua" "$token" ${BINARY_AB_STREAMED:+text/event-stream}
  ab_command "BINARY_AB=$BINARY_AB BINARY_AB_STREAMED=${BINARY_AB_STREAMED:-}"
  alternate "before ($BINARY_AB)" "$before_pid" "$work/before.lua" "$before" "after ($BIN)" "$after_pid" "$after_script" "$gate"
  exit 0
fi
base=$(load "$work/proxy.lua" "http://127.0.0.1:$proxy/v1/chat/completions")
base_own=$(load "$work/proxy.lua" "http://127.0.0.1:$own_process/v1/chat/completions")
ticks=$(cpu_ticks)
turn=$(profiled turn "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke")
loaded_cpu=$(cpu_per_request $(($(cpu_ticks) - ticks)) "$turn")
if [ -n "${TURN_ONLY:-}" ]; then  # the loaded turn alone: quick runs to alternate (tracing's cost)
  b=$(echo "$base" | rps); t=$(echo "$turn" | rps)
  echo "command: TURN_ONLY=1 TRACING=${TRACING:-} bash bench/turn_vs_nginx.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS -d$DURATION; $(nproc) cores)"
  echo "nginx proxy_pass to the instant upstream (a copy in its worker): $b req/s   (baseline)"
  echo "agentgate ${TURN:-stateless} turn, same upstream:  $t req/s   ratio: $(ratio "$t" "$b")x   agentgate CPU per turn: $loaded_cpu us"
  exit 0
fi
# One connection: latency is noisy on a shared machine, so C1_ROUNDS alternating runs of each and
# their medians (p50, and p99: a turn that waits on the store's checkpoint shows there), and
# agentgate's CPU time per turn there.
b50s=""; t50s=""; b99s=""; t99s=""; s50s=""; cpus=""
for _ in $(seq "${C1_ROUNDS:-3}"); do
  out=$(single "$work/proxy.lua" "http://127.0.0.1:$proxy/v1/chat/completions")
  b50s="$b50s $(echo "$out" | pct 50 | ms)"; b99s="$b99s $(echo "$out" | pct 99 | ms)"
  out=$(single "$work/proxy.lua" "http://127.0.0.1:$own_process/v1/chat/completions")
  s50s="$s50s $(echo "$out" | pct 50 | ms)"
  ticks=$(cpu_ticks)
  out=$(single "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke")
  t50s="$t50s $(echo "$out" | pct 50 | ms)"; t99s="$t99s $(echo "$out" | pct 99 | ms)"
  cpus="$cpus $(cpu_per_request $(($(cpu_ticks) - ticks)) "$out")"
done

# The HTTP layer alone: a GET answered from memory by each (nginx `return 200` in the upstream's
# process, agentgate's /healthz).
hbase=$(wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency "http://127.0.0.1:$upstream/healthz")
health=$(wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency "http://127.0.0.1:$gate/healthz")

gbase=$(load "$work/sobjects.lua" "http://127.0.0.1:$proxy/services/data/v64.0/sobjects")
gbase_own=$(load "$work/sobjects.lua" "http://127.0.0.1:$own_process/services/data/v64.0/sobjects")
gate_run=$(profiled gateway "$work/gateway.lua" "http://127.0.0.1:$gate/api/metadata-gateway")

b=$(echo "$base" | rps); t=$(echo "$turn" | rps)
gb=$(echo "$gbase" | rps); g=$(echo "$gate_run" | rps)
b50=$(echo "$b50s" | median); t50=$(echo "$t50s" | median); s50=$(echo "$s50s" | median)
bs=$(echo "$base_own" | rps); gbs=$(echo "$gbase_own" | rps)
b99=$(echo "$b99s" | median); t99=$(echo "$t99s" | median)
echo "command: TURN=${TURN:-stateless} bash bench/turn_vs_nginx.sh $BUILD  (wrk -t$THREADS -c$CONNECTIONS -d$DURATION; c1: ${C1_ROUNDS:-3} alternating runs of -t1 -c1 -d${C1_DURATION:-4s}; $(nproc) cores)"
echo "nginx proxy_pass to the instant upstream (a copy in its worker): $b req/s, p99 $(echo "$base" | pct 99)   (baseline)"
echo "agentgate ${TURN:-stateless} turn, same upstream:  $t req/s, p99 $(echo "$turn" | pct 99)   ratio: $(ratio "$t" "$b")x   agentgate CPU per turn: $loaded_cpu us"
echo "c1 p50 (median of runs): nginx $b50 ms, agentgate $t50 ms, added $(awk -v a="$t50" -v b="$b50" 'BEGIN {printf "%.3f", a-b}') ms   (runs: nginx$b50s; agentgate$t50s)"
echo "  against nginx proxying from a process of its own to the upstream's: $bs req/s (turn ratio $(ratio "$t" "$bs")x), c1 p50 $s50 ms (added $(awk -v a="$t50" -v b="$s50" 'BEGIN {printf "%.3f", a-b}') ms; runs:$s50s)"
echo "c1 p99 (median of runs): nginx $b99 ms, agentgate $t99 ms   (runs: nginx$b99s; agentgate$t99s)"
echo "c1 agentgate CPU per turn (median of runs): $(echo "$cpus" | median) us   (runs:$cpus)"
echo "nginx proxy_pass GET sobjects:            $gb req/s, p99 $(echo "$gbase" | pct 99)   (baseline)"
echo "agentgate gateway GET sobjects, cached:   $g req/s, p99 $(echo "$gate_run" | pct 99)   ratio: $(ratio "$g" "$gb")x"
echo "  against nginx proxying from a process of its own to the upstream's: $gbs req/s (ratio $(ratio "$g" "$gbs")x)"
hb=$(echo "$hbase" | rps); h=$(echo "$health" | rps)
echo "nginx return 200 (GET):                   $hb req/s, p99 $(echo "$hbase" | pct 99)   (baseline)"
echo "agentgate GET /healthz:                   $h req/s, p99 $(echo "$health" | pct 99)   ratio: $(ratio "$h" "$hb")x"
if [ -n "${STREAMED:-}" ]; then
  streamed_check=$(curl -sN "http://127.0.0.1:$gate/api/agents/bench/invoke" -H "content-type: application/json" \
    -H "accept: text/event-stream" -H "fl-api-org: acme" -H "fl-api-env: prod" -H "fl-api-token: $token" -d "$invoke_body")
  echo "$streamed_check" | grep -q '^event: run.completed' || { echo "the streamed turn did not end: $streamed_check"; exit 1; }
  sse_check=$(curl -sN "http://127.0.0.1:$gate/api/agents/bench-sse/invoke" -H "content-type: application/json" \
    -H "accept: text/event-stream" -H "fl-api-org: acme" -H "fl-api-env: prod" -H "fl-api-token: $token" -d "$invoke_body")
  echo "$sse_check" | grep -q 'has written the rest.","blocked":false' ||
    { echo "the turn streamed from the streaming provider did not end: $sse_check"; exit 1; }
  ticks=$(cpu_ticks)
  plain=$(load "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke")
  plain_cpu=$(cpu_per_request $(($(cpu_ticks) - ticks)) "$plain")
  ticks=$(cpu_ticks)
  streamed=$(profiled streamed "$work/streamed.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke")
  streamed_cpu=$(cpu_per_request $(($(cpu_ticks) - ticks)) "$streamed")
  from_stream=$(profiled streamed_sse "$work/streamed.lua" "http://127.0.0.1:$gate/api/agents/bench-sse/invoke")
  p=$(echo "$plain" | rps); st=$(echo "$streamed" | rps); fs=$(echo "$from_stream" | rps)
  echo "agentgate ${TURN:-stateless} turn again (plain):  $p req/s, p99 $(echo "$plain" | pct 99)   agentgate CPU per turn: $plain_cpu us"
  echo "agentgate ${TURN:-stateless} turn streamed:       $st req/s, p99 $(echo "$streamed" | pct 99)   ratio to plain: $(ratio "$st" "$p")x, to nginx: $(ratio "$st" "$b")x   agentgate CPU per turn: $streamed_cpu us"
  echo "  the same streamed from a streaming provider (a word a chunk): $fs req/s, p99 $(echo "$from_stream" | pct 99)   ratio to plain: $(ratio "$fs" "$p")x"
fi
echo "non-2xx answers: turn run $(echo "$turn" | awk '/Non-2xx/ {print $NF}' | grep . || echo 0), gateway run $(echo "$gate_run" | awk '/Non-2xx/ {print $NF}' | grep . || echo 0)"

# Allocations are counted, not timed: the same on a quiet machine as on a noisy one.
if [ -n "${ALLOCATIONS:-}" ]; then
  libc=$(ldd "$BIN" | awk '/libc\.so/ {print $3}')
  perf probe -q -x "$libc" malloc 2>/dev/null || true
  mallocs_per() {  # lua, url
    perf stat -e probe_libc:malloc -p "$gate_pid" -o "$work/mallocs.txt" -- sleep 3 2>/dev/null &
    local out reqs
    out=$(wrk -t1 -c1 -d3s -s "$1" "$2")
    wait $!
    reqs=$(echo "$out" | awk '/requests in/ {print $1}')
    awk -v r="$reqs" '/probe_libc:malloc/ {gsub(",", "", $1); printf "%.1f", $1 / r}' "$work/mallocs.txt"
  }
  echo "mallocs per request (one connection): turn $(mallocs_per "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke"), gateway call $(mallocs_per "$work/gateway.lua" "http://127.0.0.1:$gate/api/metadata-gateway")"
fi

# The store's commit at one connection: its duration (uprobes at the entry and return of
# SqliteStore::CommitTurns, which add a few µs of their own) and pwrite calls per turn (WAL frames:
# a count, the same on a quiet machine as on a noisy one).
if [ -n "${COMMITS:-}" ]; then
  commit_symbol=$(nm "$BIN" | awk '!found && $2 == "T" && $3 ~ /^_ZN9agentgate11SqliteStore11CommitTurns/ {print $3; found = 1}')
  perf probe -q -d 'probe_agentgate:*' 2>/dev/null || true
  perf probe -q -x "$BIN" --no-demangle -a "commit_in=$commit_symbol"
  perf probe -q -x "$BIN" --no-demangle -a "commit_out=$commit_symbol%return"
  perf record -q -e probe_agentgate:commit_in -e probe_agentgate:commit_out__return \
    -e syscalls:sys_enter_pwrite64 -p "$gate_pid" -o "$work/commits.data" -- sleep 3 2>/dev/null &
  out=$(wrk -t1 -c1 -d3s -s "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke")
  wait $!
  perf probe -q -d 'probe_agentgate:*' 2>/dev/null || true
  perf script -i "$work/commits.data" -F time,event 2>/dev/null | python3 -c '
import sys
turns = int(sys.argv[1])
durations, began, pwrites = [], None, 0
for line in sys.stdin:
    at, event = line.split()[:2]
    if "pwrite64" in event:
        pwrites += 1
    elif "commit_in" in event:
        began = float(at.rstrip(":"))
    elif began is not None:
        durations.append((float(at.rstrip(":")) - began) * 1e6)
        began = None
durations.sort()
n = len(durations)
print("store commit (one connection): %d commits, median %.0f us, p90 %.0f us; pwrite calls per turn %.1f"
      % (n, durations[n // 2], durations[int(n * 0.9)], pwrites / turns))' \
    "$(echo "$out" | awk '/requests in/ {print $1}')"
fi

if [ -n "${PHASES:-}" ]; then
  traced=""
  for call in recvmsg sendmsg fcntl futex; do
    traced="$traced -e syscalls:sys_enter_$call -e syscalls:sys_exit_$call"
  done
  # shellcheck disable=SC2086
  perf record -q $traced -p "$gate_pid" -o "$work/phases.data" -- sleep 3 2>/dev/null &
  wrk -t1 -c1 -d3s -s "$work/invoke.lua" "http://127.0.0.1:$gate/api/agents/bench/invoke" >/dev/null
  wait $!
  perf script -i "$work/phases.data" -F comm,tid,time,event,trace 2>/dev/null >"$work/phases.txt"
  python3 bench/turn_phases.py "$work/phases.txt"
fi
