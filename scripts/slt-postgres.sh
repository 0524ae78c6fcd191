#!/usr/bin/env bash
# Runs tests/slt/**/*.slt, tests/concurrency.rs and tests/copy.rs against a throwaway PostgreSQL 15
# instead of kiln.
#
#   scripts/slt-postgres.sh            start a temporary server on loopback, run, stop it
#   KILN_SLT_URL="host=… port=… user=…" cargo test --test slt   (an existing server)
#
# The server (see scripts/pg-temp.sh) listens on 127.0.0.1 only, on a free port, and is
# stopped when the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pg-temp.sh

if [ ! -x "$PGBIN/initdb" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15) >/dev/null 2>&1 || true
  fi
fi
if [ ! -x "$PGBIN/initdb" ]; then
  echo "slt-postgres: PostgreSQL 15 is not installed and could not be installed; skipping the oracle run"
  exit 0
fi

WORK=$(mktemp -d /tmp/kiln-pg.XXXXXX)
cleanup() {
  pg_temp_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

pg_temp_start "$WORK" fsync=off TimeZone=UTC
KILN_SLT_URL="host=127.0.0.1 port=$PG_PORT user=postgres" cargo test --test slt
echo "slt-postgres: every .slt file gave PostgreSQL 15's answers"
# The many-writer scenarios (which step blocks, how it ends) against the same server.
KILN_PG_URL="host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres" cargo test --test concurrency
echo "slt-postgres: the concurrency tests' expectations hold on PostgreSQL 15"
# COPY's formats, errors and protocol messages against the same server.
KILN_PG_URL="host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres" cargo test --test copy
echo "slt-postgres: the COPY tests' expectations hold on PostgreSQL 15"
