#!/bin/bash
# ORDER BY … LIMIT and min/max through an index, side by side (docs/benchmarks.md).
# usage: bench/index_order.sh PORT [PORT…]   (each a server with user postgres, db postgres)
set -u
setup="DROP TABLE IF EXISTS big; CREATE TABLE big (id int PRIMARY KEY, v int);
INSERT INTO big SELECT g, (g::int8 * 7919 % 1000003)::int FROM generate_series(1, 1000000) g;
CREATE INDEX big_v ON big (v); ANALYZE big;"
queries=("SELECT * FROM big ORDER BY id DESC LIMIT 10"
  "SELECT * FROM big WHERE id > 500000 ORDER BY id LIMIT 20"
  "SELECT max(id) FROM big"
  "SELECT min(v) FROM big")
for port in "$@"; do psql -h 127.0.0.1 -p "$port" -U postgres -X -q -c "$setup" >/dev/null; done
script=$(mktemp)
for q in "${queries[@]}"; do
  echo "$q;" > "$script"
  line="$q |"
  for port in "$@"; do
    lat=$(pgbench -h 127.0.0.1 -p "$port" -U postgres -n -f "$script" -t 40 -c 1 postgres 2>/dev/null |
      awk '/latency average/ {print $4}')
    line="$line $port: ${lat} ms |"
  done
  echo "$line"
done
rm -f "$script"
for port in "$@"; do psql -h 127.0.0.1 -p "$port" -U postgres -X -q -c "DROP TABLE big" >/dev/null; done
