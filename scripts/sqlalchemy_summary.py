#!/usr/bin/env python3
"""Compares two junit-xml files of SQLAlchemy's test suite (PostgreSQL's, kiln's).

Prints each server's counts, the number of tests that pass on PostgreSQL but not
on kiln, and those tests grouped by the error kiln returned (SQLSTATE and the
message's first line, quoted names and numbers masked), largest groups first.
Used by scripts/sqlalchemy-suite.sh; runs with the venv's python (psycopg2 names
the SQLSTATEs).
"""
import argparse
import collections
import re
import sys
import xml.etree.ElementTree as ET

# Class names carry the server's version (…Test_postgresql+psycopg2_15_18):
# dropped, so that tests are matched across servers.
VERSION_SUFFIX = re.compile(r"_postgresql\+\w+?_\d+(?:_\d+)*")
DB_ERROR = re.compile(r"\(psycopg2\.(?:errors\.)?(\w+)\) ?(.*)|^psycopg2\.errors\.(\w+): (.*)", re.M)
EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Failed|Failure|Warning|Exit|Timeout)\w*|Failed):? ?(.*)$")


def sqlstates():
    try:
        import psycopg2.errorcodes
        import psycopg2.errors
    except ImportError:
        return {}
    names = {}
    for code in vars(psycopg2.errorcodes).values():
        if isinstance(code, str) and len(code) == 5 and code.isalnum() and code.upper() == code:
            try:
                names[psycopg2.errors.lookup(code).__name__] = code
            except KeyError:
                pass
    return names


SQLSTATE = sqlstates()


def load(path):
    """test id -> (outcome, text) where outcome is passed / failed / error / skipped."""
    tests = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"({path}: {e})", file=sys.stderr)
        return None
    for tc in root.iter("testcase"):
        cls = VERSION_SUFFIX.sub("", tc.get("classname", ""))
        tid = f"{cls}::{tc.get('name')}"
        outcome, text = "passed", ""
        kinds = {ch.tag: ch for ch in tc}
        for tag, label in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            if tag in kinds:
                ch = kinds[tag]
                outcome = label
                text = (ch.get("message") or "") + "\n" + (ch.text or "")
                break
        # A test that fails and then errors in teardown has two testcase
        # elements: the worse outcome counts, its text first.
        if tid in tests:
            prev = tests[tid]
            if RANK[prev[0]] >= RANK[outcome]:
                outcome, text = prev[0], prev[1] + "\n" + text
            else:
                text = text + "\n" + prev[1]
        tests[tid] = (outcome, text)
    return tests


RANK = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}


def counts(tests):
    c = collections.Counter(o for o, _ in tests.values())
    return c


