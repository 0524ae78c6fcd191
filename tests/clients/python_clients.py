"""kiln through Python's PostgreSQL drivers: psycopg2, psycopg 3 and asyncpg.

Each check runs the same statements a user would and compares with what PostgreSQL 15
returns for them. Usage: python_clients.py HOST PORT
"""

import asyncio
import datetime
import decimal
import io
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


def same(got, want, what):
    assert got == want, f"{what}:\n  expected {want!r}\n  got      {got!r}"


@check("SQLAlchemy: create_all, inspect() reflection, drop_all (psycopg2 and psycopg 3)")
def _():
    import sqlalchemy as sa
    for driver in ("psycopg2", "psycopg"):
        engine = sa.create_engine(f"postgresql+{driver}://py@{HOST}:{PORT}/py")
        md = sa.MetaData()
        parent = sa.Table(
            "sa_parent", md,
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("name", sa.String(30), nullable=False, unique=True),
            sa.Column("price", sa.Numeric(10, 2)),
        )
        sa.Table(
            "sa_child", md,
            sa.Column("id", sa.BigInteger, primary_key=True),
            sa.Column("pid", sa.Integer, sa.ForeignKey("sa_parent.id", ondelete="CASCADE")),
            sa.Column("note", sa.Text),
            sa.Index("sa_child_note", "note"),
            sa.CheckConstraint("id > 0", name="sa_child_pos"),
        )
        md.drop_all(engine)
        md.create_all(engine)
        insp = sa.inspect(engine)
        same(sorted(t for t in insp.get_table_names() if t.startswith("sa_")),
             ["sa_child", "sa_parent"], f"{driver}: tables")
        same([(c["name"], str(c["type"]), c["nullable"], c["autoincrement"])
              for c in insp.get_columns("sa_parent")],
             [("id", "INTEGER", False, True), ("name", "VARCHAR(30)", False, False),
              ("price", "NUMERIC(10, 2)", True, False)], f"{driver}: columns")
        same(insp.get_pk_constraint("sa_parent")["constrained_columns"], ["id"], f"{driver}: pk")
        fk = insp.get_foreign_keys("sa_child")[0]
        same((fk["name"], fk["constrained_columns"], fk["referred_table"], fk["referred_columns"],
              fk["options"]), ("sa_child_pid_fkey", ["pid"], "sa_parent", ["id"],
                               {"ondelete": "CASCADE"}), f"{driver}: foreign keys")
        same([(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("sa_child")],
             [("sa_child_note", ["note"], False)], f"{driver}: indexes")
        same([(u["name"], u["column_names"]) for u in insp.get_unique_constraints("sa_parent")],
             [("sa_parent_name_key", ["name"])], f"{driver}: unique constraints")
        same([(c["name"], c["sqltext"]) for c in insp.get_check_constraints("sa_child")],
             [("sa_child_pos", "id > 0")], f"{driver}: check constraints")
        with engine.begin() as conn:
            conn.execute(parent.insert(), [{"name": "a"}, {"name": "b"}])
            same(conn.execute(sa.select(parent.c.id, parent.c.name).order_by(parent.c.id)).fetchall(),
                 [(1, "a"), (2, "b")], f"{driver}: rows")
        md.drop_all(engine)
        same([t for t in sa.inspect(engine).get_table_names() if t.startswith("sa_")], [],
             f"{driver}: after drop_all")
        engine.dispose()


@check("asyncpg: type introspection (arrays, records, name, regclass) through pg_catalog")
def _():
    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        same(await conn.fetchval("SELECT $1::int[]", [1, 2, None]), [1, 2, None], "int[] param")
        same(await conn.fetchval("SELECT ARRAY['a', 'b c']::text[]"), ["a", "b c"], "text[]")
        same(await conn.fetchval("SELECT $1::numeric[]", [decimal.Decimal("1.50")]),
             [decimal.Decimal("1.50")], "numeric[]")
        same(tuple(await conn.fetchval("SELECT ROW(1, 'a')")), (1, "a"), "record")
        same(await conn.fetchval("SELECT 'x'::name"), "x", "name")
        same(await conn.fetchval("SELECT 'pg_class'::regclass"), "pg_class", "regclass")
        same(await conn.fetchval("SELECT tags FROM arr WHERE id = 1"),
             ["a", "b c", None, 'q"uote'], "text[] column")
        await conn.close()
    asyncio.run(run())


COPY_SETUP = """
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (id int, name text, price numeric(10,2), day date);
"""


@check("psycopg2: COPY through copy_expert, copy_from, copy_to")
def _():
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(COPY_SETUP.format(t="p2copy"))
    conn.commit()
    # CSV with a header: quoting, "" escapes, an unquoted empty field is NULL, a quoted one ''.
    cur.copy_expert("COPY p2copy FROM STDIN WITH (FORMAT csv, HEADER)", io.StringIO(
        'id,name,price,day\n'
        '1,widget,10.50,2024-01-31\n'
        '2,"a, b",,2024-02-29\n'
        '3,"say ""hi""",0.10,\n'
        '4,"",1,2024-03-01\n'))
    same(cur.rowcount, 4, "rowcount after copy_expert FROM STDIN")
    # Text format with a separator and a NULL string of our own; backslash escapes.
    cur.copy_from(io.StringIO('10|ten|1.00\n11|NULL|NULL\n12|back\\\\slash\\ttab|2\n'), "p2copy",
                  sep="|", null="NULL", columns=("id", "name", "price"))
    same(cur.rowcount, 3, "rowcount after copy_from")
    conn.commit()
    cur.execute("SELECT id, name, price, day FROM p2copy ORDER BY id")
    same(cur.fetchall(), [
        (1, "widget", decimal.Decimal("10.50"), datetime.date(2024, 1, 31)),
        (2, "a, b", None, datetime.date(2024, 2, 29)),
        (3, 'say "hi"', decimal.Decimal("0.10"), None),
        (4, "", decimal.Decimal("1.00"), datetime.date(2024, 3, 1)),
        (10, "ten", decimal.Decimal("1.00"), None),
        (11, None, None, None),
        (12, "back\\slash\ttab", decimal.Decimal("2.00"), None),
    ], "rows loaded by COPY")
    # Out in text format: tab-separated, \N for NULL, backslash escapes, in insertion order.
    buf = io.StringIO()
    cur.copy_to(buf, "p2copy")
    same(buf.getvalue(),
         '1\twidget\t10.50\t2024-01-31\n'
         '2\ta, b\t\\N\t2024-02-29\n'
         '3\tsay "hi"\t0.10\t\\N\n'
         '4\t\t1.00\t2024-03-01\n'
         '10\tten\t1.00\t\\N\n'
         '11\t\\N\t\\N\t\\N\n'
         '12\tback\\\\slash\\ttab\t2.00\t\\N\n', "copy_to text")
    buf = io.StringIO()
    cur.copy_to(buf, "p2copy", sep=",", null="-", columns=("name", "id"))
    same(buf.getvalue().splitlines()[:3], ["widget,1", "a\\, b,2", 'say "hi",3'], "copy_to with sep and null")
    buf = io.StringIO()
    cur.copy_expert("COPY (SELECT id, name, price FROM p2copy WHERE id < 12 ORDER BY id DESC) "
                    "TO STDOUT WITH CSV HEADER", buf)
    same(buf.getvalue(),
         'id,name,price\n'
         '11,,\n'
         '10,ten,1.00\n'
         '4,"",1.00\n'
         '3,"say ""hi""",0.10\n'
         '2,"a, b",\n'
         '1,widget,10.50\n', "COPY (SELECT …) TO STDOUT WITH CSV HEADER")
    same(cur.rowcount, 6, "rowcount after COPY TO STDOUT")
    # Bad data: 22P02, and nothing of that COPY is loaded.
    try:
        cur.copy_expert("COPY p2copy FROM STDIN WITH (FORMAT csv)",
                        io.StringIO("20,ok,1,2024-01-01\nnotanint,x,2,2024-01-01\n"))
        raise AssertionError("expected 22P02 from COPY of 'notanint' into an int column")
    except psycopg2.errors.InvalidTextRepresentation as e:
        same(e.pgcode, "22P02", "SQLSTATE")
        same(e.diag.message_primary, 'invalid input syntax for type integer: "notanint"', "error message")
    conn.rollback()
    cur.execute("SELECT count(*) FROM p2copy WHERE id >= 20")
    same(cur.fetchone(), (0,), "rows left by the failed COPY")
    cur.execute("SELECT count(*) FROM p2copy")
    same(cur.fetchone(), (7,), "rows after the failed COPY")
    conn.close()


@check("psycopg 3: COPY with write_row, write, rows(), text and binary")
def _():
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute("DROP TABLE IF EXISTS p3copy")
        conn.execute("CREATE TABLE p3copy (a int, b text, c numeric(10,2), d date, e boolean, f double precision)")
        rows = [
            (1, "x", decimal.Decimal("1.50"), datetime.date(2024, 1, 31), True, 0.5),
            (2, None, None, None, None, None),
            (3, "tab\there\\ and \"q\"", decimal.Decimal("-0.25"), datetime.date(1999, 12, 31), False, -1e10),
        ]
        with conn.cursor() as cur:
            with cur.copy("COPY p3copy (a, b, c, d, e, f) FROM STDIN") as copy:
                for r in rows:
                    copy.write_row(r)
            same(cur.rowcount, 3, "rowcount after write_row COPY")
            with cur.copy("COPY p3copy (a, b) FROM STDIN (FORMAT csv)") as copy:
                copy.write(b'4,"q,uote"\n5,')
                copy.write(b'\n6,""\n')
            same(cur.rowcount, 3, "rowcount after raw csv COPY")
            conn.commit()
            text_rows = rows + [(4, "q,uote", None, None, None, None), (5, None, None, None, None, None),
                                (6, "", None, None, None, None)]
            with cur.copy("COPY (SELECT a, b, c, d, e, f FROM p3copy ORDER BY a) TO STDOUT") as copy:
                copy.set_types(["int4", "text", "numeric", "date", "bool", "float8"])
                same(list(copy.rows()), text_rows, "rows() of COPY TO STDOUT (text)")
            same(cur.rowcount, 6, "rowcount after COPY TO STDOUT")
            with cur.copy("COPY p3copy (b, a) TO STDOUT") as copy:
                got = b"".join(bytes(chunk) for chunk in copy)
            same(got, b'x\t1\n\\N\t2\ntab\\there\\\\ and "q"\t3\nq,uote\t4\n\\N\t5\n\t6\n', "raw COPY TO STDOUT")

            # Binary both ways: typed rows in, typed rows back, and the exact bytes of a small one.
            conn.execute("DROP TABLE IF EXISTS p3bin")
            conn.execute("CREATE TABLE p3bin (a int, b text, c numeric(10,2), d date, e boolean, f double precision)")
            types = ["int4", "text", "numeric", "date", "bool", "float8"]
            with cur.copy("COPY p3bin (a, b, c, d, e, f) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(types)
                for r in rows:
                    copy.write_row(r)
            same(cur.rowcount, 3, "rowcount after binary COPY FROM STDIN")
            conn.commit()
            with cur.copy("COPY (SELECT a, b, c, d, e, f FROM p3bin ORDER BY a) TO STDOUT (FORMAT BINARY)") as copy:
                copy.set_types(types)
                same(list(copy.rows()), rows, "rows() of binary COPY TO STDOUT")
            same(cur.rowcount, 3, "rowcount after binary COPY TO STDOUT")
            with cur.copy("COPY (SELECT a, b, e FROM p3bin WHERE a <= 2 ORDER BY a) TO STDOUT (FORMAT BINARY)") as copy:
                got = b"".join(bytes(chunk) for chunk in copy)
            same(got, b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
                 + b"\x00\x03" + b"\x00\x00\x00\x04\x00\x00\x00\x01" + b"\x00\x00\x00\x01x" + b"\x00\x00\x00\x01\x01"
                 + b"\x00\x03" + b"\x00\x00\x00\x04\x00\x00\x00\x02" + b"\xff\xff\xff\xff" + b"\xff\xff\xff\xff"
                 + b"\xff\xff", "bytes of binary COPY TO STDOUT")


@check("asyncpg: copy_records_to_table, copy_to_table, copy_from_table, copy_from_query")
def _():
    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(COPY_SETUP.format(t="apcopy"))
        status = await conn.copy_records_to_table("apcopy", records=[
            (1, "widget", decimal.Decimal("10.50"), datetime.date(2024, 1, 31)),
            (2, None, None, None),
            (3, 'say "hi"', decimal.Decimal("-0.10"), datetime.date(2000, 1, 1)),
        ])
        same(status, "COPY 3", "copy_records_to_table status")
        status = await conn.copy_records_to_table("apcopy", records=[(4, "four")], columns=["id", "name"])
        same(status, "COPY 1", "copy_records_to_table with columns status")
        status = await conn.copy_to_table("apcopy", source=io.BytesIO(b'5,"a, b",2.25,2024-03-01\n6,,,\n'),
                                          format="csv")
        same(status, "COPY 2", "copy_to_table status")
        status = await conn.copy_to_table("apcopy", source=io.BytesIO(b"name|id\nseven|7\n"),
                                          columns=["name", "id"], format="csv", delimiter="|", header=True)
        same(status, "COPY 1", "copy_to_table with options status")
        rows = [tuple(r) for r in await conn.fetch("SELECT * FROM apcopy ORDER BY id")]
        same(rows, [
            (1, "widget", decimal.Decimal("10.50"), datetime.date(2024, 1, 31)),
            (2, None, None, None),
            (3, 'say "hi"', decimal.Decimal("-0.10"), datetime.date(2000, 1, 1)),
            (4, "four", None, None),
            (5, "a, b", decimal.Decimal("2.25"), datetime.date(2024, 3, 1)),
            (6, None, None, None),
            (7, "seven", None, None),
        ], "rows loaded by COPY")
        out = io.BytesIO()
        status = await conn.copy_from_table("apcopy", output=out, format="csv")
        same(status, "COPY 7", "copy_from_table status")
        same(out.getvalue(),
             b'1,widget,10.50,2024-01-31\n'
             b'2,,,\n'
             b'3,"say ""hi""",-0.10,2000-01-01\n'
             b'4,four,,\n'
             b'5,"a, b",2.25,2024-03-01\n'
             b'6,,,\n'
             b'7,seven,,\n', "copy_from_table csv")
        out = io.BytesIO()
        status = await conn.copy_from_query("SELECT id, name FROM apcopy WHERE id % 2 = 1 ORDER BY id DESC",
                                            output=out, format="csv", header=True)
        same(status, "COPY 4", "copy_from_query status")
        same(out.getvalue(), b'id,name\n7,seven\n5,"a, b"\n3,"say ""hi"""\n1,widget\n', "copy_from_query csv")
        out = io.BytesIO()
        await conn.copy_from_table("apcopy", output=out, columns=["name"], null="(none)")
        same(out.getvalue(), b'widget\n(none)\nsay "hi"\nfour\na, b\n(none)\nseven\n', "copy_from_table text")
        try:
            await conn.copy_to_table("apcopy", source=io.BytesIO(b"8,x,1,2024-01-01\n9,x,oops,2024-01-01\n"),
                                     format="csv")
            raise AssertionError("expected 22P02 from COPY of 'oops' into a numeric column")
        except asyncpg.exceptions.InvalidTextRepresentationError as e:
            same(e.sqlstate, "22P02", "SQLSTATE")
        same(await conn.fetchval("SELECT count(*) FROM apcopy"), 7, "rows after the failed COPY")
        await conn.close()
    asyncio.run(run())


@check("named cursors: psycopg2 and psycopg 3 (DECLARE, FETCH FORWARD n, MOVE, scroll)")
def _():
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS namedcur; CREATE TABLE namedcur (id int, v text)")
    cur.execute("INSERT INTO namedcur SELECT g, 'v' || g FROM generate_series(1, 2500) g")
    conn.commit()
    named = conn.cursor(name="big")  # DECLARE "big" CURSOR WITHOUT HOLD FOR …; FETCH FORWARD n
    named.itersize = 1000
    named.execute("SELECT id, v FROM namedcur ORDER BY id")
    same(named.fetchone(), (1, "v1"), "fetchone")
    same(len(named.fetchmany(10)), 10, "fetchmany")
    rest = list(named)
    same((len(rest), rest[0], rest[-1]), (2489, (12, "v12"), (2500, "v2500")), "iteration")
    named.close()
    conn.commit()
    scroll = conn.cursor(name="sc", scrollable=True)
    scroll.execute("SELECT id FROM namedcur ORDER BY id")
    scroll.scroll(100, mode="absolute")
    same(scroll.fetchone(), (101,), "after scroll absolute")
    scroll.scroll(-51)
    same(scroll.fetchone(), (51,), "after scroll relative")
    conn.rollback()
    conn.close()

    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as c3:
        with c3.cursor(name="p3cur", scrollable=True) as sc:
            sc.itersize = 700
            sc.execute("SELECT id, v FROM namedcur WHERE id <= %s ORDER BY id DESC", (2000,))
            same(sc.fetchmany(3), [(2000, "v2000"), (1999, "v1999"), (1998, "v1998")], "fetchmany")
            sc.scroll(0, mode="absolute")
            same(sc.fetchone(), (2000, "v2000"), "after rewind")
            same(len(sc.fetchall()), 1999, "fetchall")
        with c3.cursor(name="held", withhold=True) as held:
            held.execute("SELECT count(*) FROM namedcur")
            c3.commit()
            same(held.fetchone(), (2500,), "WITH HOLD after commit")


@check("LISTEN / NOTIFY: delivered at commit, to an idle listener, folded, not on rollback")
def _():
    import select
    import time
    a = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    b = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    a.autocommit = b.autocommit = True
    ca, cb = a.cursor(), b.cursor()
    ca.execute("LISTEN jobs")
    ca.execute('LISTEN "Mixed"')
    cb.execute("NOTIFY jobs, 'one'")
    cb.execute("SELECT pg_notify('Mixed', 'two')")
    cb.execute("BEGIN; NOTIFY jobs, 'dup'; NOTIFY jobs, 'dup'; NOTIFY jobs; COMMIT")
    cb.execute("BEGIN; NOTIFY jobs, 'rolled back'; ROLLBACK")
    got = []
    deadline = time.time() + 5
    while time.time() < deadline and len(got) < 4:
        if select.select([a], [], [], 0.5) != ([], [], []):
            a.poll()
            while a.notifies:
                n = a.notifies.pop(0)
                got.append((n.channel, n.payload))
    same(got, [("jobs", "one"), ("Mixed", "two"), ("jobs", "dup"), ("jobs", "")], "notifications")
    ca.execute("UNLISTEN *")
    cb.execute("NOTIFY jobs, 'unheard'")
    ca.execute("SELECT 1")
    same(a.notifies, [], "after UNLISTEN *")
    a.close()
    b.close()


@check("uuid and bytea through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    import uuid
    import psycopg2.extras
    ids = [uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), uuid.UUID(int=0),
           uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff")]
    blobs = [b"\x00\x01\xfe\xff", b"", b"plain \\ text"]
    setup = "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id uuid PRIMARY KEY, b bytea, ids uuid[])"
    # psycopg2: uuid adapted once registered, bytea as memoryview.
    psycopg2.extras.register_uuid()
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="tu2"))
    for u, b in zip(ids, blobs):
        cur.execute("INSERT INTO tu2 VALUES (%s, %s, %s)", (u, psycopg2.Binary(b), [u, u]))
    cur.execute("SELECT id, b, ids FROM tu2 ORDER BY id")
    got = [(r[0], bytes(r[1]), r[2]) for r in cur.fetchall()]
    same(got, sorted([(u, b, [u, u]) for u, b in zip(ids, blobs)]), "psycopg2 rows")
    cur.execute("SELECT gen_random_uuid()")
    assert isinstance(cur.fetchone()[0], uuid.UUID)
    conn.commit()
    conn.close()
    # psycopg 3: both formats.
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="tu3"))
        with conn.cursor() as cur:
            for u, b in zip(ids, blobs):
                cur.execute("INSERT INTO tu3 VALUES (%s, %s, %s)", (u, b, [u, u]))
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT id, b, ids FROM tu3 WHERE id = %s", (ids[0],))
                same(cur.fetchone(), (ids[0], blobs[0], [ids[0], ids[0]]), f"psycopg 3 binary={binary}")
                cur.execute("SELECT b FROM tu3 WHERE b = %s", (blobs[2],))
                same(cur.fetchone(), (blobs[2],), f"psycopg 3 bytea parameter binary={binary}")

    # asyncpg: binary protocol throughout.
    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="tua"))
        await conn.executemany("INSERT INTO tua VALUES ($1, $2, $3)",
                               [(u, b, [u]) for u, b in zip(ids, blobs)])
        rows = await conn.fetch("SELECT id, b, ids FROM tua ORDER BY id")
        same([(r[0], r[1], r[2]) for r in rows], sorted([(u, b, [u]) for u, b in zip(ids, blobs)]),
             "asyncpg rows")
        await conn.close()
    asyncio.run(run())


