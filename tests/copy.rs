//! COPY … FROM STDIN and COPY … TO STDOUT in the text, csv and binary formats: the exact
//! bytes produced, the rows loaded, the errors (SQLSTATE, message, CONTEXT) and the
//! protocol messages. Every case states PostgreSQL 15's behaviour; with `KILN_PG_URL` set
//! the same tests run against a real PostgreSQL, proving the expectations. Each test uses
//! its own tables, prefixed with the test's name.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use common::{Target, code};
use futures_util::{SinkExt, TryStreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::error::ErrorPosition;
use tokio_postgres::{Client, SimpleQueryMessage};

/// Runs `COPY … FROM STDIN`, sending `data` as one CopyData message (tokio-postgres
/// coalesces small sends anyway); the row count of the command tag.
async fn copy_in(c: &Client, sql: &str, data: &[u8]) -> Result<u64, tokio_postgres::Error> {
    let sink = c.copy_in::<_, Bytes>(sql).await?;
    futures_util::pin_mut!(sink);
    sink.send(Bytes::copy_from_slice(data)).await?;
    sink.as_mut().finish().await
}

/// Like `copy_in`, but one CopyData message per `chunk` bytes (chunks above 4096 bytes
/// are not coalesced by tokio-postgres), cutting lines, fields and characters apart.
async fn copy_in_chunked(
    c: &Client,
    sql: &str,
    data: &[u8],
    chunk: usize,
) -> Result<u64, tokio_postgres::Error> {
    assert!(
        chunk > 4096,
        "smaller sends are coalesced by tokio-postgres"
    );
    let sink = c.copy_in::<_, Bytes>(sql).await?;
    futures_util::pin_mut!(sink);
    for piece in data.chunks(chunk) {
        sink.send(Bytes::copy_from_slice(piece)).await?;
    }
    sink.as_mut().finish().await
}

/// The bytes of `COPY … TO STDOUT`, all CopyData messages concatenated.
async fn copy_out(c: &Client, sql: &str) -> Result<Vec<u8>, tokio_postgres::Error> {
    let stream = c.copy_out(sql).await?;
    let chunks: Vec<Bytes> = stream.try_collect().await?;
    Ok(chunks.concat())
}

async fn copy_out_ok(c: &Client, sql: &str) -> Vec<u8> {
    copy_out(c, sql).await.expect(sql)
}

async fn copy_out_str(c: &Client, sql: &str) -> String {
    String::from_utf8(copy_out_ok(c, sql).await).expect("utf-8 COPY output")
}

/// The error a COPY statement fails with: TO STDOUT through copy_out on `c`; FROM STDIN
/// through copy_in on a fresh connection. (When COPY FROM fails before copy mode starts,
/// PostgreSQL answers the Sync after Bind/Execute with ReadyForQuery and then the
/// CopyFail+Sync tokio-postgres sends on dropping the sink with a second one, which
/// tokio-postgres hands to the next request as an unexpected message: the connection
/// is spent.)
async fn copy_err(t: &Target, c: &Client, sql: &str) -> tokio_postgres::Error {
    if sql.contains("FROM STDIN") {
        let fresh = t.connect().await;
        match copy_in(&fresh, sql, b"").await {
            Ok(n) => panic!("{sql}: expected an error, loaded {n} rows"),
            Err(e) => e,
        }
    } else {
        match copy_out(c, sql).await {
            Ok(out) => panic!(
                "{sql}: expected an error, got {:?}",
                String::from_utf8_lossy(&out)
            ),
            Err(e) => e,
        }
    }
}

/// Asserts SQLSTATE, message and CONTEXT (`where_`) of a server error.
#[track_caller]
fn assert_error(e: &tokio_postgres::Error, sqlstate: &str, message: &str, context: Option<&str>) {
    let db = e
        .as_db_error()
        .unwrap_or_else(|| panic!("not a server error: {e:?}"));
    assert_eq!(
        (db.code().code(), db.message(), db.where_()),
        (sqlstate, message, context),
        "{db:?}"
    );
}

/// Rows as text (simple query protocol): columns joined with `|`, NULL shown as `∅`.
async fn rows(c: &Client, sql: &str) -> Vec<String> {
    c.simple_query(sql)
        .await
        .expect(sql)
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("∅"))
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
            _ => None,
        })
        .collect()
}

async fn count(c: &Client, table: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM {table}");
    c.query_one(&sql, &[]).await.expect(&sql).get(0)
}

async fn setup(c: &Client, sql: &str) {
    c.batch_execute(sql).await.expect(sql);
}

// ---------------------------------------------------------------------------------------
// Text format
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn copy_text_out_types() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_out_types_t;
         CREATE TABLE copy_text_out_types_t (id int, i int, b bigint, n numeric(10,3), f float8,
             t bool, d date, ts timestamp, s text, v varchar(5), ch char(4), iv interval,
             a int[], ta text[]);
         INSERT INTO copy_text_out_types_t VALUES
             (1, -1, -9000000000, 3.5, 0.1, true, '2024-02-29', '2024-01-02 03:04:05.5', 'héllo ☃',
              'x,y', 'ab', '1 year 2 mons 3 days 04:05:06.7', '{1,NULL,3}',
              '{\"a b\",\"c,d\",NULL,\"\",\"q\\\"x\"}'),
             (2, NULL, NULL, NULL, 'NaN', false, 'infinity', '-infinity', '', '', '', '-1 day',
              '{}', '{}'),
             (3, 2147483647, 0, -0.0005, 1e100, NULL, '0001-01-01 BC', '2000-01-01', NULL, NULL,
              NULL, '00:00:00', '{{1,2},{3,4}}', '{x}'),
             (4, 0, 1, 123456.789, -1.5e-7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
              NULL),
             (5, 0, 1, 0, '-Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);",
    )
    .await;
    let out = copy_out_str(
        &c,
        "COPY (SELECT * FROM copy_text_out_types_t ORDER BY id) TO STDOUT",
    )
    .await;
    assert_eq!(
        out,
        "1\t-1\t-9000000000\t3.500\t0.1\tt\t2024-02-29\t2024-01-02 03:04:05.5\théllo ☃\tx,y\tab  \t1 year 2 mons 3 days 04:05:06.7\t{1,NULL,3}\t{\"a b\",\"c,d\",NULL,\"\",\"q\\\\\"x\"}\n\
         2\t\\N\t\\N\t\\N\tNaN\tf\tinfinity\t-infinity\t\t\t    \t-1 days\t{}\t{}\n\
         3\t2147483647\t0\t-0.001\t1e+100\t\\N\t0001-01-01 BC\t2000-01-01 00:00:00\t\\N\t\\N\t\\N\t00:00:00\t{{1,2},{3,4}}\t{x}\n\
         4\t0\t1\t123456.789\t-1.5e-07\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n\
         5\t0\t1\t0.000\t-Infinity\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n"
    );
    // A column list picks and orders the columns (rows sorted here: a plain table scan).
    let out = copy_out_str(&c, "COPY copy_text_out_types_t (v, id) TO STDOUT").await;
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(lines, vec!["\t2", "\\N\t3", "\\N\t4", "\\N\t5", "x,y\t1"]);
}

#[tokio::test]
async fn copy_text_out_escapes() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_out_escapes_t;
         CREATE TABLE copy_text_out_escapes_t (id int, s text);
         INSERT INTO copy_text_out_escapes_t VALUES
             (1, E'a\\tb\\nc\\\\d\\re'),
             (2, chr(8) || chr(12) || chr(11) || chr(7) || chr(1) || chr(127)),
             (3, 'x,y|z'),
             (4, NULL),
             (5, ''),
             (6, '\\N'),
             (7, '\\.'),
             (8, 'NUL');",
    )
    .await;
    let sql = "COPY (SELECT * FROM copy_text_out_escapes_t ORDER BY id) TO STDOUT";
    assert_eq!(
        copy_out_ok(&c, sql).await,
        b"1\ta\\tb\\nc\\\\d\\re\n\
          2\t\\b\\f\\v\x07\x01\x7f\n\
          3\tx,y|z\n\
          4\t\\N\n\
          5\t\n\
          6\t\\\\N\n\
          7\t\\\\.\n\
          8\tNUL\n"
            .to_vec()
    );
    // A delimiter inside a value is escaped with a backslash. A value equal to the NULL
    // string is written as is, indistinguishable from NULL (text format does not guard).
    let sql = "COPY (SELECT * FROM copy_text_out_escapes_t WHERE id IN (3, 4, 8) ORDER BY id) \
               TO STDOUT (DELIMITER ',')";
    assert_eq!(copy_out_str(&c, sql).await, "3,x\\,y|z\n4,\\N\n8,NUL\n");
    let sql = "COPY (SELECT * FROM copy_text_out_escapes_t WHERE id IN (3, 4, 8) ORDER BY id) \
               TO STDOUT (DELIMITER '|', NULL 'NUL')";
    assert_eq!(copy_out_str(&c, sql).await, "3|x,y\\|z\n4|NUL\n8|NUL\n");
}

#[tokio::test]
async fn copy_text_in_escapes() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_in_escapes_t;
         CREATE TABLE copy_text_in_escapes_t (id int, s text);",
    )
    .await;
    let data: &[u8] = b"1\ta\\tb\n\
        2\t\\b\\f\\n\\r\\v\\\\\n\
        3\t\\101\\x41\\x4a\\7\\x4g\n\
        4\t\\q\\Z\\-x\n\
        5\tx\\Ny\n\
        6\t\\\\N\n\
        7\t\\N\n\
        8\t\n\
        9\th\xc3\xa9llo \xe2\x98\x83\n\
        10\t\\xe2\\x98\\x83\\342\\230\\203\n\
        11\ta\\\tb\n";
    let n = copy_in(&c, "COPY copy_text_in_escapes_t FROM STDIN", data)
        .await
        .expect("copy");
    assert_eq!(n, 11);
    let got: Vec<(i32, Option<String>)> = c
        .query("SELECT id, s FROM copy_text_in_escapes_t ORDER BY id", &[])
        .await
        .expect("select")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let want: Vec<(i32, Option<String>)> = vec![
        (1, Some("a\tb".into())),
        (2, Some("\x08\x0c\n\r\x0b\\".into())),
        (3, Some("AAJ\x07\x04g".into())),
        (4, Some("qZ-x".into())),
        (5, Some("xNy".into())),
        (6, Some("\\N".into())),
        (7, None),
        (8, Some("".into())),
        (9, Some("héllo ☃".into())),
        (10, Some("☃☃".into())),
        (11, Some("a\tb".into())),
    ];
    assert_eq!(got, want);
}

