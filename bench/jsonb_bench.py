#!/usr/bin/env python3
"""jsonb queries over N rows (default 1,000,000): kiln vs PostgreSQL 15, side by side.

Both servers get `events (id int, doc jsonb)` filled by the same deterministic
INSERT ... SELECT over generate_series (no random()), so they hold identical documents:

    {"user": "u123", "type": "click", "n": 42, "tags": ["t3", "t5"],
     "props": {"country": "DE", "mobile": true}}

Five queries are then timed on both (client wall time including fetching the result),
each --reps times, alternating servers (kiln, pg, kiln, pg, ...); the median is reported
with the ratio kiln / PostgreSQL. Results are compared and mismatches printed loudly.

    python3 bench/jsonb_bench.py --kiln-port 5499 \
        --pg "host=127.0.0.1 port=5432 user=postgres dbname=postgres" [--rows 1000000] \
        [--reps 5] [--skip-load] [--kiln-pid PID] [--only Q2,Q4]

Needs psycopg 3 (`pip install 'psycopg[binary]'`). kiln's resident memory (VmRSS) is read
from /proc/<pid>/status; the pid is found from the listening port unless --kiln-pid is given.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side  # noqa: E402
from side_by_side import run  # noqa: E402

GENERATOR = """
INSERT INTO events (id, doc)
SELECT i, jsonb_build_object(
    'user', 'u' || (i % 5000),
    'type', (ARRAY['click', 'view', 'buy', 'share'])[i % 4 + 1],
    'n', i % 100,
    'tags', jsonb_build_array('t' || (i % 7), 't' || (i % 11)),
    'props', jsonb_build_object(
        'country', (ARRAY['DE', 'FR', 'US', 'JP', 'BR'])[i % 5 + 1],
        'mobile', i % 3 = 0))
FROM generate_series(1, {rows}) AS g(i)
"""

CHECKS = [
    ("count", "SELECT count(*) FROM events"),
    ("md5 first 1000",
     "SELECT md5(string_agg(doc::text, '' ORDER BY id)) FROM events WHERE id <= 1000"),
]

QUERIES = [
    ("Q1 group", "SELECT doc->>'type' AS t, count(*) FROM events GROUP BY 1 ORDER BY 1"),
    ("Q2 contains",
     """SELECT count(*) FROM events WHERE doc @> '{"type": "click", "props": {"country": "DE"}}'"""),
    ("Q3 nested",
     "SELECT sum((doc->>'n')::int) FROM events WHERE doc->'props'->>'country' = 'DE'"),
    ("Q4 regex", "SELECT count(*) FROM events WHERE doc->>'user' ~ '^u12[0-9]$'"),
    ("Q5 tags", """SELECT count(*) FROM events WHERE doc->'tags' @> '["t3"]'"""),
]


def load(name, conn, rows, is_pg):
    run(conn, "DROP TABLE IF EXISTS events")
    run(conn, "CREATE TABLE events (id int, doc jsonb)")
    secs, _ = run(conn, GENERATOR.format(rows=rows))
    line = f"load {name}: {secs:.2f} s"
    if is_pg:
        vsecs, _ = run(conn, "VACUUM ANALYZE events")
        line += f" (+ VACUUM ANALYZE {vsecs:.2f} s)"
    print(line, flush=True)
    return secs


if __name__ == "__main__":
    side_by_side.main(__doc__, load, CHECKS, QUERIES, default_rows=1_000_000)
