#!/usr/bin/env bash
# SQLAlchemy 2.0's own test suite against kiln and against PostgreSQL 15.
#
# Runs the dialect, type and ORM tests of SQLAlchemy's sdist (the PyPI sdist
# carries test/) with psycopg2, once against each server, and compares: every
# test that passes on PostgreSQL should pass on kiln. Selection (SQLA_TESTS):
#   test/dialect/postgresql  test/sql/test_types.py  test/orm
# (all of test/orm, no subset: the whole selection, ~23,700 tests, took 6 minutes
# against PostgreSQL 15 and 6-8 against a debug build of kiln on a 2-core
# machine), with tox's exclusions (-m "not memory_intensive and not mypy"), one
# process (no xdist: SQLAlchemy's xdist mode makes a database
# per worker by CREATE DATABASE … TEMPLATE), a per-test timeout (pytest-timeout)
# and a bound on each whole run (timeout(1), SIGINT first so junit-xml is kept).
#
# This script starts no server. Give it the two servers' URLs (SQLAlchemy form;
# postgresql:// is taken as postgresql+psycopg2://), as arguments or env vars:
#   scripts/sqlalchemy-suite.sh KILN_URL PG_URL
#   KILN_URL=postgresql+psycopg2://postgres:x@127.0.0.1:5510/sqla_test \
#   PG_URL=postgresql+psycopg2://postgres:x@127.0.0.1:5432/sqla_test \
#     scripts/sqlalchemy-suite.sh
# Either may be left empty to run only the other (the comparison then reads the
# missing side's junit-xml from an earlier run, if there is one).
# Give the URLs a password (any, with trust auth): test_multiple_host_real_connect
# fails on a URL without one, whatever the server.
#
# Before each run the database in the URL is dropped and created anew (from
# template0 where the server has it) with the schemas test_schema and
# test_schema_2 that README.unittests.rst asks for (SQLA_RESET_DB=0 skips this;
# the database must then be empty). hstore / citext are created by the suite
# itself where the server has them.
#
# Knobs (env): SQLA_VERSION (2.0.58), SQLA_WORK (/tmp/sqla-suite: sdist and
# results), SQLA_VENV (/tmp/sqla-venv), SQLA_TESTS, SQLA_TEST_TIMEOUT (seconds
# per test, 120), SQLA_RUN_TIMEOUT (seconds per server, 5400), SQLA_PYTEST_ARGS
# (extra pytest arguments, e.g. -k or -x).
#
# Output: $SQLA_WORK/results/{pg,kiln}.xml (junit), {pg,kiln}.log (pytest -v),
# summary.md (counts, the tests passing on PostgreSQL but not on kiln grouped by
# the error kiln returned: SQLSTATE and message), gap.txt (those tests' ids).
# Tests are matched across servers by id with the server version dropped from
# class names (…Test_postgresql+psycopg2_15_18 on PostgreSQL, _15_0 on kiln).
# PostgreSQL's own failures are left out of the comparison by construction;
# with max_prepared_transactions = 0 (the default) its TwoPhaseCommitTest fails.
# Exit status: 0 when no test passes on PostgreSQL but not on kiln, else 1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

KILN_URL=${1:-${KILN_URL:-}}
PG_URL=${2:-${PG_URL:-}}
SQLA_VERSION=${SQLA_VERSION:-2.0.58}
WORK=${SQLA_WORK:-/tmp/sqla-suite}
VENV=${SQLA_VENV:-/tmp/sqla-venv}
TESTS=${SQLA_TESTS:-test/dialect/postgresql test/sql/test_types.py test/orm}
TEST_TIMEOUT=${SQLA_TEST_TIMEOUT:-120}
RUN_TIMEOUT=${SQLA_RUN_TIMEOUT:-5400}
OUT="$WORK/results"
if [ -z "$KILN_URL" ] && [ -z "$PG_URL" ]; then
  echo "usage: $0 KILN_URL PG_URL   (or KILN_URL= / PG_URL= in the environment)" >&2
  exit 2
fi
mkdir -p "$WORK" "$OUT"

# The venv: pytest and plugins, psycopg2, and SQLAlchemy's own requirements
# (greenlet, typing-extensions; tox.ini's deps). SQLAlchemy itself is not
# installed: test/conftest.py puts the sdist's lib/ first on sys.path.
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
  'pytest>=7.0.0,<10' 'pytest-xdist!=3.3.0' pytest-timeout psycopg2-binary \
  'greenlet>=1' 'typing-extensions>=4.13.0'
PY="$VENV/bin/python"

# The sdist, with test/.
SRC="$WORK/sqlalchemy-$SQLA_VERSION"
if [ ! -f "$SRC/test/conftest.py" ]; then
  "$PY" -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
    "sqlalchemy==$SQLA_VERSION" -d "$WORK"
  tar -xzf "$WORK/sqlalchemy-$SQLA_VERSION.tar.gz" -C "$WORK"
fi

sa_url() {
  case "$1" in
    postgresql://*) echo "postgresql+psycopg2://${1#postgresql://}" ;;
    postgres://*) echo "postgresql+psycopg2://${1#postgres://}" ;;
    *) echo "$1" ;;
  esac
}

