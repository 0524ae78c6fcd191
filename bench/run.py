#!/usr/bin/env python3
"""kiln vs PostgreSQL 15, side by side, as WORKLOADS.md prescribes.

For each workload: run the setup (not timed; PostgreSQL also gets VACUUM ANALYZE), then
time `psql -X -q -A -t -v ON_ERROR_STOP=1 -f FILE -o /dev/null` — wall clock, connection
included — for each engine, interleaved (A B A B …), --reps times, and report medians.
Three variants per workload: the plain file, the cache-busted file (a unique comment in
every statement), and the floor (the same number of `SELECT 1;`). The CPU time psql
itself spends on the plain file is reported too: both servers send it the same bytes, so
it is a floor that no server can go below. For reads, the replay floor is measured as
TARGETS.md defines it: psql running the plain file against `zero_server.py`, which
answers every statement at once with the bytes PostgreSQL sent for it; a ratio target
below floor/PG + 0.03 is read as that. One iteration's output
is compared with PostgreSQL's (sorted unless the query has a total order; a workload may add
an order_check on kiln's own lines where its ORDER BY has ties); writes compare a
verification query instead. A wrong answer is reported as a failure, and so is an error
(a workload kiln refuses, e.g. with 0A000): that workload is not timed, and the others run.

Usage: bench/run.py --kiln "host=127.0.0.1 port=5433 user=bench dbname=bench" \
                    --pg "host=127.0.0.1 port=5432 user=postgres dbname=bench" [--reps 5] [--only a,b]
"""

import argparse
import os
import socket
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import WORKLOADS  # noqa: E402

PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]


LAST_CLIENT_CPU = [0.0]


