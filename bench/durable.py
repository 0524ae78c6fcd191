#!/usr/bin/env python3
"""The durable mode at TPC-H scale (issue "Tools and trust": restart with SF1-sized data in
under 10 s), with the COPY load timed in memory, durable and on PostgreSQL 15 in one run.

    python3 bench/durable.py --pg "host=127.0.0.1 port=5432 user=postgres dbname=postgres" \
        [--sf 1] [--dir /tmp/kiln-durable-bench]

Steps, each timed (kiln is target/release/kiln, started fresh on free ports):
  1. COPY of every TPC-H table (psql \\copy, same files) into PostgreSQL, into kiln in memory
     and into kiln --data-dir (the log fsynced at each COPY's commit; checkpoints as the log
     grows).
  2. SIGTERM of the durable kiln (its shutdown checkpoint), then a restart: seconds until
     `SELECT count(*) FROM lineitem` answers.
  3. A fresh directory, the same load, kill -9 right after it (the log since the last
     checkpoint must be replayed), a restart: seconds until the same query answers, and
     the row counts compared with the load's.
Prints a markdown table.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from copy_load import load, stripped_files  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tpch"))
from run import TABLES  # noqa: E402

KILN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "kiln")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data_dir=None):
    port = free_port()
    args = [KILN, "--port", str(port)]
    if data_dir:
        args += ["--data-dir", data_dir]
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dsn = f"host=127.0.0.1 port={port} user=kiln dbname=kiln"
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"kiln exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.02)
    return proc, dsn, time.perf_counter() - t0


def query(dsn, sql):
    return subprocess.run(["psql", "-X", "-At", "-d", dsn, "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


def counts(dsn):
    return {name: query(dsn, f"SELECT count(*) FROM {name}") for name, *_ in TABLES}


def rss_mb(proc):
    for line in open(f"/proc/{proc.pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0


def dir_mb(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) / 2**20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", required=True)
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--dir", default="/tmp/kiln-durable-bench")
    args = ap.parse_args()
    data = stripped_files(args.sf)
    rows = []

    pg = sum(load(args.pg, data).values())
    rows.append(("COPY load, PostgreSQL 15", f"{pg:.2f} s", ""))

    proc, dsn, _ = start()
    mem = sum(load(dsn, data).values())
    proc.terminate()
    proc.wait()
    rows.append(("COPY load, kiln in memory", f"{mem:.2f} s", f"{mem / pg:.2f} of PostgreSQL"))

    shutil.rmtree(args.dir, ignore_errors=True)
    proc, dsn, _ = start(args.dir)
    dur = sum(load(dsn, data).values())
    loaded = counts(dsn)
    rows.append(("COPY load, kiln --data-dir", f"{dur:.2f} s", f"{dur / pg:.2f} of PostgreSQL"))
    rows.append(("RSS after the load, durable", f"{rss_mb(proc):.0f} MB", ""))
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    rows.append(("shutdown (checkpoint)", f"{time.perf_counter() - t0:.2f} s",
                 f"data dir {dir_mb(args.dir):.0f} MB"))
    t0 = time.perf_counter()
    proc, dsn, _ = start(args.dir)
    query(dsn, "SELECT count(*) FROM lineitem")
    clean = time.perf_counter() - t0
    same = counts(dsn) == loaded
    rows.append(("restart after a clean stop", f"{clean:.2f} s", "rows equal" if same else "ROWS DIFFER"))
    rows.append(("RSS after the restart", f"{rss_mb(proc):.0f} MB", ""))
    proc.terminate()
    proc.wait()

    shutil.rmtree(args.dir, ignore_errors=True)
    proc, dsn, _ = start(args.dir)
    load(dsn, data)
    loaded = counts(dsn)
    log_mb = sum(os.path.getsize(os.path.join(args.dir, f)) for f in os.listdir(args.dir)
                 if f.startswith("wal-")) / 2**20
    proc.kill()
    proc.wait()
    t0 = time.perf_counter()
    proc, dsn, _ = start(args.dir)
    query(dsn, "SELECT count(*) FROM lineitem")
    crash = time.perf_counter() - t0
    same = counts(dsn) == loaded
    rows.append(("restart after kill -9", f"{crash:.2f} s",
                 f"{log_mb:.0f} MB of log replayed; " + ("rows equal" if same else "ROWS DIFFER")))
    proc.terminate()
    proc.wait()
    shutil.rmtree(args.dir, ignore_errors=True)

    print(f"TPC-H SF{args.sf:g}\n")
    print("| step | time / size | note |")
    print("|---|---:|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")


if __name__ == "__main__":
    main()
