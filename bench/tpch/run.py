#!/usr/bin/env python3
"""TPC-H for kiln, PostgreSQL 15 and DuckDB (WORKLOADS.md, "Analytical scale: TPC-H").

Generates the data with tpchgen-cli (cached under /tmp), loads it into each engine, runs the
22 queries in bench/tpch/queries/ (the specification's text with its validation parameters)
and prints a markdown table of median wall-clock times, plus a JSON dump of every timing.

kiln and PostgreSQL are timed as one client run each,
    psql -X -q -A -t -v ON_ERROR_STOP=1 -d DSN -f qNN.sql -o /dev/null
(wall clock, psql start-up and connection included), interleaved kiln / PostgreSQL within
every repetition. `SELECT 1` is timed the same way alongside (the start-up floor); kiln's
"server" time is its median minus that floor and is what compares with DuckDB's in-process
time (execute + fetchall inside this process, perf_counter).

Before the timed repetitions each engine runs each query once untimed; that run's answer is
compared with PostgreSQL's (numbers to 2 decimals, char(n) padding ignored, rows in order
where the query's ORDER BY fixes it). A query that errors, times out or answers wrongly is
reported as a failure of that engine and the run goes on.

See bench/tpch/README.md for commands.
"""

import argparse
import datetime as _dt
import decimal
import json
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
QUERY_DIR = os.path.join(HERE, "queries")
PG_TEMP_SH = os.path.join(REPO, "scripts", "pg-temp.sh")

PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
SEP = "\x1f"  # field separator of the (untimed) answer runs; never occurs in TPC-H data

ENGINES = ("kiln", "postgres", "duckdb")

# ---------------------------------------------------------------------------------------------
# Schema: TPC-H specification 1.4.1, in load order. Per table: columns (name, type), primary
# key, and the foreign-key columns that get an index (those that do not lead the primary key).

TABLES = [
    ("region", [("r_regionkey", "integer"), ("r_name", "char(25)"), ("r_comment", "varchar(152)")],
     ["r_regionkey"], []),
    ("nation", [("n_nationkey", "integer"), ("n_name", "char(25)"), ("n_regionkey", "integer"),
                ("n_comment", "varchar(152)")],
     ["n_nationkey"], [["n_regionkey"]]),
    ("supplier", [("s_suppkey", "integer"), ("s_name", "char(25)"), ("s_address", "varchar(40)"),
                  ("s_nationkey", "integer"), ("s_phone", "char(15)"), ("s_acctbal", "decimal(15,2)"),
                  ("s_comment", "varchar(101)")],
     ["s_suppkey"], [["s_nationkey"]]),
    ("customer", [("c_custkey", "integer"), ("c_name", "varchar(25)"), ("c_address", "varchar(40)"),
                  ("c_nationkey", "integer"), ("c_phone", "char(15)"), ("c_acctbal", "decimal(15,2)"),
                  ("c_mktsegment", "char(10)"), ("c_comment", "varchar(117)")],
     ["c_custkey"], [["c_nationkey"]]),
    ("part", [("p_partkey", "integer"), ("p_name", "varchar(55)"), ("p_mfgr", "char(25)"),
              ("p_brand", "char(10)"), ("p_type", "varchar(25)"), ("p_size", "integer"),
              ("p_container", "char(10)"), ("p_retailprice", "decimal(15,2)"),
              ("p_comment", "varchar(23)")],
     ["p_partkey"], []),
    ("partsupp", [("ps_partkey", "integer"), ("ps_suppkey", "integer"), ("ps_availqty", "integer"),
                  ("ps_supplycost", "decimal(15,2)"), ("ps_comment", "varchar(199)")],
     ["ps_partkey", "ps_suppkey"], [["ps_suppkey"]]),
    ("orders", [("o_orderkey", "integer"), ("o_custkey", "integer"), ("o_orderstatus", "char(1)"),
                ("o_totalprice", "decimal(15,2)"), ("o_orderdate", "date"),
                ("o_orderpriority", "char(15)"), ("o_clerk", "char(15)"),
                ("o_shippriority", "integer"), ("o_comment", "varchar(79)")],
     ["o_orderkey"], [["o_custkey"]]),
    ("lineitem", [("l_orderkey", "integer"), ("l_partkey", "integer"), ("l_suppkey", "integer"),
                  ("l_linenumber", "integer"), ("l_quantity", "decimal(15,2)"),
                  ("l_extendedprice", "decimal(15,2)"), ("l_discount", "decimal(15,2)"),
                  ("l_tax", "decimal(15,2)"), ("l_returnflag", "char(1)"),
                  ("l_linestatus", "char(1)"), ("l_shipdate", "date"), ("l_commitdate", "date"),
                  ("l_receiptdate", "date"), ("l_shipinstruct", "char(25)"),
                  ("l_shipmode", "char(10)"), ("l_comment", "varchar(44)")],
     ["l_orderkey", "l_linenumber"], [["l_partkey"], ["l_suppkey"]]),
]

UNQUOTED_TYPES = ("integer", "decimal")  # written bare in INSERT; everything else is quoted


