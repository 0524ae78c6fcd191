#!/usr/bin/env python3
"""Differential testing of multi-table queries: kiln against PostgreSQL 15.

Creates 3–4 small random tables (seeded; 0–12 rows; int, bigint, numeric(8,2), text, date
and boolean columns with many NULLs and duplicates; overlapping key domains so joins match)
on both servers, then generates random queries — joins of every kind, derived tables,
VALUES, scalar / IN / EXISTS / ANY / ALL subqueries correlated at one and two levels,
set operations, CTEs (also recursive), window functions, GROUP BY / HAVING, DISTINCT,
ORDER BY / LIMIT / OFFSET — runs each on both servers and compares the answers: column
names and types, rows as text (in order where the query orders them totally, as sorted
multisets otherwise, plus a check of kiln's order on a partial ORDER BY's keys), and
SQLSTATEs. An internal error (XX000) from kiln is always a bug.

Every query is deterministic by construction (see "Determinism" below), so PostgreSQL
against itself must report 0 differences; any difference there is a generator bug.

Usage: multi_table.py KILN_DSN PG_DSN [--count N] [--seed S] [--verbose]
                      [--rows-only] [--hide-0a000] [--no-reconnect-on-error] [--perturb 0-4]

Both DSNs should name databases of their own: the tables t1..t4 are dropped and created
(and left there, so that a difference can be replayed by hand; the setup is printed before
the first difference). Each statement runs in autocommit with statement_timeout 10 s on
both servers, and a client-side watchdog cancels (then cuts) a statement that outlives it.
A server that drops the connection is reported as a difference and, unless
--no-reconnect-on-error, reconnected (tables reloaded) so the run goes on. Exit status:
0 when nothing differs, 1 otherwise.

Self-check (must report 0 differences; any difference is a nondeterministic query shape):
  createdb mt_a; createdb mt_b
  multi_table.py "dbname=mt_a …" "dbname=mt_b …" --seed S --perturb P
where --perturb loads the first database's rows in reverse order and changes its planner
settings (1: order only; 2: no hash join / hash aggregate; 3: no merge join / nested loop /
sort; 4: no hashing, memoize or material), so scan- or plan-dependent answers show up.

Determinism — what the generator guarantees, and why:
- Every table has a unique, non-NULL integer key column; a join's key is the tuple of its
  tables' keys (still unique under outer joins). Window functions that see row order
  (row_number, ntile, lag/lead, first/last/nth_value, ROWS frames) always get the key as
  a tie-breaker; without a known key only tie-insensitive ones (rank, dense_rank,
  percent_rank, cume_dist, aggregates over RANGE/GROUPS frames or whole partitions) are used.
  Even duplicate rows are not enough: two row_number()s over identical rows pair up
  differently depending on the sort.
- LIMIT / OFFSET (top level and in subqueries) only under an ORDER BY of every output
  column (rows tied on all of them are identical) or of a key.
- numeric values that are equal but print differently (1 vs 1.00) make DISTINCT / UNION /
  GROUP BY keep an arbitrary representative and make ties in ORDER BY visible: numeric
  expressions always have scale 2 (numeric(8,2) columns, 2-decimal literals, +, * by an
  integer, sum/min/max, round(avg(..), 2)); avg() of int columns (scale 16 or 20 by value)
  and sum() of bigint (scale 0) appear only as their own output columns, never mixed into
  set operations or CASE / COALESCE.
- A scalar subquery that may return more than one row (21000) appears only in the
  top-level select list of a query without LIMIT / OFFSET: PostgreSQL evaluates it for
  exactly the rows it returns (it postpones it past a LIMIT, never evaluates it for an
  unused derived-table column, and may skip WHERE / ON quals in any order).
- No division, no float columns (percent_rank / cume_dist are float8 and compared with
  the 1e-12 relative allowance), no volatile functions, collation C.
- FULL JOIN conditions are equalities (plus single-side filters): PostgreSQL itself
  answers 0A000 for non-hashable / non-mergeable FULL JOIN conditions.
"""

import argparse
import collections
import random
import socket
import sys
import threading
import time

import psycopg2
import psycopg2.extensions

# Every value comes back exactly as the text the server sent.
_RAW = psycopg2.extensions.new_type(tuple(psycopg2.extensions.string_types.keys()), "KILN_RAW_TEXT",
                                    lambda value, cur: value)
psycopg2.extensions.register_type(_RAW)

FLOAT_OIDS = {700, 701}
STATEMENT_TIMEOUT_S = 10

SQLTYPE = {"int": "int", "bigint": "bigint", "num": "numeric(8,2)", "text": "text", "date": "date", "bool": "boolean"}
# Comparable families. "numx" is numeric whose scale is not 2 (avg of ints, sum of bigints):
# used only as an output column of its own, or compared.
FAMILY = {"int": "n", "bigint": "n", "num": "n", "numx": "n", "text": "t", "date": "d", "bool": "b", "float": "f"}
POOL = [("a", "int"), ("b", "int"), ("c", "bigint"), ("n", "num"), ("s", "text"), ("d", "date"), ("ok", "bool")]
POOL_TYPE = dict(POOL)
DOMAIN = {
    "a": ["0", "1", "2", "3", "4", "-1", "2", "1"],
    "b": ["1", "2", "3", "5", "0", "2"],
    "c": ["0", "1", "2", "3", "3000000000", "-3000000000", "2"],
    "n": ["0.00", "1.50", "2.00", "2.25", "-3.10", "100.00", "1.50"],
    "s": ["''", "'a'", "'b'", "'B'", "'ab'", "'a b'", "'1'", "'a'"],
    "d": ["'2024-01-01'", "'2024-01-02'", "'2024-02-29'", "'1999-12-31'", "'2024-01-01'"],
    "ok": ["true", "false", "true"],
}
CMP_LIT = {
    "int": ["0", "1", "2", "3", "5", "-1"],
    "bigint": ["2", "3000000000", "-1"],
    "num": ["1.5", "2", "0.25", "100", "-3.1", "2.25"],
    "numx": ["1", "2.5", "0"],
    "text": ["'a'", "'b'", "'B'", "''", "'ab'", "'z'"],
    "date": ["DATE '2024-01-01'", "DATE '2024-01-02'", "DATE '2000-01-01'", "DATE '2024-02-29'"],
    "bool": ["true", "false"],
}
OUT_LIT = {  # literals whose text is stable when they share a column with other values
    "int": ["0", "1", "7", "-2"],
    "bigint": ["5000000000", "0::bigint"],
    "num": ["1.50", "0.00", "-2.25"],
    "text": ["'a'", "'zz'", "''"],
    "date": ["DATE '2024-01-01'", "DATE '2030-06-30'"],
    "bool": ["true", "false"],
}
CMP_OPS = ["=", "<>", "<", "<=", ">", ">="]


class Col:
    __slots__ = ("ref", "name", "ty", "level")

    def __init__(self, ref, name, ty, level):
        self.ref, self.name, self.ty, self.level = ref, name, ty, level


class Rel:
    """A FROM item or join tree: its SQL, the columns it makes referable (qualified, plus
    merged USING columns), its unqualified namespace [(name, type)] in `SELECT *` order,
    a unique key (list of refs; NULLs count as equal, as in ORDER BY) or None, and whether
    the key may hold NULLs (base tables' and VALUES' keys never do)."""

    def __init__(self, sql, cols, ns, key, compound=False, key_null=True):
        self.sql, self.cols, self.ns, self.key, self.compound = sql, cols, ns, key, compound
        self.key_null = key_null


class Core:
    """A query expression: SQL, output [(name, type)], positions forming a unique key (or
    None), whether it may be ordered by arbitrary key refs, and those refs."""

    def __init__(self, sql, out, key, plain=False, key_refs=None):
        self.sql, self.out, self.key, self.plain, self.key_refs = sql, out, key, plain, key_refs


class Query:
    def __init__(self, sql, ordered, order_positions, tags, errs):
        self.sql, self.ordered, self.order_positions, self.tags, self.errs = sql, ordered, order_positions, tags, errs


# ----------------------------------------------------------------------------------------
# The data.

def make_schema(rng):
    tables = []
    for t in range(1, rng.choice([3, 4, 4]) + 1):
        name = f"t{t}"
        key = "id" if rng.random() < 0.5 else f"id{t}"
        others = [c for c in POOL]
        rng.shuffle(others)
        chosen = others[:rng.randint(2, 5)]
        if not any(c in ("a", "b") for c, _ in chosen):
            chosen.append(rng.choice([("a", "int"), ("b", "int")]))
        cols = [(key, "int")] + chosen
        rng.shuffle(cols)
        # At most one empty table; mostly 3–12 rows.
        nrows = rng.choice([0, 1, 2] + list(range(3, 13)) * 2)
        while nrows == 0 and any(not t["rows"] for t in tables):
            nrows = rng.choice([1, 2] + list(range(3, 13)) * 2)
        ids = rng.sample(range(0, 13), nrows)
        rows = []
        for i in ids:
            row = []
            for c, ty in cols:
                if c == key:
                    row.append(str(i))
                elif rng.random() < 0.22:
                    row.append("NULL")
                else:
                    row.append(rng.choice(DOMAIN[c]))
            rows.append(row)
        tables.append(dict(name=name, key=key, cols=cols, rows=rows))
    return tables


