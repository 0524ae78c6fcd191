#!/usr/bin/env python3
"""Differential testing of arrays, records, set-returning functions, FETCH … WITH TIES and
WITH RECURSIVE … SEARCH / CYCLE: kiln against PostgreSQL 15.

Creates two small random tables (seeded; 0–10 rows) with int, text, numeric(8,2), date
columns and int[], text[], numeric[], date[] columns (NULL arrays, empty arrays, NULL
elements, duplicates, text elements that need quoting) on both servers, then generates
random queries: array literals, ARRAY[...], ARRAY(subquery), subscripts and slices,
= ANY / <> ALL, ||, @>, <@, &&, array comparisons, ORDER BY / GROUP BY / DISTINCT / set
operations / joins on arrays, array_agg (ORDER BY, FILTER, DISTINCT, over arrays), unnest
in FROM (several arrays, WITH ORDINALITY, LATERAL), unnest / generate_series in the select
list, the array functions, ROW(...) records, FETCH FIRST n ROWS WITH TIES and recursive
CTEs with SEARCH / CYCLE. Each runs on both servers; rows are compared as text (in order:
every query orders by all of its output columns, except WITH TIES queries, which are
compared as sorted multisets), errors by SQLSTATE. XX000 from kiln is always a bug.

Usage: arrays.py KILN_DSN PG_DSN [--count N] [--seed S] [--verbose] [--odd-arrays P]

Both DSNs should name databases of their own; PostgreSQL's should use collation C
(createdb -T template0 --lc-collate=C --lc-ctype=C …). The tables ta and tb are dropped,
created and left in place, so a difference can be replayed by hand (the setup is printed
before the first difference). Exit status: 0 when nothing differs, 1 otherwise.

Determinism: numerics always have scale 2 (so equal values print alike), no floats, no
volatile functions, LIMIT only as WITH TIES (compared as multisets), array_agg always has
an ORDER BY of its argument (plus the key), ARRAY(subquery) orders by its one column.
Errors that depend on which row is met first (array_agg over arrays) accept a set of
SQLSTATEs.
"""

import argparse
import collections
import random
import sys

import psycopg2
import psycopg2.extensions

_RAW = psycopg2.extensions.new_type(tuple(psycopg2.extensions.string_types.keys()), "KILN_RAW_TEXT",
                                    lambda value, cur: value)
psycopg2.extensions.register_type(_RAW)

ELEM = {"int": ["0", "1", "2", "3", "-1", "2", "10"],
        "text": ["'a'", "'b'", "'B'", "''", "'a b'", "'NULL'", "'x,y'", "'q\"t'", "'b\\s'", "'{c}'", "'a'"],
        "num": ["0.00", "1.50", "2.00", "-3.10", "1.50", "100.00"],
        "date": ["'2024-01-01'", "'2024-02-29'", "'1999-12-31'", "'2024-01-01'"]}
SCALAR_SQL = {"int": "int", "text": "text", "num": "numeric(8,2)", "date": "date"}
ARRAY_SQL = {"int": "int[]", "text": "text[]", "num": "numeric[]", "date": "date[]"}
CAST = {"int": "", "text": "", "num": "::numeric(8,2)", "date": "::date"}
CMP = ["=", "<>", "<", "<=", ">", ">="]

# Tables: name -> [(column, kind)], kind "int" / "text" / ... for scalars, "int[]" / ... for arrays.
TABLES = {
    "ta": [("id", "int"), ("a", "int"), ("n", "num"), ("s", "text"), ("d", "date"),
           ("ia", "int[]"), ("sa", "text[]"), ("na", "num[]"), ("da", "date[]")],
    "tb": [("id", "int"), ("b", "int"), ("s", "text"), ("ia", "int[]"), ("sa", "text[]")],
}


# Multidimensional arrays and arrays with lower bounds other than 1 (only with --odd-arrays).
ODD = {"int": ["'{{1,2},{3,NULL}}'", "'[0:1]={5,6}'", "'{{7}}'", "'[2:3]={1,NULL}'", "'{{{1},{2}}}'"],
       "text": ["'{{a,\"b c\"},{NULL,\"\"}}'", "'[0:0]={x}'", "'[-1:0]={a,b}'"],
       "num": ["'{{1.50},{2.00}}'", "'[3:3]={0.00}'"],
       "date": ["'{{2024-01-01,NULL}}'", "'[0:0]={1999-12-31}'"]}
ODD_P = 0.0


def array_value(rng, elem):
    r = rng.random()
    if rng.random() < ODD_P:
        return rng.choice(ODD[elem])
    if r < 0.12:
        return "NULL"
    if r < 0.22:
        return "'{}'"
    n = rng.randint(1, 4)
    vals = ["NULL" if rng.random() < 0.15 else rng.choice(ELEM[elem]) for _ in range(n)]
    if all(v == "NULL" for v in vals):
        return f"ARRAY[{', '.join(vals)}]::{ARRAY_SQL[elem]}"
    if elem == "date":
        vals = [v if v == "NULL" else v + "::date" for v in vals]
    return f"ARRAY[{', '.join(vals)}]"