def create_table_sql(name, cols, pk=None):
    body = ",\n  ".join([f"{c} {t} not null" for c, t in cols] +
                        ([f"primary key ({', '.join(pk)})"] if pk else []))
    return f"create table {name} (\n  {body}\n)"


def key_sql(name, pk, fks):
    """Primary key (unless None: declared in CREATE TABLE) and FK indexes, after loading."""
    out = [f"alter table {name} add primary key ({', '.join(pk)})"] if pk else []
    for cols in fks:
        out.append(f"create index {name}_{'_'.join(cols)}_idx on {name} ({', '.join(cols)})")
    return out


# Output columns that make up each query's ORDER BY (0-based). Rows whose ORDER BY values tie
# may come in any order: the answer is compared group by group, each group as a multiset.
ORDER_KEYS = {
    1: [0, 1], 2: [0, 1, 2, 3], 3: [1, 2], 4: [0], 5: [1], 6: [], 7: [0, 1, 2], 8: [0],
    9: [0, 1], 10: [2], 11: [1], 12: [0], 13: [1, 0], 14: [], 15: [0], 16: [3, 0, 1, 2],
    17: [], 18: [4, 3], 19: [], 20: [0], 21: [1, 0], 22: [0],
}

# ---------------------------------------------------------------------------------------------
# Small helpers


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def proc_status(pid):
    """VmRSS and VmHWM of a process, in bytes (None if unreadable)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0]) * 1024
    except OSError:
        return None
    return out


def fmt_bytes(n):
    return "?" if n is None else f"{n / 2**30:.2f} GiB"


def fmt_s(x):
    if x is None:
        return "—"
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def run_bounded(cmd, timeout, env=None, stdin=None, capture=True):
    """subprocess.run with a hard bound: on timeout SIGINT (psql then cancels the running
    statement), 10 s grace, then SIGKILL. Returns (returncode or None on timeout, stdout, stderr)."""
    p = subprocess.Popen(cmd, env=env, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out or "", err or ""
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        return None, out or "", (err or "") + f"\n(timed out after {timeout} s)"


def psql_error(stderr):
    """'SQLSTATE: message' from psql's stderr (answer runs use VERBOSITY=verbose)."""
    for line in stderr.splitlines():
        m = re.search(r"(?:ERROR|FATAL|PANIC):\s+(?:([0-9A-Z]{5}):\s+)?(.*)", line)
        if m:
            return (m.group(1) or "?????") + ": " + m.group(2).strip()
    s = stderr.strip().replace("\n", " ")
    return s[:300] if s else "failed without a message"


# ---------------------------------------------------------------------------------------------
# Data


def ensure_data(sf, data_dir, timeout):
    marker = os.path.join(data_dir, ".complete")
    if os.path.exists(marker):
        return
    os.makedirs(data_dir, exist_ok=True)
    exe = shutil.which("tpchgen-cli")
    if not exe:
        sys.exit("tpchgen-cli not found: pip install -r bench/tpch/requirements.txt")
    log(f"generating TPC-H SF{sf} into {data_dir} …")
    t0 = time.perf_counter()
    rc, _, err = run_bounded([exe, "tbl", "-s", str(sf), "--output-dir", data_dir, "--overwrite",
                              "--quiet"], timeout)
    if rc != 0:
        sys.exit(f"tpchgen-cli failed: {err.strip()}")
    for name, *_ in TABLES:
        if not os.path.exists(os.path.join(data_dir, f"{name}.tbl")):
            sys.exit(f"tpchgen-cli wrote no {name}.tbl in {data_dir}")
    with open(marker, "w") as f:
        f.write(f"sf={sf}\n")
    log(f"  generated in {time.perf_counter() - t0:.1f} s")


