//! kiln through a real driver (tokio-postgres): the extended protocol, binary formats,
//! parameters, errors, portals, cancel and timeouts.

mod common;

use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime};
use common::TestServer;
use tokio_postgres::types::{FromSql, Type};

/// NUMERIC in binary, as raw text produced from PostgreSQL's base-10000 digits.
struct RawNumeric(String);

impl<'a> FromSql<'a> for RawNumeric {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let ndigits = i16::from_be_bytes([raw[0], raw[1]]) as usize;
        let weight = i16::from_be_bytes([raw[2], raw[3]]) as i32;
        let sign = u16::from_be_bytes([raw[4], raw[5]]);
        let dscale = i16::from_be_bytes([raw[6], raw[7]]) as usize;
        let digits: Vec<i32> = (0..ndigits)
            .map(|k| i16::from_be_bytes([raw[8 + 2 * k], raw[9 + 2 * k]]) as i32)
            .collect();
        let mut int_part = String::new();
        for w in (0..=weight.max(0)).rev() {
            let idx = weight - w;
            let d = if idx >= 0 && (idx as usize) < digits.len() && weight >= 0 {
                digits[idx as usize]
            } else {
                0
            };
            if int_part.is_empty() {
                int_part = d.to_string()
            } else {
                int_part.push_str(&format!("{d:04}"))
            }
        }
        let mut frac = String::new();
        let mut k = weight + 1;
        while frac.len() < dscale {
            let d = if k >= 0 && (k as usize) < digits.len() {
                digits[k as usize]
            } else {
                0
            };
            frac.push_str(&format!("{d:04}"));
            k += 1;
        }
        frac.truncate(dscale);
        let mut s = if sign == 0x4000 {
            "-".to_string()
        } else {
            String::new()
        };
        s.push_str(&int_part);
        if dscale > 0 {
            s.push('.');
            s.push_str(&frac);
        }
        Ok(RawNumeric(s))
    }
    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_and_binary_results_for_every_type() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute(
        "CREATE TABLE every (b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, \
         n numeric(12,3), t text, v varchar(5), d date, ts timestamp, tz timestamptz)",
    )
    .await
    .expect("create");
    let date = NaiveDate::from_ymd_opt(2024, 2, 29).expect("date");
    let ts: NaiveDateTime = date.and_hms_micro_opt(13, 14, 15, 500_000).expect("ts");
    let tz = chrono::DateTime::<chrono::Utc>::from_naive_utc_and_offset(ts, chrono::Utc);
    let n = c
        .execute(
            "INSERT INTO every (b, i2, i4, i8, f4, f8, t, v, d, ts, tz) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            &[&true, &-7i16, &123456i32, &-9_000_000_000i64, &1.5f32, &-0.25f64, &"héllo", &"abc", &date, &ts, &tz],
        )
        .await
        .expect("insert with binary parameters");
    assert_eq!(n, 1);
    c.execute("UPDATE every SET n = 12345.678", &[])
        .await
        .expect("update");
    let row = c
        .query_one("SELECT * FROM every", &[])
        .await
        .expect("select");
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i16>(1), -7);
    assert_eq!(row.get::<_, i32>(2), 123456);
    assert_eq!(row.get::<_, i64>(3), -9_000_000_000);
    assert_eq!(row.get::<_, f32>(4), 1.5);
    assert_eq!(row.get::<_, f64>(5), -0.25);
    assert_eq!(row.get::<_, RawNumeric>(6).0, "12345.678");
    assert_eq!(row.get::<_, String>(7), "héllo");
    assert_eq!(row.get::<_, String>(8), "abc");
    assert_eq!(row.get::<_, NaiveDate>(9), date);
    assert_eq!(row.get::<_, NaiveDateTime>(10), ts);
    assert_eq!(row.get::<_, chrono::DateTime<chrono::Utc>>(11), tz);
    let cols: Vec<Type> = row.columns().iter().map(|c| c.type_().clone()).collect();
    assert_eq!(
        cols,
        vec![
            Type::BOOL,
            Type::INT2,
            Type::INT4,
            Type::INT8,
            Type::FLOAT4,
            Type::FLOAT8,
            Type::NUMERIC,
            Type::TEXT,
            Type::VARCHAR,
            Type::DATE,
            Type::TIMESTAMP,
            Type::TIMESTAMPTZ
        ]
    );
    // NULLs both ways.
    c.execute(
        "INSERT INTO every (i4, t) VALUES ($1, $2)",
        &[&None::<i32>, &None::<String>],
    )
    .await
    .expect("nulls");
    let row = c
        .query_one("SELECT i4, t FROM every WHERE i4 IS NULL", &[])
        .await
        .expect("select nulls");
    assert_eq!(row.get::<_, Option<i32>>(0), None);
    assert_eq!(row.get::<_, Option<String>>(1), None);
    // varchar(5) checks parameters too.
    let err = c
        .execute("INSERT INTO every (v) VALUES ($1)", &[&"toolong"])
        .await
        .expect_err("too long");
    assert_eq!(err.code().map(|c| c.code()), Some("22001"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_infer_parameter_types() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute("CREATE TABLE p (id bigint, name text); INSERT INTO p SELECT g, 'n' || g FROM generate_series(1, 100) g")
        .await
        .expect("setup");
    let stmt = c
        .prepare("SELECT name FROM p WHERE id = $1")
        .await
        .expect("prepare");
    assert_eq!(stmt.params(), &[Type::INT8]);
    assert_eq!(stmt.columns()[0].type_(), &Type::TEXT);
    assert_eq!(stmt.columns()[0].name(), "name");
    for id in [1i64, 50, 100] {
        let row = c.query_one(&stmt, &[&id]).await.expect("execute");
        assert_eq!(row.get::<_, String>(0), format!("n{id}"));
    }
    let stmt = c.prepare("SELECT $1::int + $2").await.expect("prepare");
    assert_eq!(stmt.params(), &[Type::INT4, Type::INT4]);
    let row = c.query_one(&stmt, &[&40i32, &2i32]).await.expect("execute");
    assert_eq!(row.get::<_, i32>(0), 42);
    let stmt = c
        .prepare("SELECT count(*) FROM p WHERE name LIKE $1 LIMIT $2")
        .await
        .expect("prepare");
    assert_eq!(stmt.params(), &[Type::TEXT, Type::INT8]);
    let row = c.query_one(&stmt, &[&"n1%", &5i64]).await.expect("execute");
    assert_eq!(row.get::<_, i64>(0), 12);
    let typed = c
        .prepare_typed("SELECT $1", &[Type::FLOAT8])
        .await
        .expect("declared types");
    let row = c.query_one(&typed, &[&2.5f64]).await.expect("execute");
    assert_eq!(row.get::<_, f64>(0), 2.5);
    // A statement without results describes as NoData.
    let ins = c
        .prepare("INSERT INTO p VALUES ($1, $2)")
        .await
        .expect("prepare insert");
    assert!(ins.columns().is_empty());
    assert_eq!(c.execute(&ins, &[&1000i64, &"x"]).await.expect("insert"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_sqlstate_and_the_session_recovers() {
    let server = TestServer::start();
    let c = server.connect().await;
    let cases = [
        ("SELECT 1/0", "22012"),
        ("SELECT * FROM missing", "42P01"),
        ("SELECT nope", "42703"),
        ("SELEC 1", "42601"),
        ("SELECT 'x'::int", "22P02"),
        ("SELECT 2147483647 + 1", "22003"),
        ("SELECT '2024-13-01'::date", "22008"),
        ("SELECT * FROM a JOIN b ON true", "42P01"),
        ("COPY x FROM STDIN", "42P01"),
        ("COPY x TO '/tmp/x'", "42P01"),
        ("COPY (SELECT 1) TO PROGRAM 'exit 1'", "38000"),
    ];
    for (sql, code) in cases {
        let err = c.query(sql, &[]).await.expect_err(sql);
        assert_eq!(err.code().map(|c| c.code()), Some(code), "{sql}: {err:?}");
        let row = c
            .query_one("SELECT 1", &[])
            .await
            .expect("session still usable");
        assert_eq!(row.get::<_, i32>(0), 1);
    }
    let err = c
        .query("SELECT nope FROM (SELECT 1) t", &[])
        .await
        .expect_err("subquery");
    assert_eq!(err.code().map(|c| c.code()), Some("42703"));
}

/// Error positions (1-based characters) as PostgreSQL 15 reports them for the same text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_point_where_postgres_points() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute("CREATE TABLE pq (a int, t text)")
        .await
        .expect("create");
    let cases: &[(&str, &str, u32)] = &[
        ("SELECT 'abc'::int", "22P02", 8),
        ("SELECT abs('abc')", "22P02", 12),
        ("SELECT 1 + 'abc'", "22P02", 12),
        ("SELECT upper(1)", "42883", 8),
        ("SELECT a   +   t FROM pq", "42883", 12),
        ("SELECT -t FROM pq", "42883", 8),
        ("SELECT a FROM pq WHERE t", "42804", 24),
        ("SELECT a FROM pq WHERE a = 1 AND t", "42804", 34),
        ("SELECT a FROM pq WHERE a IN (1, 'z')", "22P02", 33),
        ("SELECT t LIKE 1 FROM pq", "42883", 10),
        ("SELECT date '2024-01-01' + '1 day'", "42725", 26),
        ("SELECT a, count(*) FROM pq", "42803", 8),
        ("SELECT pq.nosuch FROM pq", "42703", 8),
        ("SELECT a FROM pq\n  WHERE a = 'x'", "22P02", 30),
        ("INSERT INTO pq VALUES (1, 2, 3)", "42601", 30),
        ("UPDATE pq SET a = 'x'", "22P02", 19),
        ("SELECT a FROM pq LIMIT 'x'", "22P02", 24),
    ];
    for &(sql, code, position) in cases {
        let err = c.query(sql, &[]).await.expect_err(sql);
        let db = err.as_db_error().expect("a server error");
        assert_eq!(db.code().code(), code, "{sql}: {db:?}");
        assert_eq!(
            db.position(),
            Some(&tokio_postgres::error::ErrorPosition::Original(position)),
            "{sql}: {db:?}"
        );
    }
    // In a multi-statement string the position counts from the start of the string.
    let err = c
        .simple_query("SELECT 1; SELECT 'x'::int")
        .await
        .expect_err("second statement");
    assert_eq!(
        err.as_db_error().and_then(|d| d.position()),
        Some(&tokio_postgres::error::ErrorPosition::Original(18))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portals_return_rows_in_pieces() {
    let server = TestServer::start();
    let mut c = server.connect().await;
    let tx = c.transaction().await.expect("begin");
    let stmt = tx
        .prepare("SELECT * FROM generate_series(1, 10)")
        .await
        .expect("prepare");
    let portal = tx.bind(&stmt, &[]).await.expect("bind");
    let mut seen = Vec::new();
    loop {
        let rows = tx.query_portal(&portal, 3).await.expect("execute portal");
        if rows.is_empty() {
            break;
        }
        assert!(rows.len() <= 3);
        seen.extend(rows.iter().map(|r| r.get::<_, i32>(0)));
    }
    assert_eq!(seen, (1..=10).collect::<Vec<_>>());
    tx.commit().await.expect("commit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_through_the_driver() {
    let server = TestServer::start();
    let mut c = server.connect().await;
    c.batch_execute("CREATE TABLE acct (id int, bal int); INSERT INTO acct VALUES (1, 10)")
        .await
        .expect("setup");
    let tx = c.transaction().await.expect("begin");
    tx.execute("UPDATE acct SET bal = bal + $1", &[&5i32])
        .await
        .expect("update");
    tx.rollback().await.expect("rollback");
    let row = c
        .query_one("SELECT bal FROM acct", &[])
        .await
        .expect("select");
    assert_eq!(row.get::<_, i32>(0), 10);
    let tx = c.transaction().await.expect("begin");
    tx.execute("UPDATE acct SET bal = bal + $1", &[&5i32])
        .await
        .expect("update");
    tx.commit().await.expect("commit");
    let row = c
        .query_one("SELECT bal FROM acct", &[])
        .await
        .expect("select");
    assert_eq!(row.get::<_, i32>(0), 15);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_request_stops_a_running_query() {
    let server = TestServer::start();
    let c = server.connect().await;
    let token = c.cancel_token();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token
            .cancel_query(tokio_postgres::NoTls)
            .await
            .expect("send cancel");
    });
    let started = std::time::Instant::now();
    let err = c
        .query("SELECT count(*) FROM generate_series(1, 2000000000)", &[])
        .await
        .expect_err("the query is cancelled");
    assert_eq!(err.code().map(|c| c.code()), Some("57014"));
    assert!(started.elapsed() < Duration::from_secs(30));
    canceller.await.expect("canceller");
    let row = c
        .query_one("SELECT 2", &[])
        .await
        .expect("usable after cancel");
    assert_eq!(row.get::<_, i32>(0), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_is_enforced() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute("SET statement_timeout = '200ms'")
        .await
        .expect("set");
    let err = c
        .query("SELECT count(*) FROM generate_series(1, 2000000000)", &[])
        .await
        .expect_err("times out");
    assert_eq!(err.code().map(|c| c.code()), Some("57014"));
    assert!(
        err.as_db_error()
            .is_some_and(|e| e.message().contains("statement timeout"))
    );
    c.batch_execute("SET statement_timeout = 0")
        .await
        .expect("reset");
    let row = c
        .query_one("SELECT count(*) FROM generate_series(1, 100000)", &[])
        .await
        .expect("runs");
    assert_eq!(row.get::<_, i64>(0), 100000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_wait_only_for_the_rows_they_touch_and_readers_never_wait() {
    let server = TestServer::start();
    let a = server.connect().await;
    let b = server.connect().await;
    a.batch_execute("CREATE TABLE w (x int); INSERT INTO w VALUES (1)")
        .await
        .expect("setup");
    a.batch_execute("BEGIN; INSERT INTO w VALUES (2); UPDATE w SET x = x + 100 WHERE x = 1")
        .await
        .expect("a writes and holds row 1");
    // b reads without waiting, and does not see a's uncommitted work.
    let started = std::time::Instant::now();
    let row = b
        .query_one("SELECT count(*), sum(x) FROM w", &[])
        .await
        .expect("b reads");
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (1, 1));
    assert!(started.elapsed() < Duration::from_secs(2));
    // b inserts without waiting: a holds no lock b needs.
    b.execute("INSERT INTO w VALUES (3)", &[])
        .await
        .expect("concurrent insert");
    // b's update of the row a holds waits, bounded by lock_timeout.
    b.batch_execute("SET lock_timeout = '150ms'")
        .await
        .expect("set");
    let err = b
        .execute("UPDATE w SET x = x * 10 WHERE x = 1", &[])
        .await
        .expect_err("lock timeout");
    assert_eq!(err.code().map(|c| c.code()), Some("55P03"));
    // Once a commits, b's waiting update re-checks the row's new version (READ
    // COMMITTED): x = 101 no longer matches, so nothing is updated.
    b.batch_execute("SET lock_timeout = 0").await.expect("set");
    let b_write = tokio::spawn(async move {
        let n = b
            .execute("UPDATE w SET x = x * 10 WHERE x = 1 OR x > 100", &[])
            .await
            .expect("b updates after waiting");
        (b, n)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.batch_execute("COMMIT").await.expect("a commits");
    let (b, n) = b_write.await.expect("join");
    assert_eq!(n, 1, "the re-checked version still matches x > 100");
    let rows = b
        .query("SELECT x FROM w ORDER BY x", &[])
        .await
        .expect("select");
    let xs: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(xs, vec![2, 3, 1010]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simple_query_multi_statement_results() {
    let server = TestServer::start();
    let c = server.connect().await;
    let msgs = c
        .simple_query(
            "CREATE TABLE m (x int); INSERT INTO m VALUES (1), (2); SELECT x FROM m ORDER BY x; ;",
        )
        .await
        .expect("multi");
    let tags: Vec<u64> = msgs
        .iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .collect();
    assert_eq!(tags, vec![0, 2, 2]);
    // An error stops the string; earlier statements of the implicit transaction roll back.
    let err = c
        .simple_query("INSERT INTO m VALUES (3); SELECT 1/0; INSERT INTO m VALUES (4)")
        .await
        .expect_err("error");
    assert_eq!(err.code().map(|c| c.code()), Some("22012"));
    let row = c
        .query_one("SELECT count(*) FROM m", &[])
        .await
        .expect("count");
    assert_eq!(row.get::<_, i64>(0), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runaway_queries_hit_the_memory_limit_not_the_server() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute("SET kiln.max_query_memory = 64")
        .await
        .expect("set");
    for sql in [
        "SELECT * FROM generate_series(1, 20000000) g ORDER BY g DESC",
        "SELECT g, count(*) FROM generate_series(1, 20000000) g GROUP BY g LIMIT 1",
        "SELECT DISTINCT g FROM generate_series(1, 20000000) g ORDER BY g LIMIT 1",
        "SELECT count(DISTINCT g) FROM generate_series(1, 20000000) g",
    ] {
        let err = c.query(sql, &[]).await.expect_err(sql);
        assert_eq!(
            err.code().map(|c| c.code()),
            Some("53200"),
            "{sql}: {err:?}"
        );
    }
    let row = c
        .query_one("SHOW kiln.max_query_memory", &[])
        .await
        .expect("show");
    assert_eq!(row.get::<_, String>(0), "64");
    // A top-N keeps only its N best rows, so it fits however large the input.
    let row = c
        .query_one(
            "SELECT g FROM generate_series(1, 5000000) g ORDER BY g DESC LIMIT 1 OFFSET 2",
            &[],
        )
        .await
        .expect("bounded top-N");
    assert_eq!(row.get::<_, i32>(0), 4999998);
    // Within the limit, the same shapes work.
    let row = c
        .query_one(
            "SELECT count(DISTINCT g % 10) FROM generate_series(1, 100000) g",
            &[],
        )
        .await
        .expect("small");
    assert_eq!(row.get::<_, i64>(0), 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_zone_sent_at_connect_is_honoured() {
    // JDBC sends the JVM's zone as a startup parameter; `options` does the same here.
    let server = TestServer::start();
    let url = format!("{} options='-c TimeZone=America/New_York'", server.url());
    let c = common::connect_url(&url).await;
    let row = c.query_one("SHOW TimeZone", &[]).await.expect("show");
    assert_eq!(row.get::<_, String>(0), "America/New_York");
    let row = c
        .query_one("SELECT ('2024-07-01 12:00+00'::timestamptz)::text", &[])
        .await
        .expect("select");
    assert_eq!(row.get::<_, String>(0), "2024-07-01 08:00:00-04");
}

/// Result column names, as PostgreSQL 15 derives them (checked against it): function
/// names, cast targets, `?column?` for operators and constants (booleans included).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn column_names_follow_postgres() {
    let server = TestServer::start();
    let c = server.connect().await;
    let sql = concat!(
        "SELECT substr('hello', 2), substring('hello' from 2), ",
        "substring('hello', 2, 1), position('l' in 'x'), trim(' a '), ",
        "ltrim(' a'), trim(leading 'a' from 'ab'), 1 + 1, -1, 'a'::text, ",
        "1::int8, cast(1 as numeric(5,2)), true, null, 'x', count(*), sum(1), ",
        "avg(1), min(1), max(1), coalesce(1, 2), nullif(1, 2), greatest(1, 2), ",
        "least(1,2), case when true then 1 end, 1 in (1), 1 between 0 and 2, ",
        "'a' like 'a', not true, 1 is null, current_date, current_timestamp, ",
        "now(), current_user, current_database(), version(), pg_typeof(1), ",
        "upper('a'), abs(-1), round(1.5), ceil(1.5), ceiling(1.5), floor(1.5), ",
        "mod(5, 2), power(2, 2), 2 ^ 2, sqrt(4.0), exp(1.0), ln(2.0), log(2.0), ",
        "log10(2.0), concat('a'), replace('a','a','b'), repeat('a', 2), ",
        "length('a'), char_length('a'), octet_length('a'), interval '1 day', ",
        "date '2024-01-01', timestamp '2024-01-01', 1.5::float4, ",
        "'x'::varchar(3), 'x'::char(2), (1), (1 + 2) * 3, trunc(1.5)",
    );
    let stmt = c.prepare(sql).await.expect("prepare");
    let names: Vec<&str> = stmt.columns().iter().map(|col| col.name()).collect();
    let expected = [
        "substr",
        "substring",
        "substring",
        "position",
        "btrim",
        "ltrim",
        "ltrim",
        "?column?",
        "?column?",
        "text",
        "int8",
        "numeric",
        "?column?",
        "?column?",
        "?column?",
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "coalesce",
        "nullif",
        "greatest",
        "least",
        "case",
        "?column?",
        "?column?",
        "?column?",
        "?column?",
        "?column?",
        "current_date",
        "current_timestamp",
        "now",
        "current_user",
        "current_database",
        "version",
        "pg_typeof",
        "upper",
        "abs",
        "round",
        "ceil",
        "ceiling",
        "floor",
        "mod",
        "power",
        "?column?",
        "sqrt",
        "exp",
        "ln",
        "log",
        "log10",
        "concat",
        "replace",
        "repeat",
        "length",
        "char_length",
        "octet_length",
        "interval",
        "date",
        "timestamp",
        "float4",
        "varchar",
        "bpchar",
        "?column?",
        "?column?",
        "trunc",
    ];
    assert_eq!(names, expected);
}

/// A cast to an array type names its column after the element type (`int[]` is `int4`,
/// as PostgreSQL's FigureColname takes the type name's last part); `_int4` names it
/// `_int4`. kiln named every array cast `_elem` before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn array_casts_are_named_after_their_element() {
    let server = TestServer::start();
    let c = server.connect().await;
    let sql = "SELECT '{1}'::int[], '{}'::inet[], cast('{}' as text[]), '{}'::_int4, \
               '{}'::integer array, '{}'::tsvector[]";
    let stmt = c.prepare(sql).await.expect("prepare");
    let names: Vec<&str> = stmt.columns().iter().map(|col| col.name()).collect();
    assert_eq!(names, ["int4", "inet", "text", "_int4", "int4", "tsvector"]);
}

/// Nested casts and CASE take their names as PostgreSQL's FigureColname does: a cast
/// names its column after the type unless the operand has a stronger name; CASE after
/// its ELSE result's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_casts_and_case_are_named_like_postgres() {
    let server = TestServer::start();
    let c = server.connect().await;
    let sql = "SELECT '2024-01-02'::date::text, cast('2024-01-02' as timestamp)::date, \
               1::int8::text, (case when true then 1 else 2 end)::text, \
               case when true then 1 else x end, case when true then x end, x::text, \
               (x)::int8, -x, x + 1, nullif(x, 1)::text, coalesce(x, 1)::text, \
               extract(year from now()), now() at time zone 'UTC', \
               date_part('day', now()), date_trunc('day', now()), age(now()) \
               FROM generate_series(1, 1) AS g(x)";
    let stmt = c.prepare(sql).await.expect("prepare");
    let names: Vec<&str> = stmt.columns().iter().map(|col| col.name()).collect();
    let expected = [
        "text",
        "date",
        "text",
        "text",
        "x",
        "case",
        "x",
        "x",
        "?column?",
        "?column?",
        "nullif",
        "coalesce",
        "extract",
        "timezone",
        "date_part",
        "date_trunc",
        "age",
    ];
    assert_eq!(names, expected);
}

/// EXPLAIN ANALYZE's lines with their times blanked: `actual time=…` varies.
async fn explain_analyze(c: &tokio_postgres::Client, sql: &str) -> Vec<String> {
    let rows = c
        .simple_query(&format!("EXPLAIN ANALYZE {sql}"))
        .await
        .expect("explain analyze");
    rows.iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => {
                r.get(0).map(
                    |line| match (line.find("actual time="), line.find(" rows=")) {
                        (Some(a), _) => {
                            let rest = &line[a..];
                            let end = rest.find(" rows=").map_or(rest.len(), |e| e);
                            format!("{}actual{}", &line[..a], &rest[end..])
                        }
                        _ => line.to_string(),
                    },
                )
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_analyze_counts_every_node() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute(
        "CREATE TABLE ea (id int, region text, revenue int, note text);
         INSERT INTO ea SELECT g,
             CASE g % 4 WHEN 0 THEN 'North' WHEN 1 THEN 'South' WHEN 2 THEN 'East' ELSE 'West' END,
             g * 7 % 1000, 'n' || g
           FROM generate_series(1, 4000) g;
         ANALYZE ea",
    )
    .await
    .expect("setup");
    let lines = explain_analyze(
        &c,
        "SELECT * FROM ea WHERE region = 'North' ORDER BY revenue DESC, id LIMIT 3",
    )
    .await;
    assert_eq!(
        lines,
        vec![
            "Limit  (rows=3) (actual rows=3 loops=1)",
            "  ->  Sort  (rows=1000) (actual rows=3 loops=1)",
            "        Sort Key: ea.revenue DESC, ea.id",
            "        Sort Method: top-N",
            // The sort reads the table itself; its scan is still measured.
            "        ->  Seq Scan on ea  (rows=1000) (actual rows=1000 loops=1)",
            "              Filter: (ea.region = 'North'::text)",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn constraint_errors_name_table_column_and_constraint() {
    let server = TestServer::start();
    let c = server.connect().await;
    c.batch_execute(
        "CREATE TABLE ce (id int PRIMARY KEY, a int, b text, CHECK (a > 0), UNIQUE (a, b))",
    )
    .await
    .expect("create");
    c.execute("INSERT INTO ce VALUES (1, 1, 'x')", &[])
        .await
        .expect("first row");
    // (statement, SQLSTATE, DETAIL, constraint, column)
    type Case<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, Option<&'a str>);
    let cases: &[Case] = &[
        (
            "INSERT INTO ce VALUES (1, 2, 'y')",
            "23505",
            "Key (id)=(1) already exists.",
            Some("ce_pkey"),
            None,
        ),
        (
            "INSERT INTO ce VALUES (2, 1, 'x')",
            "23505",
            "Key (a, b)=(1, x) already exists.",
            Some("ce_a_b_key"),
            None,
        ),
        (
            "INSERT INTO ce VALUES (2, -1, 'x')",
            "23514",
            "Failing row contains (2, -1, x).",
            Some("ce_a_check"),
            None,
        ),
        (
            "INSERT INTO ce VALUES (NULL, 5, NULL)",
            "23502",
            "Failing row contains (null, 5, null).",
            None,
            Some("id"),
        ),
    ];
    for &(sql, code, detail, constraint, column) in cases {
        let err = c.execute(sql, &[]).await.expect_err(sql);
        let db = err.as_db_error().expect("a server error");
        assert_eq!(db.code().code(), code, "{sql}");
        assert_eq!(db.detail(), Some(detail), "{sql}");
        assert_eq!(db.schema(), Some("public"), "{sql}");
        assert_eq!(db.table(), Some("ce"), "{sql}");
        assert_eq!(db.constraint(), constraint, "{sql}");
        assert_eq!(db.column(), column, "{sql}");
    }
    // RETURNING through the extended protocol, with a parameter.
    let rows = c
        .query(
            "INSERT INTO ce VALUES ($1, 7, 'z') RETURNING id, a * 10",
            &[&5i32],
        )
        .await
        .expect("insert returning");
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].get::<_, i32>(0), rows[0].get::<_, i32>(1)),
        (5, 70)
    );
    let n = c
        .execute("UPDATE ce SET a = a + 1 RETURNING id", &[])
        .await
        .expect("update returning");
    assert_eq!(n, 2, "the command tag counts the rows");
}

/// RowDescription names the table and column a result column reads directly (what
/// pgJDBC's ResultSetMetaData.getTableName and psycopg's Column.table_oid read), and
/// zeros for computed columns — as PostgreSQL does (KILN_PG_URL runs it there).
#[tokio::test(flavor = "multi_thread")]
async fn row_description_names_the_source_table_and_column() {
    let target = common::Target::new();
    let c = target.connect().await;
    c.batch_execute(
        "DROP TABLE IF EXISTS rd_origin; CREATE TABLE rd_origin (a int, b text, c date)",
    )
    .await
    .expect("create");
    let oid: u32 = c
        .query_one("SELECT 'rd_origin'::regclass::oid", &[])
        .await
        .expect("oid")
        .get(0);
    let stmt = c
        .prepare("SELECT b, a, a + 1 AS computed, 'x' AS lit, t.c FROM rd_origin t WHERE a > 0 GROUP BY a, b, t.c")
        .await
        .expect("prepare");
    let origins: Vec<(Option<u32>, Option<i16>)> = stmt
        .columns()
        .iter()
        .map(|col| (col.table_oid(), col.column_id()))
        .collect();
    assert_eq!(
        origins,
        vec![
            (Some(oid), Some(2)),
            (Some(oid), Some(1)),
            (None, None),
            (None, None),
            (Some(oid), Some(3)),
        ]
    );
    let stmt = c
        .prepare("SELECT count(*), 1 UNION ALL SELECT 1, 2")
        .await
        .expect("prepare");
    assert!(stmt.columns().iter().all(|col| col.table_oid().is_none()));
    c.batch_execute("DROP TABLE rd_origin").await.expect("drop");
}

/// standard_conforming_strings = off: a backslash in a '…' literal is an escape and
/// warns (22P06) with PostgreSQL's message, hint and the literal's position, through
/// the simple and the extended protocol.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nonstandard_strings_escape_and_warn_with_positions() {
    use futures_util::StreamExt;
    let server = TestServer::start();
    let (client, mut connection) = tokio_postgres::connect(&server.url(), tokio_postgres::NoTls)
        .await
        .expect("connect");
    let notices = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = notices.clone();
    tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(Ok(m)) = messages.next().await {
            if let tokio_postgres::AsyncMessage::Notice(n) = m {
                let position = match n.position() {
                    Some(tokio_postgres::error::ErrorPosition::Original(p)) => *p,
                    _ => 0,
                };
                seen.lock().expect("notices").push((
                    n.code().code().to_string(),
                    n.message().to_string(),
                    n.hint().map(str::to_string),
                    position,
                ));
            }
        }
    });
    client
        .batch_execute("SET standard_conforming_strings = off")
        .await
        .expect("set");
    let rows = client
        .simple_query(r"SELECT 'a\\b', 'it\'s'")
        .await
        .expect("simple");
    let tokio_postgres::SimpleQueryMessage::Row(row) = &rows[1] else {
        panic!("a row: {rows:?}")
    };
    assert_eq!((row.get(0), row.get(1)), (Some(r"a\b"), Some("it's")));
    let row = client
        .query_one(r"SELECT '\x41' || $1::text", &[&"!"])
        .await
        .expect("extended");
    assert_eq!(row.get::<_, String>(0), "A!");
    let got = notices.lock().expect("notices").clone();
    assert_eq!(
        got,
        [
            (
                "22P06".to_string(),
                r"nonstandard use of \\ in a string literal".to_string(),
                Some(r"Use the escape string syntax for backslashes, e.g., E'\\'.".to_string()),
                8
            ),
            (
                "22P06".to_string(),
                r"nonstandard use of \' in a string literal".to_string(),
                Some(
                    "Use '' to write quotes in strings, or use the escape string syntax (E'...')."
                        .to_string()
                ),
                16
            ),
            (
                "22P06".to_string(),
                "nonstandard use of escape in a string literal".to_string(),
                Some(r"Use the escape string syntax for escapes, e.g., E'\r\n'.".to_string()),
                8
            ),
        ]
    );
}

/// Full-text search's NOTICEs reach the client as PostgreSQL sends them: a query of stop
/// words only (also when its call is a constant the planner would fold), an empty
/// query, and a word too long to be indexed (with its DETAIL), through both protocols.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_search_notices_reach_the_client() {
    use futures_util::StreamExt;
    let server = TestServer::start();
    let (client, mut connection) = tokio_postgres::connect(&server.url(), tokio_postgres::NoTls)
        .await
        .expect("connect");
    let notices = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = notices.clone();
    tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(Ok(m)) = messages.next().await {
            if let tokio_postgres::AsyncMessage::Notice(n) = m {
                seen.lock().expect("notices").push((
                    n.code().code().to_string(),
                    n.message().to_string(),
                    n.detail().map(str::to_string),
                ));
            }
        }
    });
    client
        .simple_query("SELECT to_tsquery('english', 'the & a')")
        .await
        .expect("stop words");
    client
        .query("SELECT plainto_tsquery($1)", &[&""])
        .await
        .expect("empty");
    let row = client
        .query_one(
            "SELECT length(to_tsvector(repeat('x', 3000) || ' cat'))",
            &[],
        )
        .await
        .expect("long word");
    assert_eq!(row.get::<_, i32>(0), 1);
    let stop = "text-search query contains only stop words or doesn't contain lexemes, ignored";
    let got = notices.lock().expect("notices").clone();
    assert_eq!(
        got,
        [
            ("00000".to_string(), stop.to_string(), None),
            (
                "00000".to_string(),
                "text-search query doesn't contain lexemes: \"\"".to_string(),
                None
            ),
            (
                "00000".to_string(),
                "word is too long to be indexed".to_string(),
                Some("Words longer than 2047 characters are ignored.".to_string())
            ),
        ]
    );
}