# Drops and creates the URL's database with the schemas the suite wants.
reset_db() {
  (cd "$SRC" && PYTHONPATH="$SRC/lib" "$PY" - "$1") <<'EOF'
import sys, psycopg2
from sqlalchemy.engine import make_url
u = make_url(sys.argv[1])
kw = dict(host=u.host or "127.0.0.1", port=u.port or 5432, user=u.username,
          password=u.password, connect_timeout=10)
c = psycopg2.connect(dbname="postgres", **kw)
c.autocommit = True
cur = c.cursor()
try:  # sessions left on the database (an earlier run's) would block DROP DATABASE
    cur.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                " where datname = %s and pid <> pg_backend_pid()", (u.database,))
except psycopg2.Error:
    pass
cur.execute('DROP DATABASE IF EXISTS "%s"' % u.database)
try:
    cur.execute("CREATE DATABASE \"%s\" ENCODING 'utf8' TEMPLATE template0" % u.database)
except psycopg2.Error as e:
    print("  (CREATE DATABASE … TEMPLATE template0: %s; plain CREATE DATABASE)" % str(e).strip())
    cur.execute('CREATE DATABASE "%s"' % u.database)
c.close()
c = psycopg2.connect(dbname=u.database, **kw)
c.autocommit = True
for s in ("test_schema", "test_schema_2"):
    c.cursor().execute("CREATE SCHEMA %s" % s)
c.close()
EOF
}

# SQLAlchemy's session start runs CREATE EXTENSION IF NOT EXISTS citext and
# hstore on any PostgreSQL 13+ and stops the whole run (INTERNALERROR, no test
# run) when that fails. This plugin (-p, SQLA_EXTENSION_SHIM=1, the default)
# makes those two statements tolerant: an extension the server refuses is logged
# and left out, so only the tests that use it fail. On PostgreSQL nothing
# changes (both extensions exist). SQLA_EXTENSION_SHIM=0 runs the suite as is.
mkdir -p "$WORK/shim"
cat >"$WORK/shim/sqla_extension_shim.py" <<'PYSHIM'
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    from sqlalchemy import exc, text
    from sqlalchemy.dialects.postgresql import provision as pg_provision
    from sqlalchemy.testing import provision

    def create_extensions(url, engine, follower_ident):
        for extension, min_version in pg_provision._extensions:
            with engine.connect() as conn:
                if conn.dialect.server_version_info < min_version:
                    continue
                try:
                    conn.execute(text(f"CREATE EXTENSION IF NOT EXISTS {extension}"))
                    conn.commit()
                except exc.DBAPIError as e:
                    conn.rollback()
                    print(f"\n(sqla_extension_shim: CREATE EXTENSION {extension} refused: "
                          f"{str(e.orig).strip()}; tests using it will fail)")

    provision.post_configure_engine.for_db("postgresql")(create_extensions)
PYSHIM

# Answers select 1 within 10 seconds?
alive() {
  (cd "$SRC" && PYTHONPATH="$SRC/lib" timeout 20 "$PY" - "$1") <<'EOF' >/dev/null 2>&1
import sys, psycopg2
from sqlalchemy.engine import make_url
u = make_url(sys.argv[1])
c = psycopg2.connect(host=u.host or "127.0.0.1", port=u.port or 5432, user=u.username,
                     password=u.password, dbname="postgres", connect_timeout=10)
c.cursor().execute("select 1")
EOF
}

run_suite() { # name url
  local name=$1 url
  url=$(sa_url "$2")
  echo "== $name: $url"
  rm -f "$OUT/$name.xml" "$OUT/$name.seconds"  # no stale results if this run dies
  if [ "${SQLA_RESET_DB:-1}" = 1 ]; then reset_db "$url"; fi
  local start=$SECONDS rc=0
  # shellcheck disable=SC2086
  (cd "$SRC" && PYTHONPATH="$WORK/shim" timeout -s INT -k 120 "$RUN_TIMEOUT" "$PY" -m pytest $TESTS \
    --dburi "$url" -p no:cacheprovider --maxfail=1000000 -v \
    -m "not memory_intensive and not mypy" \
    --timeout "$TEST_TIMEOUT" --junitxml "$OUT/$name.xml" $SHIM ${SQLA_PYTEST_ARGS:-} \
    >"$OUT/$name.log" 2>&1) || rc=$?
  local secs=$((SECONDS - start))
  echo "   pytest exit $rc after ${secs}s; $(tail -n 1 "$OUT/$name.log")"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "   (run cut off by SQLA_RUN_TIMEOUT=$RUN_TIMEOUT)"; fi
  echo "$secs" >"$OUT/$name.seconds"
  if alive "$url"; then
    echo "   $name still answers select 1"
  else
    echo "   $name does NOT answer select 1 after the run (crashed or hung)"
    echo "dead" >"$OUT/$name.alive"
  fi
}

SHIM=""
if [ "${SQLA_EXTENSION_SHIM:-1}" = 1 ]; then SHIM="-p sqla_extension_shim"; fi
rm -f "$OUT"/*.alive
if [ -n "$PG_URL" ]; then run_suite pg "$PG_URL"; fi
if [ -n "$KILN_URL" ]; then run_suite kiln "$KILN_URL"; fi

SUMMARY_ARGS=(--pg "$OUT/pg.xml" --kiln "$OUT/kiln.xml" --out "$OUT/summary.md" --gap "$OUT/gap.txt")
for n in pg kiln; do
  if [ -f "$OUT/$n.seconds" ]; then SUMMARY_ARGS+=(--"$n"-seconds "$(cat "$OUT/$n.seconds")"); fi
  if [ -f "$OUT/$n.alive" ]; then SUMMARY_ARGS+=(--"$n"-dead); fi
done
"$PY" "$ROOT/scripts/sqlalchemy_summary.py" "${SUMMARY_ARGS[@]}"
