#!/usr/bin/env bash
# Installs the Debian 12 packages agentgate builds and tests with, and the console's pinned npm
# files; a no-op when all are present.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache make pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libssl-dev libsqlite3-dev libpq-dev libtomlplusplus-dev libre2-dev libpugixml-dev
  libc-ares-dev
  libprotobuf-dev protobuf-compiler libdeflate-dev  # OTLP trace export (adapters/otlp)
  libgtest-dev libgmock-dev libbenchmark-dev
  json-schema-test-suite  # the output validator's conformance cases (domain/schema)
  python3 python3-pytest python3-pytest-xdist curl ca-certificates openssl clang-format
  postgresql nginx
  chromium chromium-driver python3-selenium  # the console's browser tests
)

# The Apex parse check runs on Node.js; a machine that already has node and npm keeps its own.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
install_missing() {
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # Packages with a daemon (postgresql, nginx) must not start it: the tests start their own
  # instances, and nginx would fail to install where port 80 is taken. policy-rc.d says so to dpkg.
  local policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap "$sudo rm -f $policy" EXIT
  fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
[ ${#missing[@]} -eq 0 ] || install_missing

# The console's pinned npm files: the build embeds them and fetches nothing itself.
bash "$(dirname "$0")/fetch-console-assets.sh"