def make_data(rng):
    data = {}
    for t, cols in TABLES.items():
        nrows = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 6, 7, 8])
        if t == "ta" and nrows == 0:
            nrows = 5
        ids = rng.sample(range(0, 12), nrows)
        rows = []
        for i in ids:
            row = []
            for c, k in cols:
                if c == "id":
                    row.append(str(i))
                elif k.endswith("[]"):
                    row.append(array_value(rng, k[:-2]))
                elif rng.random() < 0.18:
                    row.append("NULL")
                elif c in ("a", "b"):
                    row.append(rng.choice(["0", "1", "2", "3", "-1", "2", "4"]))
                else:
                    v = rng.choice(ELEM[k])
                    row.append(v)
            rows.append(row)
        data[t] = rows
    return data


def setup_sql(data):
    out = ["DROP TABLE IF EXISTS ta", "DROP TABLE IF EXISTS tb"]
    for t, cols in TABLES.items():
        out.append(f"CREATE TABLE {t} ({', '.join(c + ' ' + (ARRAY_SQL[k[:-2]] if k.endswith('[]') else SCALAR_SQL[k]) for c, k in cols)})")
        if data[t]:
            out.append(f"INSERT INTO {t} VALUES " + ", ".join("(" + ", ".join(r) + ")" for r in data[t]))
    return out


class Query:
    def __init__(self, sql, ordered=True, errs=(), tag=""):
        self.sql, self.ordered, self.errs, self.tag = sql, ordered, set(errs), tag