#[tokio::test]
async fn copy_text_in_end_marker() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_in_end_marker_t;
         CREATE TABLE copy_text_in_end_marker_t (a int, b text);",
    )
    .await;
    let sql = "COPY copy_text_in_end_marker_t FROM STDIN";
    // `\.` alone on a line ends the data; whatever follows it is ignored.
    let n = copy_in(&c, sql, b"1\tx\n\\.\n2\ty\nnot even valid\n")
        .await
        .expect("copy");
    assert_eq!(n, 1);
    // With CRLF line endings the marker ends with CRLF too.
    let n = copy_in(&c, sql, b"2\tw\r\n\\.\r\n").await.expect("crlf");
    assert_eq!(n, 1);
    // PostgreSQL 15 (text format): `\.` followed by a newline ends the data anywhere in a
    // line; the part of the line before it is still a row.
    let n = copy_in(&c, sql, b"3\tv\\.\n4\tw\n")
        .await
        .expect("mid-line");
    assert_eq!(n, 1);
    assert_eq!(
        rows(&c, "SELECT * FROM copy_text_in_end_marker_t ORDER BY a").await,
        vec!["1|x", "2|w", "3|v"]
    );
    // `\.` followed by anything but a newline is an error, even at the end of the data.
    let cases: [(&[u8], &str, &str); 4] = [
        (b"5\tv\n\\.x\n", "end-of-copy marker corrupt", "line 2"),
        (b"5\tv\\.x\n", "end-of-copy marker corrupt", "line 1"),
        (b"5\tv\n\\.", "end-of-copy marker corrupt", "line 2"),
        (
            b"5\tv\n\\.\r\n",
            "end-of-copy marker does not match previous newline style",
            "line 2",
        ),
    ];
    for (data, message, line) in cases {
        let e = copy_in(&c, sql, data).await.unwrap_err();
        let context = format!("COPY copy_text_in_end_marker_t, {line}");
        assert_error(&e, "22P04", message, Some(&context));
    }
    assert_eq!(count(&c, "copy_text_in_end_marker_t").await, 3);
}

#[tokio::test]
async fn copy_text_in_line_endings() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_in_line_endings_t;
         CREATE TABLE copy_text_in_line_endings_t (a int, b text);",
    )
    .await;
    let sql = "COPY copy_text_in_line_endings_t FROM STDIN";
    // CRLF: the first line decides, the CR is not data.
    assert_eq!(
        copy_in(&c, sql, b"1\tx\r\n2\ty\r\n").await.expect("crlf"),
        2
    );
    // A bare CR ends lines too.
    assert_eq!(copy_in(&c, sql, b"3\tz\r4\tw\r").await.expect("cr"), 2);
    // No newline after the last line.
    assert_eq!(copy_in(&c, sql, b"5\tv").await.expect("no eol"), 1);
    assert_eq!(
        rows(
            &c,
            "SELECT a, b, length(b) FROM copy_text_in_line_endings_t ORDER BY a"
        )
        .await,
        vec!["1|x|1", "2|y|1", "3|z|1", "4|w|1", "5|v|1"]
    );
    // Mixing styles is an error naming the line.
    let e = copy_in(&c, sql, b"6\tx\r\n7\ty\n").await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "literal newline found in data",
        Some("COPY copy_text_in_line_endings_t, line 2"),
    );
    assert_eq!(
        e.as_db_error().unwrap().hint(),
        Some("Use \"\\n\" to represent newline.")
    );
    let e = copy_in(&c, sql, b"6\tx\n7\ty\r\n").await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "literal carriage return found in data",
        Some("COPY copy_text_in_line_endings_t, line 2"),
    );
    assert_eq!(
        e.as_db_error().unwrap().hint(),
        Some("Use \"\\r\" to represent carriage return.")
    );
    assert_eq!(count(&c, "copy_text_in_line_endings_t").await, 5);
}

#[tokio::test]
async fn copy_text_in_column_list_defaults() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_in_column_list_defaults_t;
         CREATE TABLE copy_text_in_column_list_defaults_t (
             id serial,
             k int GENERATED ALWAYS AS IDENTITY (START WITH 10),
             a int,
             b text DEFAULT 'dflt',
             c int DEFAULT 42,
             d text);",
    )
    .await;
    let n = copy_in(
        &c,
        "COPY copy_text_in_column_list_defaults_t (a) FROM STDIN",
        b"1\n2\n",
    )
    .await
    .expect("copy a");
    assert_eq!(n, 2);
    // Columns in any order; an explicit \N is NULL, not the default.
    copy_in(
        &c,
        "COPY copy_text_in_column_list_defaults_t (b, a, c) FROM STDIN",
        b"x\t3\t\\N\n",
    )
    .await
    .expect("copy b, a, c");
    // COPY may write a GENERATED ALWAYS identity column (no OVERRIDING needed), and an
    // explicit serial value does not advance the sequence.
    copy_in(
        &c,
        "COPY copy_text_in_column_list_defaults_t (id, k, a) FROM STDIN",
        b"100\t200\t4\n",
    )
    .await
    .expect("copy id, k, a");
    copy_in(
        &c,
        "COPY copy_text_in_column_list_defaults_t (a) FROM STDIN",
        b"5\n",
    )
    .await
    .expect("copy a again");
    assert_eq!(
        rows(
            &c,
            "SELECT * FROM copy_text_in_column_list_defaults_t ORDER BY a"
        )
        .await,
        vec![
            "1|10|1|dflt|42|∅",
            "2|11|2|dflt|42|∅",
            "3|12|3|x|∅|∅",
            "100|200|4|dflt|42|∅",
            "4|13|5|dflt|42|∅",
        ]
    );
    // And out again, through a query.
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT c, a FROM copy_text_in_column_list_defaults_t ORDER BY a) TO STDOUT"
        )
        .await,
        "42\t1\n42\t2\n\\N\t3\n42\t4\n42\t5\n"
    );
}

#[tokio::test]
async fn copy_text_column_list_to_stdout() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_column_list_to_stdout_t;
         CREATE TABLE copy_text_column_list_to_stdout_t (a int, b text, c bool);
         INSERT INTO copy_text_column_list_to_stdout_t VALUES (1, 'x', true);",
    )
    .await;
    assert_eq!(
        copy_out_str(&c, "COPY copy_text_column_list_to_stdout_t TO STDOUT").await,
        "1\tx\tt\n"
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY copy_text_column_list_to_stdout_t (c, a) TO STDOUT"
        )
        .await,
        "t\t1\n"
    );
}

#[tokio::test]
async fn copy_query_to_stdout() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_query_to_stdout_t;
         CREATE TABLE copy_query_to_stdout_t (a int, b text);
         INSERT INTO copy_query_to_stdout_t VALUES (3, 'c'), (1, 'a'), (2, NULL);",
    )
    .await;
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT a * 10 AS x, upper(b) FROM copy_query_to_stdout_t ORDER BY a DESC) TO STDOUT"
        )
        .await,
        "30\tC\n20\t\\N\n10\tA\n"
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (VALUES (1, 'one'), (2, 'two')) TO STDOUT (FORMAT csv, HEADER)"
        )
        .await,
        "column1,column2\n1,one\n2,two\n"
    );
    // No rows: no data at all.
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT * FROM copy_query_to_stdout_t WHERE a > 100) TO STDOUT"
        )
        .await,
        ""
    );
    // Duplicate output names are fine, also in a header.
    assert_eq!(
        copy_out_str(&c, "COPY (SELECT 1 AS x, 2 AS x) TO STDOUT (HEADER)").await,
        "x\tx\n1\t2\n"
    );
}

#[tokio::test]
async fn copy_text_in_types() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_in_types_t;
         CREATE TABLE copy_text_in_types_t (i int, b bigint, n numeric(10,3), f float8,
             t bool, d date, ts timestamp, s text, v varchar(5), ch char(4), iv interval,
             a int[]);",
    )
    .await;
    let data = b" 7 \t-9000000000\t1.5\t1e3\tyes\t2024-2-9\t2024-01-02T03:04:05\thi\tabc\tab\t1 day 25:00\t{1, 2,NULL}\n\
                 -0\t+5\t-0.0004\t-0\toff\t20240301\tepoch\t \tabcde   \tabcd\tP-1D\t{}\n";
    assert_eq!(
        copy_in(&c, "COPY copy_text_in_types_t FROM STDIN", data)
            .await
            .expect("copy"),
        2
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT * FROM copy_text_in_types_t ORDER BY i DESC) TO STDOUT"
        )
        .await,
        "7\t-9000000000\t1.500\t1000\tt\t2024-02-09\t2024-01-02 03:04:05\thi\tabc\tab  \t1 day 25:00:00\t{1,2,NULL}\n\
         0\t5\t0.000\t-0\tf\t2024-03-01\t1970-01-01 00:00:00\t \tabcde\tabcd\t-1 days\t{}\n"
    );
}

#[tokio::test]
async fn copy_text_header() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_text_header_t;
         CREATE TABLE copy_text_header_t (a int, \"B c\" text);
         INSERT INTO copy_text_header_t VALUES (1, 'x');",
    )
    .await;
    // PostgreSQL 15 allows HEADER in text format; names are written as data (escaped).
    assert_eq!(
        copy_out_str(&c, "COPY copy_text_header_t TO STDOUT (HEADER)").await,
        "a\tB c\n1\tx\n"
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY copy_text_header_t TO STDOUT (FORMAT text, HEADER true, DELIMITER ' ')"
        )
        .await,
        "a B\\ c\n1 x\n"
    );
    assert_eq!(
        copy_out_str(&c, "COPY copy_text_header_t TO STDOUT (HEADER false)").await,
        "1\tx\n"
    );
    // Input skips the first line, whatever it holds.
    let n = copy_in(
        &c,
        "COPY copy_text_header_t FROM STDIN (HEADER)",
        b"anything at all\n2\ty\n",
    )
    .await
    .expect("copy");
    assert_eq!(n, 1);
    // HEADER MATCH checks the names against the column list.
    let n = copy_in(
        &c,
        "COPY copy_text_header_t (\"B c\", a) FROM STDIN (HEADER MATCH)",
        b"B c\ta\nz\t3\n",
    )
    .await
    .expect("copy match");
    assert_eq!(n, 1);
    let e = copy_in(
        &c,
        "COPY copy_text_header_t FROM STDIN (HEADER MATCH)",
        b"a\tb c\n4\tw\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "column name mismatch in header line field 2: got \"b c\", expected \"B c\"",
        Some("COPY copy_text_header_t, line 1: \"a\tb c\""),
    );
    let e = copy_in(
        &c,
        "COPY copy_text_header_t FROM STDIN (HEADER MATCH)",
        b"\\N\tB c\n4\tw\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "column name mismatch in header line field 1: got null value (\"\\N\"), expected \"a\"",
        Some("COPY copy_text_header_t, line 1: \"\\N\tB c\""),
    );
    assert_eq!(
        rows(&c, "SELECT * FROM copy_text_header_t ORDER BY a").await,
        vec!["1|x", "2|y", "3|z"]
    );
}

