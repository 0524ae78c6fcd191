#!/usr/bin/env python3
"""Differential testing: random expressions on kiln and on PostgreSQL 15, compared.

Generates SELECTs over a small table with every supported type — operators, casts,
functions, CASE, NULLs, aggregates — runs each on both servers with psycopg2, and reports
every statement whose rows or SQLSTATE differ (an internal error, XX000, is always a bug).

Usage: differential.py KILN_DSN PG_DSN [--count N] [--seed S]
"""

import argparse
import random
import sys

import psycopg2

SETUP = [
    "DROP TABLE IF EXISTS fz",
    "CREATE TABLE fz (i int, b bigint, s smallint, n numeric(10,3), f float8, r real, t text, v varchar(8), "
    "d date, ts timestamp, ok boolean)",
    "INSERT INTO fz VALUES (1, 10000000000, 3, 1.500, 0.25, 1.5, 'abc', 'x', '2024-01-31', '2024-01-31 10:00:00', true),"
    "(-7, -3, -2, -0.125, -2.5, 0, 'Hello', 'yy', '2000-02-29', '1999-12-31 23:59:59.5', false),"
    "(0, 0, 0, 0, 0, -1.25, '', '', '1970-01-01', '2000-01-01 00:00:00', NULL),"
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
    "(2147483647, 9223372036854775807, 32767, 9999999.999, 1e300, 3.4e38, 'a%b_c', 'zzzzzzzz', '2099-12-31', '2024-02-29 12:34:56.789', true)",
]

INT_COLS = ["i", "b", "s"]
NUM_COLS = ["n"]
FLOAT_COLS = ["f", "r"]
TEXT_COLS = ["t", "v"]
INT_LITS = ["0", "1", "-1", "7", "2147483647", "-2147483648", "100000", "NULL"]
NUM_LITS = ["1.5", "0.001", "-2.25", "1e3", "123456.789", "0.0"]
TEXT_LITS = ["'abc'", "''", "'Hello'", "'%'", "'a%'", "'_b%'", "NULL"]


def num_expr(depth):
    if depth <= 0 or random.random() < 0.3:
        return random.choice(INT_COLS + NUM_COLS + FLOAT_COLS + INT_LITS + NUM_LITS)
    choice = random.randrange(9)
    a, b = num_expr(depth - 1), num_expr(depth - 1)
    if choice < 4:
        return f"({a} {random.choice(['+', '-', '*', '/', '%'])} {b})"
    if choice == 4:
        return f"abs({a})"
    if choice == 5:
        return f"CAST({a} AS {random.choice(['int', 'bigint', 'smallint', 'numeric', 'numeric(8,2)', 'float8', 'real'])})"
    if choice == 6:
        return f"coalesce({a}, {b})"
    if choice == 7:
        return f"CASE WHEN {bool_expr(depth - 1)} THEN {a} ELSE {b} END"
    return f"{random.choice(['round', 'trunc', 'ceil', 'floor'])}({a})"


def text_expr(depth):
    if depth <= 0 or random.random() < 0.3:
        return random.choice(TEXT_COLS + TEXT_LITS)
    choice = random.randrange(7)
    a = text_expr(depth - 1)
    if choice == 0:
        return f"({a} || {random.choice([text_expr(depth - 1), num_expr(depth - 1)])})"
    if choice == 1:
        return f"{random.choice(['upper', 'lower', 'btrim', 'ltrim', 'rtrim'])}({a})"
    if choice == 2:
        return f"substr({a}, {random.choice(['0', '1', '2', '-1', '5'])}, {random.choice(['0', '1', '3', '10'])})"
    if choice == 3:
        return f"replace({a}, {random.choice(TEXT_LITS[:-1])}, {random.choice(TEXT_LITS[:-1])})"
    if choice == 4:
        return f"CAST({num_expr(depth - 1)} AS text)"
    if choice == 5:
        return f"concat({a}, {num_expr(depth - 1)}, {random.choice(['true', 'NULL', 'd', 'ts'])})"
    return f"nullif({a}, {random.choice(TEXT_LITS)})"


def bool_expr(depth):
    if depth <= 0 or random.random() < 0.2:
        return random.choice(["ok", "true", "false", "NULL::boolean"])
    choice = random.randrange(8)
    if choice < 3:
        return f"({num_expr(depth - 1)} {random.choice(['=', '<>', '<', '<=', '>', '>='])} {num_expr(depth - 1)})"
    if choice == 3:
        return f"({text_expr(depth - 1)} {random.choice(['=', '<', '>', 'LIKE', 'ILIKE', 'NOT LIKE'])} {text_expr(depth - 1)})"
    if choice == 4:
        return f"({bool_expr(depth - 1)} {random.choice(['AND', 'OR'])} {bool_expr(depth - 1)})"
    if choice == 5:
        return f"({num_expr(depth - 1)} IS {random.choice(['NULL', 'NOT NULL'])})"
    if choice == 6:
        return f"({num_expr(depth - 1)} {random.choice(['IN', 'NOT IN'])} ({', '.join(num_expr(0) for _ in range(3))}))"
    return f"({num_expr(depth - 1)} BETWEEN {num_expr(0)} AND {num_expr(0)})"


