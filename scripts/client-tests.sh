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
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
./target/release/kiln --port "$PORT" >"$OUT/kiln.log" 2>&1 &
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

exit $status