class Gen:
    def __init__(self, rng):
        self.r = rng

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    # ---- expressions over one table alias ------------------------------------------------
    def cols(self, t, kind):
        return [c for c, k in TABLES[t] if k == kind]

    def scalar_lit(self, elem):
        v = self.pick(ELEM[elem])
        return v + "::date" if elem == "date" else v

    def arr_lit(self, elem):
        """An array literal or constructor of element type elem."""
        r = self.r.random()
        if self.chance(ODD_P):
            return f"{self.pick(ODD[elem])}::{ARRAY_SQL[elem]}"
        n = self.r.randint(0, 3)
        vals = ["NULL" if self.chance(0.15) else self.pick(ELEM[elem]) for _ in range(n)]
        if r < 0.45:
            # '{...}' text literal: quote text elements per array syntax.
            items = []
            for v in vals:
                if v == "NULL":
                    items.append("NULL")
                elif elem == "text":
                    s = v[1:-1].replace("\\", "\\\\").replace('"', '\\"')
                    items.append('"' + s + '"' if (s == "" or any(ch in s for ch in ' ,{}"\\') or s.upper() == "NULL" or self.chance(0.3)) else s)
                else:
                    items.append(v.strip("'"))
            body = "{" + ",".join(items) + "}"
            return f"'{body}'::{ARRAY_SQL[elem]}"
        if n == 0 or all(v == "NULL" for v in vals):
            return f"ARRAY[{', '.join(vals)}]::{ARRAY_SQL[elem]}"
        if elem == "date":
            vals = [v if v == "NULL" else v + "::date" for v in vals]
        return f"ARRAY[{', '.join(vals)}]"

    def arr(self, t, a, elem, depth=0):
        cs = self.cols(t, elem + "[]")
        r = self.r.random()
        if cs and (r < 0.45 or depth >= 2):
            return f"{a}.{self.pick(cs)}"
        if r < 0.6 or depth >= 2:
            return self.arr_lit(elem)
        choice = self.pick(["cat", "append", "prepend", "fcat", "remove", "slice", "s2a", "ctor", "null"])
        if choice == "cat":
            return f"({self.arr(t, a, elem, depth + 1)} || {self.arr(t, a, elem, depth + 1)})"
        if choice == "append":
            return self.pick([f"array_append({self.arr(t, a, elem, depth + 1)}, {self.scalar(t, a, elem, depth + 1)})",
                              f"({self.arr(t, a, elem, depth + 1)} || {self.scalar(t, a, elem, depth + 1)})"])
        if choice == "prepend":
            return self.pick([f"array_prepend({self.scalar(t, a, elem, depth + 1)}, {self.arr(t, a, elem, depth + 1)})",
                              f"({self.scalar(t, a, elem, depth + 1)} || {self.arr(t, a, elem, depth + 1)})"])
        if choice == "fcat":
            return f"array_cat({self.arr(t, a, elem, depth + 1)}, {self.arr(t, a, elem, depth + 1)})"
        if choice == "remove":
            return f"array_remove({self.arr(t, a, elem, depth + 1)}, {self.scalar(t, a, elem, depth + 1)})"
        if choice == "slice":
            lo, hi = self.pick(["1", "2", "0", "-1", "", "3"]), self.pick(["1", "2", "3", "", "0", "5"])
            return f"({self.arr(t, a, elem, depth + 1)})[{lo}:{hi}]"
        if choice == "s2a" and elem == "text":
            src = self.scalar(t, a, "text", depth + 1)
            return self.pick([f"string_to_array({src}, ' ')", f"string_to_array({src}, ',')",
                              f"string_to_array({src}, '')", f"string_to_array({src}, NULL)",
                              f"string_to_array({src}, ' ', 'b')", f"string_to_array({src}, ',', '')"])
        if choice == "ctor":
            n = self.r.randint(1, 3)
            return f"ARRAY[{', '.join(self.scalar(t, a, elem, depth + 1) for _ in range(n))}]"
        if choice == "null":
            return f"NULL::{ARRAY_SQL[elem]}"
        return f"{a}.{self.pick(cs)}" if cs else self.arr_lit(elem)

    def scalar(self, t, a, elem, depth=0):
        cs = self.cols(t, elem)
        r = self.r.random()
        if cs and (r < 0.4 or depth >= 2):
            return f"{a}.{self.pick(cs)}"
        if r < 0.6 or depth >= 2:
            return self.scalar_lit(elem)
        if elem == "int":
            choice = self.pick(["sub", "len", "card", "pos", "pos3", "len2", "ndims", "sub"])
            e = self.pick(["int", "text", "num", "date"])
            if choice == "sub":
                return f"({self.arr(t, a, 'int', depth + 1)})[{self.pick(['1', '2', '3', '0', '-1', '4', 'NULL', a + '.id % 3'])}]"
            if choice == "len":
                return f"array_length({self.arr(t, a, e, depth + 1)}, 1)"
            if choice == "len2":
                return f"array_length({self.arr(t, a, e, depth + 1)}, {self.pick(['0', '2', '-1'])})"
            if choice == "card":
                return f"cardinality({self.arr(t, a, e, depth + 1)})"
            if choice == "ndims":
                return f"coalesce(array_length({self.arr(t, a, e, depth + 1)}, 1), -7)"
            if choice == "pos":
                return f"array_position({self.arr(t, a, e, depth + 1)}, {self.scalar(t, a, e, depth + 1)})"
            return f"array_position({self.arr(t, a, e, depth + 1)}, {self.scalar(t, a, e, depth + 1)}, {self.pick(['1', '2', '3', '0'])})"
        if elem == "text":
            choice = self.pick(["sub", "a2s", "a2s3", "cast"])
            if choice == "sub":
                return f"({self.arr(t, a, 'text', depth + 1)})[{self.pick(['1', '2', '0', '3'])}]"
            e = self.pick(["int", "text", "num", "date"])
            if choice == "a2s":
                return f"array_to_string({self.arr(t, a, e, depth + 1)}, {self.pick([repr(','), repr(' '), repr(''), repr('--')])})"
            if choice == "a2s3":
                return f"array_to_string({self.arr(t, a, e, depth + 1)}, ',', {self.pick([repr('*'), repr(''), 'NULL'])})"
            return f"({self.arr(t, a, e, depth + 1)})::text"
        if elem == "num":
            return f"({self.arr(t, a, 'num', depth + 1)})[{self.pick(['1', '2', '3'])}]"
        return f"({self.arr(t, a, 'date', depth + 1)})[{self.pick(['1', '2', '3'])}]"

    def pred(self, t, a, depth=0):
        e = self.pick(["int", "int", "text", "num", "date"])
        choice = self.pick(["any", "all", "contains", "contained", "overlap", "cmp", "cmp", "row", "scalar", "isnull",
                            "and", "or", "not", "anysub"])
        if choice == "any":
            return f"{self.scalar(t, a, e, 1)} {self.pick(CMP)} ANY({self.arr(t, a, e, 1)})"
        if choice == "all":
            return f"{self.scalar(t, a, e, 1)} {self.pick(CMP)} ALL({self.arr(t, a, e, 1)})"
        if choice == "contains":
            return f"{self.arr(t, a, e, 1)} @> {self.arr(t, a, e, 1)}"
        if choice == "contained":
            return f"{self.arr(t, a, e, 1)} <@ {self.arr(t, a, e, 1)}"
        if choice == "overlap":
            return f"{self.arr(t, a, e, 1)} && {self.arr(t, a, e, 1)}"
        if choice == "cmp":
            return f"{self.arr(t, a, e, 1)} {self.pick(CMP)} {self.arr(t, a, e, 1)}"
        if choice == "row":
            e2 = self.pick(["int", "text"])
            return (f"ROW({self.scalar(t, a, e, 1)}, {self.scalar(t, a, e2, 1)}) {self.pick(CMP)} "
                    f"ROW({self.scalar(t, a, e, 1)}, {self.scalar(t, a, e2, 1)})")
        if choice == "scalar":
            return f"{self.scalar(t, a, e, 1)} {self.pick(CMP)} {self.scalar(t, a, e, 1)}"
        if choice == "isnull":
            return f"{self.arr(t, a, e, 1)} IS {self.pick(['', 'NOT '])}NULL"
        if choice == "anysub" and depth == 0:
            return f"{a}.id IN (SELECT unnest({self.arr('tb', 'q', 'int', 1)}) FROM tb q)"
        if depth < 1:
            if choice == "and":
                return f"({self.pred(t, a, depth + 1)} AND {self.pred(t, a, depth + 1)})"
            if choice == "or":
                return f"({self.pred(t, a, depth + 1)} OR {self.pred(t, a, depth + 1)})"
            if choice == "not":
                return f"NOT ({self.pred(t, a, depth + 1)})"
        return f"{self.scalar(t, a, 'int', 1)} = ANY({self.arr(t, a, 'int', 1)})"

    def expr(self, t, a):
        """Any output expression."""
        r = self.r.random()
        e = self.pick(["int", "text", "num", "date"])
        if r < 0.4:
            return self.arr(t, a, e)
        if r < 0.75:
            return self.scalar(t, a, e)
        if r < 0.85:
            return self.pred(t, a)
        if r < 0.95:
            n = self.r.randint(1, 3)
            return f"ROW({', '.join(self.expr(t, a) for _ in range(n))})"
        return f"({self.arr(t, a, e)})::text"

    # ---- statements ------------------------------------------------------------------------
    def order_all(self, n, desc_ok=True):
        terms = []
        for i in range(1, n + 1):
            s = str(i)
            if desc_ok and self.chance(0.3):
                s += " DESC"
            if self.chance(0.2):
                s += self.pick([" NULLS FIRST", " NULLS LAST"])
            terms.append(s)
        self.r.shuffle(terms)
        return "ORDER BY " + ", ".join(terms)

    def q_project(self):
        t = self.pick(list(TABLES))
        n = self.r.randint(1, 3)
        exprs = [f"{t}.id"] + [self.expr(t, t) for _ in range(n)]
        where = f" WHERE {self.pred(t, t)}" if self.chance(0.5) else ""
        return Query(f"SELECT {', '.join(exprs)} FROM {t}{where} {self.order_all(len(exprs))}", tag="project")

    def q_where(self):
        t = self.pick(list(TABLES))
        return Query(f"SELECT id FROM {t} WHERE {self.pred(t, t)} ORDER BY 1", tag="where")

    def q_order_arrays(self):
        t = self.pick(list(TABLES))
        e = self.pick(["int", "text"] + (["num", "date"] if t == "ta" else []))
        x = self.arr(t, t, e)
        return Query(f"SELECT {x}, id FROM {t} {self.order_all(2)}", tag="order")

    def q_distinct(self):
        t = self.pick(list(TABLES))
        e = self.pick(["int", "text"] + (["num", "date"] if t == "ta" else []))
        x = self.arr(t, t, e)
        if self.chance(0.5):
            return Query(f"SELECT DISTINCT {x} FROM {t} {self.order_all(1)}", tag="distinct")
        agg = self.pick(["count(*)", "count(id)", "min(id)", "max(id)", f"array_agg(id ORDER BY id)",
                         f"count(DISTINCT {x})", f"max({x})", f"min({x})"])
        having = f" HAVING count(*) {self.pick(['>', '>=', '='])} 1" if self.chance(0.3) else ""
        return Query(f"SELECT {x}, {agg} FROM {t} GROUP BY {x}{having} {self.order_all(2)}", tag="group")

    def q_agg(self):
        t = self.pick(list(TABLES))
        grp = self.pick([None, None, "id % 3", "s", "ia", "cardinality(ia)"] + (["a", "d"] if t == "ta" else ["b"]))
        e = self.pick(["int", "text"] + (["num", "date"] if t == "ta" else []))
        aggs = []
        errs = set()

        def col_scalar():
            x = self.scalar(t, t, e)
            return x if f"{t}." in x else f"{t}.{self.pick(self.cols(t, e))}"
        for _ in range(self.r.randint(1, 3)):
            k = self.pick(["scalar", "scalar", "distinct", "array", "filter", "count", "unnest"])
            if k == "scalar":
                x = col_scalar()
                aggs.append(f"array_agg({x} ORDER BY {x}{self.pick(['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST'])}, id)")
            elif k == "distinct":
                x = col_scalar()
                aggs.append(f"array_agg(DISTINCT {x}{self.pick(['', ' ORDER BY ' + x, ' ORDER BY ' + x + ' DESC'])})")
            elif k == "array":
                x = self.arr(t, t, e)
                errs |= {"2202E", "22004"}
                aggs.append(f"array_agg({x} ORDER BY id)")
            elif k == "filter":
                x = self.pick([self.scalar(t, t, e), self.arr(t, t, e)])
                errs |= {"2202E", "22004"}
                aggs.append(f"array_agg({x} ORDER BY id) FILTER (WHERE {self.pred(t, t)})")
            elif k == "count":
                aggs.append(self.pick([f"count(*) FILTER (WHERE {self.pred(t, t)})", f"count({self.arr(t, t, e)})",
                                       f"sum(cardinality({self.arr(t, t, e)}))", "array_length(array_agg(id), 1)"]))
            else:
                aggs.append(f"array_agg((SELECT max(x) FROM unnest({self.arr(t, t, e)}) x) ORDER BY id)")
        if grp:
            return Query(f"SELECT {grp}, {', '.join(aggs)} FROM {t} GROUP BY {grp} {self.order_all(len(aggs) + 1)}",
                         errs=errs, tag="agg")
        return Query(f"SELECT {', '.join(aggs)} FROM {t}", errs=errs, tag="agg")

    def q_unnest_from(self):
        t = self.pick(list(TABLES))
        e1 = self.pick(["int", "text"] + (["num", "date"] if t == "ta" else []))
        kind = self.pick(["lateral", "lateral", "multi", "const", "leftlat", "ord"])
        if kind == "const":
            x = self.arr_lit(e1)
            ordi = self.chance(0.5)
            cols = "u.x, u.o" if ordi else "u.x"
            sql = f"SELECT {cols} FROM unnest({x}){' WITH ORDINALITY' if ordi else ''} AS u(x{', o' if ordi else ''})"
            n = 2 if ordi else 1
            if self.chance(0.4):
                sql += f" WHERE u.x IS NOT NULL"
            return Query(f"{sql} {self.order_all(n)}", tag="unnest")
        if kind == "multi":
            e2 = self.pick(["int", "text"])
            x, y = self.arr(t, t, e1), self.arr(t, t, e2)
            ordi = self.chance(0.5)
            cols = f"{t}.id, u.x, u.y" + (", u.o" if ordi else "")
            return Query(f"SELECT {cols} FROM {t}, unnest({x}, {y}){' WITH ORDINALITY' if ordi else ''} AS u(x, y{', o' if ordi else ''}) "
                         f"{self.order_all(4 if ordi else 3)}", tag="unnest")
        x = self.arr(t, t, e1)
        ordi = kind == "ord" or self.chance(0.3)
        if kind == "leftlat":
            sql = (f"SELECT {t}.id, u.x{', u.o' if ordi else ''} FROM {t} LEFT JOIN LATERAL unnest({x})"
                   f"{' WITH ORDINALITY' if ordi else ''} AS u(x{', o' if ordi else ''}) ON {self.pick(['true', 'u.x IS NOT NULL', f'{t}.id > 2'])}")
        else:
            sql = (f"SELECT {t}.id, u.x{', u.o' if ordi else ''} FROM {t}{self.pick([',', ' CROSS JOIN LATERAL', ' JOIN LATERAL'])} "
                   f"unnest({x}){' WITH ORDINALITY' if ordi else ''} AS u(x{', o' if ordi else ''})")
            if "JOIN LATERAL" in sql and "CROSS" not in sql:
                sql += " ON true"
        if self.chance(0.3):
            sql += f" WHERE u.x {self.pick(CMP)} {self.scalar_lit(e1)}"
        if self.chance(0.25):
            # Aggregate over the unnested rows.
            return Query(f"SELECT id, count(*), array_agg(x ORDER BY x{', o' if ordi else ''}) FROM ({sql}) s GROUP BY id ORDER BY 1, 2, 3",
                         tag="unnest-agg")
        return Query(f"{sql} {self.order_all(3 if ordi else 2)}", tag="unnest")

    def q_projectset(self):
        t = self.pick(list(TABLES))
        srfs = []
        for _ in range(self.r.randint(1, 3)):
            e = self.pick(["int", "text"] + (["num", "date"] if t == "ta" else []))
            k = self.pick(["unnest", "unnest", "gs", "gs_col", "expr"])
            if k == "unnest":
                srfs.append(f"unnest({self.arr(t, t, e)})")
            elif k == "gs":
                srfs.append(f"generate_series({self.pick(['1', '0', '3'])}, {self.pick(['1', '2', '3', '0'])})")
            elif k == "gs_col":
                c = "a" if t == "ta" else "b"
                srfs.append(f"generate_series({self.pick(['1', 'id % 2'])}, {c})")
            else:
                srfs.append(f"unnest({self.arr(t, t, 'int')}) + {self.pick(['1', 'id'])}")
        exprs = [f"{t}.id"] + srfs
        where = f" WHERE {self.pred(t, t)}" if self.chance(0.3) else ""
        if self.chance(0.15):
            return Query(f"SELECT {srfs[0]} AS x, count(*) FROM {t}{where} GROUP BY 1 {self.order_all(2)}", tag="projectset-group")
        if self.chance(0.15):
            grp = self.pick(["id % 3", "s", "cardinality(ia)"])
            e = self.pick(["int", "text"])
            x = self.scalar(t, t, e)
            x = x if f"{t}." in x else f"{t}.id"
            return Query(f"SELECT {grp}, unnest(array_agg({x} ORDER BY {x}, id)){self.pick(['', ', count(*)', ', generate_series(1, 2)'])} "
                         f"FROM {t}{where} GROUP BY {grp} ORDER BY 1, 2, 3", tag="projectset-agg")
        if self.chance(0.15):
            return Query(f"SELECT count(*) FROM (SELECT {', '.join(exprs)} FROM {t}{where}) s", tag="projectset")
        return Query(f"SELECT {', '.join(exprs)} FROM {t}{where} {self.order_all(len(exprs))}", tag="projectset")

    def q_array_sub(self):
        e = self.pick(["int", "text"])
        col = self.pick({"int": ["q.id", "q.b", "q.id + ta.a", "cardinality(q.ia)"],
                         "text": ["q.s", "q.sa[1]", "array_to_string(q.ia, ',')"]}[e])
        corr = self.pick(["true", "q.id > ta.id", "q.b = ta.a", "ta.a = ANY(q.ia)", "q.ia && ta.ia", "q.s = ta.s"])
        d = self.pick(["", " DESC", " NULLS FIRST"])
        sub = f"ARRAY(SELECT {col} FROM tb q WHERE {corr} ORDER BY 1{d})"
        if self.chance(0.2):
            sub = f"ARRAY(SELECT q.ia FROM tb q WHERE {corr} AND cardinality(q.ia) = 2 ORDER BY q.ia, q.id)"
        if self.chance(0.4):
            sub = f"cardinality({sub})" if self.chance(0.5) else f"({sub})[1]"
        return Query(f"SELECT ta.id, {sub} FROM ta {self.order_all(2)}", tag="array-sub")

    def q_ties(self):
        t = self.pick(list(TABLES))
        e = self.pick(["int", "text"])
        key = self.pick([self.arr(t, t, e), self.scalar(t, t, e), "s", "ia", "cardinality(ia)", "id % 3"])
        d = self.pick(["", " DESC", " NULLS FIRST", " DESC NULLS LAST"])
        n = self.pick(["1", "2", "3", "0", "5"])
        form = self.pick([f"FETCH FIRST {n} ROWS WITH TIES", f"FETCH NEXT {n} ROW WITH TIES",
                          f"FETCH FIRST ROW WITH TIES"])
        where = f" WHERE {self.pred(t, t)}" if self.chance(0.3) else ""
        sql = f"SELECT id, {key} AS k FROM {t}{where} ORDER BY {key}{d} {form}"
        if self.chance(0.25):
            return Query(f"SELECT * FROM ({sql}) s ORDER BY 1, 2", tag="ties")
        return Query(sql, ordered=False, tag="ties")

    def q_row(self):
        t = self.pick(list(TABLES))
        k = self.pick(["out", "in", "inlist", "order", "distinct", "field"])
        e = self.pick(["int", "text"])
        if k == "out":
            n = self.r.randint(1, 4)
            items = [self.pick([self.scalar(t, t, e), self.arr(t, t, e), f"{t}.s", f"{t}.id", "NULL", "''"]) for _ in range(n)]
            return Query(f"SELECT id, ROW({', '.join(items)}) FROM {t} {self.order_all(2)}", tag="row")
        if k == "in":
            o = "tb" if t == "ta" else "ta"
            oc = "a" if o == "ta" else "b"
            c = "a" if t == "ta" else "b"
            return Query(f"SELECT id FROM {t} WHERE ({t}.{c}, {t}.s) {self.pick(['IN', 'NOT IN'])} (SELECT {oc}, s FROM {o}) ORDER BY 1",
                         tag="row")
        if k == "inlist":
            c = "a" if t == "ta" else "b"
            vals = ", ".join(f"({self.pick(['1', '2', '3', 'NULL'])}, {self.pick(['NULL', repr('a'), repr('b'), repr('')])})"
                             for _ in range(self.r.randint(1, 3)))
            return Query(f"SELECT id, ({t}.{c}, {t}.s) {self.pick(['IN', 'NOT IN'])} ({vals}) FROM {t} ORDER BY 1, 2", tag="row")
        if k == "order":
            return Query(f"SELECT ROW({t}.s, {t}.id), id FROM {t} ORDER BY ROW({t}.s, {t}.id){self.pick(['', ' DESC'])}", tag="row")
        if k == "distinct":
            c = "a" if t == "ta" else "b"
            return Query(f"SELECT DISTINCT ROW({c}, s) FROM {t} {self.order_all(1)}", tag="row")
        return Query(f"SELECT id, (ROW({t}.id, {t}.s)) IS NULL, ROW({t}.s, NULL) IS NOT NULL FROM {t} ORDER BY 1", tag="row")

    def q_setop(self):
        e = self.pick(["int", "text"])
        op = self.pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"])
        return Query(f"SELECT {self.arr('ta', 'ta', e)} FROM ta {op} SELECT {self.arr('tb', 'tb', e)} FROM tb {self.order_all(1)}",
                     tag="setop")

    def q_join(self):
        cond = self.pick(["ta.ia = tb.ia", "ta.ia && tb.ia", "ta.ia @> tb.ia", "tb.b = ANY(ta.ia)", "ta.sa = tb.sa",
                          "ta.ia < tb.ia", "ta.a <> ALL(tb.ia)", "ta.sa && tb.sa"])
        j = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN"])
        return Query(f"SELECT ta.id, tb.id, ta.ia, tb.ia FROM ta {j} tb ON {cond} {self.order_all(4)}", tag="join")

    def q_recursive(self):
        start = self.pick(["0", "1", "2", "3", "b"])
        depth = self.pick(["3", "4", "6"])
        base = f"SELECT id, b, 0 FROM tb WHERE id = {start}" if start != "b" else "SELECT id, b, 0 FROM tb WHERE b IS NOT NULL AND id < 4"
        body = (f"WITH RECURSIVE w(n, nxt, depth) AS ({base} UNION ALL SELECT tb.id, tb.b, w.depth + 1 FROM w JOIN tb ON tb.id = w.nxt "
                f"WHERE w.depth < {depth})")
        k = self.pick(["search_d", "search_b", "cycle", "both", "cycle2"])
        if k == "search_d":
            return Query(f"{body} SEARCH DEPTH FIRST BY n SET ord SELECT * FROM w ORDER BY ord, 1, 2, 3", tag="search")
        if k == "search_b":
            by = self.pick(["n", "n, nxt"])
            return Query(f"{body} SEARCH BREADTH FIRST BY {by} SET ord SELECT * FROM w ORDER BY ord, 1, 2, 3", tag="search")
        if k == "cycle":
            return Query(f"{body} CYCLE n SET is_cycle USING path SELECT * FROM w ORDER BY 1, 2, 3, 4, 5", tag="cycle")
        if k == "cycle2":
            nd = (f"WITH RECURSIVE w(n, nxt) AS (SELECT id, b FROM tb WHERE id = {self.pick(['0', '1', '2', '3'])} UNION "
                  f"{self.pick(['', 'ALL '])}SELECT tb.id, tb.b FROM w JOIN tb ON tb.id = w.nxt)")
            to = self.pick(["", " TO 'y' DEFAULT 'n'"])
            return Query(f"{nd} CYCLE n, nxt SET c{to} USING p SELECT * FROM w ORDER BY 1, 2, 3, 4", tag="cycle")
        return Query(f"{body} SEARCH DEPTH FIRST BY n SET ord CYCLE n SET is_cycle USING path "
                     f"SELECT n, depth, ord, is_cycle, path FROM w ORDER BY 3, 1, 2, 4, 5", tag="search+cycle")

    def q_misc(self):
        e = self.pick(["int", "text"])
        k = self.pick(["cte", "union", "values", "case", "anysub", "insub", "exists", "having", "using"])
        if k == "cte":
            return Query(f"WITH c AS (SELECT id, {self.arr('tb', 'tb', e)} AS x FROM tb) SELECT c.id, u.v FROM c, unnest(c.x) AS u(v) "
                         f"{self.order_all(2)}", tag="misc")
        if k == "union":
            return Query(f"SELECT x, count(*) FROM (SELECT {self.arr('ta', 'ta', e)} AS x FROM ta UNION ALL SELECT {self.arr('tb', 'tb', e)} FROM tb) s "
                         f"GROUP BY x {self.order_all(2)}", tag="misc")
        if k == "values":
            vals = ", ".join(f"({i}, {self.arr_lit(e)})" for i in range(self.r.randint(1, 4)))
            return Query(f"SELECT v.i, v.x, {self.pick(['cardinality(v.x)', 'v.x[1]', 'v.x || v.x', 'v.x @> ARRAY[v.x[2]]'])} "
                         f"FROM (VALUES {vals}) v(i, x) {self.order_all(3)}", tag="misc")
        if k == "case":
            return Query(f"SELECT id, CASE WHEN {self.pred('ta', 'ta')} THEN {self.arr('ta', 'ta', e)} ELSE {self.arr('ta', 'ta', e)} END, "
                         f"COALESCE({self.arr('ta', 'ta', e)}, {self.arr('ta', 'ta', e)}) FROM ta {self.order_all(3)}", tag="misc")
        if k == "anysub":
            return Query(f"SELECT id FROM ta WHERE {self.scalar('ta', 'ta', 'int')} {self.pick(CMP)} {self.pick(['ANY', 'ALL'])} "
                         f"(SELECT unnest({self.arr('tb', 'tb', 'int')}) FROM tb WHERE tb.id {self.pick(['<', '>', '<>'])} ta.id) ORDER BY 1",
                         tag="misc")
        if k == "insub":
            return Query(f"SELECT id, ia FROM ta WHERE ia {self.pick(['IN', 'NOT IN'])} (SELECT {self.arr('tb', 'tb', 'int')} FROM tb) "
                         f"{self.order_all(2)}", tag="misc")
        if k == "exists":
            return Query(f"SELECT id FROM ta WHERE {self.pick(['', 'NOT '])}EXISTS (SELECT 1 FROM tb WHERE tb.ia {self.pick(['&&', '@>', '<@', '='])} ta.ia) "
                         f"ORDER BY 1", tag="misc")
        if k == "having":
            return Query(f"SELECT id % 2, array_agg(id ORDER BY id) FROM tb GROUP BY 1 HAVING array_agg(b ORDER BY b) {self.pick(['@>', '&&', '<', '='])} "
                         f"{self.arr_lit('int')} ORDER BY 1, 2", tag="misc")
        return Query(f"SELECT ia, ta.id, tb.id FROM ta JOIN tb USING (ia) {self.order_all(3)}", tag="misc")

    def statement(self):
        k = self.pick(["project", "project", "project", "where", "where", "order", "distinct", "agg", "agg",
                       "unnest", "unnest", "projectset", "projectset", "arraysub", "ties", "row", "setop", "join",
                       "recursive", "misc", "misc"])
        return {"project": self.q_project, "where": self.q_where, "order": self.q_order_arrays,
                "distinct": self.q_distinct, "agg": self.q_agg, "unnest": self.q_unnest_from,
                "projectset": self.q_projectset, "arraysub": self.q_array_sub, "ties": self.q_ties,
                "row": self.q_row, "setop": self.q_setop, "join": self.q_join, "recursive": self.q_recursive,
                "misc": self.q_misc}[k]()


