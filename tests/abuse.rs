//! Bad input of every kind: each must end in an error or a clean disconnect, and the
//! server must keep answering other clients afterwards.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::TestServer;

/// A working session still gets the right answer.
async fn still_serves(server: &TestServer) {
    let client = server.connect().await;
    let rows = client
        .simple_query("SELECT 40 + 2")
        .await
        .expect("server still answers");
    let row = rows.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_string)),
        _ => None,
    });
    assert_eq!(row, Some(Some("42".to_string())));
}

fn raw(server: &TestServer) -> TcpStream {
    let s = TcpStream::connect(server.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s
}

/// Reads until the server closes the connection (bounded by the read timeout).
fn drain(mut s: TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
}

fn startup_packet() -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&196608i32.to_be_bytes());
    body.extend_from_slice(b"user\0tester\0database\0test\0\0");
    let mut msg = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    msg.extend_from_slice(&body);
    msg
}

/// Connects and completes startup, returning the stream after ReadyForQuery.
fn started(server: &TestServer) -> TcpStream {
    let mut s = raw(server);
    s.write_all(&startup_packet()).expect("startup");
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(6).any(|w| w == [b'Z', 0, 0, 0, 5, b'I']) {
        let n = s.read(&mut buf).expect("read startup reply");
        assert!(n > 0, "server closed during startup");
        seen.extend_from_slice(&buf[..n]);
    }
    s
}

fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