class TblAsCopyText:
    """A .tbl file read as COPY text format: drop each line's trailing '|', escape backslashes
    (there are none in generated data, but COPY text would read them as escapes)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.carry = b""

    def read(self, n=-1):
        chunk = self.f.read(n if n and n > 0 else 1 << 20)
        if not chunk:
            rest, self.carry = self.carry, b""
            return rest.replace(b"\\", b"\\\\")
        data = self.carry + chunk
        # keep a trailing '|' back: its newline may be in the next chunk
        if data.endswith(b"|"):
            data, self.carry = data[:-1], b"|"
        else:
            self.carry = b""
        return data.replace(b"\\", b"\\\\").replace(b"|\n", b"\n")

    def readline(self):  # psycopg2 does not call it for COPY FROM, but be a file
        return self.read(1 << 16)

    def close(self):
        self.f.close()


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def row_template(cols):
    parts = []
    for _, t in cols:
        parts.append("%s" if t.startswith(UNQUOTED_TYPES) else "'%s'")
    return "(" + ",".join(parts) + ")"


def insert_batches(path, name, cols, batch_rows):
    """Yield (sql, nrows): multi-row INSERT statements for a .tbl file."""
    tmpl = row_template(cols)
    ncols = len(cols)
    head = f"insert into {name} values "
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("|")[:ncols]
            if len(fields) != ncols:
                raise ValueError(f"{path}: bad line {line[:80]!r}")
            if "'" in line:
                fields = [x.replace("'", "''") for x in fields]
            rows.append(tmpl % tuple(fields))
            if len(rows) >= batch_rows:
                yield head + ",".join(rows), len(rows)
                rows = []
    if rows:
        yield head + ",".join(rows), len(rows)


# ---------------------------------------------------------------------------------------------
# Servers


class Kiln:
    def __init__(self, binary, port, workdir, timeout):
        self.port = port
        self.log_path = os.path.join(workdir, "kiln.log")
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen([binary, "--port", str(port)], stdout=self.logf,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.dsn = f"host=127.0.0.1 port={port} user=tpch dbname=tpch"
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"kiln exited at start-up (code {self.proc.returncode}); see {self.log_path}")
            rc, _, _ = run_bounded(PSQL + ["-d", self.dsn, "-c", "select 1"], 10)
            if rc == 0:
                return
            time.sleep(0.2)
        self.stop()
        sys.exit(f"kiln did not accept connections within {timeout} s; see {self.log_path}")

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()


class TempPostgres:
    """A throwaway PostgreSQL 15 on loopback via scripts/pg-temp.sh (as bench/bench.sh)."""

    def __init__(self, conf, timeout):
        self.work = tempfile.mkdtemp(prefix="kiln-tpch-pg.")
        opts = " ".join(f"'{c}'" for c in conf)
        rc, out, err = run_bounded(["bash", "-c", f'set -e; source "{PG_TEMP_SH}"; '
                                    f'pg_temp_start "{self.work}" {opts}; echo "$PG_PORT"'], timeout)
        if rc != 0:
            shutil.rmtree(self.work, ignore_errors=True)
            sys.exit(f"could not start PostgreSQL: {err.strip()}")
        self.port = int(out.strip().splitlines()[-1])
        self.dsn = f"host=127.0.0.1 port={self.port} user=postgres dbname=tpch"
        run_bounded(PSQL + ["-d", f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                            "-c", "create database tpch"], 60)

    def stop(self):
        run_bounded(["bash", "-c", f'source "{PG_TEMP_SH}"; PG_WORK="{self.work}"; pg_temp_stop'], 120)
        shutil.rmtree(self.work, ignore_errors=True)


def ensure_pg_database(dsn):
    """CREATE DATABASE for --pg-dsn's dbname if missing (connecting to `postgres`)."""
    import psycopg2
    try:
        psycopg2.connect(dsn).close()
        return
    except psycopg2.OperationalError as e:
        if "does not exist" not in str(e):
            raise
    params = psycopg2.extensions.parse_dsn(dsn)
    db = params.pop("dbname")
    admin = psycopg2.connect(psycopg2.extensions.make_dsn(**params, dbname="postgres"))
    admin.autocommit = True
    admin.cursor().execute(f'create database "{db}"')
    admin.close()


# ---------------------------------------------------------------------------------------------
# Loading


def load_sql_engine(engine, dsn, data_dir, how, keys, analyze, batch_rows):
    """Load the eight tables through one connection. Returns a dict of timings (seconds)."""
    import psycopg2
    stats = {"method": how, "keys": keys, "tables": {}}
    t_all = time.perf_counter()
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    if engine == "postgres":
        cur.execute("set maintenance_work_mem = '1GB'")
    for name, cols, _, _ in reversed(TABLES):
        cur.execute(f"drop table if exists {name}")
    for name, cols, pk, fks in TABLES:
        path = os.path.join(data_dir, f"{name}.tbl")
        t0 = time.perf_counter()
        # PostgreSQL: keys after COPY (faster). kiln: the primary key in CREATE TABLE, so that
        # the INSERTs are checked as an application's would be; FK indexes after loading.
        inline_pk = keys and engine == "kiln"
        cur.execute(create_table_sql(name, cols, pk if inline_pk else None))
        nrows = 0
        if how == "copy":
            src = TblAsCopyText(path)
            try:
                cur.copy_expert(f"copy {name} from stdin with (delimiter '|')", src, size=1 << 20)
            finally:
                src.close()
            nrows = cur.rowcount
        else:
            # A producer thread builds the statements while this one waits on the server
            # (psycopg2 releases the GIL during a query).
            q = queue.Queue(maxsize=8)
            failure = []

            def produce():
                try:
                    for item in insert_batches(path, name, cols, batch_rows):
                        q.put(item)
                except Exception as e:  # noqa: BLE001 -- reported by the consumer
                    failure.append(e)
                q.put(None)

            th = threading.Thread(target=produce, daemon=True)
            th.start()
            try:
                while True:
                    item = q.get()
                    if item is None:
                        break
                    cur.execute(item[0])
                    nrows += item[1]
            except BaseException:
                # drain so the producer can finish
                while th.is_alive():
                    try:
                        q.get(timeout=0.1)
                    except queue.Empty:
                        pass
                raise
            th.join()
            if failure:
                raise failure[0]
        t_data = time.perf_counter() - t0
        t1 = time.perf_counter()
        if keys:
            for stmt in key_sql(name, None if inline_pk else pk, fks):
                cur.execute(stmt)
        t_keys = time.perf_counter() - t1
        stats["tables"][name] = {"rows": nrows, "data_s": t_data, "keys_s": t_keys}
        log(f"  {engine}: {name:<9} {nrows:>9} rows  {t_data:7.1f} s" +
            (f"  + keys {t_keys:.1f} s" if keys else ""))
    for name, *_ in TABLES:
        cur.execute(f"select count(*) from {name}")
        n = cur.fetchone()[0]
        if n != stats["tables"][name]["rows"]:
            raise RuntimeError(f"{name} holds {n} rows after loading {stats['tables'][name]['rows']}")
    if analyze:
        t1 = time.perf_counter()
        cur.execute("vacuum analyze")
        stats["vacuum_analyze_s"] = time.perf_counter() - t1
        log(f"  {engine}: vacuum analyze {stats['vacuum_analyze_s']:.1f} s")
    conn.close()
    stats["total_s"] = time.perf_counter() - t_all
    return stats