class Server:
    def __init__(self, label, dsn, setup):
        self.label, self.dsn, self.setup = label, dsn, setup
        self.connect()

    def connect(self):
        self.conn = psycopg2.connect(self.dsn)
        self.conn.autocommit = True
        cur = self.conn.cursor()
        try:
            cur.execute("SET statement_timeout = '10s'")
        except psycopg2.Error:
            pass
        for s in self.setup:
            cur.execute(s)

    def run(self, sql):
        try:
            cur = self.conn.cursor()
            cur.execute(sql)
            rows = cur.fetchall() if cur.description else []
            return ("rows", [tuple(r) for r in rows])
        except psycopg2.Error as e:
            if self.conn.closed or e.pgcode is None:
                msg = str(e).strip()[:300]
                try:
                    self.connect()
                except psycopg2.Error:
                    pass
                return ("disconnect", msg)
            return ("error", e.pgcode, (e.pgerror or str(e)).strip().split("\n")[0][:300])


def sort_key(row):
    return tuple((v is None, v or "") for v in row)


def compare(q, a, b):
    if a[0] == "rows" and b[0] == "rows":
        ra, rb = a[1], b[1]
        if not q.ordered:
            ra, rb = sorted(ra, key=sort_key), sorted(rb, key=sort_key)
        return None if ra == rb else "rows"
    if a[0] == "error" and b[0] == "error":
        if ODD_P > 0 and a[1][:2] == b[1][:2] == "22":
            return None  # which data exception comes first depends on evaluation order over odd arrays
        return None if a[1] == b[1] or (a[1] in q.errs and b[1] in q.errs) else "sqlstate"
    return "disconnect" if a[0] == "disconnect" else "error-vs-rows"


