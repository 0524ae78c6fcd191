#!/usr/bin/env python3
"""Differential test of the regular-expression functions, to_char, to_date, to_number
and SQL/JSON path:
kiln against PostgreSQL 15 over random patterns (alternations whose branches overlap,
greedy and lazy quantifiers, groups, classes), random format templates over random
numbers and timestamps, and random jsonpath expressions over random documents.
Compares the text each returns, or the SQLSTATE.

kiln answers 0A000 where it cannot be sure of PostgreSQL's answer (a capture group
whose alternation PostgreSQL would split differently); those are counted apart and do
not fail the run. Any other difference does.

Usage: tests/fuzz/text_and_json.py KILN_DSN PG_DSN [--count N] [--seed S]
"""

import argparse
import json
import random
import sys

import psycopg2

ATOMS = ["a", "b", "c", ".", "[ab]", "[^a]", "(a|ab)", "(b|bc)", "(a*)", "(ab)?", "a*",
         "b+", "a?", "c*?", "a+?", "(a|b)*", "\\w", "x*", "[[:alpha:]]", "(?:a|c)", "^",
         "$", "b{1,2}", "\\d"]
TEMPLATES_NUM = ["999", "0999", "9,999.99", "FM999.990", "S999", "999MI", "999PR", "RN",
                 "FMRN", "99.99EEEE", "9.9V99", "PL999", "SG999", "L999", "999th",
                 "FM9,999,999", "0000.00", ".999", "9G999D99"]
TEMPLATES_DT = ["YYYY-MM-DD", "HH24:MI:SS.US", "Day DD Month YYYY", "FMDay FMDDth FMMonth",
                "IYYY-IW-ID", "Q CC WW J", "HH12 AM", "DY Mon yy", "SSSS", "RM", "DDD",
                "\"text\" YYYY", "FMHH:FMMI"]
DOCS = ['{"a": [1, 2, {"b": 3}], "c": "x"}', '[1, "2", null, true, [3, 4], {"k": 5}]',
        '{"a": {"a": {"a": 1}}, "n": -2.5}', '"plain"', '12', '{"x": [], "y": {}}']
PATHS = ["$.a", "$.a[*]", "strict $.a", "$.*", "$.**", "$[*] ? (@ > 1)", "$.a[1 to last]",
         "$.**.a", "$.n.abs()", "$.a.size()", "$ ? (@.c starts with \"x\")",
         "$[*].type()", "$.a[*] ? (@ == 2) + 1", "strict $[*].k", "$.x.keyvalue()",
         "lax $[0 to 1]", "$ ? (exists(@.a))", "$.c like_regex \"^x\"", "-$.n",
         "$.a[last]"]


def rand_pattern(rng):
    p = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.25:
        p += "|" + rng.choice(ATOMS)
    return p


def cases(rng, count):
    for _ in range(count):
        kind = rng.random()
        if kind < 0.5:
            s = "".join(rng.choice("abcx1 ") for _ in range(rng.randint(0, 8)))
            p = rand_pattern(rng).replace("'", "''")
            f = rng.choice(["", "i", "n", "x"])
            yield rng.choice([
                f"SELECT regexp_match('{s}', '{p}', '{f}')::text",
                f"SELECT regexp_replace('{s}', '{p}', '<\\&>', 'g{f}')",
                f"SELECT regexp_replace('{s}', '{p}', '[\\1]')",
                f"SELECT regexp_split_to_array('{s}', '{p}', '{f}')::text",
                f"SELECT regexp_count('{s}', '{p}')::text",
                f"SELECT regexp_instr('{s}', '{p}', 1, 2)::text",
                f"SELECT substring('{s}' from '{p}')",
                f"SELECT string_agg(m::text, ';') FROM regexp_matches('{s}', '{p}', 'g') m",
            ])
        elif kind < 0.6:
            if rng.random() < 0.5:
                fmt = rng.choice(TEMPLATES_DT[:6] + ["DD/MM/YYYY", "YYYYMMDD", "Mon DD YYYY",
                                                     "FMMonth FMDD, YYYY", "YYYY-DDD", "IYYY-IW-ID"])
                y = rng.choice([1999, 2000, 2024, 1, 44])
                d = f"{y:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                mutate = rng.choice(["", "", "x", " ", "-"])
                yield f"SELECT to_date(to_char(date '{d}', '{fmt}') || '{mutate}', '{fmt}')::text"
            else:
                v = rng.choice(["12,345.67", "-1,234.5", "1234", "<123>", "12.3-", "$1,000",
                                " 42 ", "0.5", "abc", "1.2.3", "99"])
                fmt = rng.choice(["99,999.99", "9999", "999PR", "99.9S", "L9,999", "FM9999",
                                  "9.9", "S999", "9999MI", "0000"])
                yield f"SELECT to_number('{v}', '{fmt}')::text"
        elif kind < 0.75:
            if rng.random() < 0.5:
                v = rng.choice([0, 1, -1, 5, 12, 2.5, -0.5, 1234.567, 99999, 0.005, -3.14159])
                t = rng.choice(["int", "numeric", "float8", "real"])
                if t == "int":
                    v = int(v)
                fmt = rng.choice(TEMPLATES_NUM)
                yield f"SELECT replace(to_char({v}::{t}, '{fmt}'), ' ', '_')"
            else:
                y = rng.choice([1, 44, 1999, 2000, 2024, 2025])
                ts = f"{y:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} " \
                     f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}"
                fmt = rng.choice(TEMPLATES_DT)
                typ = rng.choice(["timestamp", "timestamptz", "date"])
                yield f"SELECT replace(to_char({typ} '{ts}', '{fmt}'), ' ', '_')"
        else:
            doc = rng.choice(DOCS)
            path = rng.choice(PATHS).replace("'", "''")
            silent = rng.choice(["false", "true"])
            yield rng.choice([
                f"SELECT jsonb_path_query_array('{doc}', '{path}', '{{}}', {silent})::text",
                f"SELECT jsonb_path_exists('{doc}', '{path}', '{{}}', {silent})::text",
                f"SELECT jsonb_path_match('{doc}', '{path}', '{{}}', true)::text",
                f"SELECT ('{doc}'::jsonb @? '{path}')::text",
            ])


def run(cur, sql):
    try:
        cur.execute(sql)
        return ("ok", cur.fetchone()[0])
    except psycopg2.Error as e:
        cur.connection.rollback()
        return ("err", e.pgcode)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("pg")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    k = psycopg2.connect(args.kiln)
    p = psycopg2.connect(args.pg)
    for c in (k, p):
        c.autocommit = True
        c.cursor().execute("SET TimeZone = 'UTC'")
    kc, pc = k.cursor(), p.cursor()
    same = differ = refused = 0
    for sql in cases(rng, args.count):
        a, b = run(kc, sql), run(pc, sql)
        if a == b:
            same += 1
        elif a == ("err", "0A000"):
            refused += 1
        else:
            differ += 1
            if differ <= 20:
                print(f"{sql}\n  kiln: {a}\n  pg:   {b}")
    print(f"{same} identical, {refused} refused (0A000), {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
