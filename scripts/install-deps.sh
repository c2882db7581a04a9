#!/usr/bin/env bash
# Installs the Debian 12 packages agentgate builds and tests with; a no-op when all are present.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache make pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libssl-dev libsqlite3-dev libpq-dev libtomlplusplus-dev libre2-dev libpugixml-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-pytest curl ca-certificates openssl clang-format
  postgresql
)

# The Apex parse check runs on Node.js; a machine that already has node and npm keeps its own.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
