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