def mask(msg):
    if msg.startswith("syntax error at or near"):
        return msg  # the token is the cause
    msg = re.sub(r'"[^"]*"', '"…"', msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg


# Failures that follow from an earlier failure in the same module, not from
# the statement at hand: a mapper registry left half set up.
COLLATERAL = ("already has a primary mapper", "_set_dispose_flags")


def cause(outcome, text, tid=""):
    """(group key, raw first line) of a non-passing test's kiln outcome."""
    if outcome == "missing":
        cls = tid.split("::")[0].rsplit(".", 1)[-1]
        return f"not run on kiln (not collected: {cls})", ""
    if any(c in text for c in COLLATERAL):
        return ("collateral: ORM mapper registry left half set up by an earlier "
                "failure in the module"), ""
    if outcome == "skipped":
        first = text.strip().splitlines()[0] if text.strip() else ""
        return "skipped on kiln: " + mask(first)[:100], first
    hits = [(a or c, b or d) for a, b, c, d in DB_ERROR.findall(text)]
    if hits:
        # The first error that is not 25P02 (a statement after a failed one).
        pick = next((h for h in hits if h[0] != "InFailedSqlTransaction"), hits[0])
        cls, msg = pick
        msg = msg.strip()
        state = SQLSTATE.get(cls, cls)
        if state == "25P02":
            return ("25P02 current transaction is aborted (an earlier statement of "
                    "the transaction failed; see the test's log)"), ""
        return f"{state} {mask(msg)[:90]}", f"{state} {msg}"
    if "Timeout >" in text:
        return "pytest-timeout: test ran past the per-test timeout", ""
    # Not a database error: the last exception line of the traceback.
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    exc = None
    for ln in lines:
        m = EXC_LINE.match(ln)
        if m:
            exc = m
    if exc is None:
        first = lines[0] if lines else "(no message)"
        return "other: " + mask(first)[:90], first
    name, msg = exc.group(1), exc.group(2)
    if name.endswith("AssertionError") or name == "AssertionError":
        return "AssertionError (wrong result: " + mask(msg)[:60] + ")", f"{name}: {msg}"
    return f"{name}: {mask(msg)[:80]}", f"{name}: {msg}"


def short(tid):
    cls, name = tid.split("::", 1)
    parts = cls.split(".")
    # test.orm.test_query.SomeTest -> test/orm/test_query.py::SomeTest::name
    return "/".join(parts[:-1]) + ".py::" + parts[-1] + "::" + name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", required=True)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--out")
    ap.add_argument("--gap")
    ap.add_argument("--pg-seconds", type=int)
    ap.add_argument("--kiln-seconds", type=int)
    ap.add_argument("--pg-dead", action="store_true")
    ap.add_argument("--kiln-dead", action="store_true")
    ap.add_argument("--examples", type=int, default=2)
    a = ap.parse_args()

    pg, kiln = load(a.pg), load(a.kiln)
    out = []
    p = out.append
    p("# SQLAlchemy test suite: kiln against PostgreSQL")
    p("")
    p("| server | passed | failed | errors | skipped | total | seconds | alive after |")
    p("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, tests, secs, dead in (("PostgreSQL", pg, a.pg_seconds, a.pg_dead),
                                    ("kiln", kiln, a.kiln_seconds, a.kiln_dead)):
        if tests is None:
            p(f"| {name} | – | – | – | – | – | – | – |")
            continue
        c = counts(tests)
        p(f"| {name} | {c['passed']} | {c['failed']} | {c['error']} | {c['skipped']} "
          f"| {len(tests)} | {secs if secs is not None else '–'} | {'no' if dead else 'yes'} |")
    p("")
    if pg is None or kiln is None:
        print("\n".join(out))
        return 0 if kiln is not None or pg is not None else 2

    gap = {}
    for tid, (o, _) in pg.items():
        if o == "passed":
            ko, kt = kiln.get(tid, ("missing", ""))
            if ko != "passed":
                gap[tid] = (ko, kt)
    only_kiln = sum(1 for tid, (o, _) in kiln.items()
                    if o == "passed" and pg.get(tid, ("missing",))[0] != "passed")
    by = collections.Counter(o for o, _ in gap.values())
    p(f"Tests passing on PostgreSQL but not on kiln: **{len(gap)}** "
      f"(failed {by['failed']}, error {by['error']}, skipped {by['skipped']}, "
      f"not run {by['missing']}).")
    p(f"Tests passing on kiln but not on PostgreSQL: {only_kiln}.")
    p("")

    files = collections.Counter(short(t).split("::")[0] for t in gap)
    p("## Gap by test file")
    p("")
    for f, n in files.most_common():
        p(f"- {n:5d}  {f}")
    p("")

    groups = collections.defaultdict(list)
    raws = collections.defaultdict(collections.Counter)
    for tid, (o, t) in sorted(gap.items()):
        key, raw = cause(o, t, tid)
        groups[key].append(tid)
        if raw:
            raws[key][raw[:160]] += 1

    states = collections.Counter()
    for key, tids in groups.items():
        head = key.split(" ", 1)[0]
        states[head if re.fullmatch(r"[0-9A-Z]{5}", head) else "(not a server error)"] += len(tids)
    p("## Gap by SQLSTATE of kiln's error")
    p("")
    for st, n in states.most_common():
        p(f"- {n:5d}  {st}")
    p("")
    p("## Gap by kiln's error (largest first)")
    p("")
    for i, (key, tids) in enumerate(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])), 1):
        p(f"{i}. **{len(tids)}** — `{key}`")
        # Examples from different test classes where there are several.
        picked, seen = [], set()
        for tid in tids:
            cls = tid.split("::")[0]
            if cls not in seen:
                seen.add(cls)
                picked.append(tid)
        picked += [t for t in tids if t not in picked]
        for tid in picked[: a.examples]:
            p(f"   - e.g. `{short(tid)}`")
        distinct = raws[key]
        if len(distinct) > 1 or (distinct and next(iter(distinct)) != key):
            for raw, n in distinct.most_common(4):
                p(f"   - ({n}) {raw}")
            if len(distinct) > 4:
                p(f"   - … {len(distinct) - 4} more distinct messages")
    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    if a.gap:
        with open(a.gap, "w") as f:
            for tid in sorted(gap):
                f.write(f"{short(tid)}\t{gap[tid][0]}\t{cause(*gap[tid], tid)[0]}\n")
    return 1 if gap else 0


if __name__ == "__main__":
    sys.exit(main())
