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

import argparse
import os
import statistics
import sys
import time

import psycopg

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


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


def run(conn, sql):
    """Execute and fetch everything; returns (seconds, rows)."""
    t0 = time.perf_counter()
    with conn.cursor() as cur:
        cur.execute(sql)
        rows = cur.fetchall() if cur.description is not None else []
    return time.perf_counter() - t0, rows


def norm(rows):
    # Compare as text so that int vs Decimal etc. of the same value do not count as a mismatch.
    return [tuple(None if v is None else str(v) for v in r) for r in rows]


def kiln_pid_from_port(port):
    """The pid owning the socket listening on 127.0.0.1/0.0.0.0/:: at `port`, via /proc."""
    inodes = set()
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(f).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, state, inode = parts[1], parts[3], parts[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{inode}]")
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fddir = f"/proc/{pid}/fd"
        try:
            for fd in os.listdir(fddir):
                try:
                    if os.readlink(os.path.join(fddir, fd)) in inodes:
                        return int(pid)
                except OSError:
                    pass
        except OSError:
            pass
    return None


def vmrss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln-port", type=int, required=True)
    ap.add_argument("--kiln-host", default="127.0.0.1")
    ap.add_argument("--kiln-user", default="kiln")
    ap.add_argument("--kiln-pid", type=int, help="kiln's pid (default: found from the port)")
    ap.add_argument("--pg", default="host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                    help="PostgreSQL connection string")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip-load", action="store_true", help="reuse the loaded tables")
    ap.add_argument("--only", help="comma-separated query ids to run, e.g. Q2,Q4")
    args = ap.parse_args()

    kiln_dsn = f"host={args.kiln_host} port={args.kiln_port} user={args.kiln_user}"
    kiln = connect(kiln_dsn)
    pg = connect(args.pg)
    servers = [("kiln", kiln), ("pg", pg)]
    failures = []

    kpid = args.kiln_pid or kiln_pid_from_port(args.kiln_port)
    print(f"kiln pid: {kpid if kpid else 'not found'}; RSS at start: "
          f"{vmrss(kpid) if kpid else 'n/a'}")

    loads = {}
    if not args.skip_load:
        print(f"loading {args.rows} rows ...", flush=True)
        for name, conn in servers:
            try:
                loads[name] = load(name, conn, args.rows, name == "pg")
            except psycopg.Error as e:
                print(f"!!! {name} load failed: {e}", file=sys.stderr)
                sys.exit(1)

    # The data must be identical before any timing means anything.
    for label, sql in CHECKS:
        res = {}
        for name, conn in servers:
            try:
                res[name] = norm(run(conn, sql)[1])
            except psycopg.Error as e:
                res[name] = f"ERROR {e}"
        ok = res["kiln"] == res["pg"]
        print(f"check {label}: {'ok' if ok else 'MISMATCH'} {res['pg']}"
              + ("" if ok else f" vs kiln {res['kiln']}"))
        if not ok:
            failures.append(f"data check {label}: pg={res['pg']} kiln={res['kiln']}")

    rss_after = vmrss(kpid) if kpid else None

    queries = QUERIES
    if args.only:
        want = {q.strip().upper() for q in args.only.split(",")}
        queries = [q for q in QUERIES if q[0].split()[0].upper() in want]

    results = []
    for label, sql in queries:
        times = {"kiln": [], "pg": []}
        answers = {}
        errors = {}
        for _ in range(args.reps):
            for name, conn in servers:
                if name in errors:
                    continue
                try:
                    secs, rows = run(conn, sql)
                except psycopg.Error as e:
                    errors[name] = f"{type(e).__name__}: {e}".strip()
                    continue
                times[name].append(secs)
                answers.setdefault(name, norm(rows))
        med = {n: (statistics.median(t) * 1000 if t else None) for n, t in times.items()}
        if errors:
            for n, e in errors.items():
                msg = f"{label}: {n} ERROR {e}\n    SQL: {sql}"
                print(f"!!! {msg}", file=sys.stderr)
                failures.append(msg)
        elif answers["kiln"] != answers["pg"]:
            msg = f"{label}: RESULT MISMATCH pg={answers['pg']} kiln={answers['kiln']}"
            print(f"!!! {msg}", file=sys.stderr)
            failures.append(msg)
        results.append((label, med["pg"], med["kiln"]))
        print(f"{label}: pg {fmt(med['pg'])} ms, kiln {fmt(med['kiln'])} ms "
              f"-> {answers.get('pg')}", flush=True)

    print()
    print(f"rows: {args.rows}, reps: {args.reps}, median client wall time")
    print()
    print("| query | PostgreSQL ms | kiln ms | kiln / PG |")
    print("|---|---:|---:|---:|")
    for label, p, k in results:
        ratio = f"{k / p:.2f}" if p and k else "n/a"
        print(f"| {label} | {fmt(p)} | {fmt(k)} | {ratio} |")
    print()
    if loads:
        lk, lp = loads.get("kiln"), loads.get("pg")
        print(f"load (INSERT ... SELECT): PostgreSQL {lp:.2f} s, kiln {lk:.2f} s, "
              f"kiln / PG {lk / lp:.2f}")
    print(f"kiln VmRSS after load: {rss_after or 'n/a'}"
          + (f" (pid {kpid})" if kpid else ""))
    if failures:
        print(f"\n!!! {len(failures)} FAILURE(S):")
        for f in failures:
            print(f"!!!   {f}")
        sys.exit(2)


def fmt(ms):
    return "ERR" if ms is None else f"{ms:.1f}"


if __name__ == "__main__":
    main()