#[tokio::test]
async fn copy_in_split_across_messages() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_in_split_across_messages_t;
         CREATE TABLE copy_in_split_across_messages_t (a int, b text);",
    )
    .await;
    // Chunks of 4097 bytes: the first cuts the two bytes of 'é' apart, the next ones cut
    // an escape sequence and a CRLF-free line in the middle.
    let mut data = Vec::new();
    data.extend_from_slice(b"1\t");
    data.extend_from_slice("x".repeat(4094).as_bytes());
    data.extend_from_slice("é\n".as_bytes()); // é starts at byte 4096
    let mut second = b"2\t".to_vec();
    second.extend_from_slice("y".repeat(4097 * 2 - 1 - data.len() - 2).as_bytes());
    second.extend_from_slice(b"\\t\\\\z\n"); // the escape \t straddles the boundary
    data.extend_from_slice(&second);
    data.extend_from_slice(b"3\t\\N\n");
    let n = copy_in_chunked(
        &c,
        "COPY copy_in_split_across_messages_t FROM STDIN",
        &data,
        4097,
    )
    .await
    .expect("copy");
    assert_eq!(n, 3);
    assert_eq!(
        rows(
            &c,
            "SELECT a, length(b), right(b, 4) FROM copy_in_split_across_messages_t ORDER BY a"
        )
        .await,
        vec!["1|4095|xxxé", "2|4095|y\t\\z", "3|∅|∅"]
    );
    // The text comes back out byte for byte.
    assert_eq!(
        copy_out_ok(
            &c,
            "COPY (SELECT * FROM copy_in_split_across_messages_t ORDER BY a) TO STDOUT"
        )
        .await,
        data
    );
}

// ---------------------------------------------------------------------------------------
// CSV format
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn copy_csv_out_quoting() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_out_quoting_t;
         CREATE TABLE copy_csv_out_quoting_t (id int, s text);
         INSERT INTO copy_csv_out_quoting_t VALUES
             (1, 'a,b'), (2, 'say \"hi\"'), (3, E'two\\nlines'), (4, E'cr\\r'), (5, ''),
             (6, NULL), (7, ' spaced '), (8, '\\.'), (9, 'back\\slash'), (10, E'tab\\there'),
             (11, 'plain');",
    )
    .await;
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT * FROM copy_csv_out_quoting_t ORDER BY id) TO STDOUT (FORMAT csv)"
        )
        .await,
        "1,\"a,b\"\n\
         2,\"say \"\"hi\"\"\"\n\
         3,\"two\nlines\"\n\
         4,\"cr\r\"\n\
         5,\"\"\n\
         6,\n\
         7, spaced \n\
         8,\\.\n\
         9,back\\slash\n\
         10,tab\there\n\
         11,plain\n"
    );
    // A lone `\.` is quoted only when it is the whole line (one column).
    assert_eq!(
        copy_out_str(
            &c,
            "COPY (SELECT s FROM copy_csv_out_quoting_t WHERE id IN (5, 6, 8, 11) ORDER BY id) \
             TO STDOUT (FORMAT csv)"
        )
        .await,
        "\"\"\n\n\"\\.\"\nplain\n"
    );
}

#[tokio::test]
async fn copy_csv_in_quoting() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_in_quoting_t;
         CREATE TABLE copy_csv_in_quoting_t (id int, s text, u text);",
    )
    .await;
    let data: &[u8] = b"1,\"a,b\",x\n\
        2,\"say \"\"hi\"\"\",\n\
        3,\"two\nlines\",\"\"\n\
        4,\"crlf\r\ninside\",\" \"\n\
        5,,\n\
        6, spaced ,\\N\n\
        7,\"partly\"quoted,\"\\.\"\n\
        \"8\",\"\",\"\"\"\"\n";
    let n = copy_in(
        &c,
        "COPY copy_csv_in_quoting_t FROM STDIN (FORMAT csv)",
        data,
    )
    .await
    .expect("copy");
    assert_eq!(n, 8);
    let got: Vec<(i32, Option<String>, Option<String>)> = c
        .query(
            "SELECT id, s, u FROM copy_csv_in_quoting_t ORDER BY id",
            &[],
        )
        .await
        .expect("select")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        got,
        vec![
            (1, s("a,b"), s("x")),
            (2, s("say \"hi\""), None),
            (3, s("two\nlines"), s("")),
            (4, s("crlf\r\ninside"), s(" ")),
            (5, None, None),
            (6, s(" spaced "), s("\\N")),
            (7, s("partlyquoted"), s("\\.")),
            (8, s(""), s("\"")),
        ]
    );
    // A quoted field spanning lines counts them, so the error names the physical line ...
    let e = copy_in(
        &c,
        "COPY copy_csv_in_quoting_t FROM STDIN (FORMAT csv)",
        b"9,x,y\n10,\"multi\nline\",x\nten,y,z\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"ten\"",
        Some("COPY copy_csv_in_quoting_t, line 4, column id: \"ten\""),
    );
    // ... except in the first record: before the first line end PostgreSQL does not yet
    // know the newline style and counts no embedded newline.
    let e = copy_in(
        &c,
        "COPY copy_csv_in_quoting_t FROM STDIN (FORMAT csv)",
        b"9,\"multi\nline\",x\nten,y,z\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"ten\"",
        Some("COPY copy_csv_in_quoting_t, line 2, column id: \"ten\""),
    );
    assert_eq!(count(&c, "copy_csv_in_quoting_t").await, 8);
}

#[tokio::test]
async fn copy_csv_end_marker() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_end_marker_t;
         CREATE TABLE copy_csv_end_marker_t (s text);",
    )
    .await;
    let sql = "COPY copy_csv_end_marker_t FROM STDIN (FORMAT csv)";
    // Quoted, `\.` is data; unquoted alone on a line it ends the data.
    let n = copy_in(&c, sql, b"a\n\"\\.\"\nb\n\\.\nc\n")
        .await
        .expect("copy");
    assert_eq!(n, 3);
    assert_eq!(
        rows(&c, "SELECT s FROM copy_csv_end_marker_t ORDER BY s").await,
        vec!["\\.", "a", "b"]
    );
    // What COPY TO writes reads back the same.
    let out = copy_out_ok(
        &c,
        "COPY (SELECT s FROM copy_csv_end_marker_t ORDER BY s) TO STDOUT (FORMAT csv)",
    )
    .await;
    assert_eq!(out, b"\"\\.\"\na\nb\n".to_vec());
    setup(&c, "TRUNCATE copy_csv_end_marker_t").await;
    copy_in(&c, sql, &out).await.expect("reload");
    assert_eq!(
        rows(&c, "SELECT s FROM copy_csv_end_marker_t ORDER BY s").await,
        vec!["\\.", "a", "b"]
    );
}

#[tokio::test]
async fn copy_csv_header() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_header_t;
         CREATE TABLE copy_csv_header_t (a int, \"b,c\" text, \"q\"\"\" text);
         INSERT INTO copy_csv_header_t VALUES (1, 'x', 'y');",
    )
    .await;
    assert_eq!(
        copy_out_str(&c, "COPY copy_csv_header_t TO STDOUT (FORMAT csv, HEADER)").await,
        "a,\"b,c\",\"q\"\"\"\n1,x,y\n"
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY copy_csv_header_t (a) TO STDOUT (FORMAT csv, HEADER on)"
        )
        .await,
        "a\n1\n"
    );
    let sql = "COPY copy_csv_header_t FROM STDIN (FORMAT csv, HEADER)";
    assert_eq!(
        copy_in(&c, sql, b"whatever,\"is\nhere\"\n2,u,v\n")
            .await
            .expect("header skipped"),
        1
    );
    let sql = "COPY copy_csv_header_t FROM STDIN (FORMAT csv, HEADER MATCH)";
    assert_eq!(
        copy_in(&c, sql, b"a,\"b,c\",\"q\"\"\"\n3,s,t\n")
            .await
            .expect("header matches"),
        1
    );
    let cases: [(&[u8], &str, &str); 5] = [
        (
            b"a,b,c,d\n4,x,y\n",
            "wrong number of fields in header line: got 4, expected 3",
            "COPY copy_csv_header_t, line 1: \"a,b,c,d\"",
        ),
        (
            b"a,bc,q\n4,x,y\n",
            "column name mismatch in header line field 2: got \"bc\", expected \"b,c\"",
            "COPY copy_csv_header_t, line 1: \"a,bc,q\"",
        ),
        (
            b"A,\"b,c\",\"q\"\"\"\n4,x,y\n",
            "column name mismatch in header line field 1: got \"A\", expected \"a\"",
            "COPY copy_csv_header_t, line 1: \"A,\"b,c\",\"q\"\"\"\"",
        ),
        (
            b",\"b,c\",q\n4,x,y\n",
            "column name mismatch in header line field 1: got null value (\"\"), expected \"a\"",
            "COPY copy_csv_header_t, line 1: \",\"b,c\",q\"",
        ),
        (
            b"a\n4,x,y\n",
            "wrong number of fields in header line: got 1, expected 3",
            "COPY copy_csv_header_t, line 1: \"a\"",
        ),
    ];
    for (data, message, context) in cases {
        let e = copy_in(&c, sql, data).await.unwrap_err();
        assert_error(&e, "22P04", message, Some(context));
    }
    assert_eq!(
        rows(&c, "SELECT * FROM copy_csv_header_t ORDER BY a").await,
        vec!["1|x|y", "2|u|v", "3|s|t"]
    );
}

#[tokio::test]
async fn copy_csv_options() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_options_t;
         CREATE TABLE copy_csv_options_t (id int, s text, u text);
         INSERT INTO copy_csv_options_t VALUES
             (1, 'a;b', 'x|y'), (2, 'x', NULL), (3, '', 'a\"b'), (4, 'back\\sl', 'q|\\');",
    )
    .await;
    let out = "COPY (SELECT * FROM copy_csv_options_t ORDER BY id) TO STDOUT";
    // NULL 'x': the value 'x' gets quoted, the empty string no longer needs to be.
    assert_eq!(
        copy_out_str(
            &c,
            &format!("{out} (FORMAT csv, DELIMITER ';', NULL 'x', QUOTE '|')")
        )
        .await,
        "1;|a;b|;|x||y|\n2;|x|;x\n3;;a\"b\n4;back\\sl;|q||\\|\n"
    );
    // ESCAPE: quote and escape characters inside a quoted value are escaped with it; the
    // escape character alone does not force quoting.
    assert_eq!(
        copy_out_str(&c, &format!("{out} (FORMAT csv, ESCAPE '\\')")).await,
        "1,a;b,x|y\n2,x,\n3,\"\",\"a\\\"b\"\n4,back\\sl,q|\\\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{out} (FORMAT csv, QUOTE '|', ESCAPE '\\')")).await,
        "1,a;b,|x\\|y|\n2,x,\n3,||,a\"b\n4,back\\sl,|q\\|\\\\|\n"
    );
    // And back in with the same options.
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_options_t2;
         CREATE TABLE copy_csv_options_t2 (id int, s text, u text);",
    )
    .await;
    let n = copy_in(
        &c,
        "COPY copy_csv_options_t2 FROM STDIN (FORMAT csv, DELIMITER ';', NULL 'x', QUOTE '|')",
        b"1;|a;b|;|x||y|\n2;|x|;x\n3;;a\"b\n4;back\\sl;|q||\\|\n",
    )
    .await
    .expect("copy in");
    assert_eq!(n, 4);
    let n = copy_in(
        &c,
        "COPY copy_csv_options_t2 FROM STDIN (FORMAT csv, QUOTE '|', ESCAPE '\\')",
        b"11,a;b,|x\\|y|\n12,x,\n13,||,a\"b\n14,back\\sl,|q\\|\\\\|\n",
    )
    .await
    .expect("copy in escape");
    assert_eq!(n, 4);
    assert_eq!(
        rows(&c, "SELECT id, s, u FROM copy_csv_options_t2 ORDER BY id").await,
        vec![
            "1|a;b|x|y",
            "2|x|∅",
            "3||a\"b",
            "4|back\\sl|q|\\",
            "11|a;b|x|y",
            "12|x|∅",
            "13||a\"b",
            "14|back\\sl|q|\\",
        ]
    );
}

