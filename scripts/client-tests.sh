#!/usr/bin/env bash
# Runs kiln against real client drivers, each installed from its registry:
# psycopg2, psycopg 3 and asyncpg (PyPI), node-postgres (npm), pgJDBC (Maven Central).
# Starts a release kiln on a free loopback port and stops it (by PID) on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/target/clients"
mkdir -p "$OUT"

cargo build --release -q
# The binary where cargo put it (CARGO_TARGET_DIR when set).
KILN="${CARGO_TARGET_DIR:-$ROOT/target}/release/kiln"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$KILN" --port "$PORT" >"$OUT/kiln.log" 2>&1 &
KILN_PID=$!
trap 'kill "$KILN_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break
  sleep 0.05
done

status=0

echo "== Python: psycopg2, psycopg 3, asyncpg"
[ -x "$OUT/venv/bin/python" ] || python3 -m venv "$OUT/venv"
"$OUT/venv/bin/pip" install -q -r tests/clients/requirements.txt
"$OUT/venv/bin/python" tests/clients/python_clients.py 127.0.0.1 "$PORT" || status=1

echo "== Node.js: node-postgres"
mkdir -p "$OUT/node"
cp tests/clients/package.json tests/clients/node_pg.js "$OUT/node/"
(cd "$OUT/node" && npm install --silent --no-audit --no-fund >/dev/null && node node_pg.js 127.0.0.1 "$PORT") || status=1

echo "== Java: pgJDBC"
JDBC_VERSION=42.7.4
JAR="$HOME/.m2/repository/org/postgresql/postgresql/$JDBC_VERSION/postgresql-$JDBC_VERSION.jar"
[ -f "$JAR" ] || mvn -q dependency:get -Dartifact="org.postgresql:postgresql:$JDBC_VERSION" >/dev/null
java -cp "$JAR" tests/clients/Jdbc.java 127.0.0.1 "$PORT" || status=1
echo "== Java: pgJDBC from a JVM in America/New_York (its zone is sent at connect)"
java -Duser.timezone=America/New_York -cp "$JAR" tests/clients/Jdbc.java 127.0.0.1 "$PORT" || status=1

echo "== pgbench: -i (client-side generation by COPY, VACUUM), then TPC-B and select-only runs"
PGBENCH=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)
if [ -x "$PGBENCH" ] && command -v psql >/dev/null; then
  BENCH_DSN="host=127.0.0.1 port=$PORT user=kiln dbname=pgbench_ci"
  psql -X -q -d "host=127.0.0.1 port=$PORT user=kiln dbname=postgres" -c "CREATE DATABASE pgbench_ci"
  if "$PGBENCH" -i -s 2 -q "$BENCH_DSN" >"$OUT/pgbench-init.log" 2>&1 \
    && "$PGBENCH" -S -c 4 -j 2 -t 500 "$BENCH_DSN" >"$OUT/pgbench-select.log" 2>&1 \
    && "$PGBENCH" -c 4 -j 2 -t 200 "$BENCH_DSN" >"$OUT/pgbench-tpcb.log" 2>&1 \
    && "$PGBENCH" -n -c 4 -j 2 -t 200 -M prepared "$BENCH_DSN" >>"$OUT/pgbench-tpcb.log" 2>&1; then
    # Every transaction moved money by one delta: the three balances and the history
    # agree, and all 2 × 4 × 200 TPC-B transactions are in the history (the first
    # TPC-B run's VACUUM empties it; the second, -n, keeps it).
    got=$(psql -X -At -d "$BENCH_DSN" -c "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history) AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(delta) FROM pgbench_history) AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(delta) FROM pgbench_history), (SELECT count(*) FROM pgbench_history), (SELECT count(*) FROM pgbench_accounts)")
    if [ "$got" = "t|1600|200000" ]; then
      echo "ok     pgbench -i -s 2; TPC-B simple and prepared, select-only; balances agree"
    else
      echo "FAILED pgbench balances/counts: $got"; status=1
    fi
    if grep -q "number of failed transactions: [1-9]" "$OUT"/pgbench-*.log; then
      echo "FAILED pgbench reported failed transactions"; status=1
    fi
  else
    echo "FAILED pgbench:"; tail -5 "$OUT"/pgbench-*.log; status=1
  fi
else
  echo "pgbench not installed; skipped"
fi

echo "== psql: TLS (sslmode=verify-full) and SCRAM-SHA-256 passwords"
if command -v psql >/dev/null; then
  TPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "tls and scram" > "$OUT/password"
  "$KILN" --port "$TPORT" --auth scram-sha-256 --superuser admin \
    --password-file "$OUT/password" --tls-cert tests/tls/server.crt --tls-key tests/tls/server.key \
    >"$OUT/kiln-tls.log" 2>&1 &
  TLS_PID=$!
  trap 'kill "$KILN_PID" "$TLS_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $TPORT), 1)" 2>/dev/null && break
    sleep 0.05
  done
  DSN="host=localhost port=$TPORT user=admin dbname=postgres sslmode=verify-full sslrootcert=tests/tls/server.crt"
  got=$(PGPASSWORD="tls and scram" psql -X -At -d "$DSN" -c "SHOW ssl" 2>&1 || true)
  if [ "$got" = "on" ]; then echo "ok     right password over verified TLS"; else echo "FAILED right password over TLS: $got"; status=1; fi
  got=$(PGPASSWORD="wrong" psql -X -At -d "$DSN" -c "SELECT 1" 2>&1 || true)
  case "$got" in
    *'password authentication failed for user "admin"'*) echo "ok     wrong password: 28P01" ;;
    *) echo "FAILED wrong password: $got"; status=1 ;;
  esac
  # channel_binding=require: libpq accepts only SCRAM-SHA-256-PLUS bound to the
  # certificate it verified (a server that offered no binding, or checked none, fails).
  got=$(PGPASSWORD="tls and scram" psql -X -At -d "$DSN channel_binding=require" -c "SELECT 'bound'" 2>&1 || true)
  if [ "$got" = "bound" ]; then echo "ok     SCRAM-SHA-256-PLUS with channel binding"; else echo "FAILED channel binding: $got"; status=1; fi
  got=$(PGPASSWORD="tls and scram" psql -X -At -d "$DSN sslmode=disable" -c "SELECT 'plain'" 2>&1 || true)
  if [ "$got" = "plain" ]; then echo "ok     the same server without TLS when the client does not ask"; else echo "FAILED plain: $got"; status=1; fi
else
  echo "psql not installed; skipped"
fi

exit $status