@check("jsonb through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    import json
    import psycopg2.extras
    from psycopg.types.json import Jsonb
    docs = [{"b": [1, 2.5, None], "a": "x"}, [True, {"k": "é"}], "plain", 12]
    setup = "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb)"
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="tj2"))
    for i, d in enumerate(docs):
        cur.execute("INSERT INTO tj2 VALUES (%s, %s)", (i, psycopg2.extras.Json(d)))
    cur.execute("SELECT doc FROM tj2 ORDER BY id")
    same([r[0] for r in cur.fetchall()], docs, "psycopg2 jsonb rows")
    cur.execute("SELECT id FROM tj2 WHERE doc @> %s ORDER BY id", (psycopg2.extras.Json({"a": "x"}),))
    same(cur.fetchall(), [(0,)], "psycopg2 @> parameter")
    conn.commit()
    conn.close()
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="tj3"))
        with conn.cursor(binary=True) as cur:
            for i, d in enumerate(docs):
                cur.execute("INSERT INTO tj3 VALUES (%s, %s)", (i, Jsonb(d)))
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT doc, doc->'b', doc->>'a' FROM tj3 WHERE id = 0")
                same(cur.fetchone(), (docs[0], docs[0]["b"], "x"), f"psycopg 3 binary={binary}")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="tja"))
        await conn.executemany("INSERT INTO tja VALUES ($1, $2)",
                               [(i, json.dumps(d)) for i, d in enumerate(docs)])
        rows = await conn.fetch("SELECT doc FROM tja ORDER BY id")
        same([json.loads(r[0]) for r in rows], docs, "asyncpg jsonb rows")
        await conn.close()
    asyncio.run(run())