#[tokio::test]
async fn copy_csv_force_quote() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_force_quote_t;
         CREATE TABLE copy_csv_force_quote_t (a int, b text, c text);
         INSERT INTO copy_csv_force_quote_t VALUES (1, 'x', NULL), (2, '', 'y');",
    )
    .await;
    let sql = "COPY (SELECT * FROM copy_csv_force_quote_t ORDER BY a) TO STDOUT";
    // NULL is never quoted.
    assert_eq!(
        copy_out_str(&c, &format!("{sql} (FORMAT csv, FORCE_QUOTE *)")).await,
        "\"1\",\"x\",\n\"2\",\"\",\"y\"\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{sql} (FORMAT csv, FORCE_QUOTE (a, c))")).await,
        "\"1\",x,\n\"2\",\"\",\"y\"\n"
    );
    assert_eq!(
        copy_out_str(
            &c,
            "COPY copy_csv_force_quote_t (b) TO STDOUT (FORMAT csv, FORCE_QUOTE (b), NULL 'N')"
        )
        .await
        .lines()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>(),
        vec!["\"\"", "\"x\""]
    );
    // Legacy spelling.
    assert_eq!(
        copy_out_str(&c, &format!("{sql} WITH CSV FORCE QUOTE b")).await,
        "1,\"x\",\n2,\"\",y\n"
    );
}

#[tokio::test]
async fn copy_csv_force_null_and_not_null() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_force_null_and_not_null_t;
         CREATE TABLE copy_csv_force_null_and_not_null_t (seq serial, id int, a text, b text);",
    )
    .await;
    let data: &[u8] = b"1,,\"\"\n2,\"\",\n3,x,\"x\"\n";
    // Default: unquoted empty is NULL, quoted empty is ''.
    copy_in(
        &c,
        "COPY copy_csv_force_null_and_not_null_t (id, a, b) FROM STDIN (FORMAT csv)",
        data,
    )
    .await
    .expect("plain");
    // FORCE_NOT_NULL: an unquoted NULL string reads as '' (the value, not NULL).
    copy_in(
        &c,
        "COPY copy_csv_force_null_and_not_null_t (id, a, b) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (a))",
        data,
    )
    .await
    .expect("force not null");
    // FORCE_NULL: a quoted NULL string is NULL too.
    copy_in(
        &c,
        "COPY copy_csv_force_null_and_not_null_t (id, a, b) FROM STDIN (FORMAT csv, FORCE_NULL (a, b))",
        data,
    )
    .await
    .expect("force null");
    // With NULL 'x': FORCE_NULL makes "x" NULL, FORCE_NOT_NULL makes x the string 'x'.
    copy_in(
        &c,
        "COPY copy_csv_force_null_and_not_null_t (id, a, b) FROM STDIN (FORMAT csv, NULL 'x', FORCE_NULL (b), FORCE_NOT_NULL (a))",
        data,
    )
    .await
    .expect("null x");
    let got = rows(
        &c,
        "SELECT id, a, b FROM copy_csv_force_null_and_not_null_t ORDER BY seq",
    )
    .await;
    assert_eq!(
        got,
        vec![
            // plain
            "1|∅|",
            "2||∅",
            "3|x|x",
            // FORCE_NOT_NULL (a)
            "1||",
            "2||∅",
            "3|x|x",
            // FORCE_NULL (a, b)
            "1|∅|∅",
            "2|∅|∅",
            "3|x|x",
            // NULL 'x', FORCE_NULL (b), FORCE_NOT_NULL (a)
            "1||",
            "2||",
            "3|x|∅",
        ]
    );
}

#[tokio::test]
async fn copy_csv_legacy_syntax() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_csv_legacy_syntax_t;
         CREATE TABLE copy_csv_legacy_syntax_t (a int, b text);
         INSERT INTO copy_csv_legacy_syntax_t VALUES (1, 'x y'), (2, NULL);",
    )
    .await;
    let sql = "COPY (SELECT * FROM copy_csv_legacy_syntax_t ORDER BY a) TO STDOUT";
    assert_eq!(
        copy_out_str(&c, &format!("{sql} WITH CSV HEADER")).await,
        "a,b\n1,x y\n2,\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{sql} WITH DELIMITER ','")).await,
        "1,x y\n2,\\N\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{sql} DELIMITER ';' NULL 'nil' CSV")).await,
        "1;x y\n2;nil\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{sql} CSV QUOTE '''' FORCE QUOTE *")).await,
        "'1','x y'\n'2',\n"
    );
    assert_eq!(
        copy_out_str(&c, &format!("{sql} WITH NULL AS 'nil' DELIMITER AS '|'")).await,
        "1|x y\n2|nil\n"
    );
    let n = copy_in(
        &c,
        "COPY copy_csv_legacy_syntax_t FROM STDIN WITH CSV HEADER DELIMITER ';' FORCE NOT NULL b",
        b"a;b\n3;\n",
    )
    .await
    .expect("legacy in");
    assert_eq!(n, 1);
    assert_eq!(
        rows(
            &c,
            "SELECT a, b IS NULL, b FROM copy_csv_legacy_syntax_t ORDER BY a"
        )
        .await,
        vec!["1|f|x y", "2|t|∅", "3|f|"]
    );
}

// ---------------------------------------------------------------------------------------
// Binary format
// ---------------------------------------------------------------------------------------

const BINARY_HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

#[tokio::test]
async fn copy_binary_out_exact_bytes() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_binary_out_exact_bytes_t;
         CREATE TABLE copy_binary_out_exact_bytes_t (a int, b bigint, c text, d numeric,
             e timestamp, f bool, g date, h float8, i smallint);
         INSERT INTO copy_binary_out_exact_bytes_t VALUES
             (1, -2, 'hé', -12345.678, '2000-01-01 00:00:01.5', true, '2000-01-02', 1.5, 7),
             (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);",
    )
    .await;
    let out = copy_out_ok(
        &c,
        "COPY copy_binary_out_exact_bytes_t TO STDOUT (FORMAT binary)",
    )
    .await;
    let mut want = BINARY_HEADER.to_vec();
    // Row 1: field count, then length + data per field.
    want.extend_from_slice(b"\x00\x09");
    want.extend_from_slice(b"\x00\x00\x00\x04\x00\x00\x00\x01");
    want.extend_from_slice(b"\x00\x00\x00\x08\xff\xff\xff\xff\xff\xff\xff\xfe");
    want.extend_from_slice(b"\x00\x00\x00\x03h\xc3\xa9");
    // numeric: ndigits 3, weight 1, sign negative, dscale 3, digits 1 2345 6780.
    want.extend_from_slice(
        b"\x00\x00\x00\x0e\x00\x03\x00\x01\x40\x00\x00\x03\x00\x01\x09\x29\x1a\x7c",
    );
    // timestamp: microseconds since 2000-01-01.
    want.extend_from_slice(b"\x00\x00\x00\x08\x00\x00\x00\x00\x00\x16\xe3\x60");
    want.extend_from_slice(b"\x00\x00\x00\x01\x01");
    // date: days since 2000-01-01.
    want.extend_from_slice(b"\x00\x00\x00\x04\x00\x00\x00\x01");
    want.extend_from_slice(b"\x00\x00\x00\x08\x3f\xf8\x00\x00\x00\x00\x00\x00");
    want.extend_from_slice(b"\x00\x00\x00\x02\x00\x07");
    // Row 2: every field NULL (length -1, no data).
    want.extend_from_slice(b"\x00\x09");
    for _ in 0..9 {
        want.extend_from_slice(b"\xff\xff\xff\xff");
    }
    // Trailer.
    want.extend_from_slice(b"\xff\xff");
    assert_eq!(out, want);

    // A query with no rows: header and trailer only.
    assert_eq!(
        copy_out_ok(&c, "COPY (SELECT 1 WHERE false) TO STDOUT (FORMAT binary)").await,
        [BINARY_HEADER, b"\xff\xff"].concat()
    );
    // Legacy spelling.
    assert_eq!(
        copy_out_ok(&c, "COPY (SELECT 258::int) TO STDOUT WITH BINARY").await,
        [
            BINARY_HEADER,
            b"\x00\x01\x00\x00\x00\x04\x00\x00\x01\x02\xff\xff"
        ]
        .concat()
    );
}

#[tokio::test]
async fn copy_binary_in_handmade() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_binary_in_handmade_t;
         CREATE TABLE copy_binary_in_handmade_t (a int, c text, d numeric(8,2), e timestamp);",
    )
    .await;
    let mut data = BINARY_HEADER.to_vec();
    data.extend_from_slice(b"\x00\x04");
    data.extend_from_slice(b"\x00\x00\x00\x04\xff\xff\xff\xfb"); // -5
    data.extend_from_slice(b"\x00\x00\x00\x05hello");
    // 12.5 with dscale 1: ndigits 2, weight 0, sign +, dscale 1, digits 12 5000.
    data.extend_from_slice(b"\x00\x00\x00\x0c\x00\x02\x00\x00\x00\x00\x00\x01\x00\x0c\x13\x88");
    // 2000-01-02 00:00:00 = 86 400 000 000 µs.
    data.extend_from_slice(b"\x00\x00\x00\x08\x00\x00\x00\x14\x1d\xd7\x60\x00");
    data.extend_from_slice(b"\x00\x04");
    data.extend_from_slice(b"\xff\xff\xff\xff");
    data.extend_from_slice(b"\x00\x00\x00\x00"); // empty string
    data.extend_from_slice(b"\xff\xff\xff\xff");
    data.extend_from_slice(b"\xff\xff\xff\xff");
    data.extend_from_slice(b"\xff\xff");
    let n = copy_in(
        &c,
        "COPY copy_binary_in_handmade_t FROM STDIN (FORMAT binary)",
        &data,
    )
    .await
    .expect("copy");
    assert_eq!(n, 2);
    assert_eq!(
        rows(
            &c,
            "SELECT a, c, d, e FROM copy_binary_in_handmade_t ORDER BY a NULLS LAST"
        )
        .await,
        vec!["-5|hello|12.50|2000-01-02 00:00:00", "∅||∅|∅"]
    );
    // Data after the trailer is not read; a missing trailer (end of data) is fine.
    let mut no_trailer = BINARY_HEADER.to_vec();
    no_trailer.extend_from_slice(b"\x00\x04\x00\x00\x00\x04\x00\x00\x00\x07");
    no_trailer.extend_from_slice(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff");
    let n = copy_in(
        &c,
        "COPY copy_binary_in_handmade_t FROM STDIN (FORMAT binary)",
        &no_trailer,
    )
    .await
    .expect("no trailer");
    assert_eq!(n, 1);
    // A column list: fields in its order.
    let mut listed = BINARY_HEADER.to_vec();
    listed.extend_from_slice(b"\x00\x02\x00\x00\x00\x02hi\x00\x00\x00\x04\x00\x00\x00\x08\xff\xff");
    let n = copy_in(
        &c,
        "COPY copy_binary_in_handmade_t (c, a) FROM STDIN (FORMAT binary)",
        &listed,
    )
    .await
    .expect("column list");
    assert_eq!(n, 1);
    assert_eq!(
        rows(
            &c,
            "SELECT a, c FROM copy_binary_in_handmade_t WHERE a > 0 ORDER BY a"
        )
        .await,
        vec!["7|∅", "8|hi"]
    );
}

