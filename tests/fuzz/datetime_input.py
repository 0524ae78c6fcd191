#!/usr/bin/env python3
"""Differential test of date/time text input: kiln against PostgreSQL 15.

Generates date, timestamp, timestamptz and interval literals — hand-picked shapes plus
random combinations of the pieces PostgreSQL's datetime parser knows (numbers, delimited
dates, month and day names, times, zone offsets, abbreviations and names, keywords,
units, ISO 8601 intervals) — and casts each on both servers, under several DateStyle
orders and time zones. Compares the text each returns, or the SQLSTATE and message.

Usage: tests/fuzz/datetime_input.py KILN_DSN PG_DSN [--count N] [--seed S]
       (DSNs as libpq strings; needs psycopg2)
"""

import argparse
import random
import sys

import psycopg2

SHAPES = [
    "2024-01-02", "01/02/2024", "02.01.2024", "1/2/24", "24-01-02", "2024/1/2",
    "Jan 2 2024", "January 2, 2024", "2 Jan 2024", "2-Jan-2024", "2024-Jan-02",
    "Jan-02-2024", "20240102", "240102", "2024.002", "2024.366", "J2451187",
    "J2451187.5", "j 2451187", "2024-01-02 BC", "0001-01-01 BC", "4713-11-24 BC",
    "4714-11-23 BC", "5874897-12-31", "5874898-01-01", "294276-12-31 23:59:59",
    "294277-01-01", "epoch", "infinity", "-infinity", "+infinity", "EPOCH", "allballs",
    "2024-01-02 10:00", "2024-01-02 10:00:00.123456", "2024-01-02 10:00:00.1234567",
    "2024-01-02T10:00:00Z", "2024-01-02T10:00:00+05:30", "20240102T100000",
    "20240102T100000.5-08", "2024-01-02 10:00 PM", "2024-01-02 12:00 am",
    "2024-01-02 13:00 pm", "2024-01-02 10:00 EST", "2024-01-02 10:00 PDT",
    "2024-01-02 10:00 CET DST", "2024-01-02 10:00 MSK", "2024-07-02 10:00 msk",
    "2024-01-02 10:00 America/New_York", "2024-07-02 10:00 Europe/Berlin",
    "2024-01-02 10:00 Asia/Tokyo", "2024-01-02 10:00 Mars/Olympus", "2024-01-02 10:00 +16",
    "2024-01-02 10:00 -15:59", "2024-01-02 10:00 +0530", "2024-01-02 10:00 utc",
    "2024-01-02 10:00 z", "2024-01-02 10:00 zulu", "2024-01-02 10:00 GMT+2",
    "Tue Jan 02 10:00:00 2024", "Tue Jan 02 10:00:00 2024 PST", "Jan 02 10:00:00 PST 2024",
    "2024-01-02 24:00:00", "2024-01-02 24:00:01", "2024-01-02 23:59:60",
    "2024-01-02 10:60", "2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10",
    "2024-01-32", "0000-01-01", "00-01-01", "99-12-31", "1/2/3", "13/12/2024",
    "12/13/2024", "y2024m01d02", "y2024m01d02 h10mm30s15", "2024-01-02 t 10:00",
    "2024-01-02 t", "10:00", "10:00:00 2024-01-02", "garbage", "", " ", "2024-01-02 garbage",
    "2024 01 02", "2024-01-02 10:00:00 10:00", "today", "tomorrow", "yesterday", "now",
    "at 2024-01-02", "on Jan 2 2024", "2024-01-02 ad", "2024-01-02 bc 10:00",
    "2024-01-02 10:00:00.", "2024-01-02 .5", "1999-01-08 04:05:06", "January 8, 99 BC",
    "08-Jan-99", "Jan-08-99", "99-Jan-08", "1999.008", "19990108", "990108",
    "2024-01-02 10:00 +05:30:15", "2024-01-02 10:00:00-7", "2024-01-02 100000",
    "2024-01-02 1000", "2024-01-02 10", "2147483648-01-01", "2024-01-02 99999999999:00",
]