@check("jsonpath through psycopg 3 (text and binary) and asyncpg")
def _():
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute("DROP TABLE IF EXISTS tjp; CREATE TABLE tjp (id int PRIMARY KEY, doc jsonb, p jsonpath)")
        conn.execute("INSERT INTO tjp VALUES (1, '{\"a\": [1, 2, 3]}', '$.a[*] ? (@ > 1)')")
        conn.commit()
        with conn.cursor() as cur:
            cur.execute("SELECT p::text, jsonb_path_query_array(doc, p), doc @? %s, doc @@ %s FROM tjp",
                        ("$.a[*] ? (@ == 3)", "$.a[0] == 1"))
            same(cur.fetchone(), ('$."a"[*]?(@ > 1)', [2, 3], True, True), "psycopg 3 jsonpath text")
        with conn.cursor(binary=True) as cur:
            cur.execute("SELECT p FROM tjp")
            same(bytes(cur.fetchone()[0]), b'\x01$."a"[*]?(@ > 1)', "psycopg 3 jsonpath binary")
            cur.execute("SELECT jsonb_path_query_first(doc, %s::text::jsonpath, vars => %s::text::jsonb) FROM tjp",
                        ("$.a[*] ? (@ > $x)", '{"x": 2}'))
            same(cur.fetchone(), (3,), "psycopg 3 jsonpath vars")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        path = await conn.fetchval("SELECT p FROM tjp")
        same(path, '$."a"[*]?(@ > 1)', "asyncpg jsonpath out")
        n = await conn.fetchval("SELECT count(*) FROM tjp, jsonb_path_query(doc, $1::jsonpath)", "strict $.a[*]")
        same(n, 3, "asyncpg jsonpath parameter")
        await conn.close()
    asyncio.run(run())

