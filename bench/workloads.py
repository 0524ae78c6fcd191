"""The batch workloads of WORKLOADS.md that kiln's first issue supports, exactly.

Each workload: setup SQL (not timed), a statement generator (iteration -> SQL), the
iteration count, whether its output has a total order, and for writes a verification
query whose answer must match PostgreSQL's after one timed run.
"""

REGIONS = ["North", "South", "East", "West"]


def rows_sql(table, columns, rows, batch=1000):
    """Multi-row INSERT … VALUES statements, as WORKLOADS.md loads data."""
    out = []
    for i in range(0, len(rows), batch):
        chunk = rows[i:i + batch]
        values = ",".join("(" + ",".join(v for v in r) + ")" for r in chunk)
        out.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values};")
    return out


def q(s):
    return "'" + s.replace("'", "''") + "'"


def bench_data(n=5000):
    rows = [(str(i), q(f"cat_{i % 100}"), str((i * 7919) % 10007)) for i in range(n)]
    return ["DROP TABLE IF EXISTS bench_data;",
            "CREATE TABLE bench_data (id INT, category TEXT, value INT);"] + \
        rows_sql("bench_data", ["id", "category", "value"], rows)


def wide_bench(n=50000):
    rows = []
    for i in range(n):
        rows.append((str(i), q(REGIONS[i % 4]), q(f"prod_{(i // 4) % 25}"), str((i * 7919) % 100003),
                     str(100 + (i * 31) % 4900), str((i * 13) % 2000 - 1000), str(1 + (i * 17) % 100)))
    return ["DROP TABLE IF EXISTS wide_bench;",
            "CREATE TABLE wide_bench (id INT, region TEXT, product TEXT, revenue INT, cost INT, margin INT, units INT);"] + \
        rows_sql("wide_bench", ["id", "region", "product", "revenue", "cost", "margin", "units"], rows)


def scalar_data(n=5000):
    # WORKLOADS.md fixes the shape; the values: name_<id>, score spread over negatives.
    rows = [(str(i), q(f"name_{i}"), repr(((i * 37) % 1000) / 7.0 - 50.0)) for i in range(n)]
    return ["DROP TABLE IF EXISTS bench_data;",
            "CREATE TABLE bench_data (id INT, name TEXT, score FLOAT);"] + \
        rows_sql("bench_data", ["id", "name", "score"], rows)


def expr_data(n=5000):
    rows = [(str(i), q(f"cat_{i % 5}"), str(1 + (i * 13) % 100), str(1 + (i * 7) % 20)) for i in range(n)]
    return ["DROP TABLE IF EXISTS bench_data;",
            "CREATE TABLE bench_data (id INT, category TEXT, price INT, quantity INT);"] + \
        rows_sql("bench_data", ["id", "category", "price", "quantity"], rows)


def numeric_sales(n=5000):
    rows = [(str(i), q(REGIONS[i % 4]), q(f"prod_{i % 25}"), str(1 + i % 10), f"{((i * 7919) % 100000) / 100:.2f}")
            for i in range(n)]
    return ["DROP TABLE IF EXISTS sales;",
            "CREATE TABLE sales (id INT, region TEXT, product TEXT, quantity INT, amount NUMERIC(10,2));"] + \
        rows_sql("sales", ["id", "region", "product", "quantity", "amount"], rows)


def insert_stmt(i):
    return f"INSERT INTO bench_data (id, category, value) VALUES ({i}, 'cat_{i % 100}', {(i * 7919) % 10007});"


def delete_cycle(i):
    stmts = ["DROP TABLE IF EXISTS bench_data;", "CREATE TABLE bench_data (id INT, category TEXT, value INT);"]
    stmts += [insert_stmt(k) for k in range(2000)]
    stmts.append("DELETE FROM bench_data WHERE id % 2 = 0;")
    return "\n".join(stmts)


def transaction_block(i):
    base = 1000 + i * 50
    return "\n".join(["BEGIN;"] + [insert_stmt(base + k) for k in range(50)] + ["COMMIT;"])


WORKLOADS = [
    dict(name="select_full_scan", setup=bench_data, n=200, stmt=lambda i: "SELECT * FROM bench_data;"),
    dict(name="select_where", setup=bench_data, n=500,
         stmt=lambda i: "SELECT * FROM bench_data WHERE category = 'cat_42';"),
    dict(name="order_by", setup=bench_data, n=200, ordered=True,
         stmt=lambda i: "SELECT * FROM bench_data ORDER BY value DESC;"),
    dict(name="multi_sort", setup=bench_data, n=200, ordered=True,
         stmt=lambda i: "SELECT * FROM bench_data ORDER BY category, value DESC;"),
    dict(name="distinct", setup=bench_data, n=500, stmt=lambda i: "SELECT DISTINCT category FROM bench_data;"),
    dict(name="insert_bulk", setup=lambda: bench_data(0), n=10000, stmt=insert_stmt,
         verify="SELECT count(*), sum(id), sum(value), count(DISTINCT category) FROM bench_data;"),
    dict(name="update", setup=bench_data, n=200,
         stmt=lambda i: f"UPDATE bench_data SET value = value + 1 WHERE category = 'cat_{i % 20}';",
         verify="SELECT category, sum(value), count(*) FROM bench_data GROUP BY category ORDER BY category;"),
    dict(name="delete", setup=lambda: [], n=50, stmt=delete_cycle,
         verify="SELECT count(*), sum(id), min(id), max(id) FROM bench_data;"),
    dict(name="transaction", setup=lambda: bench_data(1000), n=100, stmt=transaction_block,
         verify="SELECT count(*), sum(id), sum(value) FROM bench_data;"),
    dict(name="aggregate", setup=bench_data, n=500,
         stmt=lambda i: "SELECT category, SUM(value), COUNT(*), AVG(value) FROM bench_data GROUP BY category;"),
    dict(name="aggregate_numeric", setup=numeric_sales, n=500,
         stmt=lambda i: "SELECT region, SUM(amount) FROM sales GROUP BY region;"),
    dict(name="generate_series", setup=lambda: [], n=200, ordered=True,
         stmt=lambda i: "SELECT * FROM generate_series(1, 10000);"),
    dict(name="scalar_functions", setup=scalar_data, n=200,
         stmt=lambda i: "SELECT UPPER(name), LENGTH(name), ABS(score), ROUND(score::numeric, 2) FROM bench_data;"),
    dict(name="expression_agg", setup=expr_data, n=500,
         stmt=lambda i: "SELECT category, SUM(price * quantity) FROM bench_data GROUP BY category;"),
    dict(name="wide_agg", setup=wide_bench, n=20,
         stmt=lambda i: "SELECT region, product, SUM(revenue), AVG(cost), MIN(margin), MAX(units), COUNT(*) "
                        "FROM wide_bench GROUP BY region, product;"),
    dict(name="large_sort", setup=wide_bench, n=10, ordered=True,
         stmt=lambda i: "SELECT * FROM wide_bench ORDER BY revenue DESC;"),
]
