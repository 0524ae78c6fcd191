"""kiln through Python's PostgreSQL drivers: psycopg2, psycopg 3 and asyncpg.

Each check runs the same statements a user would and compares with what PostgreSQL 15
returns for them. Usage: python_clients.py HOST PORT
"""

import asyncio
import datetime
import decimal
import sys
import traceback

import asyncpg
import psycopg
import psycopg2
import psycopg2.errors

HOST, PORT = sys.argv[1], int(sys.argv[2])
results = []


def check(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
        except Exception:  # noqa: BLE001 - report every failure
            results.append((name, traceback.format_exc()))
        return fn
    return wrap


SETUP = """
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (id int NOT NULL, name text, price numeric(10,2), ratio double precision,
                  big bigint, flag boolean, day date, at timestamp, atz timestamptz, v varchar(10));
"""
ROW = (1, "widget", decimal.Decimal("10.50"), 0.25, 9_000_000_000, True, datetime.date(2024, 1, 31),
       datetime.datetime(2024, 1, 31, 12, 0, 0, 500000),
       datetime.datetime(2024, 1, 31, 12, 0, tzinfo=datetime.timezone.utc), "vc")


@check("psycopg2: parameters, types, transactions, errors")
def _():
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(SETUP.format(t="p2"))
    cur.execute("INSERT INTO p2 VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", ROW)
    cur.execute("INSERT INTO p2 (id, name) VALUES (%s, %s)", (2, None))
    conn.commit()
    cur.execute("SELECT * FROM p2 ORDER BY id")
    rows = cur.fetchall()
    assert rows[0] == ROW, rows[0]
    assert rows[1][:3] == (2, None, None), rows[1]
    assert [d[0] for d in cur.description][:3] == ["id", "name", "price"]
    cur.execute("SELECT count(*), sum(price), avg(id) FROM p2")
    assert cur.fetchone() == (2, decimal.Decimal("10.50"), decimal.Decimal("1.5000000000000000"))
    # Rollback undoes; the failed-transaction state needs a rollback.
    cur.execute("UPDATE p2 SET name = 'changed'")
    assert cur.rowcount == 2
    conn.rollback()
    cur.execute("SELECT name FROM p2 WHERE id = 1")
    assert cur.fetchone() == ("widget",)
    try:
        cur.execute("SELECT 1/0")
        raise AssertionError("expected an error")
    except psycopg2.errors.DivisionByZero:
        pass
    try:
        cur.execute("SELECT 1")
        raise AssertionError("expected 25P02")
    except psycopg2.errors.InFailedSqlTransaction:
        pass
    conn.rollback()
    cur.execute("SELECT %s::text || %s", ("a", "b"))
    assert cur.fetchone() == ("ab",)
    cur.executemany("INSERT INTO p2 (id) VALUES (%s)", [(i,) for i in range(10, 20)])
    conn.commit()
    cur.execute("SELECT count(*) FROM p2")
    assert cur.fetchone() == (12,)
    try:
        cur.execute("INSERT INTO p2 (id) VALUES (NULL)")
        raise AssertionError("expected 23502")
    except psycopg2.errors.NotNullViolation:
        conn.rollback()
    conn.autocommit = True
    cur.execute("SHOW server_version")
    assert cur.fetchone()[0].startswith("15")
    assert conn.server_version >= 150000
    conn.close()


@check("psycopg 3: server-side parameters, binary, prepared statements")
def _():
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(SETUP.format(t="p3"))
        conn.execute("INSERT INTO p3 VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", ROW)
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT * FROM p3 WHERE id = %s", (1,))
                row = cur.fetchone()
                assert row == ROW, (binary, row)
        # Prepared on the server after repeated use.
        for i in range(8):
            row = conn.execute("SELECT %s::int * 2", (i,), prepare=True).fetchone()
            assert row == (i * 2,)
        with conn.transaction():
            conn.execute("INSERT INTO p3 (id) VALUES (%s)", (5,))
        assert conn.execute("SELECT count(*) FROM p3").fetchone() == (2,)
        try:
            with conn.transaction():
                conn.execute("INSERT INTO p3 (id) VALUES (%s)", (6,))
                conn.execute("SELECT * FROM nowhere")
        except psycopg.errors.UndefinedTable:
            pass
        assert conn.execute("SELECT count(*) FROM p3").fetchone() == (2,)
        rows = conn.execute("SELECT * FROM generate_series(1, 5000)").fetchall()
        assert len(rows) == 5000 and rows[-1] == (5000,)


@check("asyncpg: binary protocol, prepared statements, types")
def _():
    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(SETUP.format(t="ap"))
        await conn.execute("INSERT INTO ap VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", *ROW)
        row = await conn.fetchrow("SELECT * FROM ap WHERE id = $1", 1)
        assert tuple(row) == ROW, tuple(row)
        stmt = await conn.prepare("SELECT id * $1 FROM ap")
        assert await stmt.fetchval(3) == 3
        assert [a.name for a in stmt.get_parameters()] == ["int4"]
        async with conn.transaction():
            await conn.executemany("INSERT INTO ap (id) VALUES ($1)", [(i,) for i in range(100, 110)])
        assert await conn.fetchval("SELECT count(*) FROM ap") == 11
        try:
            async with conn.transaction():
                await conn.execute("INSERT INTO ap (id) VALUES (999)")
                await conn.execute("SELECT 1/0")
        except asyncpg.exceptions.DivisionByZeroError:
            pass
        assert await conn.fetchval("SELECT count(*) FROM ap") == 11
        vals = await conn.fetch("SELECT $1::numeric(8,3) + 1, $2::interval", decimal.Decimal("1.5"),
                                datetime.timedelta(days=1, hours=2))
        assert vals[0][0] == decimal.Decimal("2.500"), vals
        assert vals[0][1] == datetime.timedelta(days=1, hours=2), vals
        async with conn.transaction():
            cursor = conn.cursor("SELECT * FROM generate_series(1, 1000)", prefetch=100)
            n = 0
            async for _ in cursor:
                n += 1
            assert n == 1000
        await conn.close()
    asyncio.run(run())


@check("arrays: text and binary formats, parameters, = ANY(%s)")
def _():
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS arr; CREATE TABLE arr (id int, tags text[], nums int[], "
                "amounts numeric[], days date[])")
    cur.execute("INSERT INTO arr VALUES (%s, %s, %s, %s, %s)",
                (1, ["a", "b c", None, 'q"uote'], [1, 2, None], [decimal.Decimal("1.50")],
                 [datetime.date(2024, 2, 29)]))
    cur.execute("SELECT tags, nums, amounts, days FROM arr")
    assert cur.fetchone() == (["a", "b c", None, 'q"uote'], [1, 2, None], [decimal.Decimal("1.50")],
                              [datetime.date(2024, 2, 29)])
    cur.execute("SELECT id FROM arr WHERE %s = ANY(tags)", ("b c",))
    assert cur.fetchone() == (1,)
    cur.execute("SELECT array_agg(g ORDER BY g DESC) FROM generate_series(1, 3) g")
    assert cur.fetchone() == ([3, 2, 1],)
    conn.close()
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        for binary in (False, True):
            with conn.cursor(binary=binary) as c:
                c.execute("SELECT tags, nums FROM arr WHERE id = ANY(%s)", ([1, 5],))
                assert c.fetchone() == (["a", "b c", None, 'q"uote'], [1, 2, None]), binary
                c.execute("SELECT %s::int[] || 4, %s::text[]", ([1, 2], ["x", None]))
                assert c.fetchone() == ([1, 2, 4], ["x", None]), binary
                c.execute("SELECT ARRAY[[1,2],[3,4]]")
                assert c.fetchone() == ([[1, 2], [3, 4]],), binary

    # asyncpg learns array types by querying pg_catalog.pg_type, which arrives with
    # issue "Tools and trust"; until then it gets a clean error (it used to hang).


failed = [r for r in results if r[1]]
for name, err in results:
    print(("ok     " if not err else "FAILED ") + name)
    if err:
        print(err)
print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