def load_duckdb(con, data_dir):
    stats = {"method": "read_csv", "tables": {}}
    t_all = time.perf_counter()
    for name, cols, _, _ in TABLES:
        path = os.path.join(data_dir, f"{name}.tbl")
        t0 = time.perf_counter()
        con.execute(f"drop table if exists {name}")
        con.execute(create_table_sql(name, cols))
        spec = "{" + ", ".join(f"'{c}': '{t}'" for c, t in cols) + "}"
        con.execute(f"insert into {name} select * from read_csv({sql_literal(path)}, delim = '|', "
                    f"header = false, quote = '', escape = '', auto_detect = false, columns = {spec})")
        n = con.execute(f"select count(*) from {name}").fetchone()[0]
        t = time.perf_counter() - t0
        stats["tables"][name] = {"rows": n, "data_s": t}
        log(f"  duckdb: {name:<9} {n:>9} rows  {t:7.1f} s")
    stats["total_s"] = time.perf_counter() - t_all
    st = proc_status(os.getpid())
    stats["harness_rss_after_load"] = st and st.get("VmRSS")
    return stats


# ---------------------------------------------------------------------------------------------
# Answers and their comparison

NUMERIC = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def cell_text(v):
    if v is None:
        return ""
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    return str(v)


def norm_cell(s):
    s = s.rstrip(" ")
    if NUMERIC.match(s):
        return float(s)
    return s


