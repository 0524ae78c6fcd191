#!/usr/bin/env python3
"""COPY load of TPC-H into kiln and PostgreSQL 15, side by side (issue "Tools and trust":
TPC-H SF1 by COPY in at most half of PostgreSQL's time).

Both engines get the same tables (TPC-H types, NOT NULL, no keys: the COPY alone is timed)
and the same client: `psql -c "\\copy t FROM 'file' (DELIMITER '|')"`, so the client's
reading and sending cost the same on both sides. The generated `.tbl` files end every line
with '|'; a copy without it is made once next to them (`stripped/`).

    python3 bench/copy_load.py --kiln "host=127.0.0.1 port=5433 user=kiln" \
        --pg "host=127.0.0.1 port=5432 user=postgres dbname=postgres" [--sf 1] [--reps 3]

Prints seconds per table and engine (median of --reps), the totals and kiln / PostgreSQL.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tpch"))
from run import TABLES  # noqa: E402


def psql(dsn, sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-c", sql],
                   check=True, stdout=subprocess.DEVNULL)


def stripped_files(sf):
    src = f"/tmp/kiln-tpch-data/sf{sf:g}"
    if not os.path.exists(os.path.join(src, ".complete")):
        os.makedirs(src, exist_ok=True)
        subprocess.run(["tpchgen-cli", "tbl", "-s", f"{sf:g}", f"--output-dir={src}"], check=True)
        open(os.path.join(src, ".complete"), "w").write("ok\n")
    dst = os.path.join(src, "stripped")
    os.makedirs(dst, exist_ok=True)
    for name, *_ in TABLES:
        out = os.path.join(dst, f"{name}.tbl")
        if not os.path.exists(out):
            with open(out + ".part", "w") as f:
                subprocess.run(["sed", "s/|$//", os.path.join(src, f"{name}.tbl")], stdout=f,
                               check=True)
            os.rename(out + ".part", out)
    return dst


def load(dsn, data):
    """Seconds per table for one fresh load."""
    times = {}
    for name, cols, _, _ in reversed(TABLES):
        psql(dsn, f"DROP TABLE IF EXISTS {name}")
    for name, cols, _, _ in TABLES:
        psql(dsn, f"CREATE TABLE {name} ({', '.join(f'{c} {t} NOT NULL' for c, t in cols)})")
    for name, *_ in TABLES:
        path = os.path.join(data, f"{name}.tbl")
        t0 = time.perf_counter()
        psql(dsn, f"\\copy {name} FROM '{path}' (DELIMITER '|')")
        times[name] = time.perf_counter() - t0
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True, help="libpq DSN of a running kiln")
    ap.add_argument("--pg", required=True, help="libpq DSN of a running PostgreSQL")
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    data = stripped_files(args.sf)
    samples = {"postgres": [], "kiln": []}
    for _ in range(args.reps):
        # Interleaved, so that a noisy moment hits both.
        samples["postgres"].append(load(args.pg, data))
        samples["kiln"].append(load(args.kiln, data))
    print(f"| table | PostgreSQL s | kiln s | kiln / PostgreSQL |")
    print("|---|---:|---:|---:|")
    totals = {"postgres": [], "kiln": []}
    for engine in totals:
        totals[engine] = [sum(run.values()) for run in samples[engine]]
    for name, *_ in TABLES:
        pg = statistics.median(run[name] for run in samples["postgres"])
        k = statistics.median(run[name] for run in samples["kiln"])
        print(f"| {name} | {pg:.3f} | {k:.3f} | {k / pg:.2f} |")
    pg, k = statistics.median(totals["postgres"]), statistics.median(totals["kiln"])
    print(f"| **total** | {pg:.2f} | {k:.2f} | {k / pg:.2f} |")


if __name__ == "__main__":
    main()
