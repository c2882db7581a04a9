#!/usr/bin/env bash
# Starts the local PostgreSQL cluster the tests use and creates the agentgate role and database.
# Prints the connection URL. Idempotent; needs root (CI and the project's machines run as root).
set -euo pipefail
command -v pg_lsclusters >/dev/null || { echo "postgresql is not installed (scripts/install-deps.sh)" >&2; exit 1; }
version=$(pg_lsclusters --no-header | awk 'NR==1 {print $1}')
cluster=$(pg_lsclusters --no-header | awk 'NR==1 {print $2}')
if ! pg_lsclusters --no-header | awk 'NR==1 {print $4}' | grep -q online; then
  # Its notes ("Removed stale pid file.") go to stderr: stdout is only the URL.
  pg_ctlcluster "$version" "$cluster" start >&2
fi
port=$(pg_lsclusters --no-header | awk 'NR==1 {print $3}')
as_postgres() { su postgres -c "$1" >/dev/null; }
as_postgres "psql -p $port -tAc \"SELECT 1 FROM pg_roles WHERE rolname='agentgate'\" | grep -q 1 || psql -p $port -c \"CREATE ROLE agentgate LOGIN PASSWORD 'agentgate'\""
as_postgres "psql -p $port -tAc \"SELECT 1 FROM pg_database WHERE datname='agentgate_test'\" | grep -q 1 || createdb -p $port -O agentgate agentgate_test"
echo "postgresql://agentgate:agentgate@127.0.0.1:$port/agentgate_test"