def cells_equal(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return round(a, 2) == round(b, 2) or abs(a - b) <= 0.005 + 1e-12 * max(abs(a), abs(b))
    return a == b


def rows_equal(r1, r2):
    return len(r1) == len(r2) and all(cells_equal(x, y) for x, y in zip(r1, r2))


def sort_key(row):
    return tuple((0, round(c, 2), "") if isinstance(c, float) else (1, 0.0, c) for c in row)


def compare_answers(qnum, got, ref):
    """None if equal, else a short description of the first difference."""
    if len(got) != len(ref):
        return f"{len(got)} rows, expected {len(ref)}"
    got = [[norm_cell(c) for c in r] for r in got]
    ref = [[norm_cell(c) for c in r] for r in ref]
    for i, (g, r) in enumerate(zip(got, ref)):
        if len(g) != len(r):
            return f"row {i + 1}: {len(g)} columns, expected {len(r)}"
    keys = ORDER_KEYS.get(qnum)
    if keys is None:  # unknown query: compare as sets
        groups = [(0, len(ref))]
    else:
        groups, start = [], 0
        for i in range(1, len(ref) + 1):
            if i == len(ref) or not rows_equal([ref[i][k] for k in keys], [ref[start][k] for k in keys]):
                groups.append((start, i))
                start = i
    for lo, hi in groups:
        g = sorted(got[lo:hi], key=sort_key) if hi - lo > 1 else got[lo:hi]
        r = sorted(ref[lo:hi], key=sort_key) if hi - lo > 1 else ref[lo:hi]
        for j, (x, y) in enumerate(zip(g, r)):
            if not rows_equal(x, y):
                row = lo + j + 1
                return f"row {row}: {fmt_row(x)} expected {fmt_row(y)}"
    return None


def fmt_row(r):
    s = "|".join(str(c) for c in r)
    return s if len(s) < 120 else s[:117] + "…"


# ---------------------------------------------------------------------------------------------
# Running


class PsqlEngine:
    def __init__(self, name, dsn, stmt_timeout, pgoptions):
        self.name, self.dsn, self.timeout = name, dsn, stmt_timeout
        self.env = dict(os.environ, PGCONNECT_TIMEOUT="10")
        if pgoptions:
            self.env["PGOPTIONS"] = (self.env.get("PGOPTIONS", "") +
                                     f" -c statement_timeout={int(stmt_timeout * 1000)}").strip()

    def answer(self, path):
        """Untimed run that captures the rows. Returns (rows, error)."""
        rc, out, err = run_bounded(PSQL + ["-v", "VERBOSITY=verbose", "-F", SEP, "-d", self.dsn,
                                           "-f", path], self.timeout + 30, env=self.env)
        if rc is None:
            return None, f"timeout: no answer within {self.timeout} s"
        if rc != 0:
            return None, psql_error(err)
        # -A -t: one line per row, each ended by a newline (a row of one NULL is an empty line)
        if out == "":
            return [], None
        if out.endswith("\n"):
            out = out[:-1]
        rows = [line.split(SEP) for line in out.split("\n")]
        return rows, None

    def timed(self, path):
        """One timed client run (the command of WORKLOADS.md). Returns (seconds, error)."""
        t0 = time.perf_counter()
        rc, _, err = run_bounded(PSQL + ["-d", self.dsn, "-f", path, "-o", "/dev/null"],
                                 self.timeout + 30, env=self.env, capture=True)
        dt = time.perf_counter() - t0
        if rc is None:
            return None, f"timeout after {self.timeout} s"
        if rc != 0:
            return None, psql_error(err)
        return dt, None


class DuckEngine:
    name = "duckdb"

    def __init__(self, con, stmt_timeout):
        self.con, self.timeout = con, stmt_timeout

    def _run(self, sql):
        timer = threading.Timer(self.timeout, self.con.interrupt)
        timer.start()
        try:
            t0 = time.perf_counter()
            rows = self.con.execute(sql).fetchall()
            return rows, time.perf_counter() - t0, None
        except Exception as e:  # noqa: BLE001 -- any DuckDB error is a failure of the query
            msg = str(e).strip().replace("\n", " ")
            if "INTERRUPT" in msg.upper():
                msg = f"timeout after {self.timeout} s"
            return None, None, f"{type(e).__name__}: {msg[:300]}"
        finally:
            timer.cancel()

    def answer(self, path):
        with open(path) as f:
            rows, _, err = self._run(f.read())
        if err:
            return None, err
        return [[cell_text(c) for c in r] for r in rows], None

    def timed(self, path):
        with open(path) as f:
            _, dt, err = self._run(f.read())
        return dt, err


def parse_queries(spec):
    if spec in (None, "", "all"):
        return list(range(1, 23))
    out = []
    for part in spec.split(","):
        part = part.strip().lower().lstrip("q")
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    for q in out:
        if not 1 <= q <= 22:
            sys.exit(f"no TPC-H query {q}")
    return out


def median(xs):
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", default="1", help="scale factor (default 1)")
    ap.add_argument("--data-dir", help="where the .tbl files are cached (default /tmp/kiln-tpch-data/sfSF)")
    ap.add_argument("--engines", default="kiln,postgres,duckdb")
    ap.add_argument("--queries", default="all", help="e.g. 1,3,6 or 1-5 (default all 22)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions per query (default 3)")
    ap.add_argument("--timeout", type=float, default=300, help="per-statement timeout, s (default 300)")
    ap.add_argument("--load-timeout", type=float, default=6 * 3600,
                    help="bound on generation and on each engine's load, s (default 21600)")
    ap.add_argument("--kiln-dsn", help="use a running kiln (else start --kiln-bin on a free port)")
    ap.add_argument("--kiln-bin", default=os.environ.get("KILN_BIN", os.path.join(REPO, "target", "release", "kiln")))
    ap.add_argument("--kiln-load", choices=("insert", "copy"), default="copy")
    ap.add_argument("--kiln-batch", type=int, default=1000, help="rows per INSERT (default 1000)")
    ap.add_argument("--kiln-keys", action="store_true", help="give kiln the primary keys and FK indexes too")
    ap.add_argument("--kiln-analyze", action="store_true", help="run VACUUM ANALYZE on kiln after loading")
    ap.add_argument("--pg-dsn", help="use a running PostgreSQL (else start one with scripts/pg-temp.sh)")
    ap.add_argument("--pg-conf", action="append", default=[], metavar="NAME=VALUE",
                    help="postgres -c option for the PostgreSQL the harness starts (repeatable)")
    ap.add_argument("--no-pg-keys", action="store_true", help="no primary keys / FK indexes on PostgreSQL")
    ap.add_argument("--no-load", action="store_true",
                    help="skip loading kiln/PostgreSQL given by --kiln-dsn/--pg-dsn (data already there)")
    ap.add_argument("--duckdb-threads", type=int, help="DuckDB threads (default: DuckDB's, all cores)")
    ap.add_argument("--query-dir", default=QUERY_DIR, help="directory of qNN.sql files (default bench/tpch/queries)")
    ap.add_argument("--markdown", help="also write the markdown report to FILE")
    ap.add_argument("--json", help="raw timings as JSON (default WORKDIR/results.json)")
    ap.add_argument("--workdir", help="logs and results (default a new /tmp/kiln-tpch-run.*)")
    args = ap.parse_args()

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES:
            sys.exit(f"unknown engine {e!r} (kiln, postgres, duckdb)")
    engines = [e for e in ENGINES if e in engines]  # canonical order: kiln, postgres, duckdb
    queries = parse_queries(args.queries)
    data_dir = args.data_dir or f"/tmp/kiln-tpch-data/sf{args.sf}"
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-tpch-run.")
    os.makedirs(workdir, exist_ok=True)
    json_path = args.json or os.path.join(workdir, "results.json")

    results = {"sf": args.sf, "data_dir": data_dir, "engines": engines, "queries": queries,
               "reps": args.reps, "timeout_s": args.timeout, "started": _dt.datetime.now().isoformat(),
               "load": {}, "floor": {}, "per_query": {}, "notes": []}

    need_data = ("duckdb" in engines or ("kiln" in engines and not (args.no_load and args.kiln_dsn))
                 or ("postgres" in engines and not (args.no_load and args.pg_dsn)))
    if need_data:
        ensure_data(args.sf, data_dir, args.load_timeout)

    kiln_srv = pg_srv = None
    stoppers = []

    def cleanup(*_):
        for s in reversed(stoppers):
            try:
                s.stop()
            except Exception as e:  # noqa: BLE001
                log(f"cleanup: {e}")
        stoppers.clear()

    def on_signal(signum, _frame):
        cleanup()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    runners = {}
    broken = {}  # engine -> reason it runs no query (load failed, …)
    try:
        # -- servers ----------------------------------------------------------------------
        if "postgres" in engines:
            if args.pg_dsn:
                pg_dsn = args.pg_dsn
                if not args.no_load:
                    ensure_pg_database(pg_dsn)
            else:
                log("starting a throwaway PostgreSQL 15 (scripts/pg-temp.sh) …")
                pg_srv = TempPostgres(args.pg_conf, 120)
                stoppers.append(pg_srv)
                pg_dsn = pg_srv.dsn
            results["pg_dsn"] = pg_dsn
        if "kiln" in engines:
            if args.kiln_dsn:
                kiln_dsn = args.kiln_dsn
            else:
                if not os.access(args.kiln_bin, os.X_OK):
                    sys.exit(f"no kiln binary at {args.kiln_bin} (build it, or pass --kiln-bin / --kiln-dsn)")
                log(f"starting kiln ({args.kiln_bin}) …")
                kiln_srv = Kiln(args.kiln_bin, free_port(), workdir, 30)
                stoppers.append(kiln_srv)
                kiln_dsn = kiln_srv.dsn
            results["kiln_dsn"] = kiln_dsn
            if kiln_srv:
                results["kiln_rss_at_start"] = proc_status(kiln_srv.pid)

        # -- loading ----------------------------------------------------------------------
        duck_con = None
        for engine in engines:
            if engine == "duckdb":
                import duckdb
                duck_con = duckdb.connect()
                if args.duckdb_threads:
                    duck_con.execute(f"set threads = {args.duckdb_threads}")
                log("loading duckdb …")
                results["load"]["duckdb"] = load_duckdb(duck_con, data_dir)
                results["duckdb_version"] = duckdb.__version__
                continue
            dsn = kiln_dsn if engine == "kiln" else pg_dsn
            external = args.kiln_dsn if engine == "kiln" else args.pg_dsn
            if args.no_load and external:
                log(f"{engine}: --no-load, using the data already in {dsn}")
                continue
            how = args.kiln_load if engine == "kiln" else "copy"
            keys = args.kiln_keys if engine == "kiln" else not args.no_pg_keys
            analyze = args.kiln_analyze if engine == "kiln" else True
            log(f"loading {engine} ({how}{', keys' if keys else ''}{', vacuum analyze' if analyze else ''}) …")
            box = {}

            def do_load(engine=engine, dsn=dsn, how=how, keys=keys, analyze=analyze, box=box):
                try:
                    box["stats"] = load_sql_engine(engine, dsn, data_dir, how, keys, analyze, args.kiln_batch)
                except Exception as e:  # noqa: BLE001 -- reported as the engine's failure
                    box["error"] = f"{type(e).__name__}: {str(e).strip()}"[:500]

            th = threading.Thread(target=do_load, daemon=True)
            th.start()
            th.join(args.load_timeout)
            if th.is_alive():
                box["error"] = f"load did not finish within {args.load_timeout} s"
            if "error" in box:
                log(f"  {engine}: LOAD FAILED: {box['error']}")
                broken[engine] = "load failed: " + box["error"]
                results["load"][engine] = {"error": box["error"]}
                continue
            stats = box["stats"]
            if engine == "kiln" and kiln_srv:
                time.sleep(0.5)  # the load's connection has closed; let the server settle
                stats["server_status_after_load"] = proc_status(kiln_srv.pid)
                st = stats["server_status_after_load"] or {}
                log(f"  kiln: loaded in {stats['total_s']:.1f} s; VmRSS {fmt_bytes(st.get('VmRSS'))}, "
                    f"VmHWM {fmt_bytes(st.get('VmHWM'))}")
            else:
                log(f"  {engine}: loaded in {stats['total_s']:.1f} s")
            results["load"][engine] = stats

        # -- runners ----------------------------------------------------------------------
        for engine in engines:
            if engine in broken:
                continue
            if engine == "duckdb":
                runners[engine] = DuckEngine(duck_con, args.timeout)
                continue
            dsn = kiln_dsn if engine == "kiln" else pg_dsn
            r = PsqlEngine(engine, dsn, args.timeout, pgoptions=True)
            rc, _, err = run_bounded(PSQL + ["-d", dsn, "-c", "select 1"], 30, env=r.env)
            if rc != 0:  # the server refused PGOPTIONS' statement_timeout: go on without it
                r = PsqlEngine(engine, dsn, args.timeout, pgoptions=False)
                note = (f"{engine}: connecting with PGOPTIONS statement_timeout failed "
                        f"({psql_error(err)}); only the client-side timeout applies")
                results["notes"].append(note)
                log(note)
            runners[engine] = r

        select1 = os.path.join(workdir, "select1.sql")
        with open(select1, "w") as f:
            f.write("SELECT 1;\n")
        floors = {e: [] for e in runners if e != "duckdb"}
        for _ in range(max(3, args.reps)):  # the start-up floor, also measured alongside every repetition
            for e in floors:
                fdt, _ = runners[e].timed(select1)
                if fdt is not None:
                    floors[e].append(fdt)

        # -- queries ----------------------------------------------------------------------
        ref_engine = "postgres" if "postgres" in runners else ("duckdb" if "duckdb" in runners else None)
        results["reference"] = ref_engine
        for qn in queries:
            path = os.path.join(args.query_dir, f"q{qn:02d}.sql")
            if not os.path.exists(path):
                log(f"q{qn:02d}: no {path}, skipped")
                continue
            qres = {e: {"times": [], "error": None, "wrong": None} for e in engines}
            for e in broken:
                qres[e]["error"] = broken[e]
            answers = {}
            # untimed answer run (also a warm-up), reference engine first
            order = sorted(runners, key=lambda e: e != ref_engine)
            for e in order:
                if e == "kiln" and kiln_srv and not kiln_srv.alive():
                    qres[e]["error"] = "kiln server is no longer running"
                    continue
                t0 = time.perf_counter()
                rows, err = runners[e].answer(path)
                qres[e]["answer_s"] = time.perf_counter() - t0
                if err:
                    qres[e]["error"] = err
                    continue
                answers[e] = rows
                qres[e]["rows"] = len(rows)
            for e in runners:
                if e == ref_engine or e not in answers:
                    continue
                if ref_engine not in answers:
                    qres[e]["wrong"] = None
                    qres[e]["unchecked"] = True
                    continue
                qres[e]["wrong"] = compare_answers(qn, answers[e], answers[ref_engine])
            # timed repetitions, interleaved kiln / postgres (/ duckdb) per repetition
            timed = [e for e in runners if qres[e]["error"] is None]
            for _ in range(args.reps):
                for e in timed:
                    if qres[e]["error"]:
                        continue
                    if e == "kiln" and kiln_srv and not kiln_srv.alive():
                        qres[e]["error"] = "kiln server is no longer running"
                        continue
                    dt, err = runners[e].timed(path)
                    if err:
                        qres[e]["error"] = err
                    else:
                        qres[e]["times"].append(dt)
                    if e in floors:
                        fdt, ferr = runners[e].timed(select1)
                        if fdt is not None:
                            floors[e].append(fdt)
            for e in engines:
                qres[e]["median_s"] = median(qres[e]["times"]) if not qres[e]["error"] else None
            results["per_query"][f"q{qn:02d}"] = qres
            log(f"q{qn:02d}: " + "  ".join(
                f"{e} " + (fmt_s(qres[e]['median_s']) if qres[e]["median_s"] is not None else "ERR")
                + (" WRONG" if qres[e].get("wrong") else "") for e in engines))
    finally:
        results["floor"] = {e: {"times": v, "median_s": median(v)} for e, v in
                            (locals().get("floors") or {}).items()}
        if kiln_srv:
            results["kiln_status_at_end"] = proc_status(kiln_srv.pid)
        cleanup()
        results["finished"] = _dt.datetime.now().isoformat()
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)

    report = render(results, args, broken)
    print(report)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n")
    log(f"raw timings: {json_path}")
    bad = any(q[e]["error"] or q[e].get("wrong") for q in results["per_query"].values()
              for e in engines if e != "kiln")
    sys.exit(1 if bad else 0)


