#!/usr/bin/env bash
# Builds kiln (release), starts it and a throwaway PostgreSQL 15 on loopback, and runs
# bench/run.py against both. Extra arguments go to run.py (e.g. --reps 7 --only order_by).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q
PGBIN=/usr/lib/postgresql/15/bin
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
KPORT=$(free_port)
PPORT=$(free_port)
WORK=$(mktemp -d /tmp/kiln-bench.XXXXXX)
RUN_AS=()
OWNER=$(id -un)
if [ "$(id -u)" = 0 ]; then
  id kiln_pg >/dev/null 2>&1 || useradd --system --no-create-home kiln_pg
  RUN_AS=(runuser -u kiln_pg --)
  OWNER=kiln_pg
fi
chown "$OWNER" "$WORK"

./target/release/kiln --port "$KPORT" >"$WORK/kiln.log" 2>&1 &
KPID=$!
cleanup() {
  kill "$KPID" 2>/dev/null || true
  "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# PostgreSQL with its packaged defaults, except that it listens on loopback only.
"${RUN_AS[@]}" "$PGBIN/initdb" -D "$WORK/data" -A trust -U postgres >/dev/null
"${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -w -l "$WORK/pg.log" \
  -o "-p $PPORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
psql -X -q -h 127.0.0.1 -p "$PPORT" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null
for _ in $(seq 50); do psql -X -q -h 127.0.0.1 -p "$KPORT" -U bench -d bench -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done

python3 bench/run.py --kiln "host=127.0.0.1 port=$KPORT user=bench dbname=bench" \
  --pg "host=127.0.0.1 port=$PPORT user=postgres dbname=bench" "$@"