INTERVALS = [
    "1 day", "1 day 2 hours", "@ 1 day ago", "1 ago", "-1 day +2 hours", "1-2", "-1-2",
    "1-12", "1 2:03:04", "-1 2:03:04", "1 +2:03", "2:03", "2:03:04.5", "3.5 hours",
    "1.5 months", "0.5 years", "1 week 2 days", "1 decade", "2 centuries", "1 millennium",
    "3 mils", "1 qtr", "1 quarter", "10 microseconds", "10 milliseconds", "1 usec",
    "1 msec", "5 mins 3 secs", "1 day 1 day", "1 hour 1 minute 1 second", "P1Y2M3DT4H5M6S",
    "P1W", "PT1.5S", "P0.5Y", "P1Y2M3DT4H5M6.5S", "P0001-02-03T04:05:06", "P00010203T040506",
    "P1Y-2M", "P", "PT", "p1d", "P1D2", "1 day ago 2 hours", "2147483647 days",
    "2147483648 days", "-2147483648 days", "178956970 years", "178956971 years",
    "9223372036854775807 microseconds", "9223372036854775808 microseconds", "1e3 seconds",
    "1 fortnight", "infinity", "-infinity", "", " ", "1", "-1", "1.5", "+1", "1 2", "1 day 2",
    "10:00:00 ago", "@", "@ 3", "1 d 2 h 3 m 4 s", "1 y 2 mon", "1 mons", "1 timezone",
    "1 year ago ago", "PT36H", "P1DT", "1:2:3:4", "100:00", "1:60", "1:59:60", "1:59:61",
    "1 day 25:00", "0.000001 seconds", "0.0000005 seconds", "1.0000005 seconds",
    "-0.0000005 seconds", "1.5 weeks", "1.5 days 1.5 hours",
]

MONTHS = ["jan", "Feb", "MARCH", "apr", "May", "june", "Jul", "aug", "sep", "sept", "oct",
          "Nov", "december"]
DAYS = ["mon", "Tuesday", "wed", "thurs", "fri", "sat", "Sunday"]
ZONES = ["EST", "PST", "PDT", "CET", "CEST", "MSK", "z", "utc", "GMT", "IST", "JST",
         "America/New_York", "Europe/Berlin", "Asia/Kolkata", "+05", "-08:00", "+0530",
         "-3", "+14", "+16", "Japan"]
KEYWORDS = ["t", "j", "y", "m", "d", "h", "mm", "s", "am", "pm", "bc", "ad", "at", "on",
            "epoch", "infinity", "-infinity", "allballs", "dst", "T"]
UNITS = ["microseconds", "ms", "msec", "second", "secs", "s", "min", "minutes", "m",
         "hour", "hrs", "h", "day", "days", "d", "week", "w", "mon", "months", "year",
         "yrs", "y", "decade", "century", "c", "millennium", "ago", "@", "qtr"]


RELATIVE = {
    "now": {"date": "current_date", "timestamp": "now()::timestamp",
            "timestamptz": "now()"},
    "today": {"date": "current_date", "timestamp": "current_date::timestamp",
              "timestamptz": "current_date::timestamptz"},
    "tomorrow": {"date": "current_date + 1", "timestamp": "(current_date + 1)::timestamp",
                 "timestamptz": "(current_date + 1)::timestamptz"},
    "yesterday": {"date": "current_date - 1", "timestamp": "(current_date - 1)::timestamp",
                  "timestamptz": "(current_date - 1)::timestamptz"},
}


def rand_number(rng):
    digits = rng.choice([1, 1, 2, 2, 2, 3, 4, 4, 5, 6, 8, 10])
    s = "".join(rng.choice("0123456789") for _ in range(digits))
    if rng.random() < 0.15:
        s += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 7)))
    return s


