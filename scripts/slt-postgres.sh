#!/usr/bin/env bash
# Runs tests/slt/**/*.slt against a throwaway PostgreSQL 15 instead of kiln.
#
#   scripts/slt-postgres.sh            start a temporary server on loopback, run, stop it
#   KILN_SLT_URL="host=… port=… user=…" cargo test --test slt   (an existing server)
#
# PostgreSQL refuses to run as root, so as root the server runs as the user `kiln_pg`
# (created if missing). It listens on 127.0.0.1 only, on a free port, and is stopped
# (by its own PID file) when the script exits.
set -euo pipefail
cd "$(dirname "$0")/.."

PGBIN=/usr/lib/postgresql/15/bin
if [ ! -x "$PGBIN/initdb" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15) >/dev/null 2>&1 || true
  fi
fi
if [ ! -x "$PGBIN/initdb" ]; then
  echo "slt-postgres: PostgreSQL 15 is not installed and could not be installed; skipping the oracle run"
  exit 0
fi

RUN_AS=()
OWNER=$(id -un)
if [ "$(id -u)" = 0 ]; then
  id kiln_pg >/dev/null 2>&1 || useradd --system --no-create-home kiln_pg
  RUN_AS=(runuser -u kiln_pg --)
  OWNER=kiln_pg
fi

WORK=$(mktemp -d /tmp/kiln-pg.XXXXXX)
chown "$OWNER" "$WORK"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
  "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

"${RUN_AS[@]}" "$PGBIN/initdb" -D "$WORK/data" -A trust -U postgres --no-sync >/dev/null
"${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -w -l "$WORK/log" \
  -o "-p $PORT -k $WORK -c listen_addresses=127.0.0.1 -c fsync=off -c TimeZone=UTC" start >/dev/null

KILN_SLT_URL="host=127.0.0.1 port=$PORT user=postgres" cargo test --test slt
echo "slt-postgres: every .slt file gave PostgreSQL 15's answers"