#[tokio::test]
async fn copy_binary_round_trip() {
    let t = Target::new();
    let c = t.connect().await;
    let cols = "(a int, b bigint, c text, d numeric, e timestamp, f bool, g date, h float8,
                 i smallint, j real, k varchar(10), l char(3), m interval, n timestamptz,
                 o int[], p text[], q numeric(12,4))";
    setup(
        &c,
        &format!(
            "DROP TABLE IF EXISTS copy_binary_round_trip_src;
             DROP TABLE IF EXISTS copy_binary_round_trip_dst;
             CREATE TABLE copy_binary_round_trip_src {cols};
             CREATE TABLE copy_binary_round_trip_dst {cols};"
        ),
    )
    .await;
    setup(
        &c,
        "INSERT INTO copy_binary_round_trip_src VALUES
                 (1, 9223372036854775807, 'tab\there ☃', 0.000001, '1999-12-31 23:59:59.999999',
                  false, '1900-03-04', '-0', -32768, 3.25, 'vc', 'ab', '1 mon -2 days 03:00',
                  '2024-06-01 12:00:00+00', '{{1,2},{NULL,4}}', '{\"a,b\",NULL,\"\"}', 98765432.1),
                 (2, -1, '', '-12.345', 'infinity', true, '-infinity', 'Infinity', 0, -1e-10, '', '',
                  '-1 year', '-infinity', '{}', '{x}', -0.0001),
                 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                  NULL, NULL, NULL),
                 (4, 0, 'x', 1e20, '2024-02-29 00:00:00', true, '2024-02-29', 1e-300, 1, 1e30, 'x',
                  'xyz', '0', '1970-01-01 00:00:00+00', '[0:1]={5,6}', '{}', 0);",
    )
    .await;
    let binary = copy_out_ok(
        &c,
        "COPY copy_binary_round_trip_src TO STDOUT (FORMAT binary)",
    )
    .await;
    assert!(binary.starts_with(BINARY_HEADER));
    assert!(binary.ends_with(b"\xff\xff"));
    let n = copy_in(
        &c,
        "COPY copy_binary_round_trip_dst FROM STDIN (FORMAT binary)",
        &binary,
    )
    .await
    .expect("copy in");
    assert_eq!(n, 4);
    let src = copy_out_str(
        &c,
        "COPY (SELECT * FROM copy_binary_round_trip_src ORDER BY a) TO STDOUT",
    )
    .await;
    let dst = copy_out_str(
        &c,
        "COPY (SELECT * FROM copy_binary_round_trip_dst ORDER BY a) TO STDOUT",
    )
    .await;
    assert_eq!(src, dst);
    assert_eq!(src.lines().count(), 4);
    assert_eq!(
        copy_out_ok(
            &c,
            "COPY copy_binary_round_trip_dst TO STDOUT (FORMAT binary)"
        )
        .await,
        binary
    );
    // The text form of the interesting values, once.
    assert_eq!(
        src.lines().next().unwrap(),
        "1\t9223372036854775807\ttab\\there ☃\t0.000001\t1999-12-31 23:59:59.999999\tf\t1900-03-04\t-0\t-32768\t3.25\tvc\tab \t1 mon -2 days +03:00:00\t2024-06-01 12:00:00+00\t{{1,2},{NULL,4}}\t{\"a,b\",NULL,\"\"}\t98765432.1000"
    );
}

#[tokio::test]
async fn copy_binary_in_errors() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_binary_in_errors_t;
         CREATE TABLE copy_binary_in_errors_t (a int, b text);",
    )
    .await;
    let sql = "COPY copy_binary_in_errors_t FROM STDIN (FORMAT binary)";
    let e = copy_in(&c, sql, b"1\tx\n").await.unwrap_err();
    assert_error(&e, "22P04", "COPY file signature not recognized", None);
    let mut wrong_count = BINARY_HEADER.to_vec();
    wrong_count.extend_from_slice(b"\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01\xff\xff");
    let e = copy_in(&c, sql, &wrong_count).await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "row field count is 1, expected 2",
        Some("COPY copy_binary_in_errors_t, line 1"),
    );
    // A field whose length does not fit its type.
    let mut bad_int = BINARY_HEADER.to_vec();
    bad_int.extend_from_slice(b"\x00\x02\x00\x00\x00\x02\x00\x01\xff\xff\xff\xff\xff\xff");
    let e = copy_in(&c, sql, &bad_int).await.unwrap_err();
    assert_error(
        &e,
        "08P01",
        "insufficient data left in message",
        Some("COPY copy_binary_in_errors_t, line 1, column a"),
    );
    let mut long_int = BINARY_HEADER.to_vec();
    long_int
        .extend_from_slice(b"\x00\x02\x00\x00\x00\x05\x00\x00\x00\x01\x02\xff\xff\xff\xff\xff\xff");
    let e = copy_in(&c, sql, &long_int).await.unwrap_err();
    assert_error(
        &e,
        "22P03",
        "incorrect binary data format",
        Some("COPY copy_binary_in_errors_t, line 1, column a"),
    );
    // Ends in the middle of a row.
    let mut truncated = BINARY_HEADER.to_vec();
    truncated.extend_from_slice(b"\x00\x02\x00\x00\x00\x04\x00\x00");
    let e = copy_in(&c, sql, &truncated).await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "unexpected EOF in COPY data",
        Some("COPY copy_binary_in_errors_t, line 1, column a"),
    );
    assert_eq!(count(&c, "copy_binary_in_errors_t").await, 0);
}

// ---------------------------------------------------------------------------------------
// Errors in the data
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn copy_error_extra_data() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_extra_data_t;
         CREATE TABLE copy_error_extra_data_t (a int, b text);",
    )
    .await;
    let e = copy_in(
        &c,
        "COPY copy_error_extra_data_t FROM STDIN",
        b"1\tx\n2\ty\tz\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "extra data after last expected column",
        Some("COPY copy_error_extra_data_t, line 2: \"2\ty\tz\""),
    );
    let e = copy_in(
        &c,
        "COPY copy_error_extra_data_t FROM STDIN (FORMAT csv)",
        b"1,x,\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "extra data after last expected column",
        Some("COPY copy_error_extra_data_t, line 1: \"1,x,\""),
    );
    // Too many fields is found before any field is converted.
    let e = copy_in(&c, "COPY copy_error_extra_data_t FROM STDIN", b"zz\tx\ty\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "extra data after last expected column",
        Some("COPY copy_error_extra_data_t, line 1: \"zz\tx\ty\""),
    );
    // The line shown is cut at 100 bytes (on a character boundary) with "...".
    let mut long = b"1\tx\n2\t".to_vec();
    long.extend_from_slice("é".repeat(200).as_bytes());
    long.extend_from_slice(b"\tz\n");
    let e = copy_in(&c, "COPY copy_error_extra_data_t FROM STDIN", &long)
        .await
        .unwrap_err();
    let context = format!(
        "COPY copy_error_extra_data_t, line 2: \"2\t{}...\"",
        "é".repeat(49)
    );
    assert_error(
        &e,
        "22P04",
        "extra data after last expected column",
        Some(&context),
    );
    assert_eq!(count(&c, "copy_error_extra_data_t").await, 0);
}

#[tokio::test]
async fn copy_error_missing_data() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_missing_data_t;
         CREATE TABLE copy_error_missing_data_t (a int, b text, c text);",
    )
    .await;
    let e = copy_in(
        &c,
        "COPY copy_error_missing_data_t FROM STDIN",
        b"1\tx\ty\n2\ty\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "missing data for column \"c\"",
        Some("COPY copy_error_missing_data_t, line 2: \"2\ty\""),
    );
    // An empty line is one empty field. Columns are converted one by one, each after the
    // check that its field exists: here the conversion of a fails before b is missed.
    let e = copy_in(&c, "COPY copy_error_missing_data_t FROM STDIN", b"\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"\"",
        Some("COPY copy_error_missing_data_t, line 1, column a: \"\""),
    );
    let e = copy_in(
        &c,
        "COPY copy_error_missing_data_t (b, c, a) FROM STDIN",
        b"\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "missing data for column \"c\"",
        Some("COPY copy_error_missing_data_t, line 1: \"\""),
    );
    let e = copy_in(
        &c,
        "COPY copy_error_missing_data_t (c, a) FROM STDIN (FORMAT csv)",
        b"x,1\ny\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P04",
        "missing data for column \"a\"",
        Some("COPY copy_error_missing_data_t, line 2: \"y\""),
    );
    assert_eq!(count(&c, "copy_error_missing_data_t").await, 0);
}

#[tokio::test]
async fn copy_error_invalid_input() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_invalid_input_t;
         CREATE TABLE copy_error_invalid_input_t (a int, b text, d date);",
    )
    .await;
    let sql = "COPY copy_error_invalid_input_t FROM STDIN";
    let e = copy_in(&c, sql, b"1\tx\t2024-01-01\nzz\ty\t2024-01-01\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"zz\"",
        Some("COPY copy_error_invalid_input_t, line 2, column a: \"zz\""),
    );
    // An empty field is the empty string, not NULL.
    let e = copy_in(&c, sql, b"\tx\t2024-01-01\n").await.unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"\"",
        Some("COPY copy_error_invalid_input_t, line 1, column a: \"\""),
    );
    let e = copy_in(&c, sql, b"99999999999\tx\t2024-01-01\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22003",
        "value \"99999999999\" is out of range for type integer",
        Some("COPY copy_error_invalid_input_t, line 1, column a: \"99999999999\""),
    );
    let e = copy_in(&c, sql, b"1\tx\t2024-02-30\n").await.unwrap_err();
    assert_error(
        &e,
        "22008",
        "date/time field value out of range: \"2024-02-30\"",
        Some("COPY copy_error_invalid_input_t, line 1, column d: \"2024-02-30\""),
    );
    // The value shown is the de-escaped one.
    let e = copy_in(&c, sql, b"\\x41\tx\t2024-01-01\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"A\"",
        Some("COPY copy_error_invalid_input_t, line 1, column a: \"A\""),
    );
    // CSV names the line and column the same way.
    let e = copy_in(
        &c,
        "COPY copy_error_invalid_input_t FROM STDIN (FORMAT csv)",
        b"1,x,2024-01-01\n2,y,\"not a date\"\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22007",
        "invalid input syntax for type date: \"not a date\"",
        Some("COPY copy_error_invalid_input_t, line 2, column d: \"not a date\""),
    );
    // A NUL byte from an escape is not valid text.
    let e = copy_in(&c, sql, b"1\ta\\0b\t2024-01-01\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22021",
        "invalid byte sequence for encoding \"UTF8\": 0x00",
        Some("COPY copy_error_invalid_input_t, line 1: \"1\ta\\0b\t2024-01-01\""),
    );
    assert_eq!(count(&c, "copy_error_invalid_input_t").await, 0);
}