fn has_error_code(reply: &[u8], code: &str) -> bool {
    let needle = format!("C{code}\0");
    reply.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_startup_packets() {
    let server = TestServer::start();
    let cases: Vec<Vec<u8>> = vec![
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        vec![0xff; 64],
        vec![0, 0, 0, 0],
        vec![0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0],
        vec![0, 0, 0, 12, 0, 3, 0, 0, b'u', b's', b'e', b'r'],
        {
            // protocol 2.0
            let mut m = vec![0, 0, 0, 8];
            m.extend_from_slice(&131072i32.to_be_bytes());
            m
        },
        {
            // startup without a user
            let mut body = 196608i32.to_be_bytes().to_vec();
            body.extend_from_slice(b"database\0x\0\0");
            let mut m = ((body.len() + 4) as i32).to_be_bytes().to_vec();
            m.extend_from_slice(&body);
            m
        },
        {
            // invalid UTF-8 in a startup parameter
            let mut body = 196608i32.to_be_bytes().to_vec();
            body.extend_from_slice(b"user\0\xff\xfe\0\0");
            let mut m = ((body.len() + 4) as i32).to_be_bytes().to_vec();
            m.extend_from_slice(&body);
            m
        },
    ];
    for case in cases {
        let mut s = raw(&server);
        let _ = s.write_all(&case);
        let _ = s.shutdown(std::net::Shutdown::Write);
        drain(s);
    }
    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absurd_lengths_and_truncated_messages() {
    let server = TestServer::start();
    // A message that claims 2 GB: refused without reading or allocating it.
    let mut s = started(&server);
    s.write_all(&[b'Q', 0x7f, 0xff, 0xff, 0xff]).expect("write");
    let reply = drain(s);
    assert!(
        has_error_code(&reply, "08P01"),
        "expected a protocol violation error"
    );

    // A negative length.
    let mut s = started(&server);
    s.write_all(&[b'Q', 0xff, 0xff, 0xff, 0x00]).expect("write");
    assert!(has_error_code(&drain(s), "08P01"));

    // A message cut short, then the client goes away.
    let mut s = started(&server);
    s.write_all(&[b'Q', 0, 0, 0, 100, b'S', b'E'])
        .expect("write");
    drop(s);

    // A Query whose string has no terminating NUL.
    let mut s = started(&server);
    s.write_all(&message(b'Q', b"SELECT 1")).expect("write");
    s.write_all(&message(b'X', b"")).expect("write");
    assert!(has_error_code(&drain(s), "08P01"));

    // Bind with a parameter length running past the message end.
    let mut s = started(&server);
    s.write_all(&message(b'P', b"\0SELECT $1::int\0\0\0"))
        .expect("write");
    let mut bind = b"\0\0".to_vec();
    bind.extend_from_slice(&[0, 0, 0, 1]);
    bind.extend_from_slice(&[0x7f, 0, 0, 0]);
    s.write_all(&message(b'B', &bind)).expect("write");
    s.write_all(&message(b'S', b"")).expect("write");
    s.write_all(&message(b'X', b"")).expect("write");
    assert!(has_error_code(&drain(s), "08P01"));

    // Invalid UTF-8 in a query.
    let mut s = started(&server);
    s.write_all(&message(b'Q', b"SELECT '\xff\xfe'\0"))
        .expect("write");
    s.write_all(&message(b'X', b"")).expect("write");
    assert!(has_error_code(&drain(s), "22021"));

    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_message_types() {
    let server = TestServer::start();
    for tag in [b'z', b'A', 0u8, 0xff] {
        let mut s = started(&server);
        s.write_all(&message(tag, b"junk")).expect("write");
        assert!(has_error_code(&drain(s), "08P01"), "tag {tag}");
    }
    still_serves(&server).await;
}

/// A second startup packet on an established connection: its first byte (0) is no
/// message type, so the connection ends with FATAL 08P01 at once, as in PostgreSQL —
/// before this, the server read the packet's bytes as a length and waited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_startup_packet_ends_the_connection_with_an_error() {
    let server = TestServer::start();
    let mut s = started(&server);
    s.write_all(&startup_packet()).expect("write");
    let reply = drain(s);
    assert!(has_error_code(&reply, "08P01"), "{reply:?}");
    let text = String::from_utf8_lossy(&reply);
    assert!(text.contains("invalid frontend message type 0"), "{text}");
    still_serves(&server).await;
}

/// A NUL inside a Query's text, or a Parse whose declared types run past the end:
/// PostgreSQL's "invalid message format" / "insufficient data left in message" (08P01),
/// and the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_query_and_parse_bodies_are_08p01() {
    let server = TestServer::start();
    let mut s = started(&server);
    s.write_all(&message(b'Q', b"SELECT 1\0SELECT 2\0"))
        .expect("write");
    s.write_all(&message(b'Q', b"SELECT 41 + 1\0"))
        .expect("write");
    s.write_all(&message(b'P', b"\0SELECT 1\0junk\0\0\0"))
        .expect("write");
    s.write_all(&message(b'S', b"")).expect("write");
    s.write_all(&message(b'X', b"")).expect("write");
    let reply = drain(s);
    let text = String::from_utf8_lossy(&reply);
    assert!(text.contains("invalid message format"), "{text}");
    assert!(text.contains("insufficient data left in message"), "{text}");
    assert!(
        !text.contains("SELECT 2"),
        "the text after the NUL ran: {text}"
    );
    // The statement after the bad one answered 42.
    assert!(
        reply
            .windows(7)
            .any(|w| w == [0, 0, 0, 2, b'4', b'2', b'C']),
        "{text}"
    );
}

/// One session past max_connections gets FATAL 53300 "sorry, too many clients already";
/// once a session leaves, the next one is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_connections_refuses_one_more_with_53300() {
    let server = TestServer::start_with(kiln::Cluster::new(kiln::Config {
        max_connections: 3,
        ..Default::default()
    }));
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(server.connect().await);
    }
    let refused = tokio_postgres::connect(&server.url(), tokio_postgres::NoTls)
        .await
        .err()
        .expect("a fourth session is refused");
    let db_error = refused
        .as_db_error()
        .expect("an ErrorResponse, not a silent close");
    assert_eq!(db_error.code().code(), "53300");
    assert_eq!(db_error.message(), "sorry, too many clients already");
    assert_eq!(db_error.severity(), "FATAL");
    let show = held[0]
        .simple_query("SHOW max_connections")
        .await
        .expect("show");
    assert!(
        matches!(&show[1], tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("3"))
    );
    drop(held.pop());
    // The session's thread unregisters it as it ends; the next connect gets its slot.
    let mut served = false;
    for _ in 0..100 {
        if tokio_postgres::connect(&server.url(), tokio_postgres::NoTls)
            .await
            .is_ok()
        {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        served,
        "a slot freed by a closed session is given out again"
    );
}