@check("time and timetz through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    import datetime as dt
    plus2 = dt.timezone(dt.timedelta(hours=2))
    minus830 = dt.timezone(-dt.timedelta(hours=8, minutes=30))
    rows = [(1, dt.time(4, 5, 6, 789000), dt.time(4, 5, 6, tzinfo=plus2)),
            (2, dt.time(23, 59, 59, 999999), dt.time(0, 0, tzinfo=minus830)),
            (3, None, None)]
    setup = "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id int PRIMARY KEY, t time, tz timetz)"
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="tt2"))
    cur.executemany("INSERT INTO tt2 VALUES (%s, %s, %s)", rows)
    cur.execute("SELECT id, t, tz FROM tt2 ORDER BY id")
    same(cur.fetchall(), rows, "psycopg2 time rows")
    cur.execute("SELECT t + interval '1 hour', date '2024-01-02' + t FROM tt2 WHERE id = 1")
    same(cur.fetchone(), (dt.time(5, 5, 6, 789000), dt.datetime(2024, 1, 2, 4, 5, 6, 789000)),
         "psycopg2 time arithmetic")
    conn.commit()
    conn.close()
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="tt3"))
        with conn.cursor(binary=True) as cur:
            cur.executemany("INSERT INTO tt3 VALUES (%s, %s, %s)", rows)
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT id, t, tz FROM tt3 ORDER BY id")
                same(cur.fetchall(), rows, f"psycopg 3 time binary={binary}")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="tta"))
        await conn.executemany("INSERT INTO tta VALUES ($1, $2, $3)", rows)
        got = await conn.fetch("SELECT id, t, tz FROM tta ORDER BY id")
        same([tuple(r) for r in got], rows, "asyncpg time rows")
        await conn.close()
    asyncio.run(run())