#[tokio::test]
async fn copy_error_value_too_long() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_value_too_long_t;
         CREATE TABLE copy_error_value_too_long_t (a int, v varchar(3), ch char(2));",
    )
    .await;
    let sql = "COPY copy_error_value_too_long_t FROM STDIN";
    let e = copy_in(&c, sql, b"1\tabc\tx\n2\tabcd\tx\n")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "22001",
        "value too long for type character varying(3)",
        Some("COPY copy_error_value_too_long_t, line 2, column v: \"abcd\""),
    );
    let e = copy_in(&c, sql, b"1\tabc\txyz\n").await.unwrap_err();
    assert_error(
        &e,
        "22001",
        "value too long for type character(2)",
        Some("COPY copy_error_value_too_long_t, line 1, column ch: \"xyz\""),
    );
    // Excess trailing spaces are silently cut, as on INSERT.
    assert_eq!(
        copy_in(&c, sql, b"3\tab     \tx   \n")
            .await
            .expect("spaces"),
        1
    );
    assert_eq!(
        rows(
            &c,
            "SELECT a, v, length(v), ch FROM copy_error_value_too_long_t"
        )
        .await,
        vec!["3|ab |3|x "]
    );
}

#[tokio::test]
async fn copy_error_not_null() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_not_null_t;
         CREATE TABLE copy_error_not_null_t (a int, b text NOT NULL, c int);",
    )
    .await;
    let e = copy_in(
        &c,
        "COPY copy_error_not_null_t FROM STDIN",
        b"1\tx\t1\n2\t\\N\t2\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "23502",
        "null value in column \"b\" of relation \"copy_error_not_null_t\" violates not-null constraint",
        Some("COPY copy_error_not_null_t, line 2: \"2\t\\N\t2\""),
    );
    let db = e.as_db_error().unwrap();
    assert_eq!(db.detail(), Some("Failing row contains (2, null, 2)."));
    assert_eq!(db.table(), Some("copy_error_not_null_t"));
    assert_eq!(db.column(), Some("b"));
    // An omitted column without a default is NULL too.
    let e = copy_in(
        &c,
        "COPY copy_error_not_null_t (a, c) FROM STDIN (FORMAT csv)",
        b"1,1\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "23502",
        "null value in column \"b\" of relation \"copy_error_not_null_t\" violates not-null constraint",
        Some("COPY copy_error_not_null_t, line 1: \"1,1\""),
    );
    assert_eq!(count(&c, "copy_error_not_null_t").await, 0);
}

#[tokio::test]
async fn copy_error_unique() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_unique_t;
         CREATE TABLE copy_error_unique_t (a int PRIMARY KEY, b text);
         INSERT INTO copy_error_unique_t VALUES (5, 'old');",
    )
    .await;
    let sql = "COPY copy_error_unique_t FROM STDIN";
    // Against an existing row. The context names the line but does not quote it.
    let e = copy_in(&c, sql, b"1\tx\n2\ty\n5\tz\n").await.unwrap_err();
    assert_error(
        &e,
        "23505",
        "duplicate key value violates unique constraint \"copy_error_unique_t_pkey\"",
        Some("COPY copy_error_unique_t, line 3"),
    );
    let db = e.as_db_error().unwrap();
    assert_eq!(db.detail(), Some("Key (a)=(5) already exists."));
    assert_eq!(db.constraint(), Some("copy_error_unique_t_pkey"));
    // Within the same COPY.
    let e = copy_in(&c, sql, b"1\tx\n1\ty\n").await.unwrap_err();
    assert_error(
        &e,
        "23505",
        "duplicate key value violates unique constraint \"copy_error_unique_t_pkey\"",
        Some("COPY copy_error_unique_t, line 2"),
    );
    assert_eq!(
        rows(&c, "SELECT * FROM copy_error_unique_t").await,
        vec!["5|old"]
    );
}

#[tokio::test]
async fn copy_error_unterminated_csv() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_unterminated_csv_t;
         CREATE TABLE copy_error_unterminated_csv_t (a int, b text);",
    )
    .await;
    let sql = "COPY copy_error_unterminated_csv_t FROM STDIN (FORMAT csv)";
    let e = copy_in(&c, sql, b"1,x\n2,\"ab\n").await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "unterminated CSV quoted field",
        Some("COPY copy_error_unterminated_csv_t, line 3: \"2,\"ab\n\""),
    );
    let e = copy_in(&c, sql, b"1,\"ab").await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "unterminated CSV quoted field",
        Some("COPY copy_error_unterminated_csv_t, line 1: \"1,\"ab\""),
    );
    // `\.` inside an open quote is data, so the field stays unterminated. Newlines inside
    // quotes count as lines only once the first line's end has set the newline style: on
    // the first record they do not.
    let e = copy_in(&c, sql, b"1,\"ab\n\\.\n").await.unwrap_err();
    assert_error(
        &e,
        "22P04",
        "unterminated CSV quoted field",
        Some("COPY copy_error_unterminated_csv_t, line 1: \"1,\"ab\n\\.\n\""),
    );
    assert_eq!(count(&c, "copy_error_unterminated_csv_t").await, 0);
}

#[tokio::test]
async fn copy_error_client_abort() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_client_abort_t;
         CREATE TABLE copy_error_client_abort_t (a int);",
    )
    .await;
    // Dropping the sink without finish() sends CopyFail: nothing is loaded and the
    // session carries on.
    {
        let sink = c
            .copy_in::<_, Bytes>("COPY copy_error_client_abort_t FROM STDIN")
            .await
            .expect("copy in");
        futures_util::pin_mut!(sink);
        sink.send(Bytes::from_static(b"1\n2\n"))
            .await
            .expect("send");
        sink.flush().await.expect("flush");
    }
    assert_eq!(count(&c, "copy_error_client_abort_t").await, 0);
    // Inside a transaction the CopyFail error aborts it.
    setup(&c, "BEGIN").await;
    {
        let sink = c
            .copy_in::<_, Bytes>("COPY copy_error_client_abort_t FROM STDIN")
            .await
            .expect("copy in");
        futures_util::pin_mut!(sink);
        sink.send(Bytes::from_static(b"3\n")).await.expect("send");
    }
    let e = c.simple_query("SELECT 1").await.unwrap_err();
    assert_error(
        &e,
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
        None,
    );
    setup(&c, "ROLLBACK").await;
    assert_eq!(count(&c, "copy_error_client_abort_t").await, 0);
}

// ---------------------------------------------------------------------------------------
// Errors in the statement
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn copy_error_bad_target() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_bad_target_t;
         CREATE TABLE copy_error_bad_target_t (a int, b text);",
    )
    .await;
    let cases = [
        (
            "COPY copy_error_bad_target_nosuch FROM STDIN",
            "42P01",
            "relation \"copy_error_bad_target_nosuch\" does not exist",
        ),
        (
            "COPY copy_error_bad_target_nosuch TO STDOUT",
            "42P01",
            "relation \"copy_error_bad_target_nosuch\" does not exist",
        ),
        (
            "COPY copy_error_bad_target_t (a, q) FROM STDIN",
            "42703",
            "column \"q\" of relation \"copy_error_bad_target_t\" does not exist",
        ),
        (
            "COPY copy_error_bad_target_t (q) TO STDOUT",
            "42703",
            "column \"q\" of relation \"copy_error_bad_target_t\" does not exist",
        ),
        (
            "COPY copy_error_bad_target_t (a, a) FROM STDIN",
            "42701",
            "column \"a\" specified more than once",
        ),
        (
            "COPY (SELECT nosuch FROM copy_error_bad_target_t) TO STDOUT",
            "42703",
            "column \"nosuch\" does not exist",
        ),
        (
            "COPY (INSERT INTO copy_error_bad_target_t VALUES (1)) TO STDOUT",
            "0A000",
            "COPY query must have a RETURNING clause",
        ),
    ];
    for (sql, sqlstate, message) in cases {
        let e = copy_err(&t, &c, sql).await;
        assert_error(&e, sqlstate, message, None);
    }
    // COPY (query) FROM is a syntax error.
    let e = c
        .copy_in::<_, Bytes>("COPY (SELECT 1) FROM STDIN")
        .await
        .err()
        .expect("syntax error");
    assert_error(&e, "42601", "syntax error at or near \"FROM\"", None);
    assert_eq!(
        e.as_db_error().unwrap().position(),
        Some(&ErrorPosition::Original(17))
    );
    assert_eq!(count(&c, "copy_error_bad_target_t").await, 0);
}

#[tokio::test]
async fn copy_error_options() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_options_t;
         CREATE TABLE copy_error_options_t (a int, b text);",
    )
    .await;
    let cases = [
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT foo)",
            "22023",
            "COPY format \"foo\" not recognized",
            Some("FORMAT foo"),
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, FORMAT csv)",
            "42601",
            "conflicting or redundant options",
            Some("FORMAT csv)"),
        ),
        (
            "COPY copy_error_options_t FROM STDIN (NULL 'a', NULL 'b')",
            "42601",
            "conflicting or redundant options",
            Some("NULL 'b'"),
        ),
        (
            "COPY copy_error_options_t TO STDOUT (BOGUS 1)",
            "42601",
            "option \"bogus\" not recognized",
            Some("BOGUS 1"),
        ),
        (
            "COPY copy_error_options_t TO STDOUT (DELIMITER '||')",
            "0A000",
            "COPY delimiter must be a single one-byte character",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (DELIMITER '')",
            "0A000",
            "COPY delimiter must be a single one-byte character",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (DELIMITER '\\')",
            "22023",
            "COPY delimiter cannot be \"\\\"",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (DELIMITER 'a')",
            "22023",
            "COPY delimiter cannot be \"a\"",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (DELIMITER E'\\n')",
            "22023",
            "COPY delimiter cannot be newline or carriage return",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (QUOTE '\"')",
            "0A000",
            "COPY quote available only in CSV mode",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (ESCAPE '\\')",
            "0A000",
            "COPY escape available only in CSV mode",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, ESCAPE 'ab')",
            "0A000",
            "COPY escape must be a single one-byte character",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, DELIMITER '\"')",
            "22023",
            "COPY delimiter and quote must be different",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORCE_QUOTE (a))",
            "0A000",
            "COPY force quote available only in CSV mode",
            None,
        ),
        (
            "COPY copy_error_options_t FROM STDIN (FORMAT csv, FORCE_QUOTE (a))",
            "0A000",
            "COPY force quote only available using COPY TO",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))",
            "0A000",
            "COPY force not null only available using COPY FROM",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, FORCE_NULL (a))",
            "0A000",
            "COPY force null only available using COPY FROM",
            None,
        ),
        (
            "COPY copy_error_options_t FROM STDIN (FORMAT csv, FORCE_NULL *)",
            "22023",
            "argument to option \"force_null\" must be a list of column names",
            Some("FORCE_NULL *"),
        ),
        (
            "COPY copy_error_options_t (a) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (b))",
            "42P10",
            "FORCE_NOT_NULL column \"b\" not referenced by COPY",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, FORCE_QUOTE (zz))",
            "42703",
            "column \"zz\" of relation \"copy_error_options_t\" does not exist",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT binary, HEADER)",
            "0A000",
            "cannot specify HEADER in BINARY mode",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT binary, DELIMITER ',')",
            "42601",
            "cannot specify DELIMITER in BINARY mode",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT binary, NULL 'x')",
            "42601",
            "cannot specify NULL in BINARY mode",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, HEADER MATCH)",
            "0A000",
            "cannot use \"match\" with HEADER in COPY TO",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (HEADER foo)",
            "42601",
            "header requires a Boolean value or \"match\"",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (NULL E'a\\tb')",
            "0A000",
            "COPY delimiter must not appear in the NULL specification",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, NULL 'a,b')",
            "0A000",
            "COPY delimiter must not appear in the NULL specification",
            None,
        ),
        (
            "COPY copy_error_options_t TO STDOUT (FORMAT csv, NULL '\"')",
            "0A000",
            "CSV quote character must not appear in the NULL specification",
            None,
        ),
    ];
    // The cursor position, where given, points at the offending option.
    for (sql, sqlstate, message, at) in cases {
        let e = copy_err(&t, &c, sql).await;
        assert_error(&e, sqlstate, message, None);
        let position = at.map(|at| ErrorPosition::Original(sql.rfind(at).unwrap() as u32 + 1));
        assert_eq!(
            e.as_db_error().unwrap().position(),
            position.as_ref(),
            "{sql}"
        );
    }
}

