# Sourced by scripts that need a throwaway PostgreSQL 15 on loopback
# (scripts/slt-postgres.sh, bench/bench.sh).
#
#   pg_temp_start WORKDIR [extra postgres -c options…]   sets PG_PORT; PGBIN must exist
#   pg_temp_stop                                          stops it (via its own PID file)
#   free_port                                             prints a free loopback port
#
# PostgreSQL refuses to run as root, so as root the server runs as the system user
# `kiln_pg` (created if missing). It listens on 127.0.0.1 only.

PGBIN=/usr/lib/postgresql/15/bin

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

PG_RUN_AS=()
PG_OWNER=$(id -un)
if [ "$(id -u)" = 0 ]; then
  id kiln_pg >/dev/null 2>&1 || useradd --system --no-create-home kiln_pg
  PG_RUN_AS=(runuser -u kiln_pg --)
  PG_OWNER=kiln_pg
fi

pg_temp_start() {
  PG_WORK=$1
  shift
  local opts=""
  for o in "$@"; do opts="$opts -c $o"; done
  chown "$PG_OWNER" "$PG_WORK"
  PG_PORT=$(free_port)
  "${PG_RUN_AS[@]}" "$PGBIN/initdb" -D "$PG_WORK/data" -A trust -U postgres --no-sync >/dev/null
  "${PG_RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$PG_WORK/data" -w -l "$PG_WORK/pg.log" \
    -o "-p $PG_PORT -k $PG_WORK -c listen_addresses=127.0.0.1$opts" start >/dev/null
}

pg_temp_stop() {
  [ -n "${PG_WORK:-}" ] && "${PG_RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$PG_WORK/data" -m fast stop >/dev/null 2>&1 || true
}