def psql_run(dsn, path, out="/dev/null"):
    """Wall-clock seconds of one psql run; its CPU time is left in LAST_CLIENT_CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(PSQL + ["-d", dsn, "-f", path, "-o", out], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CLIENT_CPU[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed on {path}: {r.stderr.strip()[:500]}")
    return elapsed


def psql_output(dsn, sql):
    r = subprocess.run(PSQL + ["-d", dsn, "-c", sql], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()[:500]}")
    return r.stdout


def write_file(directory, name, statements):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("\n".join(statements) + "\n")
    return path


def setup(dsn, statements, is_pg, directory):
    path = write_file(directory, "setup.sql", statements or ["SELECT 1;"])
    psql_run(dsn, path)
    if is_pg:
        psql_output(dsn, "VACUUM ANALYZE;")


def bust(stmt, i):
    # A unique comment inside every statement defeats any cache keyed on statement text.
    return "\n".join(s[:-1] + f" /* bust {i}.{k} */;" if s.endswith(";") else s
                     for k, s in enumerate(stmt.split("\n")))


def compare(kiln_out, pg_out, ordered, order_check=None):
    a = kiln_out.strip().split("\n")
    b = pg_out.strip().split("\n")
    if order_check is not None and not order_check(a):
        return False
    if not ordered:
        a, b = sorted(a), sorted(b)
    return a == b


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def replay_floor(pg_dsn, stmt, path, reps):
    """Median seconds of psql running `path` against a server that answers every
    statement instantly with PostgreSQL's response to `stmt`."""
    port = free_port()
    here = os.path.dirname(os.path.abspath(__file__))
    server = subprocess.Popen([sys.executable, os.path.join(here, "zero_server.py"), "--capture", pg_dsn,
                               "--sql", stmt, "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        if not line.startswith("zero_server:"):
            raise RuntimeError("zero_server did not start")
        dsn = f"host=127.0.0.1 port={port} user=replay dbname=replay"
        return statistics.median(psql_run(dsn, path) for _ in range(reps))
    finally:
        server.kill()
        server.wait()


def run_workload(w, args, directory):
    name, n = w["name"], w["n"]
    stmts = [w["stmt"](i) for i in range(n)]
    files = {
        "plain": write_file(directory, f"{name}.sql", stmts),
        "busted": write_file(directory, f"{name}_busted.sql", [bust(s, i) for i, s in enumerate(stmts)]),
        "floor": write_file(directory, f"{name}_floor.sql", ["SELECT 1;"] * n),
    }
    mutates = "verify" in w
    engines = [("kiln", args.kiln, False), ("pg", args.pg, True)]
    # Correctness: one iteration (reads) or one full run plus a verification query (writes).
    outputs = {}
    for label, dsn, is_pg in engines:
        try:
            setup(dsn, w["setup"](), is_pg, directory)
            if mutates:
                psql_run(dsn, files["plain"])
                outputs[label] = psql_output(dsn, w["verify"])
            else:
                one = write_file(directory, f"{name}_one.sql", stmts[:1])
                out_path = os.path.join(directory, f"{name}_{label}.out")
                psql_run(dsn, one, out_path)
                with open(out_path) as f:
                    outputs[label] = f.read()
        except RuntimeError as e:
            raise RuntimeError(f"{label}: {e}") from None
    correct = compare(outputs["kiln"], outputs["pg"], w.get("ordered", False) and not mutates,
                      None if mutates else w.get("order_check"))
    times = {(label, variant): [] for label, _, _ in engines for variant in files}
    client_cpu = {label: [] for label, _, _ in engines}
    if not mutates:
        for label, dsn, is_pg in engines:
            setup(dsn, w["setup"](), is_pg, directory)
    for rep in range(args.reps):
        for variant, path in files.items():
            for label, dsn, is_pg in engines if rep % 2 == 0 else engines[::-1]:
                if mutates and variant != "floor":
                    setup(dsn, w["setup"](), is_pg, directory)
                times[(label, variant)].append(psql_run(dsn, path))
                if variant == "plain":
                    client_cpu[label].append(LAST_CLIENT_CPU[0])
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    if not mutates:
        # After the timed runs, so PostgreSQL holds the setup's data.
        med[("replay", "floor")] = replay_floor(args.pg, stmts[0], files["plain"], args.reps) * 1000
    for label, v in client_cpu.items():
        med[(label, "client_cpu")] = statistics.median(v) * 1000
    return dict(name=name, n=n, correct=correct, med=med,
                kiln_out=outputs["kiln"][:300], pg_out=outputs["pg"][:300])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True, help="libpq connection string for kiln")
    ap.add_argument("--pg", required=True, help="libpq connection string for PostgreSQL 15")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    print(f"load average before: {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f}, {os.getloadavg()[2]:.2f}")
    results = []
    with tempfile.TemporaryDirectory(prefix="kiln-bench-") as directory:
        for w in WORKLOADS:
            if only and w["name"] not in only:
                continue
            try:
                r = run_workload(w, args, directory)
            except RuntimeError as e:
                # An engine refused the setup or the statement: a failure, not a stop.
                r = dict(name=w["name"], n=w["n"], correct=False, error=str(e))
                results.append(r)
                print(f"{r['name']:<18} FAILED  {r['error'].replace(chr(10), ' | ')[:300]}", flush=True)
                continue
            results.append(r)
            m = r["med"]
            replay = m.get(("replay", "floor"))
            floor_text = f"floor {replay / m[('pg', 'plain')]:.2f}  " if replay else ""
            print(f"{r['name']:<18} kiln {m[('kiln', 'plain')]:9.1f} ms  pg {m[('pg', 'plain')]:9.1f} ms  "
                  f"ratio {m[('kiln', 'plain')] / m[('pg', 'plain')]:.2f}  "
                  f"busted {m[('kiln', 'busted')] / m[('pg', 'busted')]:.2f}  {floor_text}"
                  f"{'ok' if r['correct'] else 'WRONG'}", flush=True)
            if not r["correct"]:
                print("  kiln:", r["kiln_out"].replace("\n", " | ")[:200])
                print("  pg:  ", r["pg_out"].replace("\n", " | ")[:200])
    print(f"load average after: {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f}, {os.getloadavg()[2]:.2f}")
    print()
    print("| workload | iterations | kiln ms | PostgreSQL ms | kiln/PG | kiln ms (busted) | PG ms (busted) | kiln/PG (busted) "
          "| floor kiln ms | floor PG ms | replay floor ms | replay floor/PG | psql CPU ms (kiln run / PG run) "
          "| same answer |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        if "error" in r:
            print(f"| {r['name']} | {r['n']} | — | — | — | — | — | — | — | — | — | — | — | FAILED |")
            continue
        m = r["med"]
        replay = m.get(("replay", "floor"))
        replay_cells = (f"{replay:.0f} | {replay / m[('pg', 'plain')]:.2f}" if replay else "— | —")
        print(f"| {r['name']} | {r['n']} | {m[('kiln', 'plain')]:.0f} | {m[('pg', 'plain')]:.0f} | "
              f"{m[('kiln', 'plain')] / m[('pg', 'plain')]:.2f} | {m[('kiln', 'busted')]:.0f} | {m[('pg', 'busted')]:.0f} | "
              f"{m[('kiln', 'busted')] / m[('pg', 'busted')]:.2f} | {m[('kiln', 'floor')]:.0f} | {m[('pg', 'floor')]:.0f} | "
              f"{replay_cells} | {m[('kiln', 'client_cpu')]:.0f} / {m[('pg', 'client_cpu')]:.0f} | "
              f"{'yes' if r['correct'] else 'NO'} |")
    if not all(r["correct"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