def rand_date(rng):
    a, b, c = rand_number(rng)[:4], rand_number(rng)[:2], rand_number(rng)[:4]
    delim = rng.choice("-/.")
    pick = rng.random()
    if pick < 0.3:
        return f"{a}{delim}{b}{delim}{c}"
    if pick < 0.5:
        return f"{rng.choice(MONTHS)}{delim}{b}{delim}{c}"
    if pick < 0.7:
        return f"{b}{delim}{rng.choice(MONTHS)}{delim}{a}"
    return f"{rng.randint(1, 12)}{delim}{rng.randint(1, 31)}{delim}{rng.randint(0, 2100)}"


def rand_time(rng):
    t = f"{rng.randint(0, 25)}:{rng.randint(0, 61):02d}"
    if rng.random() < 0.6:
        t += f":{rng.randint(0, 61):02d}"
        if rng.random() < 0.3:
            t += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 8)))
    return t


def rand_datetime(rng):
    pieces = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        if kind < 0.25:
            pieces.append(rand_date(rng))
        elif kind < 0.45:
            pieces.append(rand_time(rng))
        elif kind < 0.6:
            pieces.append(rand_number(rng))
        elif kind < 0.7:
            pieces.append(rng.choice(MONTHS))
        elif kind < 0.75:
            pieces.append(rng.choice(DAYS))
        elif kind < 0.87:
            pieces.append(rng.choice(ZONES))
        else:
            pieces.append(rng.choice(KEYWORDS))
    sep = rng.choice([" ", " ", " ", ", ", "T"])
    return sep.join(pieces)


def rand_interval(rng):
    if rng.random() < 0.15:
        parts = ["P"]
        for unit in "YMWD":
            if rng.random() < 0.4:
                parts.append(rand_number(rng)[:4] + unit)
        if rng.random() < 0.6:
            parts.append("T")
            for unit in "HMS":
                if rng.random() < 0.5:
                    parts.append(rand_number(rng)[:5] + unit)
        return "".join(parts)
    pieces = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        if kind < 0.45:
            sign = rng.choice(["", "", "-", "+"])
            pieces.append(sign + rand_number(rng))
        elif kind < 0.8:
            pieces.append(rng.choice(UNITS))
        elif kind < 0.9:
            pieces.append(rng.choice(["", "-", "+"]) + rand_time(rng))
        else:
            pieces.append(f"{rng.randint(-5, 99)}-{rng.randint(0, 13)}")
    return " ".join(pieces)


def run(cur, sql):
    try:
        cur.execute(sql)
        return ("ok", cur.fetchone()[0])
    except psycopg2.Error as e:
        cur.connection.rollback()
        return ("err", e.pgcode, (e.pgerror or "").split("\n")[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("pg")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    kc = psycopg2.connect(args.kiln)
    pc = psycopg2.connect(args.pg)
    kc.autocommit = pc.autocommit = True
    k, p = kc.cursor(), pc.cursor()
    cases = []
    for text in SHAPES:
        for ty in ["date", "timestamp", "timestamptz"]:
            cases.append((text, ty))
    for text in INTERVALS:
        cases.append((text, "interval"))
    for _ in range(args.count):
        if rng.random() < 0.7:
            cases.append((rand_datetime(rng), rng.choice(["date", "timestamp", "timestamptz"])))
        else:
            cases.append((rand_interval(rng), "interval"))
    settings = [
        ("ISO, MDY", "UTC"),
        ("ISO, DMY", "America/New_York"),
        ("ISO, YMD", "Asia/Kolkata"),
    ]
    same = differ = 0
    for style, zone in settings:
        for cur in (k, p):
            cur.execute(f"SET DateStyle = '{style}'; SET TimeZone = '{zone}'")
        for text, ty in cases:
            quoted = text.replace("'", "''")
            word = text.strip().lower()
            if word in RELATIVE:
                # These depend on the clock: compare with the server's own notion.
                sql = f"SELECT ('{quoted}'::{ty} = {RELATIVE[word][ty]})::text"
            else:
                sql = f"SELECT '{quoted}'::{ty}::text"
            a, b = run(k, sql), run(p, sql)
            if a == b:
                same += 1
            else:
                differ += 1
                print(f"[{style} / {zone}] {sql}\n  kiln: {a}\n  pg:   {b}")
    print(f"{same} identical, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