def setup_sql(tables, reverse=False):
    out = [f"DROP TABLE IF EXISTS t{i}" for i in range(1, 5)]
    for t in tables:
        out.append(f"CREATE TABLE {t['name']} ({', '.join(f'{c} {SQLTYPE[ty]}' for c, ty in t['cols'])})")
        if t["rows"]:
            rows = t["rows"][::-1] if reverse else t["rows"]
            vals = ", ".join("(" + ", ".join(r) + ")" for r in rows)
            out.append(f"INSERT INTO {t['name']} ({', '.join(c for c, _ in t['cols'])}) VALUES {vals}")
    return out


# ----------------------------------------------------------------------------------------
# The generator.

class Gen:
    def __init__(self, rng, tables):
        self.r = rng
        self.tables = tables

    # -- small helpers ---------------------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def alias(self, prefix="x"):
        self.alias_n += 1
        return f"{prefix}{self.alias_n}"

    def fresh(self, prefix="e"):
        self.name_n += 1
        return f"{prefix}{self.name_n}"

    def tag(self, *names):
        self.tags.update(names)

    def start(self):
        self.alias_n = 0
        self.name_n = 0
        self.tags = set()
        self.errs = set()
        self.ctes = []          # visible CTEs: dict(name, out, key)
        self.cte_refs = collections.Counter()
        self.bare_used = set()
        # A complexity budget: table references, subqueries and branches spend it; once
        # spent, the generator picks the simplest options, so most queries stay readable.
        self.cost = 0
        self.budget = self.pick([3, 5, 6, 8, 10, 14])

    def rich(self):
        return self.cost < self.budget

    def can_sub(self, sc):
        return sc.sub_ok and self.rich()

    # -- FROM ------------------------------------------------------------------------------
    def base_table(self, level):
        self.cost += 1
        t = self.pick(self.tables)
        if t["name"] not in self.bare_used and self.chance(0.25):
            a, sql = t["name"], t["name"]
        else:
            a = self.alias()
            sql = f"{t['name']} {'AS ' if self.chance(0.5) else ''}{a}"
        self.bare_used.add(t["name"])
        cols = [Col(f"{a}.{c}", c, ty, level) for c, ty in t["cols"]]
        return Rel(sql, cols, [(c, ty) for c, ty in t["cols"]], [f"{a}.{t['key']}"], key_null=False)

    def values_item(self, level):
        self.tag("values")
        self.cost += 1
        a = self.alias("v")
        names = ["k"] + [c for c, _ in self.r.sample(POOL, self.r.randint(1, 3))]
        types = ["int"] + [POOL_TYPE[c] for c in names[1:]]
        nrows = self.r.randint(1, 4)
        ks = self.r.sample(range(0, 8), nrows)
        rows = []
        for i in range(nrows):
            row = [str(ks[i])]
            for c, ty in zip(names[1:], types[1:]):
                v = self.pick(DOMAIN[c])
                if ty == "date":
                    v = "DATE " + v
                if ty == "bigint" and i == 0:
                    v += "::bigint"
                row.append("NULL" if i > 0 and self.chance(0.25) else v)
            rows.append("(" + ", ".join(row) + ")")
        sql = f"(VALUES {', '.join(rows)}) AS {a}({', '.join(names)})"
        cols = [Col(f"{a}.{n}", n, ty, level) for n, ty in zip(names, types)]
        return Rel(sql, cols, list(zip(names, types)), [f"{a}.k"], key_null=False)

    def derived_item(self, level, outer):
        self.tag("derived")
        self.cost += 1
        core = self.select_core(level + 1, outer, mode="derived") if self.chance(0.9) else \
            self.setop(level + 1, outer, mode="derived")
        a = self.alias("d")
        names = [n for n, _ in core.out]
        colalias = ""
        if self.chance(0.3):
            self.tag("derived_colalias")
            k = self.r.randint(1, len(names))
            renamed = [self.fresh("v") for _ in range(k)]
            names = renamed + names[k:]
            colalias = "(" + ", ".join(renamed) + ")"
        sql = f"({core.sql}) {'AS ' if self.chance(0.5) else ''}{a}{colalias}"
        types = [ty for _, ty in core.out]
        cols = [Col(f"{a}.{n}", n, ty, level) for n, ty in zip(names, types)]
        key = [f"{a}.{names[i]}" for i in core.key] if core.key is not None else None
        return Rel(sql, cols, list(zip(names, types)), key)

    def cte_item(self, level, cte=None):
        cte = cte or self.pick(self.ctes)
        self.cte_refs[cte["name"]] += 1
        if cte["name"] not in self.bare_used and self.chance(0.4):
            a, sql = cte["name"], cte["name"]
        else:
            a = self.alias()
            sql = f"{cte['name']} AS {a}"
        self.bare_used.add(cte["name"])
        cols = [Col(f"{a}.{n}", n, ty, level) for n, ty in cte["out"]]
        key = [f"{a}.{cte['out'][i][0]}" for i in cte["key"]] if cte["key"] is not None else None
        return Rel(sql, cols, list(cte["out"]), key)

    def from_item(self, level, outer, derived_ok=True):
        x = self.r.random()
        if self.ctes and x < 0.3:
            return self.cte_item(level)
        y = self.r.random()
        if derived_ok and self.rich() and y < (0.14 if level == 0 else 0.05 if level == 1 else 0):
            return self.derived_item(level, outer)
        if y > 0.92:
            return self.values_item(level)
        return self.base_table(level)

    def join_tree(self, n, level, outer, derived_ok=True):
        if n == 1:
            return self.from_item(level, outer, derived_ok)
        k = self.r.randint(1, n - 1)
        left = self.join_tree(k, level, outer, derived_ok)
        right = self.join_tree(n - k, level, outer, derived_ok)
        return self.join(left, right, level, outer)

    def common_names(self, left, right):
        """Names usable for USING / NATURAL: once on each side, the same type."""
        lc = collections.Counter(n for n, _ in left.ns)
        rc = collections.Counter(n for n, _ in right.ns)
        lt, rt = dict(left.ns), dict(right.ns)
        common = [n for n, _ in left.ns if n in rc]
        ok = [n for n in common if lc[n] == 1 and rc[n] == 1 and lt[n] == rt[n]]
        return common, ok

    def join(self, left, right, level, outer):
        self.tag("join")
        if right.compound:
            self.tag("join_nested")
        rsql = f"({right.sql})" if right.compound else right.sql
        if left.compound:
            self.tag("join_nested")
        kind = self.pick(["INNER", "INNER", "LEFT", "LEFT", "RIGHT", "FULL", "CROSS"])
        common, usable = self.common_names(left, right)
        style = "ON"
        if kind != "CROSS":
            x = self.r.random()
            if x < 0.15 and usable and len(usable) == len(common):
                style = "NATURAL"
            elif x < 0.35 and usable:
                style = "USING"
        self.tag({"INNER": "join_inner", "LEFT": "join_left", "RIGHT": "join_right", "FULL": "join_full",
                  "CROSS": "join_cross"}[kind])
        key = left.key + right.key if left.key is not None and right.key is not None else None
        # A FULL JOIN can put an unmatched left row whose key is NULL and an unmatched right
        # row whose key is NULL into two rows with equal (all-NULL) key tuples.
        if kind == "FULL" and left.key_null and right.key_null:
            key = None
        key_null = left.key_null or right.key_null or kind in ("LEFT", "RIGHT", "FULL")
        cols = left.cols + right.cols
        if kind == "CROSS":
            sql = f"{left.sql} CROSS JOIN {rsql}"
            return Rel(sql, cols, left.ns + right.ns, key, compound=True, key_null=key_null)
        word = {"INNER": self.pick(["JOIN", "INNER JOIN"]), "LEFT": self.pick(["LEFT JOIN", "LEFT OUTER JOIN"]),
                "RIGHT": self.pick(["RIGHT JOIN", "RIGHT OUTER JOIN"]),
                "FULL": self.pick(["FULL JOIN", "FULL OUTER JOIN"])}[kind]
        if style in ("NATURAL", "USING"):
            if style == "NATURAL":
                self.tag("join_natural")
                merged = usable
                sql = f"{left.sql} NATURAL {word} {rsql}"
            else:
                self.tag("join_using")
                merged = self.r.sample(usable, self.r.randint(1, min(2, len(usable))))
                sql = f"{left.sql} {word} {rsql} USING ({', '.join(merged)})"
            lt = dict(left.ns)
            ns = [(m, lt[m]) for m in merged] + [e for e in left.ns if e[0] not in merged] + \
                 [e for e in right.ns if e[0] not in merged]
            counts = collections.Counter(n for n, _ in ns)
            cols = cols + [Col(m, m, lt[m], level) for m in merged if counts[m] == 1]
            return Rel(sql, cols, ns, key, compound=True, key_null=key_null)
        cond = self.on_condition(left, right, level, outer, full=(kind == "FULL"))
        sql = f"{left.sql} {word} {rsql} ON {cond}"
        return Rel(sql, cols, left.ns + right.ns, key, compound=True, key_null=key_null)

    def on_condition(self, left, right, level, outer, full):
        lq = [c for c in left.cols if "." in c.ref]
        rq = [c for c in right.cols if "." in c.ref]
        pairs = [(a, b) for a in lq for b in rq if FAMILY[a.ty] == FAMILY[b.ty] and a.ty != "float"]
        if not pairs:
            return "true"

        def eq():
            a, b = self.pick(pairs)
            return f"{a.ref} = {b.ref}" if self.chance(0.8) else f"{b.ref} = {a.ref}"
        x = self.r.random()
        if full:
            self.tag("on_eq")
            conds = [eq() for _ in range(self.pick([1, 1, 1, 2]))]
            if self.chance(0.2):
                c = self.pick(lq + rq)
                conds.append(self.simple_cmp(c))
            return " AND ".join(conds)
        if x < 0.45:
            self.tag("on_eq")
            conds = [eq() for _ in range(self.pick([1, 1, 1, 2]))]
            if self.chance(0.3):
                conds.append(self.simple_cmp(self.pick(lq + rq)))
            return " AND ".join(conds)
        if x < 0.6:
            self.tag("on_noneq")
            a, b = self.pick(pairs)
            return f"{a.ref} {self.pick(['<', '<=', '>', '<>', '>='])} {b.ref}"
        if x < 0.72:
            self.tag("on_or")
            return f"({eq()} OR {eq()})" if self.chance(0.5) else f"({eq()} OR {self.simple_cmp(self.pick(lq + rq))})"
        if x < 0.87:
            self.tag("on_sub")
            sc = Scope(lq + rq, outer, level, clause="on")
            return f"{eq()} AND {self.subquery_pred(sc, 1)}"
        if x < 0.93:
            return "true"
        sc = Scope(lq + rq, outer, level, sub_ok=False, clause="on")
        return self.pred(sc, 2)

    def from_clause(self, level, outer, ntables=None, derived_ok=True):
        """A FROM list: join trees separated by commas (a comma binds looser than JOIN)."""
        n = ntables or (self.pick([1, 1, 2, 2, 2, 3, 3, 4]) if level == 0 else self.pick([1, 1, 1, 2, 2]))
        if not self.rich():
            n = 1
        if n >= 3:
            self.tag("join_nested")
        groups = [n]
        if n >= 2 and self.chance(0.25):
            k = self.r.randint(1, n - 1)
            groups = [k, n - k]
        trees = [self.join_tree(g, level, outer, derived_ok) for g in groups]
        rel = trees[0]
        for t in trees[1:]:
            self.tag("join", "join_comma")
            key = rel.key + t.key if rel.key is not None and t.key is not None else None
            rel = Rel(f"{rel.sql}, {t.sql}", rel.cols + t.cols, rel.ns + t.ns, key, compound=True,
                      key_null=rel.key_null or t.key_null)
        # A merged USING column is referable unqualified only where its name is unique.
        counts = collections.Counter(name for name, _ in rel.ns)
        rel.cols = [c for c in rel.cols if "." in c.ref or counts[c.ref] == 1]
        return rel

    # -- expressions -----------------------------------------------------------------------
    def simple_cmp(self, c):
        if c.ty == "float":
            return f"{c.ref} IS NOT NULL"
        if c.ty == "bool":
            return self.pick([c.ref, f"NOT {c.ref}", f"{c.ref} IS NOT TRUE", f"{c.ref} IS NULL"])
        if self.chance(0.25):
            return f"{c.ref} IS {self.pick(['NULL', 'NOT NULL'])}"
        return f"{c.ref} {self.pick(CMP_OPS)} {self.pick(CMP_LIT[c.ty])}"

    def vexpr(self, ty, sc, depth, out=True):
        """An expression of type ty over the scope. In output context (`out`), numerics
        keep scale 2 so that equal values print alike."""
        cands = [c for c in sc.cols if c.ty == ty]
        x = self.r.random()
        if cands and (x < 0.6 or depth <= 0):
            return self.pick(cands).ref
        if depth <= 0 or x < 0.68:
            return self.pick(OUT_LIT[ty]) if out else self.pick(CMP_LIT[ty])
        if self.can_sub(sc) and x < 0.76 and ty != "bool":
            return self.scalar_subquery(sc, ty, depth - 1)
        if x < 0.83:
            return f"CASE WHEN {self.pred(sc, depth - 1)} THEN {self.vexpr(ty, sc, depth - 1)} " \
                   f"ELSE {self.vexpr(ty, sc, depth - 1)} END"
        if x < 0.9 and ty != "bool":
            return f"coalesce({self.vexpr(ty, sc, depth - 1)}, {self.pick(OUT_LIT[ty])})"
        if ty == "int":
            ints = [c for c in sc.cols if c.ty == "int"]
            texts = [c for c in sc.cols if c.ty == "text"]
            dates = [c for c in sc.cols if c.ty == "date"]
            opts = [lambda: f"({self.vexpr('int', sc, depth - 1)} {self.pick(['+', '-', '*'])} "
                            f"{self.pick(['1', '2', '-1'])})",
                    lambda: f"abs({self.vexpr('int', sc, depth - 1)})"]
            if ints:
                opts.append(lambda: f"({self.pick(ints).ref} + {self.pick(ints).ref})")
            if texts:
                opts.append(lambda: f"length({self.pick(texts).ref})")
            if dates:
                opts.append(lambda: f"({self.pick(dates).ref} - DATE '2024-01-01')")
            return self.pick(opts)()
        if ty == "bigint":
            return f"({self.vexpr('bigint', sc, depth - 1)} + {self.vexpr('int', sc, depth - 1)})"
        if ty == "num":
            return self.pick([
                lambda: f"({self.vexpr('num', sc, depth - 1)} + {self.vexpr('num', sc, depth - 1)})",
                lambda: f"({self.vexpr('num', sc, depth - 1)} * {self.pick(['2', '-1', '3'])})",
                lambda: f"({self.vexpr('num', sc, depth - 1)} - {self.vexpr('int', sc, depth - 1)})",
            ])()
        if ty == "text":
            return self.pick([
                lambda: f"upper({self.vexpr('text', sc, depth - 1)})",
                lambda: f"lower({self.vexpr('text', sc, depth - 1)})",
                lambda: f"({self.vexpr('text', sc, depth - 1)} || {self.pick(['x', '-'])!r})",
                lambda: f"substr({self.vexpr('text', sc, depth - 1)}, 1, 1)",
            ])()
        if ty == "date":
            return f"({self.vexpr('date', sc, depth - 1)} + {self.pick(['1', '30', '-1'])})"
        return self.pred(sc, depth - 1)

    def operand(self, sc, fam=None):
        """A column (this level or, for correlation, an outer one) to compare."""
        pool = [c for c in sc.cols if c.ty != "float" and (fam is None or FAMILY[c.ty] == fam)]
        outer = [c for c in sc.outer if c.ty != "float" and (fam is None or FAMILY[c.ty] == fam)]
        if outer and (not pool or self.chance(0.45 if sc.level > 0 else 0)):
            c = self.pick(outer)
            self.note_corr(sc, c)
            return c
        return self.pick(pool) if pool else None

    def note_corr(self, sc, c):
        d = sc.level - c.level
        if d >= 2:
            self.tag("corr2")
        elif d == 1:
            self.tag("corr1")

    def pred(self, sc, depth):
        x = self.r.random()
        if depth <= 0 or x < 0.35:
            a = self.operand(sc)
            if a is None:
                return self.pick(["true", "false"])
            if a.ty == "bool":
                return self.simple_cmp(a)
            y = self.r.random()
            if y < 0.45:
                b = self.operand(sc, FAMILY[a.ty])
                if b is not None and b is not a:
                    return f"{a.ref} {self.pick(CMP_OPS)} {b.ref}"
            if y < 0.55:
                lo, hi = sorted(self.r.sample(CMP_LIT[a.ty], 2))
                return f"{a.ref} {self.pick(['BETWEEN', 'NOT BETWEEN'])} {lo} AND {hi}"
            if y < 0.65:
                lits = self.r.sample(CMP_LIT[a.ty], 2) + (["NULL"] if self.chance(0.3) else [])
                return f"{a.ref} {self.pick(['IN', 'NOT IN'])} ({', '.join(lits)})"
            return self.simple_cmp(a)
        if x < 0.5:
            return f"({self.pred(sc, depth - 1)} {self.pick(['AND', 'OR'])} {self.pred(sc, depth - 1)})"
        if x < 0.55:
            return f"NOT ({self.pred(sc, depth - 1)})"
        if self.can_sub(sc) and x < 0.85:
            return self.subquery_pred(sc, depth - 1)
        if x < 0.92:
            ty = self.pick(["int", "text", "num", "date"])
            a = self.vexpr(ty, sc, depth - 1, out=False)
            return f"{a} {self.pick(CMP_OPS)} {self.vexpr(ty, sc, depth - 1, out=False)}"
        return self.pred(sc, 0)

    # -- subqueries ------------------------------------------------------------------------
    def sub_scope_outer(self, sc):
        return [c for c in sc.cols if "." in c.ref] + sc.outer

    def sub_from(self, sc):
        """FROM and a correlated WHERE for a subquery one level below sc."""
        level = sc.level + 1
        self.cost += 1
        outer = self.sub_scope_outer(sc)
        rel = self.from_clause(level, outer, ntables=self.pick([1, 1, 1, 2]) if level < 2 else 1,
                               derived_ok=level < 2 and self.chance(0.3))
        inner = Scope(rel.cols, outer, level)
        conds = []
        if outer and self.chance(0.8):
            # A correlation: an inner column against an outer one (sometimes two levels up).
            cands = [(i, o) for i in rel.cols for o in outer if FAMILY[i.ty] == FAMILY[o.ty] and "." in i.ref
                     and i.ty != "float" and o.ty != "float"]
            if cands:
                far = [p for p in cands if level - p[1].level >= 2]
                i, o = self.pick(far) if far and self.chance(0.5) else self.pick(cands)
                self.note_corr(inner, o)
                conds.append(f"{i.ref} {self.pick(['=', '=', '=', '<', '<>', '>='])} {o.ref}")
        if self.chance(0.5):
            conds.append(self.pred(inner, 2))
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        return rel, inner, where

    def sub_select_col(self, sc, fam=None):
        """`SELECT col FROM … WHERE …` of one column in family fam (or any). Returns
        (sql, type) or None when no column of that family is in reach."""
        for _ in range(4):
            rel, inner, where = self.sub_from(sc)
            cands = [c for c in rel.cols if c.ty != "float" and (fam is None or FAMILY[c.ty] == fam)]
            if not cands:
                continue
            c = self.pick(cands)
            x = self.r.random()
            if x < 0.1:
                # A set operation as the subquery.
                rel2, _, where2 = self.sub_from(sc)
                c2s = [d for d in rel2.cols if FAMILY[d.ty] == FAMILY[c.ty] and d.ty == c.ty]
                if c2s:
                    op = self.pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
                    self.tag("setop_in_sub")
                    return (f"SELECT {c.ref} FROM {rel.sql}{where} {op} "
                            f"SELECT {self.pick(c2s).ref} FROM {rel2.sql}{where2}", c.ty)
            if x < 0.2:
                lim = self.r.randint(0, 3)
                d = self.pick(["", " DESC"])
                return (f"SELECT {c.ref} FROM {rel.sql}{where} ORDER BY 1{d} NULLS {self.pick(['FIRST', 'LAST'])} "
                        f"LIMIT {lim}", c.ty)
            if x < 0.3:
                return f"SELECT DISTINCT {c.ref} FROM {rel.sql}{where}", c.ty
            return f"SELECT {c.ref} FROM {rel.sql}{where}", c.ty
        return None

    def subquery_pred(self, sc, depth):
        self.tag("sub_" + sc.clause)
        x = self.r.random()
        if x < 0.3:
            rel, inner, where = self.sub_from(sc)
            neg = self.chance(0.4)
            self.tag("not_exists" if neg else "exists")
            sel = self.pick(["1", "*", "NULL"] + [c.ref for c in rel.cols[:1]])
            return f"{'NOT ' if neg else ''}EXISTS (SELECT {sel} FROM {rel.sql}{where})"
        a = self.operand(Scope(sc.cols, [], sc.level))
        if a is None:
            return "true"
        sub = self.sub_select_col(sc, FAMILY[a.ty])
        if sub is None:
            return self.simple_cmp(a)
        sql, _ = sub
        if x < 0.6:
            neg = self.chance(0.4)
            self.tag("not_in_sub" if neg else "in_sub")
            return f"{a.ref} {'NOT IN' if neg else 'IN'} ({sql})"
        if x < 0.8:
            q = self.pick(["ANY", "ALL", "SOME"])
            self.tag("all" if q == "ALL" else "any")
            op = self.pick(CMP_OPS) if a.ty != "bool" else self.pick(["=", "<>"])
            return f"{a.ref} {op} {q} ({sql})"
        # Comparison with a scalar subquery that returns at most one row.
        self.tag("scalar_sub")
        return f"{a.ref} {self.pick(CMP_OPS)} {self.scalar_subquery(sc, a.ty, depth, fam=True)}"

    def scalar_subquery(self, sc, ty, depth, fam=False, risk_ok=False):
        """A scalar subquery of type ty (or of ty's family with fam). At most one row unless
        risk_ok, in which case it may return several (21000)."""
        self.tag("scalar_sub", "sub_" + sc.clause)
        for _ in range(4):
            rel, inner, where = self.sub_from(sc)
            match = [c for c in rel.cols if (FAMILY[c.ty] == FAMILY[ty] if fam else c.ty == ty) and c.ty != "float"]
            x = self.r.random()
            if "WHERE" in where and any(o.ref in where for o in self.sub_scope_outer(sc)):
                self.tag("scalar_sub_corr")
            if ty in ("bigint",) and x < 0.3:
                return f"(SELECT count(*) FROM {rel.sql}{where})"
            if ty == "int" and x < 0.15:
                return f"(SELECT count(*)::int FROM {rel.sql}{where})"
            if not match:
                continue
            c = self.pick(match)
            if risk_ok and self.chance(0.4):
                self.tag("scalar_multi")
                self.errs.add("21000")
                return f"(SELECT {c.ref} FROM {rel.sql}{where})"
            if x < 0.45 and c.ty not in ("bool",):
                agg = self.pick(["min", "max"] + (["sum"] if c.ty in ("num",) else []))
                return f"(SELECT {agg}({c.ref}) FROM {rel.sql}{where})"
            if x < 0.65:
                d = self.pick(["", " DESC"])
                return f"(SELECT {c.ref} FROM {rel.sql}{where} ORDER BY 1{d} NULLS {self.pick(['FIRST', 'LAST'])} " \
                       f"LIMIT 1{self.pick(['', ' OFFSET 1'])})"
            if x < 0.85 and rel.key is not None and len(rel.key) == 1:
                # A lookup by the key: at most one row.
                kc = next((k for k in rel.cols if k.ref == rel.key[0]), None)
                o = [c2 for c2 in self.sub_scope_outer(sc)
                     if kc is not None and FAMILY[c2.ty] == FAMILY[kc.ty] and c2.ty not in ("float",)]
                if o:
                    oc = self.pick(o)
                    self.note_corr(inner, oc)
                    self.tag("scalar_sub_corr")
                    extra = f" AND {self.pred(inner, 1)}" if self.chance(0.3) else ""
                    return f"(SELECT {c.ref} FROM {rel.sql} WHERE {rel.key[0]} = {oc.ref}{extra})"
            if risk_ok:
                self.tag("scalar_multi")
                self.errs.add("21000")
                return f"(SELECT {c.ref} FROM {rel.sql}{where})"
        lit = self.pick(OUT_LIT.get(ty, ["NULL"]))
        return f"(SELECT {lit})"

    # -- aggregates and windows ------------------------------------------------------------
    def aggregate(self, cols, ty=None):
        """(sql, type) of an aggregate over the row scope cols, of type ty if given."""
        opts = []
        for c in cols:
            if c.ty == "float":
                continue
            if c.ty in ("int", "bigint", "num"):
                opts.append((f"sum({c.ref})", {"int": "bigint", "bigint": "numx", "num": "num"}[c.ty]))
                if c.ty == "int":
                    opts.append((f"avg({c.ref})", "numx"))
                else:
                    opts.append((f"round(avg({c.ref}), 2)", "num"))
            if c.ty not in ("bool", "numx"):
                opts.append((f"{self.pick(['min', 'max'])}({c.ref})", c.ty))
            if c.ty in ("bool",):
                opts.append((f"{self.pick(['bool_and', 'bool_or', 'every'])}({c.ref})", "bool"))
            opts.append((f"count({self.pick(['', 'DISTINCT '])}{c.ref})", "bigint"))
        opts.append(("count(*)", "bigint"))
        ints = [c for c in cols if c.ty == "int"]
        if len(ints) >= 2:
            a, b = self.r.sample(ints, 2)
            opts.append((f"sum({a.ref} + {b.ref})", "bigint"))
        if ty is not None:
            opts = [o for o in opts if o[1] == ty or (ty == "int" and o[1] == "bigint")]
            if not opts:
                return None
        sql, t = self.pick(opts)
        if self.chance(0.1) and not sql.startswith("round(") and "DISTINCT" not in sql:
            c = self.pick(cols)
            if c.ty == "bool":
                sql = sql[:-1] + f") FILTER (WHERE {c.ref})"
                self.tag("agg_filter")
        return sql, t

    def window(self, cols, key_refs, order_pool=None):
        """(sql, type) of a window function over rows with columns cols; key_refs make the
        order total (None: only functions insensitive to ties)."""
        self.tag("window")
        order_pool = order_pool if order_pool is not None else [c.ref for c in cols if c.ty != "float"]
        typed = {c.ref: c.ty for c in cols}
        sensitive = ["row_number", "ntile", "lag", "lead", "first_value", "last_value", "nth_value"]
        insensitive = ["rank", "dense_rank", "percent_rank", "cume_dist", "agg", "agg", "agg"]
        fn = self.pick((sensitive if key_refs is not None else []) + insensitive)
        parts = []
        if self.chance(0.6):
            self.tag("win_partition")
            parts = self.r.sample(order_pool, min(len(order_pool), self.r.randint(1, 2)))
        order = []
        if fn in sensitive or self.chance(0.75):
            order = [f"{e}{self.pick(['', ' DESC', ' ASC'])}{self.pick(['', ' NULLS FIRST', ' NULLS LAST'])}"
                     for e in self.r.sample(order_pool, min(len(order_pool), self.r.randint(1, 2)))]
        frame = ""
        total = False
        if fn == "agg" and order:
            x = self.r.random()
            if x < 0.3 and key_refs is not None:
                self.tag("frame_rows")
                frame = " ROWS " + self.pick(["BETWEEN 1 PRECEDING AND 1 FOLLOWING", "2 PRECEDING",
                                              "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                                              "BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                                              "BETWEEN 1 FOLLOWING AND 3 FOLLOWING"])
                total = True
            elif x < 0.45:
                self.tag("frame_range")
                frame = " RANGE " + self.pick(["BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                                               "BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                                               "UNBOUNDED PRECEDING"])
            elif x < 0.6:
                # RANGE with an offset needs exactly one ORDER BY column of a numeric or date type.
                oc = [e for e in order_pool if typed.get(e) in ("int", "bigint", "num", "date")]
                if oc:
                    self.tag("frame_range", "frame_range_offset")
                    e = self.pick(oc)
                    off = {"int": "1", "bigint": "2", "num": "1.5", "date": "interval '1 day'"}[typed[e]]
                    order = [f"{e}{self.pick(['', ' DESC'])}"]
                    frame = f" RANGE BETWEEN {off} PRECEDING AND {off} FOLLOWING"
            elif x < 0.7:
                self.tag("frame_groups")
                frame = " GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW"
            if frame and self.chance(0.15):
                self.tag("frame_exclude")
                frame += self.pick([" EXCLUDE CURRENT ROW", " EXCLUDE TIES", " EXCLUDE GROUP", " EXCLUDE NO OTHERS"])
        if fn in sensitive or total:
            seen = {o.split(" ")[0] for o in order}
            order += [k for k in key_refs if k not in seen]
        over = []
        if parts:
            over.append("PARTITION BY " + ", ".join(parts))
        if order:
            over.append("ORDER BY " + ", ".join(order))
        spec = " ".join(over) + frame
        self.tag("win_" + fn)
        vals = [c for c in cols if c.ty not in ("float",)]
        if fn == "row_number":
            return f"row_number() OVER ({spec})", "bigint"
        if fn in ("rank", "dense_rank"):
            return f"{fn}() OVER ({spec})", "bigint"
        if fn in ("percent_rank", "cume_dist"):
            return f"{fn}() OVER ({spec})", "float"
        if fn == "ntile":
            return f"ntile({self.pick(['1', '2', '3', '5'])}) OVER ({spec})", "int"
        c = self.pick(vals)
        if fn in ("lag", "lead"):
            args = c.ref
            if self.chance(0.5):
                args += f", {self.pick(['1', '2', '0'])}"
                if self.chance(0.5) and c.ty in OUT_LIT:
                    args += f", {self.pick(OUT_LIT[c.ty])}"
            return f"{fn}({args}) OVER ({spec})", c.ty
        if fn in ("first_value", "last_value"):
            return f"{fn}({c.ref}) OVER ({spec})", c.ty
        if fn == "nth_value":
            return f"nth_value({c.ref}, {self.pick(['1', '2', '3'])}) OVER ({spec})", c.ty
        agg = self.pick(["sum", "count", "avg", "min", "max", "count*"])
        nums = [v for v in vals if v.ty in ("int", "bigint", "num")]
        if agg == "count*":
            return f"count(*) OVER ({spec})", "bigint"
        if agg in ("sum", "avg") and nums:
            v = self.pick(nums)
            if agg == "sum":
                return f"sum({v.ref}) OVER ({spec})", {"int": "bigint", "bigint": "numx", "num": "num"}[v.ty]
            if v.ty == "int":
                return f"avg({v.ref}) OVER ({spec})", "numx"
            return f"round(avg({v.ref}) OVER ({spec}), 2)", "num"
        if agg in ("min", "max") and c.ty not in ("bool", "numx"):
            return f"{agg}({c.ref}) OVER ({spec})", c.ty
        return f"count({c.ref}) OVER ({spec})", "bigint"

    # -- select cores ----------------------------------------------------------------------
    def select_core(self, level, outer, mode="top", want=None, risk_ok=False):
        """mode: 'top' (statement level), 'derived' (FROM item / CTE body: items aliased) or
        'branch' (set-operation branch: output types `want`)."""
        rel = self.from_clause(level, outer)
        sc = Scope(rel.cols, outer, level, clause="where")
        where = ""
        if self.chance(0.45):
            where = f" WHERE {self.pred(sc, self.pick([1, 1, 2]))}"
        x = self.r.random()
        if x < 0.28:
            shape = "grouped"
        elif x < 0.38:
            shape = "distinct"
        elif x < 0.55:
            shape = "window"
        else:
            shape = "plain"
        if shape == "grouped":
            return self.grouped_core(rel, sc, where, level, outer, mode, want, risk_ok)
        sel_sc = Scope(rel.cols, outer, level, clause="select")
        items = []  # (sql, type, natural name or None)
        star = False
        if mode == "top" and want is None and shape == "plain" and self.chance(0.12):
            star = True
            self.tag("select_star")
            items = [(None, ty, n) for n, ty in rel.ns]
        elif want is not None:
            for ty in want:
                items.append(self.item_of_type(ty, sel_sc, rel, shape))
        else:
            n = self.r.randint(1, 4)
            if rel.key is not None and (self.chance(0.5) or shape == "window"):
                for k in rel.key:
                    c = next(c for c in rel.cols if c.ref == k)
                    items.append((c.ref, c.ty, c.name))
            for _ in range(n):
                items.append(self.any_item(sel_sc, rel, shape, risk_ok))
            if shape == "window" and not any("OVER" in (s or "") for s, _, _ in items):
                s, t = self.window(rel.cols, rel.key)
                items.append((s, t, None))
            self.r.shuffle(items)
        if shape == "distinct":
            self.tag("distinct")
        sql_items, out = self.name_items(items, mode)
        if star:
            sel = "*"
        else:
            sel = ", ".join(sql_items)
        sql = f"SELECT {'DISTINCT ' if shape == 'distinct' else ''}{sel} FROM {rel.sql}{where}"
        # The output's key: all columns after DISTINCT; the FROM key if it is output.
        key = None
        key_refs = None
        if shape == "distinct":
            key = list(range(len(out)))
        elif rel.key is not None:
            key_refs = rel.key
            pos = []
            for k in rel.key:
                p = next((i for i, (s, _, _) in enumerate(items) if s == k), None)
                if p is None:
                    break
                pos.append(p)
            else:
                key = pos
        if mode == "derived" and self.chance(0.2):
            # ORDER BY every output column, then LIMIT: deterministic.
            self.tag("sub_limit")
            sql += " ORDER BY " + ", ".join(self.order_term(str(i + 1)) for i in range(len(out)))
            sql += f" LIMIT {self.r.randint(0, 6)}"
            if self.chance(0.3):
                sql += f" OFFSET {self.r.randint(0, 3)}"
        return Core(sql, out, key, plain=(shape != "distinct" and not star), key_refs=key_refs)

    def order_term(self, e):
        return f"{e}{self.pick(['', ' ASC', ' DESC'])}{self.pick(['', ' NULLS FIRST', ' NULLS LAST'])}"

    def name_items(self, items, mode):
        """SQL of each select item (aliased where needed) and the output [(name, type)]."""
        sql_items, out, used = [], [], set()
        for s, ty, nat in items:
            if s is None:  # from *
                out.append((nat, ty))
                continue
            name = nat
            need_alias = mode != "top" and (name is None or name in used)
            if mode == "top" and self.chance(0.3):
                need_alias = True
            if need_alias:
                name = self.fresh("e")
                sql_items.append(f"{s} AS {name}" if self.chance(0.8) else f"{s} {name}")
            else:
                sql_items.append(s)
            used.add(name)
            out.append((name or "?column?", ty))
        return sql_items, out

    def any_item(self, sc, rel, shape, risk_ok):
        x = self.r.random()
        cols = [c for c in rel.cols if c.ty != "float"]
        if shape == "window" and x < 0.35:
            s, t = self.window(rel.cols, rel.key)
            return s, t, None
        if x < 0.55 and cols:
            c = self.pick(cols)
            return c.ref, c.ty, c.name
        if x < 0.7 and self.can_sub(sc):
            ty = self.pick(["int", "bigint", "text", "num", "date"])
            self.tag("sub_select")
            return self.scalar_subquery(sc, ty, 1, risk_ok=risk_ok and self.chance(0.5)), ty, None
        if x < 0.78 and self.can_sub(sc):
            self.tag("sub_select")
            return self.subquery_pred(sc, 1), "bool", None
        ty = self.pick(["int", "bigint", "num", "text", "date", "bool"])
        return self.vexpr(ty, sc, 2), ty, None

    def item_of_type(self, ty, sc, rel, shape):
        """A select item of type ty (int positions also take bigint) for a set-op branch."""
        cands = [c for c in rel.cols if c.ty == ty or (ty == "int" and c.ty == "bigint")]
        if cands and self.chance(0.7):
            c = self.pick(cands)
            return c.ref, c.ty, c.name
        if shape == "window" and ty in ("int",) and self.chance(0.5):
            s, t = self.window(rel.cols, rel.key)
            if t in ("int", "bigint"):
                return s, t, None
        if ty == "num" and self.chance(0.3):
            ints = [c for c in rel.cols if c.ty == "int"]
            if ints:
                return f"{self.pick(ints).ref}::numeric(8,2)", "num", None
        return self.vexpr(ty, sc, 1), ty, None

    def grouped_core(self, rel, sc, where, level, outer, mode, want, risk_ok):
        self.tag("group_by")
        cols = [c for c in rel.cols if c.ty not in ("float",) and "." in c.ref]
        keys = self.r.sample(cols, min(len(cols), self.r.randint(0, 2))) if cols else []
        if not keys:
            self.tag("agg_nogroup")
        gsc = Scope(keys, outer, level, clause="select")
        items = []
        if want is not None:
            for ty in want:
                kc = [k for k in keys if k.ty == ty or (ty == "int" and k.ty == "bigint")]
                if kc and self.chance(0.5):
                    k = self.pick(kc)
                    items.append((k.ref, k.ty, k.name))
                    continue
                a = self.aggregate(rel.cols, ty)
                if a is not None:
                    items.append((a[0], a[1], None))
                else:
                    items.append((self.pick(OUT_LIT[ty]), ty, None))
        else:
            for k in keys:
                if self.chance(0.85):
                    items.append((k.ref, k.ty, k.name))
            for _ in range(self.r.randint(1, 3)):
                a = self.aggregate(rel.cols)
                items.append((a[0], a[1], None))
            if keys and self.chance(0.2):
                self.tag("sub_select")
                ty = self.pick(["int", "bigint", "text"])
                items.append((self.scalar_subquery(gsc, ty, 1, risk_ok=risk_ok and self.chance(0.4)), ty, None))
            if keys and self.chance(0.15):
                # A window over the groups, ordered by an aggregate; the group keys break ties.
                agg, _ = self.aggregate(rel.cols)
                s, t = self.window(keys, [k.ref for k in keys] if keys else None, order_pool=[agg] + [k.ref for k in keys])
                self.tag("window_over_agg")
                items.append((s, t, None))
            self.r.shuffle(items)
        sql_items, out = self.name_items(items, mode)
        gb = ""
        if keys:
            gb = " GROUP BY " + ", ".join(k.ref for k in keys)
        elif self.chance(0.2):
            gb = " GROUP BY ()"
        having = ""
        if self.chance(0.35):
            self.tag("having")
            having = f" HAVING {self.having_pred(rel, keys, gsc)}"
        sql = f"SELECT {', '.join(sql_items)} FROM {rel.sql}{where}{gb}{having}"
        key = None
        if not keys:
            key = []  # at most one row
        else:
            pos = [next((i for i, (s, _, _) in enumerate(items) if s == k.ref), None) for k in keys]
            if all(p is not None for p in pos):
                key = pos
        if mode == "derived" and self.chance(0.2):
            self.tag("sub_limit")
            sql += " ORDER BY " + ", ".join(self.order_term(str(i + 1)) for i in range(len(out)))
            sql += f" LIMIT {self.r.randint(0, 4)}"
        return Core(sql, out, key)

    def having_pred(self, rel, keys, gsc):
        x = self.r.random()
        a, ty = self.aggregate(rel.cols)
        lits = CMP_LIT["num"] if ty == "numx" else ["0", "1", "2", "3"] if a.startswith("count") else CMP_LIT[ty]
        if x < 0.45 or ty in ("bool",):
            if ty == "bool":
                return a
            return f"{a} {self.pick(CMP_OPS)} {self.pick(lits)}"
        if x < 0.6 and keys:
            return f"({a} {self.pick(CMP_OPS)} {self.pick(lits)} " \
                   f"{self.pick(['AND', 'OR'])} {self.pred(Scope(keys, [], gsc.level, sub_ok=False), 1)})"
        gsc.clause = "having"
        if x < 0.8:
            return f"{a} {self.pick(CMP_OPS)} {self.scalar_subquery(gsc, 'bigint' if ty == 'numx' else ty, 1, fam=True)}"
        if keys:
            return self.subquery_pred(gsc, 1)
        return f"count(*) > {self.pick(['0', '1', '3'])}"

    # -- set operations --------------------------------------------------------------------
    def setop(self, level, outer, mode="top", sig=None, depth=0):
        """UNION / INTERSECT / EXCEPT [ALL] of 2–3 branches with the output types sig.
        Branch cores alias every item, so the first branch's names are the output's."""
        sig = sig or [self.pick(["int", "int", "text", "num", "date", "bool", "bigint"])
                      for _ in range(self.r.randint(1, 3))]

        def branch():
            if depth < 1 and self.rich() and self.chance(0.15):
                self.tag("setop_nested")
                inner = self.setop(level, outer, "branch", sig, depth + 1)
                return f"({inner.sql})", inner.out
            core = self.select_core(level, outer, "branch", want=sig)
            if self.chance(0.12):
                self.tag("setop_branch_limit")
                s = core.sql + " ORDER BY " + ", ".join(self.order_term(str(i + 1)) for i in range(len(sig)))
                s += f" LIMIT {self.r.randint(0, 5)}"
                return f"({s})", core.out
            return core.sql, core.out
        parts = [branch()]
        ops = []
        for _ in range(2 if self.rich() and self.chance(0.3) else 1):
            op = self.pick(["UNION", "UNION", "INTERSECT", "EXCEPT"])
            all_ = self.chance(0.4)
            self.tag(op.lower() + ("_all" if all_ else ""), "setop")
            ops.append(op + (" ALL" if all_ else ""))
            parts.append(branch())
        if len(parts) > 2:
            self.tag("setop_nested")
        sqls = [p[0] for p in parts]
        if len(parts) == 3 and self.chance(0.3):
            sql = f"({sqls[0]} {ops[0]} {sqls[1]}) {ops[1]} {sqls[2]}"
            top = ops[1]
        else:
            sql = sqls[0]
            for op, p in zip(ops, sqls[1:]):
                sql += f" {op} {p}"
            # INTERSECT binds tighter than UNION and EXCEPT.
            top = ops[0] if len(ops) == 2 and ops[1].startswith("INTERSECT") and \
                not ops[0].startswith("INTERSECT") else ops[-1]
        out = [(n, ("bigint" if ty == "int" else ty)) for (n, _), ty in zip(parts[0][1], sig)]
        key = None if top.endswith("ALL") else list(range(len(out)))
        return Core(sql, out, key)

    # -- statements ------------------------------------------------------------------------
    def order_limit(self, core, risk, setop=False):
        """Top-level ORDER BY / LIMIT. Returns (suffix, ordered, partial positions)."""
        n = len(core.out)
        x = self.r.random()
        if x < 0.35:
            return "", False, None
        if x < 0.55 and n > 1:
            self.tag("order_partial")
            k = self.r.randint(1, n - 1)
            pos = self.r.sample(range(n), k)
            return " ORDER BY " + ", ".join(self.order_term(str(p + 1)) for p in pos), False, pos
        self.tag("order_total")
        pos = list(range(n))
        self.r.shuffle(pos)
        terms = [self.order_term(str(p + 1)) for p in pos]
        if core.plain and core.key_refs and not setop and self.chance(0.4):  # key_refs non-empty
            # A prefix of output columns, then the key: total, by columns not all output.
            self.tag("order_by_key")
            terms = terms[:self.r.randint(0, n)] + [self.order_term(k) for k in core.key_refs]
        suffix = " ORDER BY " + ", ".join(terms)
        if not risk and self.chance(0.6):
            y = self.r.random()
            if y < 0.5:
                self.tag("limit")
                suffix += f" LIMIT {self.r.randint(0, 8)}"
            elif y < 0.8:
                self.tag("limit", "offset")
                suffix += f" LIMIT {self.r.randint(0, 8)} OFFSET {self.r.randint(0, 5)}"
            elif y < 0.9:
                self.tag("offset")
                suffix += f" OFFSET {self.r.randint(0, 5)}"
            else:
                self.tag("limit")
                suffix += f" FETCH FIRST {self.r.randint(1, 5)} ROWS ONLY"
        return suffix, True, None

    def core_statement(self):
        self.tag("select")
        risk_ok = self.chance(0.5)
        core = self.select_core(0, [], "top", risk_ok=risk_ok)
        return core

    def cte_statement(self, recursive_only=False):
        defs = []
        recursive = False
        if recursive_only or self.chance(0.2):
            recursive = True
            defs.append(self.recursive_cte())
        for _ in range(0 if recursive_only else self.pick([1, 1, 2, 2, 3])):
            name = f"c{len(defs) + 1}"
            body = self.select_core(1, [], "derived") if self.chance(0.85) else self.setop(1, [], "derived")
            mat = ""
            if self.chance(0.15):
                mat = self.pick(["MATERIALIZED ", "NOT MATERIALIZED "])
                self.tag("cte_materialized")
            cols = ""
            names = [n for n, _ in body.out]
            if self.chance(0.3):
                names = [self.fresh("w") for _ in names]
                cols = "(" + ", ".join(names) + ")"
            defs.append(dict(name=name, sql=f"{name}{cols} AS {mat}({body.sql})",
                             out=list(zip(names, [t for _, t in body.out])), key=body.key))
            self.ctes.append(defs[-1])
        self.ctes = list(defs)
        self.tag("cte")
        if len(defs) > 1:
            self.tag("cte_multi")
        # The main query: its first FROM item is a CTE; sometimes the same CTE twice.
        first = self.pick(defs)
        rel = self.cte_item(0, first)
        if self.chance(0.4):
            other = self.cte_item(0, first if self.chance(0.6) else self.pick(defs))
            rel = self.join(rel, other, 0, [])
        if self.chance(0.4):
            rel = self.join(rel, self.from_item(0, []), 0, [])
        core = self.core_from_rel(rel)
        if any(v >= 2 for v in self.cte_refs.values()):
            self.tag("cte_twice")
        head = "WITH RECURSIVE " if recursive else "WITH "
        core.sql = head + ", ".join(d["sql"] for d in defs) + " " + core.sql
        return core

    def core_from_rel(self, rel):
        sc = Scope(rel.cols, [], 0, clause="where")
        where = f" WHERE {self.pred(sc, 2)}" if self.chance(0.5) else ""
        if self.chance(0.3):
            return self.grouped_core(rel, sc, where, 0, [], "top", None, False)
        shape = self.pick(["plain", "plain", "window", "distinct"])
        ssc = Scope(rel.cols, [], 0, clause="select")
        items = []
        if rel.key is not None and self.chance(0.5):
            for k in rel.key:
                c = next(c for c in rel.cols if c.ref == k)
                items.append((c.ref, c.ty, c.name))
        for _ in range(self.r.randint(1, 3)):
            items.append(self.any_item(ssc, rel, shape, False))
        if shape == "window":
            s, t = self.window(rel.cols, rel.key)
            items.append((s, t, None))
        if shape == "distinct":
            self.tag("distinct")
        sql_items, out = self.name_items(items, "top")
        sql = f"SELECT {'DISTINCT ' if shape == 'distinct' else ''}{', '.join(sql_items)} FROM {rel.sql}{where}"
        key = list(range(len(out))) if shape == "distinct" else None
        return Core(sql, out, key, plain=shape != "distinct", key_refs=rel.key if shape != "distinct" else None)

    def recursive_cte(self):
        self.tag("cte_recursive")
        name = "r"
        x = self.r.random()
        if x < 0.45:
            k = self.r.randint(0, 7)
            u = self.pick(["UNION ALL", "UNION"])
            sql = f"r(i) AS (SELECT 1 {u} SELECT i + 1 FROM r WHERE i < {k})"
            out, key = [("i", "int")], [0]
        elif x < 0.8:
            # Walk from values of one table's column to another's through equal keys.
            t1, t2 = self.pick(self.tables), self.pick(self.tables)
            a1 = [c for c, ty in t1["cols"] if ty == "int"]
            a2 = [c for c, ty in t2["cols"] if ty == "int"]
            c1 = self.pick(a1)
            f2, g2 = self.pick(a2), self.pick(a2)
            u = "UNION"  # UNION ALL could multiply rows at every level
            depth = self.r.randint(1, 3)
            sql = (f"r(lvl, v) AS (SELECT 1, y.{c1} FROM {t1['name']} y {u} "
                   f"SELECT r.lvl + 1, z.{g2} FROM r JOIN {t2['name']} z ON z.{f2} = r.v WHERE r.lvl < {depth})")
            out, key = [("lvl", "int"), ("v", "int")], ([0, 1] if u == "UNION" else None)
        else:
            k = self.r.randint(1, 4)
            sql = f"r(s, i) AS (SELECT 'a'::text, 1 UNION ALL SELECT r.s || chr(97 + i), i + 1 FROM r WHERE i <= {k})"
            out, key = [("s", "text"), ("i", "int")], [1]
        d = dict(name=name, sql=sql, out=out, key=key)
        return d

    def error_statement(self):
        """A statement PostgreSQL rejects at analysis, deterministically."""
        self.tag("error")
        t1, t2 = self.r.sample(self.tables, 2)
        common = [c for c, _ in t1["cols"] if c in dict(t2["cols"])]
        x = self.r.randrange(12)
        if x == 0 and common:
            return f"SELECT {self.pick(common)} FROM {t1['name']}, {t2['name']}"  # 42702
        if x == 1:
            c = next(c for c, _ in t1["cols"] if c != t1["key"])
            return f"SELECT {c}, count(*) FROM {t1['name']} GROUP BY {t1['key']}"  # 42803
        if x == 2:
            return f"SELECT {t1['key']} FROM {t1['name']} UNION SELECT {t2['key']}, {t2['key']} FROM {t2['name']}"  # 42601
        if x == 3:
            tc = next((c for c, ty in t2["cols"] if ty == "text"), None)
            if tc:
                return f"SELECT {t1['key']} FROM {t1['name']} UNION SELECT {tc} FROM {t2['name']}"  # 42804
        if x == 4:
            return f"SELECT (SELECT {t2['key']}, {t2['key']} FROM {t2['name']}) FROM {t1['name']}"  # 42601
        if x == 5:
            return f"SELECT x.{t1['key']} FROM {t1['name']} x JOIN {t2['name']} y ON z.a = x.{t1['key']}"  # 42P01
        if x == 6:
            return f"SELECT * FROM {t1['name']} x WHERE count(*) > 1"  # 42803
        if x == 7:
            return f"SELECT * FROM {t1['name']} x WHERE row_number() OVER () > 1"  # 42P20
        if x == 8:
            return f"SELECT {t1['key']} FROM {t1['name']} ORDER BY 2"  # 42P10
        if x == 9:
            return f"SELECT DISTINCT {t1['key']} FROM {t1['name']} x ORDER BY x.{t1['cols'][-1][0]} || 'x'"  # 42P10/42883
        if x == 10:
            return f"SELECT * FROM {t1['name']} x, {t2['name']} y JOIN {t1['name']} z ON z.{t1['key']} = x.{t1['key']}"
        return f"SELECT * FROM {t1['name']} JOIN {t2['name']} USING (nosuchcolumn)"  # 42703

    def statement(self):
        self.start()
        x = self.r.random()
        if x < 0.04:
            return Query(self.error_statement(), False, None, self.tags, self.errs)
        if x < 0.5:
            core = self.core_statement()
            setop = False
        elif x < 0.66:
            core = self.setop(0, [], "top")
            setop = True
        elif x < 0.9:
            core = self.cte_statement()
            setop = False
        else:
            core = self.cte_statement(recursive_only=True)
            setop = False
        risk = "21000" in self.errs
        suffix, ordered, partial = self.order_limit(core, risk, setop)
        sql = core.sql
        if setop and suffix and self.chance(0.3):
            sql = f"({sql})"
        return Query(sql + suffix, ordered, partial, self.tags, self.errs)