@check("inet, cidr, macaddr and macaddr8 through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    import ipaddress as ip
    setup = ("DROP TABLE IF EXISTS {t}; CREATE TABLE {t} "
             "(id int PRIMARY KEY, i inet, c cidr, m macaddr, m8 macaddr8)")
    texts = [(1, "192.168.1.5/24", "10.0.0.0/8", "08:00:2b:01:02:03", "08:00:2b:01:02:03:04:05"),
             (2, "2001:db8::1", "2001:db8::/32", "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00:00:01"),
             (3, None, None, None, None)]
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="net2"))
    cur.executemany("INSERT INTO net2 VALUES (%s, %s, %s, %s, %s)", texts)
    cur.execute("SELECT id, i::text, c::text, m::text, m8::text FROM net2 ORDER BY id")
    same(cur.fetchall(), [(1, "192.168.1.5/24", "10.0.0.0/8", "08:00:2b:01:02:03",
                           "08:00:2b:01:02:03:04:05"),
                          (2, "2001:db8::1/128", "2001:db8::/32", "ff:ff:ff:ff:ff:ff",
                           "00:00:00:00:00:00:00:01"),
                          (3, None, None, None, None)], "psycopg2 network text")
    cur.execute("SELECT id FROM net2 WHERE i << c OR i <<= inet '192.168.1.0/24' ORDER BY id")
    same(cur.fetchall(), [(1,), (2,)], "psycopg2 containment")
    conn.commit()
    conn.close()
    objects = [(1, ip.ip_interface("192.168.1.5/24"), ip.ip_network("10.0.0.0/8")),
               (2, ip.ip_interface("2001:db8::1/128"), ip.ip_network("2001:db8::/32")),
               (3, None, None)]
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="net3"))
        with conn.cursor(binary=True) as cur:
            cur.executemany("INSERT INTO net3 (id, i, c) VALUES (%s, %s, %s)", objects)
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT id, i, c FROM net3 ORDER BY id")
                got = [(r[0], None if r[1] is None else ip.ip_interface(r[1]), r[2])
                       for r in cur.fetchall()]
                same(got, objects, f"psycopg 3 network binary={binary}")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="neta"))
        await conn.executemany("INSERT INTO neta (id, i, c) VALUES ($1, $2, $3)", objects)
        got = await conn.fetch("SELECT id, i, c, masklen(i) FROM neta ORDER BY id")
        same([(r[0], None if r[1] is None else ip.ip_interface(r[1]), r[2], r[3]) for r in got],
             [o + (m,) for o, m in zip(objects, (24, 128, None))], "asyncpg network rows")
        await conn.close()
    asyncio.run(run())

