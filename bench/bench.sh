#!/usr/bin/env bash
# Builds kiln (release), starts it and a throwaway PostgreSQL 15 on loopback, and runs
# bench/run.py against both. Extra arguments go to run.py (e.g. --reps 7 --only order_by).
set -euo pipefail
cd "$(dirname "$0")/.."
# `bench/bench.sh --tpch [options]`: TPC-H instead (bench/tpch/run.py starts its own servers).
if [ "${1:-}" = --tpch ]; then shift; cargo build --release -q; exec python3 bench/tpch/run.py --kiln-bin ./target/release/kiln "$@"; fi
source scripts/pg-temp.sh

cargo build --release -q
WORK=$(mktemp -d /tmp/kiln-bench.XXXXXX)
KPORT=$(free_port)
./target/release/kiln --port "$KPORT" >"$WORK/kiln.log" 2>&1 &
KPID=$!
cleanup() {
  kill "$KPID" 2>/dev/null || true
  pg_temp_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

# PostgreSQL with its packaged defaults, except that it listens on loopback only.
pg_temp_start "$WORK"
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null
for _ in $(seq 50); do psql -X -q -h 127.0.0.1 -p "$KPORT" -U bench -d bench -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done

python3 bench/run.py --kiln "host=127.0.0.1 port=$KPORT user=bench dbname=bench" \
  --pg "host=127.0.0.1 port=$PG_PORT user=postgres dbname=bench" "$@"