def show(o, limit=700):
    if o[0] == "rows":
        text = f"{len(o[1])} rows: " + " | ".join(",".join("NULL" if v is None else v for v in r) for r in o[1])
    elif o[0] == "error":
        text = f"ERROR {o[1]}: {o[2]}"
    else:
        text = f"DISCONNECT: {o[1]}"
    return text if len(text) <= limit else text[:limit] + " …"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kiln")
    ap.add_argument("pg")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--odd-arrays", type=float, default=0.0, metavar="P",
                    help="probability of a multidimensional array or one with lower bound other than 1 (default 0)")
    args = ap.parse_args()
    global ODD_P
    ODD_P = args.odd_arrays

    setup = setup_sql(make_data(random.Random(args.seed)))
    try:
        kiln, pg = Server("kiln", args.kiln, setup), Server("pg", args.pg, setup)
    except psycopg2.Error as e:
        print(f"setup failed: {e.pgcode} {e}")
        sys.exit(2)
    gen = Gen(random.Random(args.seed * 7919 + 17))
    counts, per_tag, shown = collections.Counter(), collections.defaultdict(collections.Counter), False
    for i in range(args.count):
        q = gen.statement()
        a, b = kiln.run(q.sql), pg.run(q.sql)
        why = compare(q, a, b)
        outcome = "differing" if why else ("both-error" if a[0] == "error" else "identical")
        counts[outcome] += 1
        per_tag[q.tag][outcome] += 1
        if args.verbose:
            print(f"[{i}] {outcome}: {q.sql}\n   kiln: {show(a, 200)}\n   pg:   {show(b, 200)}")
        if why:
            if not shown:
                print(f"-- setup (seed {args.seed}):\n" + "\n".join(s + ";" for s in setup) + "\n")
                shown = True
            bug = "  ** kiln internal error **" if a[0] == "error" and a[1] == "XX000" else ""
            print(f"DIFF #{i} ({why}){bug}\n  {q.sql};\n  kiln: {show(a)}\n  pg:   {show(b)}")
    print(f"\nseed {args.seed}: {args.count} queries — identical {counts['identical']}, "
          f"both-error {counts['both-error']}, differing {counts['differing']}")
    print("per kind (identical / both-error / differing): " +
          ", ".join(f"{t} {c['identical']}/{c['both-error']}/{c['differing']}" for t, c in sorted(per_tag.items())))
    sys.exit(1 if counts["differing"] else 0)


if __name__ == "__main__":
    main()