@check("enum columns through psycopg2, psycopg 3 and asyncpg (labels in, labels out, declaration order)")
def _():
    setup = ("DROP TABLE IF EXISTS {t}; DROP TYPE IF EXISTS {t}_mood; "
             "CREATE TYPE {t}_mood AS ENUM ('sad', 'ok', 'happy'); "
             "CREATE TABLE {t} (id int PRIMARY KEY, m {t}_mood)")
    rows = [(1, "happy"), (2, "sad"), (3, None), (4, "ok")]
    ordered = [(2, "sad"), (4, "ok"), (1, "happy"), (3, None)]
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="en2"))
    cur.executemany("INSERT INTO en2 VALUES (%s, %s)", rows)
    cur.execute("SELECT id, m FROM en2 ORDER BY m, id")
    same(cur.fetchall(), ordered, "psycopg2 enum order")
    try:
        cur.execute("INSERT INTO en2 VALUES (%s, %s)", (9, "meh"))
        raise AssertionError("psycopg2: an unknown label was accepted")
    except psycopg2.Error as e:
        same(e.pgcode, "22P02", "psycopg2 unknown label")
    conn.rollback()
    conn.close()
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="en3"))
        conn.cursor().executemany("INSERT INTO en3 VALUES (%s, %s)", rows)
        conn.commit()
        got = conn.execute("SELECT id, m FROM en3 WHERE m > %s ORDER BY m DESC", ("sad",)).fetchall()
        same(got, [(1, "happy"), (4, "ok")], "psycopg 3 enum comparison")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="ena"))
        await conn.executemany("INSERT INTO ena VALUES ($1, $2)", rows)
        got = await conn.fetch("SELECT id, m FROM ena ORDER BY m, id")
        same([tuple(r) for r in got], ordered, "asyncpg enum order")
        await conn.close()
    asyncio.run(run())

