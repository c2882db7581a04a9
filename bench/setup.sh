# Sourced by the bench scripts: the load generator, the release build, and wrk's settings.
# Usage: source bench/setup.sh [build-dir]   (from the repository root)
BUILD=${1:-build-release}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}

command -v wrk >/dev/null || { apt-get install -y -qq wrk >/dev/null; }
if [ ! -x "$BUILD/agentgate" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
fi

# demo_turn_script FILE TOKEN: a wrk script that runs one stateless turn of the demo agent.
demo_turn_script() {
  cat >"$1" <<LUA
wrk.method = "POST"
wrk.body = '{"message":"hi"}'
wrk.headers["content-type"] = "application/json"
wrk.headers["fl-api-org"] = "demo"
wrk.headers["fl-api-env"] = "dev"
wrk.headers["fl-api-token"] = "$2"
LUA
}

# free_port: a TCP port nothing listens on now (a random one may be taken: the server would not
# start and the bench would wait for it).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_ready URL LOG [any]: waits up to 30 s for URL to answer 2xx (with "any", any HTTP answer:
# a balancer before its servers). If it does not, prints the end of LOG and fails, instead of
# waiting forever.
wait_ready() {
  local flags=-sf
  [ "${3:-}" = any ] && flags=-s
  local until=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$until" ]; do
    curl $flags --max-time 1 -o /dev/null "$1" && return 0
    sleep 0.01
  done
  echo "no answer from $1 within 30 s; the end of $2:" >&2
  tail -n 20 "$2" >&2
  return 1
}
