#!/usr/bin/env bash
# pgbench A/B of two kiln binaries, alternating: scale 10, 8 clients, 2 threads.
#
#   bench/pgbench_ab.sh BEFORE_BINARY AFTER_BINARY [seconds per run] [repetitions]
set -euo pipefail
BEFORE=$1
AFTER=$2
SECS=${3:-8}
REPS=${4:-2}
"$BEFORE" --port 5445 > /dev/null 2>&1 &
B=$!
"$AFTER" --port 5446 > /dev/null 2>&1 &
A=$!
trap 'kill $A $B 2>/dev/null || true' EXIT
sleep 1
for p in 5445 5446; do
  pgbench -h 127.0.0.1 -p $p -U postgres -i -I dtGvp -s 10 postgres > /dev/null 2>&1
done
for rep in $(seq "$REPS"); do
  for mode in tpcb prepared select; do
    case $mode in tpcb) opt="";; prepared) opt="-M prepared";; select) opt="-S";; esac
    b=$(pgbench -h 127.0.0.1 -p 5445 -U postgres -c 8 -j 2 -T "$SECS" $opt postgres 2>&1 | awk '/^tps/ {print $3}')
    a=$(pgbench -h 127.0.0.1 -p 5446 -U postgres -c 8 -j 2 -T "$SECS" $opt postgres 2>&1 | awk '/^tps/ {print $3}')
    echo "rep $rep $mode: before $b tps, after $a tps"
  done
done