@check("ranges through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    import datetime as dt
    from decimal import Decimal
    setup = ("DROP TABLE IF EXISTS {t}; CREATE TABLE {t} "
             "(id int PRIMARY KEY, i int4range, n numrange, d daterange, ts tstzrange)")
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="rg2"))
    cur.execute("INSERT INTO rg2 VALUES (1, '[1,5]', '(1.5,2.50]', '[2024-01-01,2024-01-31]', "
                "'[2024-01-01 10:00+00,)'), (2, 'empty', NULL, NULL, NULL)")
    cur.execute("SELECT i, n, d, ts, i @> 3 FROM rg2 ORDER BY id")
    rows = cur.fetchall()
    r = rows[0]
    same((r[0].lower, r[0].upper, r[0].lower_inc, r[0].upper_inc), (1, 6, True, False),
         "psycopg2 int4range")
    same((r[1].lower, r[1].upper, r[1].lower_inc), (Decimal("1.5"), Decimal("2.50"), False),
         "psycopg2 numrange")
    same((r[2].lower, r[2].upper), (dt.date(2024, 1, 1), dt.date(2024, 2, 1)), "psycopg2 daterange")
    same((r[3].upper_inf, r[4]), (True, True), "psycopg2 tstzrange")
    same(rows[1][0].isempty, True, "psycopg2 empty range")
    conn.commit()
    conn.close()
    from psycopg.types.range import Range
    utc = dt.timezone.utc
    values = (Range(1, 6), Range(Decimal("1.5"), Decimal("2.50"), "(]"),
              Range(dt.date(2024, 1, 1), dt.date(2024, 2, 1)),
              Range(dt.datetime(2024, 1, 1, 10, tzinfo=utc), None))
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        conn.execute(setup.format(t="rg3"))
        with conn.cursor(binary=True) as cur:
            cur.execute("INSERT INTO rg3 VALUES (1, %s, %s, %s, %s)", values)
        conn.commit()
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT i, n, d, ts FROM rg3")
                same(cur.fetchone(), values, f"psycopg 3 ranges binary={binary}")
                cur.execute("SELECT id FROM rg3 WHERE d @> %s::date AND i && %s",
                            (dt.date(2024, 1, 15), Range(5, 9)))
                same(cur.fetchall(), [(1,)], f"psycopg 3 range operators binary={binary}")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        await conn.execute(setup.format(t="rga"))
        await conn.execute("INSERT INTO rga (id, i, d) VALUES ($1, $2, $3)", 1,
                           asyncpg.Range(1, 5, upper_inc=True),
                           asyncpg.Range(dt.date(2024, 1, 1), dt.date(2024, 1, 31), upper_inc=True))
        got = await conn.fetchrow("SELECT i, d FROM rga")
        same((got[0], got[1]), (asyncpg.Range(1, 6), asyncpg.Range(dt.date(2024, 1, 1),
                                                              dt.date(2024, 2, 1))),
             "asyncpg ranges")
        await conn.close()
    asyncio.run(run())