class Scope:
    """Columns of one query level, the (qualified) columns of the levels around it, the
    level, whether subqueries may be nested here, and the clause (for the tags)."""

    def __init__(self, cols, outer, level, sub_ok=None, clause="where"):
        self.cols, self.outer, self.level, self.clause = cols, outer, level, clause
        self.sub_ok = level < 2 if sub_ok is None else sub_ok


# ----------------------------------------------------------------------------------------
# Running and comparing.

# For PostgreSQL-against-PostgreSQL self-checks (--perturb): the first server gets the rows
# in reverse order and other plans, so a query whose answer depends on scan order or plan
# shows up as a difference.
PERTURB = {
    0: [],
    1: [],
    2: ["ANALYZE", "SET enable_hashagg = off", "SET enable_hashjoin = off"],
    3: ["ANALYZE", "SET enable_mergejoin = off", "SET enable_nestloop = off", "SET enable_sort = off"],
    4: ["SET enable_hashagg = off", "SET enable_material = off", "SET enable_memoize = off",
        "SET enable_indexscan = off", "SET enable_seqscan = on", "SET enable_hashjoin = off",
        "SET enable_mergejoin = off"],
}


class Server:
    def __init__(self, label, dsn, setup, session=()):
        self.label, self.dsn, self.setup, self.session = label, dsn, setup, list(session)
        self.conn = None
        self.connect()

    def connect(self):
        self.conn = psycopg2.connect(self.dsn, connect_timeout=10)
        self.conn.autocommit = True
        cur = self.conn.cursor()
        try:
            cur.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT_S}s'")
        except psycopg2.Error as e:
            print(f"warning: {self.label}: SET statement_timeout failed ({e.pgcode}); relying on the watchdog",
                  file=sys.stderr)

    def load(self):
        cur = self.conn.cursor()
        for s in self.setup:
            cur.execute(s)
        for s in self.session:
            cur.execute(s)

    def reconnect(self):
        try:
            self.conn.close()
        except Exception:
            pass
        for attempt in range(10):
            try:
                self.connect()
                self.load()
                return True
            except psycopg2.Error:
                time.sleep(1)
        return False

    def run(self, sql):
        """('rows', columns, rows) | ('error', sqlstate, message) | ('disconnect', message)."""
        done = threading.Event()
        conn = self.conn

        def watchdog():
            # statement_timeout should fire first; then a cancel; then cut the socket.
            if done.wait(STATEMENT_TIMEOUT_S + 5):
                return
            try:
                conn.cancel()
            except Exception:
                pass
            if done.wait(15):
                return
            try:
                socket.fromfd(conn.fileno(), socket.AF_INET, socket.SOCK_STREAM).shutdown(socket.SHUT_RDWR)
            except Exception:
                pass
        threading.Thread(target=watchdog, daemon=True).start()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            cols = [(d.name, d.type_code) for d in cur.description] if cur.description else []
            rows = cur.fetchall() if cur.description else []
            return ("rows", cols, rows)
        except psycopg2.Error as e:
            if conn.closed or e.pgcode is None:
                return ("disconnect", str(e).strip()[:300])
            return ("error", e.pgcode, (e.pgerror or str(e)).strip().split("\n")[0][:300])
        finally:
            done.set()


