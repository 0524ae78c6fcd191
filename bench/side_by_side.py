"""Side by side: kiln and PostgreSQL 15 loaded alike, the same queries timed on both.

The shared harness of bench/jsonb_bench.py and bench/fts_bench.py: each script defines
its data (a `load` function), its checks that the data are identical, and its queries,
and calls `main`. Queries run --reps times alternating servers (kiln, pg, kiln, pg, ...);
the median client wall time (including fetching the result) is reported with the ratio
kiln / PostgreSQL, and the answers are compared (mismatches printed loudly, exit 2).
Needs psycopg 3 (`pip install 'psycopg[binary]'`).
"""

import argparse
import os
import statistics
import sys
import time

import psycopg


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


def main(doc, load, checks, queries, default_rows):
    """Runs a side-by-side benchmark: `load(name, conn, rows, is_pg)` fills each server
    (returns the seconds to report), `checks` must answer alike on both, `queries` are
    timed; `doc` is the calling script's docstring (its first paragraph is the help)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--kiln-port", type=int, required=True)
    ap.add_argument("--kiln-host", default="127.0.0.1")
    ap.add_argument("--kiln-user", default="kiln")
    ap.add_argument("--kiln-pid", type=int, help="kiln's pid (default: found from the port)")
    ap.add_argument("--pg", default="host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                    help="PostgreSQL connection string")
    ap.add_argument("--rows", type=int, default=default_rows)
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
    for label, sql in checks:
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

    if args.only:
        want = {q.strip().upper() for q in args.only.split(",")}
        queries = [q for q in queries if q[0].split()[0].upper() in want]

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
        print(f"load (what the script times of it): PostgreSQL {lp:.2f} s, kiln {lk:.2f} s, "
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

