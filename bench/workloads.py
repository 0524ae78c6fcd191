"""The batch workloads of WORKLOADS.md, exactly.

Each workload: setup SQL (not timed), a statement generator (iteration -> SQL), the
iteration count, whether its output has a total order (`ordered`; otherwise it is
compared as a sorted multiset, plus an optional `order_check` of kiln's lines where the
ORDER BY has ties), and for writes a verification query whose answer must match
PostgreSQL's after one timed run.
"""

import datetime

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


def bench_data_ab():
    """bench_data_a: ids 0..1999, bench_data_b: ids 1000..2999, rows as in bench_data."""
    out = []
    for table, ids in (("bench_data_a", range(0, 2000)), ("bench_data_b", range(1000, 3000))):
        rows = [(str(i), q(f"cat_{i % 100}"), str((i * 7919) % 10007)) for i in ids]
        out += [f"DROP TABLE IF EXISTS {table};",
                f"CREATE TABLE {table} (id INT, category TEXT, value INT);"] + \
            rows_sql(table, ["id", "category", "value"], rows)
    return out


def customers_orders():
    customers = [(str(i), q(f"customer_{i}"), q(REGIONS[i % 4])) for i in range(500)]
    start = datetime.date(2024, 1, 1)
    orders = [(str(i), str((i * 7) % 500), str(1 + (i * 37) % 1000),
               q((start + datetime.timedelta(days=i % 365)).isoformat())) for i in range(2000)]
    return ["DROP TABLE IF EXISTS customers;",
            "CREATE TABLE customers (id INT, name TEXT, region TEXT);"] + \
        rows_sql("customers", ["id", "name", "region"], customers) + \
        ["DROP TABLE IF EXISTS orders;",
         "CREATE TABLE orders (id INT, customer_id INT, amount INT, created DATE);"] + \
        rows_sql("orders", ["id", "customer_id", "amount", "created"], orders)


def star_schema(n=50000):
    # regions.id = 0..3 and products.id = 0..24, the values sales' keys take.
    regions = [(str(i), q(REGIONS[i])) for i in range(4)]
    products = [(str(i), q(f"prod_{i}")) for i in range(25)]
    sales = [(str(i), str(i % 4), str((i * 7) % 25), str(10 + (i * 17) % 990)) for i in range(n)]
    return ["DROP TABLE IF EXISTS regions;", "CREATE TABLE regions (id INT, name TEXT);"] + \
        rows_sql("regions", ["id", "name"], regions) + \
        ["DROP TABLE IF EXISTS products;", "CREATE TABLE products (id INT, name TEXT);"] + \
        rows_sql("products", ["id", "name"], products) + \
        ["DROP TABLE IF EXISTS sales;", "CREATE TABLE sales (id INT, region_id INT, product_id INT, revenue INT);"] + \
        rows_sql("sales", ["id", "region_id", "product_id", "revenue"], sales)


def nonincreasing(column):
    """An order check for output sorted on a key with ties (psql -A -t lines, '|'-separated):
    the rows are compared sorted, and this checks kiln's order on the key column itself."""
    def check(lines):
        keys = [int(line.split("|")[column]) for line in lines if line]
        return all(a >= b for a, b in zip(keys, keys[1:]))
    return check


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
    # K visits every row once in a scattered order (7919 is coprime with 10,000).
    dict(name="index_lookup", setup=lambda: bench_data(10000) + ["CREATE INDEX ON bench_data (id);"], n=2000,
         stmt=lambda i: f"SELECT * FROM bench_data WHERE id = {(i * 7919) % 10000};"),
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
    # Multi-table workloads (joins, subqueries, CTEs, set operations, windows).
    # Without ordered=True the output is compared as a sorted multiset; that is sound for
    # these: bench_data's values are distinct ((id*7919) % 10007, 7919 and 10007 coprime,
    # id < 10007), so ROW_NUMBER over value DESC has no ties; wide_bench's revenues are
    # distinct too (100003 is prime, id < 100003), and RANK is tie-proof anyway.
    dict(name="join", setup=customers_orders, n=50,
         stmt=lambda i: "SELECT c.name, o.amount, o.created FROM customers c JOIN orders o ON c.id = o.customer_id;"),
    dict(name="window_functions", setup=bench_data, n=20,
         stmt=lambda i: "SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY value DESC) FROM bench_data;"),
    dict(name="subquery", setup=customers_orders, n=50,
         stmt=lambda i: "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE region = 'West');"),
    # Every category has 49 or 50 rows with value > 50: ORDER BY COUNT(*) DESC has ties, so
    # rows are compared sorted and the count column is checked to be non-increasing.
    dict(name="cte", setup=bench_data, n=200, order_check=nonincreasing(1),
         stmt=lambda i: "WITH filtered AS (SELECT * FROM bench_data WHERE value > 50) "
                        "SELECT category, COUNT(*) FROM filtered GROUP BY category ORDER BY COUNT(*) DESC;"),
    dict(name="set_ops", setup=bench_data_ab, n=50,
         stmt=lambda i: "SELECT id, category, value FROM bench_data_a UNION SELECT id, category, value FROM bench_data_b;"),
    dict(name="window_rank", setup=wide_bench, n=5,
         stmt=lambda i: "SELECT *, RANK() OVER (PARTITION BY region ORDER BY revenue DESC) FROM wide_bench;"),
    # The outer query has no ORDER BY: the 100 rows are a set (revenues are distinct, so
    # which 100 is deterministic), compared sorted.
    dict(name="subquery_pipeline", setup=wide_bench, n=20,
         stmt=lambda i: "SELECT * FROM (SELECT * FROM wide_bench WHERE region = 'North' ORDER BY revenue DESC LIMIT 100) sub;"),
    # The four regions' totals are distinct: a total order.
    dict(name="cte_pipeline", setup=wide_bench, n=20, ordered=True,
         stmt=lambda i: "WITH summary AS (SELECT region, SUM(revenue) AS total FROM wide_bench GROUP BY region) "
                        "SELECT * FROM summary ORDER BY total DESC LIMIT 5;"),
    dict(name="multi_join", setup=star_schema, n=5,
         stmt=lambda i: "SELECT r.name, p.name, SUM(s.revenue) FROM sales s JOIN regions r ON s.region_id = r.id "
                        "JOIN products p ON s.product_id = p.id GROUP BY r.name, p.name;"),
    dict(name="cte_star", setup=star_schema, n=5, ordered=True,
         stmt=lambda i: "WITH joined AS (SELECT r.name AS region, p.name AS product, s.revenue FROM sales s "
                        "JOIN regions r ON s.region_id = r.id JOIN products p ON s.product_id = p.id) "
                        "SELECT region, SUM(revenue) AS total FROM joined GROUP BY region ORDER BY total DESC;"),
]