def date_expr():
    return random.choice([
        "d + i % 100", "d - 1", "ts + interval '1 day 2 hours'", "ts - interval '1 month'",
        "d - date '2000-01-01'", "ts - timestamp '2000-01-01'", "CAST(ts AS date)", "CAST(d AS timestamp)",
        "date '2024-01-31' + interval '1 month'", "interval '1 day' * 1.5",
    ])


def query_shape():
    """GROUP BY, HAVING, DISTINCT and multi-key ORDER BY with LIMIT/OFFSET."""
    kind = random.randrange(4)
    key = random.choice(["i % 3", "t", "ok", "s", "upper(v)", "d", "n", "CAST(f AS int) % 2", "length(t)"])
    agg = random.choice(["count(*)", "sum(i)", "avg(n)", "min(t)", "max(d)", "count(DISTINCT ok)", "sum(b)", "avg(s)",
                         "max(ts)", "min(r)", "sum(f)"])
    if kind == 0:
        return f"SELECT {key}, {agg} FROM fz GROUP BY 1 ORDER BY 1 NULLS FIRST"
    if kind == 1:
        return f"SELECT {key}, {agg} FROM fz GROUP BY {key} HAVING count(*) {random.choice(['>', '>=', '='])} 1 ORDER BY 2, 1"
    if kind == 2:
        return f"SELECT DISTINCT {key} FROM fz ORDER BY 1 {random.choice(['ASC', 'DESC'])} {random.choice(['NULLS FIRST', 'NULLS LAST', ''])}"
    cols = random.sample(["i", "t", "f", "n", "d", "ok", "v", "ts", "s", "r"], 3)
    order = ", ".join(f"{c} {random.choice(['ASC', 'DESC'])} {random.choice(['NULLS FIRST', 'NULLS LAST', ''])}" for c in cols)
    return f"SELECT {', '.join(cols)} FROM fz ORDER BY {order} LIMIT {random.randrange(0, 6)} OFFSET {random.randrange(0, 3)}"


def statement():
    kind = random.randrange(8)
    if kind >= 6:
        return query_shape()
    if kind == 0:
        return f"SELECT {num_expr(3)} FROM fz"
    if kind == 1:
        return f"SELECT {text_expr(3)} FROM fz"
    if kind == 2:
        return f"SELECT {bool_expr(3)} FROM fz"
    if kind == 3:
        return f"SELECT {date_expr()} FROM fz"
    if kind == 4:
        agg = random.choice(["count", "sum", "avg", "min", "max"])
        arg = random.choice([num_expr(2), text_expr(1) if agg in ("count", "min", "max") else num_expr(1)])
        distinct = random.choice(["", "DISTINCT "])
        return f"SELECT {agg}({distinct}{arg}) FROM fz WHERE {bool_expr(2)}"
    return f"SELECT {num_expr(2)} AS x FROM fz WHERE {bool_expr(2)} ORDER BY 1 NULLS FIRST"


def run(conn, sql):
    """Rows (in order when the query orders them completely) or the error's SQLSTATE."""
    cur = conn.cursor()
    try:
        cur.execute(sql)
        rows = cur.fetchall()
        conn.rollback()
        ordered = "ORDER BY" in sql and "GROUP BY" not in sql.split("ORDER BY")[-1]
        return ("rows", [repr(r) for r in rows] if ordered else sorted(repr(r) for r in rows))
    except psycopg2.Error as e:
        conn.rollback()
        return ("error", e.pgcode)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("pg")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    random.seed(args.seed)
    kiln, pg = psycopg2.connect(args.kiln), psycopg2.connect(args.pg)
    for c in (kiln, pg):
        c.autocommit = True
        cur = c.cursor()
        for s in SETUP:
            cur.execute(s)
        c.autocommit = False
    diffs = 0
    for _ in range(args.count):
        sql = statement()
        a, b = run(kiln, sql), run(pg, sql)
        # kiln refusing a feature is allowed; everything else must match.
        if a == b or (a == ("error", "0A000")):
            continue
        diffs += 1
        print(f"DIFF {sql}\n  kiln: {str(a)[:300]}\n  pg:   {str(b)[:300]}")
    print(f"{args.count - diffs} passed, {diffs} failed")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