#[tokio::test]
async fn copy_error_view() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP VIEW IF EXISTS copy_error_view_v;
         DROP TABLE IF EXISTS copy_error_view_t;
         CREATE TABLE copy_error_view_t (a int);
         INSERT INTO copy_error_view_t VALUES (1);
         CREATE VIEW copy_error_view_v AS SELECT a FROM copy_error_view_t;",
    )
    .await;
    let e = copy_err(&t, &c, "COPY copy_error_view_v TO STDOUT").await;
    assert_error(
        &e,
        "42809",
        "cannot copy from view \"copy_error_view_v\"",
        None,
    );
    assert_eq!(
        e.as_db_error().unwrap().hint(),
        Some("Try the COPY (SELECT ...) TO variant.")
    );
    let e = copy_err(&t, &c, "COPY copy_error_view_v FROM STDIN").await;
    assert_error(
        &e,
        "42809",
        "cannot copy to view \"copy_error_view_v\"",
        None,
    );
    assert_eq!(
        e.as_db_error().unwrap().hint(),
        Some("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
    );
    // The suggested variant works.
    assert_eq!(
        copy_out_str(&c, "COPY (SELECT * FROM copy_error_view_v) TO STDOUT").await,
        "1\n"
    );
}

#[tokio::test]
async fn copy_error_read_only() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_error_read_only_t;
         CREATE TABLE copy_error_read_only_t (a int);
         INSERT INTO copy_error_read_only_t VALUES (1);",
    )
    .await;
    setup(&c, "BEGIN READ ONLY").await;
    // COPY TO is allowed.
    assert_eq!(
        copy_out_str(&c, "COPY copy_error_read_only_t TO STDOUT").await,
        "1\n"
    );
    // The simple query protocol, to stay in this session (see copy_err); the statement
    // fails before any CopyInResponse.
    let e = c
        .batch_execute("COPY copy_error_read_only_t FROM STDIN")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "25006",
        "cannot execute COPY FROM in a read-only transaction",
        None,
    );
    let e = c.simple_query("SELECT 1").await.unwrap_err();
    assert_eq!(code(&e), Some("25P02"));
    setup(&c, "ROLLBACK").await;
    setup(&c, "SET default_transaction_read_only = on").await;
    let e = c
        .batch_execute("COPY copy_error_read_only_t FROM STDIN (FORMAT csv)")
        .await
        .unwrap_err();
    assert_error(
        &e,
        "25006",
        "cannot execute COPY FROM in a read-only transaction",
        None,
    );
    setup(&c, "RESET default_transaction_read_only").await;
    // Through the extended protocol (tokio-postgres' copy_in) too.
    let fresh = t.connect().await;
    setup(&fresh, "SET default_transaction_read_only = on").await;
    let e = copy_in(&fresh, "COPY copy_error_read_only_t FROM STDIN", b"2\n")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("25006"));
    assert_eq!(count(&c, "copy_error_read_only_t").await, 1);
}

#[tokio::test]
async fn copy_generated_column() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_generated_column_t;
         CREATE TABLE copy_generated_column_t (a int, g int GENERATED ALWAYS AS (a * 2) STORED, b text);",
    )
    .await;
    // Without a column list COPY FROM skips the generated column and computes it.
    let n = copy_in(
        &c,
        "COPY copy_generated_column_t FROM STDIN",
        b"1\tx\n2\ty\n",
    )
    .await
    .expect("copy");
    assert_eq!(n, 2);
    assert_eq!(
        rows(&c, "SELECT * FROM copy_generated_column_t ORDER BY a").await,
        vec!["1|2|x", "2|4|y"]
    );
    // COPY TO leaves it out too.
    assert_eq!(
        copy_out_str(
            &c,
            "COPY copy_generated_column_t TO STDOUT (FORMAT csv, HEADER)"
        )
        .await
        .lines()
        .next(),
        Some("a,b")
    );
    for sql in [
        "COPY copy_generated_column_t (a, g) FROM STDIN",
        "COPY copy_generated_column_t (g) TO STDOUT",
    ] {
        let e = copy_err(&t, &c, sql).await;
        assert_error(&e, "42P10", "column \"g\" is a generated column", None);
        assert_eq!(
            e.as_db_error().unwrap().detail(),
            Some("Generated columns cannot be used in COPY."),
            "{sql}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Volume and transactions
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn copy_large_load() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_large_load_t;
         CREATE TABLE copy_large_load_t (a int, b text, c float8);",
    )
    .await;
    let mut data = Vec::new();
    for i in 1..=100_000u32 {
        let b = if i % 7 == 0 {
            "\\N".to_string()
        } else {
            format!("row {i}\\tx")
        };
        data.extend_from_slice(format!("{i}\t{b}\t{}.5\n", i % 1000).as_bytes());
    }
    let n = copy_in_chunked(&c, "COPY copy_large_load_t FROM STDIN", &data, 8191)
        .await
        .expect("copy");
    assert_eq!(n, 100_000);
    assert_eq!(
        rows(
            &c,
            "SELECT count(*), sum(a), count(b), sum(c), max(b) FROM copy_large_load_t"
        )
        .await,
        vec!["100000|5000050000|85715|50000000|row 99999\tx"]
    );
    assert_eq!(
        copy_out_ok(&c, "COPY copy_large_load_t TO STDOUT")
            .await
            .len(),
        data.len()
    );
    assert!(copy_out_ok(&c, "COPY copy_large_load_t TO STDOUT").await == data);
}

#[tokio::test]
async fn copy_in_transaction_rollback() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_in_transaction_rollback_t;
         CREATE TABLE copy_in_transaction_rollback_t (a int);
         INSERT INTO copy_in_transaction_rollback_t VALUES (0);",
    )
    .await;
    setup(&c, "BEGIN").await;
    let n = copy_in(
        &c,
        "COPY copy_in_transaction_rollback_t FROM STDIN",
        b"1\n2\n",
    )
    .await
    .expect("copy");
    assert_eq!(n, 2);
    // The same transaction sees the rows; another session does not.
    assert_eq!(count(&c, "copy_in_transaction_rollback_t").await, 3);
    let other = t.connect().await;
    assert_eq!(count(&other, "copy_in_transaction_rollback_t").await, 1);
    setup(&c, "ROLLBACK").await;
    assert_eq!(
        rows(&c, "SELECT a FROM copy_in_transaction_rollback_t").await,
        vec!["0"]
    );
    // Committed: visible to everyone, together with a later statement's change.
    setup(&c, "BEGIN").await;
    copy_in(
        &c,
        "COPY copy_in_transaction_rollback_t FROM STDIN",
        b"3\n4\n",
    )
    .await
    .expect("copy");
    setup(
        &c,
        "UPDATE copy_in_transaction_rollback_t SET a = a * 10 WHERE a > 3",
    )
    .await;
    setup(&c, "COMMIT").await;
    assert_eq!(
        rows(
            &other,
            "SELECT a FROM copy_in_transaction_rollback_t ORDER BY a"
        )
        .await,
        vec!["0", "3", "40"]
    );
}

#[tokio::test]
async fn copy_failure_in_transaction_aborts_it() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_failure_in_transaction_aborts_it_t;
         CREATE TABLE copy_failure_in_transaction_aborts_it_t (a int);",
    )
    .await;
    setup(
        &c,
        "BEGIN; INSERT INTO copy_failure_in_transaction_aborts_it_t VALUES (1)",
    )
    .await;
    let e = copy_in(
        &c,
        "COPY copy_failure_in_transaction_aborts_it_t FROM STDIN",
        b"2\nx\n",
    )
    .await
    .unwrap_err();
    assert_error(
        &e,
        "22P02",
        "invalid input syntax for type integer: \"x\"",
        Some("COPY copy_failure_in_transaction_aborts_it_t, line 2, column a: \"x\""),
    );
    let e = c
        .simple_query("SELECT count(*) FROM copy_failure_in_transaction_aborts_it_t")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("25P02"));
    let e = copy_in(
        &c,
        "COPY copy_failure_in_transaction_aborts_it_t FROM STDIN",
        b"3\n",
    )
    .await
    .unwrap_err();
    assert_eq!(code(&e), Some("25P02"));
    // COMMIT of an aborted transaction rolls back.
    let done = c.simple_query("COMMIT").await.expect("commit");
    assert!(matches!(
        done.last(),
        Some(SimpleQueryMessage::CommandComplete(0))
    ));
    assert_eq!(
        count(&c, "copy_failure_in_transaction_aborts_it_t").await,
        0
    );
    // A failed COPY outside a transaction block loads nothing, even rows before the bad one.
    let e = copy_in(
        &c,
        "COPY copy_failure_in_transaction_aborts_it_t FROM STDIN",
        b"4\n5\n\\N\nbad\n",
    )
    .await
    .unwrap_err();
    assert_eq!(code(&e), Some("22P02"));
    assert_eq!(
        count(&c, "copy_failure_in_transaction_aborts_it_t").await,
        0
    );
}

// ---------------------------------------------------------------------------------------
// The protocol, byte by byte (simple query protocol; trust authentication)
// ---------------------------------------------------------------------------------------

/// A bare protocol-3.0 connection, for what tokio-postgres does not show: CopyInResponse
/// and CopyOutResponse contents, command tags of COPY, CopyFail with a message.
struct Raw {
    stream: TcpStream,
}

