#!/usr/bin/env bash
# pgbench side by side: kiln (release, a fresh process on KILN_PORT) against a running
# PostgreSQL 15 (PG_DSN options; synchronous_commit=off for the runs), scale 10,
# 8 clients, 2 threads, 15 s per run, three repetitions interleaved.
#
#   bench/pgbench.sh                          # PostgreSQL at 127.0.0.1:5432, user postgres, db pgb
#   PG_PORT=5432 PG_DB=pgb KILN_PORT=5444 bench/pgbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KILN_PORT=${KILN_PORT:-5444}
PG_PORT=${PG_PORT:-5432}
PG_DB=${PG_DB:-pgb}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}
cargo build --release -q
./target/release/kiln --port "$KILN_PORT" > /dev/null 2>&1 &
KPID=$!
trap 'kill $KPID 2>/dev/null || true' EXIT
sleep 1
pgbench -h 127.0.0.1 -p "$KILN_PORT" -U postgres -i -I dtGvp -s 10 postgres > /dev/null 2>&1
pgbench -h 127.0.0.1 -p "$PG_PORT" -U postgres -i -I dtGvp -s 10 "$PG_DB" > /dev/null 2>&1
for rep in 1 2 3; do
  for mode in tpcb prepared select; do
    case $mode in tpcb) opt="";; prepared) opt="-M prepared";; select) opt="-S";; esac
    k=$(pgbench -h 127.0.0.1 -p "$KILN_PORT" -U postgres -c 8 -j 2 -T "$SECONDS_PER_RUN" $opt postgres 2>&1 | grep -E '^tps' | awk '{print $3}')
    p=$(PGOPTIONS="-c synchronous_commit=off" pgbench -h 127.0.0.1 -p "$PG_PORT" -U postgres -c 8 -j 2 -T "$SECONDS_PER_RUN" $opt "$PG_DB" 2>&1 | grep -E '^tps' | awk '{print $3}')
    echo "rep $rep $mode: kiln $k tps, postgres $p tps"
  done
done
echo "balances (accounts, tellers, branches):"
psql -X -h 127.0.0.1 -p "$KILN_PORT" -U postgres -d postgres -Atc \
  "select (select sum(abalance) from pgbench_accounts), (select sum(tbalance) from pgbench_tellers), (select sum(bbalance) from pgbench_branches)"
grep VmRSS /proc/$KPID/status
