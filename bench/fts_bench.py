#!/usr/bin/env python3
"""Full-text search over N documents (default 200,000): kiln vs PostgreSQL 15, side by side.

Both servers get `docs (id int, body text, tsv tsvector)` filled by the same deterministic
INSERT ... SELECT over generate_series (no random()): twelve words per document picked
from fixed lists by different moduli, e.g.

    "the quick planner jumped over indexes while searching memory engines ..."

then `UPDATE docs SET tsv = to_tsvector('english', body)` (timed: the parser, the
stemmer and the stop words over every document). Five queries are then timed on both
(client wall time including fetching the result), each --reps times, alternating servers;
the median is reported with the ratio kiln / PostgreSQL. Results are compared and
mismatches printed loudly.

    python3 bench/fts_bench.py --kiln-port 5499 \
        --pg "host=127.0.0.1 port=5432 user=postgres dbname=postgres" [--rows 200000] \
        [--reps 5] [--skip-load] [--kiln-pid PID] [--only Q2,Q4]

Needs psycopg 3 (`pip install 'psycopg[binary]'`).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side  # noqa: E402
from side_by_side import run  # noqa: E402

WORDS = [
    "['the', 'a', 'every', 'no', 'some', 'this', 'our']",
    "['quick', 'lazy', 'clever', 'slow', 'bright', 'silent', 'fast', 'old', 'new']",
    "['fox', 'dog', 'planner', 'engine', 'index', 'query', 'vector', 'cat', 'server', 'client', 'table']",
    "['jumped', 'searched', 'ran', 'indexed', 'planned', 'stored', 'returned']",
    "['over', 'under', 'through', 'into', 'beside']",
    "['databases', 'memories', 'foxes', 'dogs', 'queries', 'rows', 'pages', 'columns', 'joins', 'keys', 'locks', 'logs', 'snapshots']",
    "['while', 'because', 'after', 'before']",
    "['searching', 'running', 'ranking', 'stemming', 'parsing', 'sorting', 'hashing']",
    "['memory', 'text', 'documents', 'words', 'lexemes', 'phrases', 'results', 'answers', 'errors', 'numbers', 'versions', 'urls', 'emails', 'files', 'tags', 'hosts', 'paths']",
    "['quickly', 'slowly', 'carefully', 'twice', 'again']",
    "['in', 'at', 'on', 'near']",
    "['postgresql', 'kiln', 'duckdb', 'sqlite', 'mysql', 'oracle', 'redis', 'mongo', 'cassandra', 'clickhouse', 'spark', 'flink', 'kafka', 'druid', 'pinot', 'hive', 'presto', 'trino', 'impala']",
]

GENERATOR = (
    "INSERT INTO docs (id, body) SELECT i, "
    + " || ' ' || ".join(
        f"(ARRAY{w})[(i * {2 * k + 1} + i / {k + 3}) % {len(eval(w))} + 1]"
        for k, w in enumerate(WORDS)
    )
    + " FROM generate_series(1, {rows}) AS g(i)"
)

CHECKS = [
    ("count", "SELECT count(*) FROM docs"),
    ("tsv of the first 1000",
     "SELECT md5(string_agg(tsv::text, '|' ORDER BY id)) FROM docs WHERE id <= 1000"),
]

QUERIES = [
    ("Q1 and", "SELECT count(*) FROM docs WHERE tsv @@ to_tsquery('english', 'fox & memories')"),
    ("Q2 phrase",
     "SELECT count(*) FROM docs WHERE tsv @@ phraseto_tsquery('english', 'quick planner')"),
    ("Q3 rank top 10",
     "SELECT id, ts_rank(tsv, q) FROM docs, to_tsquery('english', 'search | engine') AS q "
     "WHERE tsv @@ q ORDER BY 2 DESC, id LIMIT 10"),
    ("Q4 on the fly",
     "SELECT count(*) FROM docs WHERE to_tsvector('english', body) @@ "
     "websearch_to_tsquery('english', 'kiln -slowly \"lazy index\"')"),
    ("Q5 prefix", "SELECT count(*) FROM docs WHERE tsv @@ to_tsquery('english', 'sto:* | mem:*')"),
]


def load(name, conn, rows, is_pg):
    run(conn, "DROP TABLE IF EXISTS docs")
    run(conn, "CREATE TABLE docs (id int, body text, tsv tsvector)")
    secs, _ = run(conn, GENERATOR.replace("{rows}", str(rows)))
    tsecs, _ = run(conn, "UPDATE docs SET tsv = to_tsvector('english', body)")
    line = f"load {name}: insert {secs:.2f} s, to_tsvector update {tsecs:.2f} s"
    if is_pg:
        vsecs, _ = run(conn, "VACUUM ANALYZE docs")
        line += f" (+ VACUUM ANALYZE {vsecs:.2f} s)"
    print(line, flush=True)
    return tsecs


if __name__ == "__main__":
    side_by_side.main(__doc__, load, CHECKS, QUERIES, default_rows=200_000)