@check("tsvector and tsquery through psycopg2, psycopg 3 (text and binary) and asyncpg")
def _():
    setup = ("DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id int PRIMARY KEY, body text, "
             "tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED)")
    conn = psycopg2.connect(host=HOST, port=PORT, user="py", dbname="py")
    cur = conn.cursor()
    cur.execute(setup.format(t="fts2"))
    cur.execute("INSERT INTO fts2 (id, body) VALUES (1, %s), (2, %s)",
                ("The quick brown foxes jumped", "A lazy dog sleeps"))
    cur.execute("SELECT id, tsv::text FROM fts2 WHERE tsv @@ plainto_tsquery(%s) ORDER BY id",
                ("jumping fox",))
    same(cur.fetchall(), [(1, "'brown':3 'fox':4 'jump':5 'quick':2")], "psycopg2 @@")
    cur.execute("SELECT to_tsquery('english', %s)", ("cats & !dogs",))
    same(cur.fetchone()[0], "'cat' & !'dog'", "psycopg2 to_tsquery")
    conn.commit()
    conn.close()
    with psycopg.connect(host=HOST, port=PORT, user="py", dbname="py") as conn:
        # tsvectorsend: count, then each lexeme NUL-terminated with its positions
        # (weight in the top two bits).
        with conn.cursor(binary=True) as cur:
            cur.execute("SELECT 'a:1 b:2A'::tsvector, %s::tsvector", ("x:3B",))
            got = cur.fetchone()
        same(bytes(got[0]), bytes([0, 0, 0, 2, 97, 0, 0, 1, 0, 1, 98, 0, 0, 1, 0xC0, 2]),
             "psycopg 3 binary tsvector")
        same(bytes(got[1]), bytes([0, 0, 0, 1, 120, 0, 0, 1, 0x80, 3]),
             "psycopg 3 binary tsvector parameter")
        with conn.cursor() as cur:
            cur.execute("SELECT ts_rank(to_tsvector('a fat cat sat on a mat'), "
                        "to_tsquery('cat')), 'fat & rat'::tsquery")
            same(cur.fetchone(), (0.06079271, "'fat' & 'rat'"), "psycopg 3 ts_rank")

    async def run():
        conn = await asyncpg.connect(host=HOST, port=PORT, user="py", database="py")
        got = await conn.fetchrow("SELECT to_tsvector('simple', $1), $2::tsquery",
                                  "Hello World hello", "a <-> b")
        same((got[0], got[1]), ("'hello':1,3 'world':2", "'a' <-> 'b'"), "asyncpg tsearch")
        await conn.close()
    asyncio.run(run())

failed = [r for r in results if r[1]]
for name, err in results:
    print(("ok     " if not err else "FAILED ") + name)
    if err:
        print(err)
print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
