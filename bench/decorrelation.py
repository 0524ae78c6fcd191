#!/usr/bin/env python3
"""Correlated subqueries over 10^5-row tables: run as joins, not once per outer row.

Loads two tables of N rows each (default 100,000) into kiln and PostgreSQL 15, runs a
correlated EXISTS, a correlated IN and a correlated scalar subquery on both, checks that
the answers agree, and prints each engine's median time and kiln's plan (EXPLAIN). The
same queries at N/10 rows show how time grows: a plan that re-ran the subquery per outer
row would take ~100x longer at 10x the rows; a join takes ~10x.

PostgreSQL turns an EXISTS into a semi join too, but runs a correlated IN and a correlated
scalar subquery per outer row (a SubPlan). For the scalar one PostgreSQL gets an index on
the inner table's key (on by default; `--no-pg-index`), its best plan; the correlated IN
has no index path there (N^2 comparisons: minutes at 10^5 rows), so PostgreSQL runs it at
N/10 rows only.

Usage: bench/decorrelation.py --kiln "host=127.0.0.1 port=5433 user=u dbname=d" \\
           --pg "host=127.0.0.1 port=5432 user=postgres dbname=postgres" [--rows N] [--reps 5]
Timings are wall clock of one psql run per query (psql start-up included), medians.
"""

import argparse
import statistics
import subprocess
import sys
import time

QUERIES = {
    "exists": "SELECT count(*) FROM dc_customers c WHERE EXISTS "
              "(SELECT 1 FROM dc_orders o WHERE o.customer_id = c.id AND o.amount > 900)",
    "in": "SELECT count(*) FROM dc_customers c WHERE c.id IN "
          "(SELECT o.customer_id FROM dc_orders o WHERE o.amount > c.id % 1000)",
    "scalar": "SELECT count(*), sum(s) FROM (SELECT c.id, (SELECT max(o.amount) FROM dc_orders o "
              "WHERE o.customer_id = c.id) AS s FROM dc_customers c) t",
}

PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]


def psql(dsn, sql):
    r = subprocess.run(PSQL + ["-d", dsn, "-c", sql], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()[:300]}")
    return r.stdout.strip()


def timed(dsn, sql):
    start = time.perf_counter()
    out = psql(dsn, sql)
    return time.perf_counter() - start, out


def setup(dsn, rows, index):
    # Customers 0..rows-1; each order's customer is spread over twice the customers'
    # range, so about half the customers have orders and half the orders match none.
    psql(dsn, "DROP TABLE IF EXISTS dc_orders; DROP TABLE IF EXISTS dc_customers;")
    psql(dsn, "CREATE TABLE dc_customers (id int, region text)")
    psql(dsn, "CREATE TABLE dc_orders (id int, customer_id int, amount int)")
    psql(dsn, f"INSERT INTO dc_customers SELECT g, 'r' || (g % 7) FROM generate_series(0, {rows - 1}) g")
    psql(dsn, f"INSERT INTO dc_orders SELECT g, (g * 7919) % {2 * rows}, (g * 31) % 1000 "
              f"FROM generate_series(0, {rows - 1}) g")
    if index:
        psql(dsn, "CREATE INDEX ON dc_orders (customer_id)")
        psql(dsn, "VACUUM ANALYZE dc_orders")
        psql(dsn, "VACUUM ANALYZE dc_customers")
    else:
        psql(dsn, "ANALYZE")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--pg", required=True)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-pg-index", action="store_true", help="no index on dc_orders(customer_id) on PostgreSQL")
    args = ap.parse_args()
    ok = True
    print("| rows | query | kiln ms | PostgreSQL ms | kiln/PG | same answer |")
    print("|---:|---|---:|---:|---:|---|")
    for rows in (args.rows // 10, args.rows):
        setup(args.kiln, rows, index=False)
        setup(args.pg, rows, index=not args.no_pg_index)
        for name, sql in QUERIES.items():
            on_pg = not (name == "in" and rows == args.rows)
            k, p, ka, pa = [], [], None, None
            for _ in range(args.reps):
                t, ka = timed(args.kiln, sql)
                k.append(t)
                if on_pg:
                    t, pa = timed(args.pg, sql)
                    p.append(t)
            mk = statistics.median(k) * 1000
            if not on_pg:
                print(f"| {rows} | {name} | {mk:.1f} | — (per-row SubPlan) | — | — |", flush=True)
                continue
            mp = statistics.median(p) * 1000
            same = ka == pa
            ok &= same
            print(f"| {rows} | {name} | {mk:.1f} | {mp:.1f} | {mk / mp:.2f} | {'yes' if same else 'NO'} |",
                  flush=True)
    print()
    for name, sql in QUERIES.items():
        print(f"kiln EXPLAIN, {name}:")
        print("    " + psql(args.kiln, "EXPLAIN " + sql).replace("\n", "\n    "))
    psql(args.kiln, "DROP TABLE dc_orders; DROP TABLE dc_customers;")
    psql(args.pg, "DROP TABLE dc_orders; DROP TABLE dc_customers;")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