/// Parse + Flush of a statement that fails: the error arrives without a Sync (asyncpg
/// waits for it after Flush; the error used to wait in the buffer until Sync).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_after_flush_arrives_before_sync() {
    let server = TestServer::start();
    let mut s = started(&server);
    let mut out = message(b'P', b"\0SELECT no_such_function()\0\0\0");
    out.extend(message(b'H', b""));
    s.write_all(&out).expect("write");
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !has_error_code(&seen, "42883") {
        let n = s.read(&mut buf).expect("the error arrives before any Sync");
        assert!(n > 0, "server closed");
        seen.extend_from_slice(&buf[..n]);
    }
    // Messages up to Sync are skipped; Sync then gets ReadyForQuery.
    let mut out = message(b'P', b"\0SELECT 1\0\0\0");
    out.extend(message(b'S', b""));
    s.write_all(&out).expect("write");
    seen.clear();
    while !seen.windows(6).any(|w| w == [b'Z', 0, 0, 0, 5, b'I']) {
        let n = s.read(&mut buf).expect("ReadyForQuery");
        assert!(n > 0, "server closed");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(!seen.contains(&b'1'), "the skipped Parse must not complete");
    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_megabyte_query() {
    let server = TestServer::start();
    let client = server.connect().await;
    // 100 MB of SQL: a comment that long, then a real statement.
    let mut sql = String::with_capacity(100 << 20);
    sql.push_str("/* ");
    sql.extend(std::iter::repeat_n('x', 100 << 20));
    sql.push_str(" */ SELECT 7");
    let rows = client
        .simple_query(&sql)
        .await
        .expect("a 100 MB query is answered");
    assert!(
        rows.iter().any(
            |m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("7"))
        )
    );
    // 100 MB string literal: answered too, as one value.
    let big = format!("SELECT length('{}')", "y".repeat(100 << 20));
    let rows = client.simple_query(&big).await.expect("answered");
    assert!(rows.iter().any(
        |m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("104857600"))
    ));
    drop(client);
    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deeply_nested_expressions() {
    let server = TestServer::start();
    let client = server.connect().await;
    let cases = [
        format!("SELECT {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("SELECT {}1", "-".repeat(100_000)),
        format!("SELECT {}true", "NOT ".repeat(100_000)),
        format!("SELECT 1{}", "+1".repeat(1_000_000)),
        format!("SELECT true{}", " AND true".repeat(500_000)),
        format!("SELECT 'a'{}", " || 'a'".repeat(500_000)),
        format!("SELECT 1 WHERE 1 IN ({})", vec!["1"; 200_000].join(",")),
        format!(
            "SELECT {}",
            vec!["CASE WHEN true THEN"; 50_000].join(" ") + " 1" + &" END".repeat(50_000)
        ),
    ];
    for sql in &cases {
        match client.simple_query(sql).await {
            Ok(_) => {}
            Err(e) => {
                let code = e.code().map(|c| c.code().to_string());
                assert!(
                    matches!(
                        code.as_deref(),
                        Some("54001") | Some("54000") | Some("42601")
                    ),
                    "unexpected error {e:?} for a {}-byte query",
                    sql.len()
                );
            }
        }
    }
    // Just under the limit, long chains are answered correctly.
    let sum = format!("SELECT 1{}", "+1".repeat(9_000));
    let rows = client
        .simple_query(&sum)
        .await
        .expect("9,000 chained additions are answered");
    assert!(rows.iter().any(
        |m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("9001"))
    ));
    let ors = (1..=5_000)
        .map(|i| format!("x = {i}"))
        .collect::<Vec<_>>()
        .join(" OR ");
    let sql = format!("SELECT count(*) FROM generate_series(1, 10000) AS t(x) WHERE {ors}");
    let rows = client
        .simple_query(&sql)
        .await
        .expect("a 5,000-term OR is answered");
    assert!(rows.iter().any(
        |m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("5000"))
    ));
    drop(client);
    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_connections_opened_and_dropped() {
    // Room for the 200 sessions below (the default max_connections is 100).
    let server = TestServer::start_with(kiln::Cluster::new(kiln::Config {
        max_connections: 300,
        ..Default::default()
    }));
    for i in 0..3000 {
        let mut s = raw(&server);
        match i % 3 {
            0 => drop(s),
            1 => {
                let _ = s.write_all(&startup_packet());
                drop(s);
            }
            _ => {
                let _ = s.write_all(&startup_packet()[..7]);
                drop(s);
            }
        }
    }
    let mut clients = Vec::new();
    for _ in 0..200 {
        clients.push(server.connect().await);
    }
    for c in &clients {
        c.simple_query("SELECT 1")
            .await
            .expect("each of 200 concurrent sessions answers");
    }
    drop(clients);
    still_serves(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_that_stops_reading_does_not_stall_others() {
    let server = TestServer::start();
    let setup = server.connect().await;
    setup
        .simple_query("CREATE TABLE wide (s text)")
        .await
        .expect("create");
    setup
        .simple_query(&format!(
            "INSERT INTO wide SELECT '{}' FROM generate_series(1, 2000)",
            "z".repeat(1000)
        ))
        .await
        .expect("fill");
    // This client asks for ~20 MB of rows and never reads them.
    let mut s = started(&server);
    for _ in 0..10 {
        s.write_all(&message(b'Q', b"SELECT * FROM wide\0"))
            .expect("write");
    }
    // Everyone else carries on, including writers.
    for _ in 0..5 {
        still_serves(&server).await;
    }
    setup
        .simple_query("INSERT INTO wide VALUES ('more')")
        .await
        .expect("writes proceed");
    drop(s);
}

/// DECLARE … BINARY CURSOR: FETCH over the simple query protocol answers in binary, the
/// bytes PostgreSQL 15 sends for the same query (its RowDescription says format 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_cursor_fetches_binary_rows() {
    let server = TestServer::start();
    let mut s = started(&server);
    let sql = "BEGIN; DECLARE bc BINARY CURSOR FOR SELECT 1::int4 AS a, 'x'::text AS b, \
               2::int8 AS c, 1.5::numeric AS d, '2024-01-02'::date AS e, NULL::int AS f; \
               FETCH ALL FROM bc; ROLLBACK\0";
    let mut out = message(b'Q', sql.as_bytes());
    out.extend(message(b'X', &[]));
    s.write_all(&out).expect("query and terminate");
    let reply = drain(s);
    // The FETCH's DataRow, as PostgreSQL 15 sends it.
    let row: Vec<u8> = [
        &[0, 6][..],
        &[0, 0, 0, 4, 0, 0, 0, 1],
        &[0, 0, 0, 1, b'x'],
        &[0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2],
        &[0, 0, 0, 12, 0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0x13, 0x88],
        &[0, 0, 0, 4, 0, 0, 0x22, 0x3f],
        &[0xff, 0xff, 0xff, 0xff],
    ]
    .concat();
    let data_row = message(b'D', &row);
    assert!(
        reply
            .windows(data_row.len())
            .any(|w| w == data_row.as_slice()),
        "binary DataRow"
    );
    // Six columns, each with format code 1 (the field's last two bytes).
    let t = reply
        .iter()
        .position(|&b| b == b'T')
        .expect("RowDescription");
    let len = i32::from_be_bytes(reply[t + 1..t + 5].try_into().unwrap()) as usize;
    let desc = &reply[t + 5..t + 1 + len];
    let mut p = 2;
    let mut formats = Vec::new();
    for _ in 0..6 {
        let end = p + desc[p..].iter().position(|&b| b == 0).unwrap();
        p = end + 1 + 18;
        formats.push(i16::from_be_bytes([desc[p - 2], desc[p - 1]]));
    }
    assert_eq!(formats, vec![1; 6]);
    assert!(!has_error_code(&reply, "0A000"));
}
