#!/usr/bin/env python3
"""Differential test of EXTRACT, date_part, date_trunc, age and AT TIME ZONE: kiln
against PostgreSQL 15, over random dates, timestamps (BC, far future, daylight-saving
edges), intervals, units (valid, plural, abbreviated and invalid) and zones, under
several session time zones. Compares the text each returns, or the SQLSTATE.

Usage: tests/fuzz/datetime_functions.py KILN_DSN PG_DSN [--count N] [--seed S]
"""

import argparse
import random
import sys

import psycopg2

UNITS = ["microseconds", "microsecond", "us", "milliseconds", "ms", "second", "seconds",
         "s", "minute", "min", "m", "mm", "hour", "h", "hours", "day", "days", "d", "week",
         "weeks", "month", "mon", "months", "quarter", "qtr", "year", "years", "y", "decade",
         "decades", "century", "centuries", "millennium", "mil", "epoch", "dow", "isodow",
         "doy", "isoyear", "julian", "j", "timezone", "timezone_hour", "timezone_minute",
         "now", "fortnight", "ago", "jan", "t", "Year", "EPOCH"]
ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe",
         "EST", "CEST", "MSK", "utc+3", "Mars/Olympus", "+05:30", "-8"]
SESSION_ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Europe/London"]
DST_EDGES = ["2024-03-10 01:59:59", "2024-03-10 02:30:00", "2024-03-10 03:00:00",
             "2024-11-03 00:59:59", "2024-11-03 01:30:00", "2024-11-03 02:00:00",
             "2024-03-31 00:30:00", "2024-03-31 01:30:00", "2024-10-27 00:30:00",
             "2024-10-27 01:30:00"]


def rand_date(rng):
    kind = rng.random()
    if kind < 0.05:
        return rng.choice(["infinity", "-infinity"])
    if kind < 0.1:
        return f"{rng.randint(1, 4713):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} BC"
    if kind < 0.15:
        return f"{rng.randint(10000, 294275)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    year = rng.choice([rng.randint(1, 3000), rng.randint(1990, 2030), 2000, 2020, 2024])
    month = rng.randint(1, 12)
    day = rng.choice([1, 2, 3, 4, 28, 29, 30, 31, rng.randint(1, 31)])
    for d in (day, 28):
        try:
            import datetime
            datetime.date(year, month, d)
            return f"{year:04d}-{month:02d}-{d:02d}"
        except ValueError:
            continue
    return f"{year:04d}-{month:02d}-28"


def rand_timestamp(rng):
    if rng.random() < 0.1:
        return rng.choice(DST_EDGES)
    d = rand_date(rng)
    if "infinity" in d:
        return d
    time = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    if rng.random() < 0.5:
        time += "." + str(rng.randint(0, 999999)).zfill(6)
    if d.endswith(" BC"):
        return d[:-3] + " " + time + " BC"
    return d + " " + time


def rand_interval(rng):
    parts = []
    if rng.random() < 0.6:
        parts.append(f"{rng.randint(-30, 3000)} months")
    if rng.random() < 0.6:
        parts.append(f"{rng.randint(-400, 400)} days")
    if rng.random() < 0.7:
        parts.append(f"{rng.randint(-100000, 100000)}.{rng.randint(0, 999999):06d} seconds")
    return " ".join(parts) or "0"


def statements(rng, count):
    for _ in range(count):
        unit = rng.choice(UNITS)
        kind = rng.random()
        src_type = rng.choice(["date", "timestamp", "timestamptz", "interval"])
        if src_type == "date":
            src = f"date '{rand_date(rng)}'"
        elif src_type == "interval":
            src = f"interval '{rand_interval(rng)}'"
        else:
            src = f"{src_type} '{rand_timestamp(rng)}'"
        if kind < 0.3:
            yield f"SELECT extract({unit} from {src})::text"
        elif kind < 0.5:
            yield f"SELECT date_part('{unit}', {src})::text"
        elif kind < 0.75:
            if src_type == "timestamptz" and rng.random() < 0.3:
                yield f"SELECT date_trunc('{unit}', {src}, '{rng.choice(ZONES)}')::text"
            else:
                yield f"SELECT date_trunc('{unit}', {src})::text"
        elif kind < 0.87:
            t = rng.choice(["timestamp", "timestamptz", "date"])
            a, b = rand_timestamp(rng), rand_timestamp(rng)
            if t == "date":
                a, b = rand_date(rng), rand_date(rng)
            if rng.random() < 0.2:
                yield f"SELECT (age({t} '{a}') IS NOT NULL)::text"
            else:
                yield f"SELECT age({t} '{a}', {t} '{b}')::text"
        else:
            t = rng.choice(["timestamp", "timestamptz"])
            zone = rng.choice(ZONES)
            if rng.random() < 0.2:
                zone_expr = f"interval '{rng.randint(-14, 14)} hours {rng.choice([0, 30])} minutes'"
            else:
                zone_expr = f"'{zone}'"
            yield f"SELECT ({t} '{rand_timestamp(rng)}' AT TIME ZONE {zone_expr})::text"


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
    kc, pc = psycopg2.connect(args.kiln), psycopg2.connect(args.pg)
    kc.autocommit = pc.autocommit = True
    k, p = kc.cursor(), pc.cursor()
    same = differ = 0
    for zone in SESSION_ZONES:
        for cur in (k, p):
            cur.execute(f"SET TimeZone = '{zone}'")
        for sql in statements(rng, args.count // len(SESSION_ZONES)):
            a, b = run(k, sql), run(p, sql)
            if a == b:
                same += 1
            else:
                differ += 1
                print(f"[{zone}] {sql}\n  kiln: {a}\n  pg:   {b}")
    print(f"{same} identical, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