impl Raw {
    async fn connect(url: &str) -> Raw {
        let mut params: HashMap<&str, &str> = HashMap::new();
        for pair in url.split_whitespace() {
            if let Some((k, v)) = pair.split_once('=') {
                params.insert(k, v);
            }
        }
        let host = params.get("host").copied().unwrap_or("127.0.0.1");
        let port: u16 = params
            .get("port")
            .map_or(5432, |p| p.parse().expect("port"));
        let user = params.get("user").copied().unwrap_or("postgres");
        let dbname = params.get("dbname").copied().unwrap_or(user);
        let stream = TcpStream::connect((host, port)).await.expect("connect");
        let mut raw = Raw { stream };
        let mut body = 196608u32.to_be_bytes().to_vec();
        for (k, v) in [("user", user), ("database", dbname)] {
            body.extend_from_slice(k.as_bytes());
            body.push(0);
            body.extend_from_slice(v.as_bytes());
            body.push(0);
        }
        body.push(0);
        let mut msg = ((body.len() + 4) as u32).to_be_bytes().to_vec();
        msg.extend_from_slice(&body);
        raw.stream.write_all(&msg).await.expect("startup");
        for (tag, body) in raw.until_ready().await {
            match tag {
                b'R' => assert_eq!(body, [0, 0, 0, 0], "only trust authentication"),
                b'E' => panic!("startup failed: {:?}", error_fields(&body)),
                _ => {}
            }
        }
        raw
    }

    async fn send(&mut self, tag: u8, body: &[u8]) {
        let mut msg = vec![tag];
        msg.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
        msg.extend_from_slice(body);
        self.stream.write_all(&msg).await.expect("send");
    }

    async fn query(&mut self, sql: &str) {
        let mut body = sql.as_bytes().to_vec();
        body.push(0);
        self.send(b'Q', &body).await;
    }

    async fn recv(&mut self) -> (u8, Vec<u8>) {
        tokio::time::timeout(Duration::from_secs(10), async {
            let tag = self.stream.read_u8().await.expect("tag");
            let len = self.stream.read_u32().await.expect("length") as usize;
            let mut body = vec![0; len - 4];
            self.stream.read_exact(&mut body).await.expect("body");
            (tag, body)
        })
        .await
        .expect("a message within 10 s")
    }

    /// Messages up to and including ReadyForQuery, skipping notices and parameter status.
    async fn until_ready(&mut self) -> Vec<(u8, Vec<u8>)> {
        let mut out = Vec::new();
        loop {
            let (tag, body) = self.recv().await;
            if tag == b'N' || tag == b'S' || tag == b'K' {
                continue;
            }
            out.push((tag, body));
            if tag == b'Z' {
                return out;
            }
        }
    }

    /// Messages until (and including) the first with tag `stop`.
    async fn until(&mut self, stop: u8) -> Vec<(u8, Vec<u8>)> {
        let mut out = Vec::new();
        loop {
            let (tag, body) = self.recv().await;
            if tag == b'N' || tag == b'S' {
                continue;
            }
            out.push((tag, body));
            if tag == stop {
                return out;
            }
        }
    }
}

fn error_fields(body: &[u8]) -> HashMap<char, String> {
    body.split(|&b| b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| (f[0] as char, String::from_utf8_lossy(&f[1..]).into_owned()))
        .collect()
}

/// Message tags, with the bodies of CopyData messages joined into one `d` entry.
fn squash(messages: Vec<(u8, Vec<u8>)>) -> Vec<(u8, Vec<u8>)> {
    let mut out: Vec<(u8, Vec<u8>)> = Vec::new();
    for (tag, body) in messages {
        match out.last_mut() {
            Some((b'd', data)) if tag == b'd' => data.extend_from_slice(&body),
            _ => out.push((tag, body)),
        }
    }
    out
}

#[tokio::test]
async fn copy_protocol_copy_out_messages() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_protocol_copy_out_messages_t;
         CREATE TABLE copy_protocol_copy_out_messages_t (a int, b text);
         INSERT INTO copy_protocol_copy_out_messages_t VALUES (1, 'x'), (2, NULL);",
    )
    .await;
    let mut raw = Raw::connect(&t.url).await;
    raw.query("COPY copy_protocol_copy_out_messages_t TO STDOUT")
        .await;
    assert_eq!(
        squash(raw.until_ready().await),
        vec![
            // CopyOutResponse: overall text format, 2 columns, each text.
            (b'H', vec![0, 0, 2, 0, 0, 0, 0]),
            (b'd', b"1\tx\n2\t\\N\n".to_vec()),
            (b'c', vec![]),
            (b'C', b"COPY 2\0".to_vec()),
            (b'Z', b"I".to_vec()),
        ]
    );
    raw.query("COPY (SELECT a FROM copy_protocol_copy_out_messages_t WHERE a = 1) TO STDOUT (FORMAT binary)")
        .await;
    let mut binary = BINARY_HEADER.to_vec();
    binary.extend_from_slice(b"\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01\xff\xff");
    assert_eq!(
        squash(raw.until_ready().await),
        vec![
            (b'H', vec![1, 0, 1, 0, 1]),
            (b'd', binary),
            (b'c', vec![]),
            (b'C', b"COPY 1\0".to_vec()),
            (b'Z', b"I".to_vec()),
        ]
    );
    // CSV is still "text" on the wire.
    raw.query("COPY (SELECT 1 WHERE false) TO STDOUT (FORMAT csv, HEADER)")
        .await;
    assert_eq!(
        squash(raw.until_ready().await),
        vec![
            (b'H', vec![0, 0, 1, 0, 0]),
            (b'd', b"?column?\n".to_vec()),
            (b'c', vec![]),
            (b'C', b"COPY 0\0".to_vec()),
            (b'Z', b"I".to_vec()),
        ]
    );
}

#[tokio::test]
async fn copy_protocol_copy_in_messages() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_protocol_copy_in_messages_t;
         CREATE TABLE copy_protocol_copy_in_messages_t (a int, b text, c bool);",
    )
    .await;
    let mut raw = Raw::connect(&t.url).await;
    raw.query("COPY copy_protocol_copy_in_messages_t (a, b) FROM STDIN")
        .await;
    // CopyInResponse: overall text format, 2 columns (the listed ones), each text.
    assert_eq!(raw.recv().await, (b'G', vec![0, 0, 2, 0, 0, 0, 0]));
    raw.send(b'd', b"1\tx\n2").await;
    raw.send(b'd', b"\ty\n").await;
    raw.send(b'c', b"").await;
    assert_eq!(
        raw.until_ready().await,
        vec![(b'C', b"COPY 2\0".to_vec()), (b'Z', b"I".to_vec())]
    );
    raw.query("COPY copy_protocol_copy_in_messages_t FROM STDIN (FORMAT binary)")
        .await;
    assert_eq!(raw.recv().await, (b'G', vec![1, 0, 3, 0, 1, 0, 1, 0, 1]));
    raw.send(b'd', BINARY_HEADER).await;
    raw.send(b'd', b"\xff\xff").await;
    raw.send(b'c', b"").await;
    assert_eq!(
        raw.until_ready().await,
        vec![(b'C', b"COPY 0\0".to_vec()), (b'Z', b"I".to_vec())]
    );
    // Inside a transaction block ReadyForQuery says so.
    raw.query("BEGIN; COPY copy_protocol_copy_in_messages_t (a) FROM STDIN (FORMAT csv)")
        .await;
    assert_eq!(
        raw.until(b'G').await,
        vec![(b'C', b"BEGIN\0".to_vec()), (b'G', vec![0, 0, 1, 0, 0])]
    );
    raw.send(b'd', b"3\n").await;
    raw.send(b'c', b"").await;
    assert_eq!(
        raw.until_ready().await,
        vec![(b'C', b"COPY 1\0".to_vec()), (b'Z', b"T".to_vec())]
    );
    raw.query("COMMIT").await;
    assert_eq!(
        raw.until_ready().await,
        vec![(b'C', b"COMMIT\0".to_vec()), (b'Z', b"I".to_vec())]
    );
    assert_eq!(
        rows(
            &c,
            "SELECT * FROM copy_protocol_copy_in_messages_t ORDER BY a"
        )
        .await,
        vec!["1|x|∅", "2|y|∅", "3|∅|∅"]
    );
}

#[tokio::test]
async fn copy_protocol_copy_fail() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_protocol_copy_fail_t;
         CREATE TABLE copy_protocol_copy_fail_t (a int);",
    )
    .await;
    let mut raw = Raw::connect(&t.url).await;
    raw.query("COPY copy_protocol_copy_fail_t FROM STDIN").await;
    assert_eq!(raw.recv().await.0, b'G');
    raw.send(b'd', b"1\n2\n").await;
    raw.send(b'f', b"client gave up\0").await;
    let messages = raw.until_ready().await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0].0, b'E');
    let fields = error_fields(&messages[0].1);
    assert_eq!(fields.get(&'S').map(String::as_str), Some("ERROR"));
    assert_eq!(fields.get(&'C').map(String::as_str), Some("57014"));
    assert_eq!(
        fields.get(&'M').map(String::as_str),
        Some("COPY from stdin failed: client gave up")
    );
    assert_eq!(
        fields.get(&'W').map(String::as_str),
        Some("COPY copy_protocol_copy_fail_t, line 3")
    );
    assert_eq!(messages[1], (b'Z', b"I".to_vec()));
    assert_eq!(count(&c, "copy_protocol_copy_fail_t").await, 0);
}

#[tokio::test]
async fn copy_protocol_error_during_copy_in() {
    let t = Target::new();
    let c = t.connect().await;
    setup(
        &c,
        "DROP TABLE IF EXISTS copy_protocol_error_during_copy_in_t;
         CREATE TABLE copy_protocol_error_during_copy_in_t (a int);",
    )
    .await;
    let mut raw = Raw::connect(&t.url).await;
    raw.query("COPY copy_protocol_error_during_copy_in_t FROM STDIN")
        .await;
    assert_eq!(raw.recv().await.0, b'G');
    // After the error the server leaves copy mode: the rest of the data and CopyDone are
    // ignored without further replies.
    raw.send(b'd', b"1\nbad\n").await;
    raw.send(b'd', b"3\n").await;
    raw.send(b'c', b"").await;
    let messages = raw.until_ready().await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    let fields = error_fields(&messages[0].1);
    assert_eq!(fields.get(&'C').map(String::as_str), Some("22P02"));
    assert_eq!(
        fields.get(&'W').map(String::as_str),
        Some("COPY copy_protocol_error_during_copy_in_t, line 2, column a: \"bad\"")
    );
    assert_eq!(messages[1], (b'Z', b"I".to_vec()));
    raw.query("SELECT count(*) FROM copy_protocol_error_during_copy_in_t")
        .await;
    let messages = raw.until_ready().await;
    let tags: Vec<u8> = messages.iter().map(|m| m.0).collect();
    assert_eq!(tags, b"TDCZ".to_vec(), "{messages:?}");
    assert_eq!(messages[1].1, b"\x00\x01\x00\x00\x00\x010".to_vec());
}