def render(results, args, broken):
    engines = results["engines"]
    floor = {e: results["floor"].get(e, {}).get("median_s") for e in ("kiln", "postgres")}
    lines = [f"## TPC-H SF{results['sf']} — median of {results['reps']} runs, seconds", ""]
    lines.append("| query | PostgreSQL s | kiln s | kiln/PG | kiln server s | DuckDB s | correct? |")
    lines.append("|---|---:|---:|---:|---:|---:|---|")
    failures = []
    tot = {"pg": 0.0, "duck": 0.0, "kiln_ok": 0.0, "kiln_srv_ok": 0.0, "pg_kiln_ok": 0.0,
           "duck_kiln_ok": 0.0}
    n_ok = {e: 0 for e in engines}
    for qname, q in results["per_query"].items():
        cells = {}
        verdict = []
        for e in engines:
            r = q[e]
            if r["error"]:
                short = "timeout" if r["error"].startswith("timeout") else (
                    r["error"][:5] if re.match(r"^[0-9A-Z]{5}:", r["error"]) else "error")
                if r["error"].startswith("load failed"):
                    short = "not loaded"
                cells[e] = short
                if e not in broken:
                    failures.append(f"- {qname} {e}: {r['error']}")
                verdict.append(f"{e} ✗ {short}")
            elif r.get("wrong"):
                cells[e] = fmt_s(r["median_s"])
                failures.append(f"- {qname} {e}: wrong answer: {r['wrong']}")
                verdict.append(f"{e} ✗ wrong")
            else:
                cells[e] = fmt_s(r["median_s"])
                n_ok[e] += 1
                if e != results.get("reference"):
                    verdict.append(f"{e} ✓" if not r.get("unchecked") else f"{e} (unchecked)")
        pg = q.get("postgres", {}).get("median_s") if "postgres" in engines else None
        kl = q.get("kiln", {}).get("median_s") if "kiln" in engines else None
        dk = q.get("duckdb", {}).get("median_s") if "duckdb" in engines else None
        kiln_ok = kl is not None and not q["kiln"].get("wrong")
        ratio = f"{kl / pg:.2f}" if (kiln_ok and pg) else "—"
        ksrv = kl - floor["kiln"] if (kiln_ok and floor.get("kiln") is not None) else None
        if pg is not None:
            tot["pg"] += pg
        if dk is not None:
            tot["duck"] += dk
        if kiln_ok:
            tot["kiln_ok"] += kl
            tot["pg_kiln_ok"] += pg or 0.0
            tot["duck_kiln_ok"] += dk or 0.0
            if ksrv is not None:
                tot["kiln_srv_ok"] += ksrv
        lines.append(f"| {qname} | {cells.get('postgres', '—')} | {cells.get('kiln', '—')} | {ratio} | "
                     f"{fmt_s(ksrv) if ksrv is not None else '—'} | {cells.get('duckdb', '—')} | "
                     f"{', '.join(verdict) if verdict else '—'} |")
    nq = len(results["per_query"])
    t_pg = fmt_s(tot["pg"]) if "postgres" in engines else "—"
    t_kiln = fmt_s(tot["kiln_ok"]) if n_ok.get("kiln") else "—"
    t_ratio = f"{tot['kiln_ok'] / tot['pg_kiln_ok']:.2f}" if tot["pg_kiln_ok"] else "—"
    t_srv = fmt_s(tot["kiln_srv_ok"]) if n_ok.get("kiln") and floor.get("kiln") is not None else "—"
    t_duck = fmt_s(tot["duck"]) if "duckdb" in engines else "—"
    ok = ", ".join(f"{e} {n_ok[e]}/{nq}" for e in engines)
    lines.append(f"| **total** | {t_pg} | {t_kiln} | {t_ratio} | {t_srv} | {t_duck} | {ok} |")
    lines.append("")
    lines.append(f"Reference answers: {results.get('reference')}. kiln columns and the kiln total count only "
                 f"the queries kiln answered correctly"
                 + (" (" + ", ".join(f"{label} {fmt_s(tot[k])} s" for e, label, k in
                                     (("postgres", "PostgreSQL", "pg_kiln_ok"), ("duckdb", "DuckDB", "duck_kiln_ok"))
                                     if e in engines) + " on those)"
                    if n_ok.get("kiln") and len(engines) > 1 else "") + ". PostgreSQL and DuckDB totals count their successful queries.")
    fl = ", ".join(f"{e} {fmt_s(v)} s" for e, v in floor.items() if v is not None)
    if fl:
        lines.append(f"psql start-up floor (`SELECT 1`, median): {fl}. kiln server s = kiln s − kiln floor.")
    lines.append("")
    lines.append("Load:")
    for e in engines:
        ld = results["load"].get(e)
        if ld is None:
            lines.append(f"- {e}: not loaded by this run (--no-load)")
        elif "error" in ld:
            lines.append(f"- {e}: FAILED: {ld['error']}")
        else:
            extra = ""
            if e == "kiln" and ld.get("server_status_after_load"):
                st = ld["server_status_after_load"]
                extra = f"; server VmRSS after load {fmt_bytes(st.get('VmRSS'))} (VmHWM {fmt_bytes(st.get('VmHWM'))})"
            if e == "duckdb" and ld.get("harness_rss_after_load"):
                extra = f"; harness process (DuckDB in it) VmRSS {fmt_bytes(ld['harness_rss_after_load'])}"
            detail = ""
            if "vacuum_analyze_s" in ld:
                keys = sum(t.get("keys_s", 0) for t in ld["tables"].values())
                detail = f" (keys/indexes {keys:.1f} s, vacuum analyze {ld['vacuum_analyze_s']:.1f} s)"
            lines.append(f"- {e}: {ld['method']}, {ld['total_s']:.1f} s{detail}{extra}")
    if results.get("kiln_status_at_end"):
        st = results["kiln_status_at_end"]
        lines.append(f"- kiln at the end of the run: VmRSS {fmt_bytes(st.get('VmRSS'))}, VmHWM {fmt_bytes(st.get('VmHWM'))}")
    for n in results["notes"]:
        lines.append(f"- note: {n}")
    for e, why in broken.items():
        lines.append(f"- {e} ran no query: {why}")
    if failures:
        lines.append("")
        lines.append("Failures:")
        lines.extend(failures)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