def floats_close(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return abs(x - y) <= 1e-12 * max(abs(x), abs(y))


def rows_equal(ra, rb, float_cols):
    if len(ra) != len(rb):
        return False
    for x, y in zip(ra, rb):
        if len(x) != len(y):
            return False
        for i, (u, v) in enumerate(zip(x, y)):
            if u != v and not (i in float_cols and floats_close(u, v)):
                return False
    return True


def sort_key(row):
    return tuple((v is None, v or "") for v in row)


def order_respected(kiln_rows, pg_rows, positions):
    """kiln's rows are in an order PostgreSQL's ORDER BY on `positions` allows: each key
    tuple's run index (from PostgreSQL's output) never decreases."""
    run = {}
    for r in pg_rows:
        k = tuple(r[p] for p in positions)
        if k not in run:
            run[k] = len(run)
        elif run[k] != len(run) - 1:
            return True  # PostgreSQL's own runs are not contiguous: cannot judge
    last = -1
    for r in kiln_rows:
        i = run.get(tuple(r[p] for p in positions))
        if i is None:
            return True
        if i < last:
            return False
        last = i
    return True


def compare(q, a, b, rows_only):
    """None when the answers agree, else a short reason."""
    if a[0] == "rows" and b[0] == "rows":
        if not rows_only and a[1] != b[1]:
            return "columns"
        float_cols = {i for i, (_, oid) in enumerate(b[1]) if oid in FLOAT_OIDS}
        ra, rb = a[2], b[2]
        if q.ordered:
            ok = rows_equal(ra, rb, float_cols)
        else:
            ok = rows_equal(sorted(ra, key=sort_key), sorted(rb, key=sort_key), float_cols)
            if ok and q.order_positions and not order_respected(ra, rb, q.order_positions):
                return "order"
        return None if ok else "rows"
    if a[0] == "error" and b[0] == "error":
        if a[1] == b[1] or (a[1] in q.errs and b[1] in q.errs):
            return None
        return "sqlstate"
    if a[0] == "disconnect":
        return "disconnect"
    return "error-vs-rows"


def show(o, limit=600):
    if o[0] == "rows":
        cols = ", ".join(f"{n}:{oid}" for n, oid in o[1])
        body = " | ".join(",".join("NULL" if v is None else v for v in r) for r in o[2])
        text = f"{len(o[2])} rows [{cols}] {body}"
    elif o[0] == "error":
        text = f"ERROR {o[1]}: {o[2]}"
    else:
        text = f"DISCONNECT: {o[1]}"
    return text if len(text) <= limit else text[:limit] + " …"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kiln")
    ap.add_argument("pg")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", action="store_true", help="print the setup and every query with its outcome")
    ap.add_argument("--rows-only", action="store_true", help="do not compare column names and types")
    ap.add_argument("--hide-0a000", action="store_true",
                    help="count but do not print differences where kiln answers 0A000 (not supported)")
    ap.add_argument("--perturb", type=int, default=0, choices=sorted(PERTURB),
                    help="self-check mode for two PostgreSQL databases: load the first one's rows in reverse "
                         "order and (2–4) change its planner settings, so order- or plan-dependent answers show")
    ap.add_argument("--reconnect-on-error", action=argparse.BooleanOptionalAction, default=True,
                    help="after a disconnect, report it as a difference, reconnect, reload the tables and go on "
                         "(default); with --no-reconnect-on-error the run stops there")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    tables = make_schema(rng)
    setup = setup_sql(tables)
    first_setup = setup_sql(tables, reverse=args.perturb > 0)
    if args.verbose:
        print("-- setup (seed %d)" % args.seed)
        for s in setup:
            print(s + ";")
    try:
        kiln, pg = Server("kiln", args.kiln, first_setup, PERTURB[args.perturb]), Server("pg", args.pg, setup)
    except psycopg2.Error as e:
        print(f"cannot connect: {e}")
        sys.exit(2)
    for srv in (kiln, pg):
        try:
            srv.load()
        except psycopg2.Error as e:
            print(f"setup failed on {srv.label}: {e.pgcode} {e}")
            sys.exit(2)

    gen = Gen(random.Random(args.seed * 7919 + 17), tables)
    counts = collections.Counter()
    reasons = collections.Counter()
    pg_states = collections.Counter()
    kiln_states = collections.Counter()
    per_tag = collections.defaultdict(collections.Counter)
    setup_shown = args.verbose
    stopped = None
    started = time.time()
    for n in range(args.count):
        q = gen.statement()
        a = kiln.run(q.sql)
        b = pg.run(q.sql)
        if b[0] == "disconnect":
            print(f"PostgreSQL disconnected on: {q.sql}\n  {b[1]}")
            if not pg.reconnect():
                stopped = "PostgreSQL unreachable"
                break
        if b[0] == "error":
            pg_states[b[1]] += 1
        if a[0] == "error":
            kiln_states[a[1]] += 1
        why = compare(q, a, b, args.rows_only)
        if why is None:
            outcome = "both-error" if a[0] == "error" else "identical"
        else:
            outcome = "differing"
            reasons[why if not (a[0] == "error" and a[1] in ("0A000", "XX000")) else a[1]] += 1
        counts[outcome] += 1
        for t in q.tags:
            per_tag[t][outcome] += 1
        if args.verbose:
            print(f"[{n}] {outcome}: {q.sql}\n      kiln: {show(a, 200)}\n      pg:   {show(b, 200)}")
        if why is not None and not (args.hide_0a000 and a[0] == "error" and a[1] == "0A000"):
            if not setup_shown:
                print(f"-- setup (seed {args.seed}):")
                for s in setup:
                    print(s + ";")
                print()
                setup_shown = True
            bug = "  ** kiln internal error (XX000): always a bug **" if a[0] == "error" and a[1] == "XX000" else ""
            sa = a[1] if a[0] == "error" else ("rows" if a[0] == "rows" else "disconnect")
            sb = b[1] if b[0] == "error" else ("rows" if b[0] == "rows" else "disconnect")
            print(f"DIFF #{n} ({why}; kiln {sa}, pg {sb}){bug}\n  {q.sql};\n  kiln: {show(a)}\n  pg:   {show(b)}")
        if a[0] == "disconnect":
            if not args.reconnect_on_error:
                stopped = "kiln disconnected (--no-reconnect-on-error)"
                break
            if not kiln.reconnect():
                stopped = "kiln unreachable after a disconnect"
                break
    ran = sum(counts.values())
    print()
    print(f"seed {args.seed}: {ran} queries in {time.time() - started:.1f} s — identical {counts['identical']}, "
          f"both-error (same SQLSTATE) {counts['both-error']}, differing {counts['differing']}")
    if stopped:
        print(f"STOPPED EARLY: {stopped}")
    if reasons:
        print("differences by kind: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    if pg_states:
        print("PostgreSQL errors: " + ", ".join(f"{k} {v}" for k, v in pg_states.most_common()))
    if kiln_states:
        print("kiln errors: " + ", ".join(f"{k} {v}" for k, v in kiln_states.most_common()))
    print("queries per feature (identical / both-error / differing):")
    for t in sorted(per_tag):
        c = per_tag[t]
        print(f"  {t:<22} {sum(c.values()):6d}   {c['identical']:6d} / {c['both-error']:5d} / {c['differing']:5d}")
    sys.exit(1 if counts["differing"] or stopped else 0)


if __name__ == "__main__":
    main()
