//! Two sessions interleaved: what one sees of the other's uncommitted and committed
//! work. Each case was run on PostgreSQL 15 first.

mod common;

use std::time::{Duration, Instant};

use common::TestServer;
use tokio_postgres::{Client, SimpleQueryMessage};

/// The rows of a one-column query, as text.
async fn column(c: &Client, sql: &str) -> Result<Vec<String>, tokio_postgres::Error> {
    let messages = c.simple_query(sql).await?;
    Ok(messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.get(0).unwrap_or("NULL").to_string()),
            _ => None,
        })
        .collect())
}

fn code(e: &tokio_postgres::Error) -> Option<&str> {
    e.code().map(|c| c.code())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_create_table_is_invisible_to_other_sessions() {
    let server = TestServer::start();
    let a = server.connect().await;
    let b = server.connect().await;
    a.batch_execute("BEGIN; CREATE TABLE dd (x int); INSERT INTO dd VALUES (1)")
        .await
        .expect("a creates");
    let err = column(&b, "SELECT x FROM dd").await.expect_err("not yet");
    assert_eq!(code(&err), Some("42P01"));
    let err = b
        .batch_execute("INSERT INTO dd VALUES (2)")
        .await
        .expect_err("not yet for writes either");
    assert_eq!(code(&err), Some("42P01"));
    assert_eq!(
        column(&a, "SELECT x FROM dd").await.expect("own"),
        vec!["1"]
    );
    a.batch_execute("COMMIT").await.expect("commit");
    assert_eq!(
        column(&b, "SELECT x FROM dd").await.expect("now"),
        vec!["1"]
    );
    // A rolled-back CREATE leaves nothing behind, for anyone.
    a.batch_execute("BEGIN; CREATE TABLE gone (x int); ROLLBACK")
        .await
        .expect("rollback");
    for c in [&a, &b] {
        let err = column(c, "SELECT x FROM gone").await.expect_err("gone");
        assert_eq!(code(&err), Some("42P01"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_wait_for_an_uncommitted_drop_and_then_read_what_it_left() {
    let server = TestServer::start();
    let a = server.connect().await;
    let b = server.connect().await;
    a.batch_execute("CREATE TABLE tt (a int); INSERT INTO tt VALUES (1), (2)")
        .await
        .expect("setup");
    // As in PostgreSQL, a reader waits for the DROP's ACCESS EXCLUSIVE lock; a
    // rollback lets it read the table.
    a.batch_execute("BEGIN; DROP TABLE tt").await.expect("drop");
    let reader = tokio::spawn(async move {
        let r = column(&b, "SELECT a FROM tt ORDER BY a").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!reader.is_finished(), "the reader waits for the DROP");
    a.batch_execute("ROLLBACK").await.expect("rollback");
    let (b, r) = reader.await.expect("join");
    assert_eq!(r.expect("b"), vec!["1", "2"]);
    // Drop and create again under the same name: the reader waits, then reads the
    // new table (whose column is another).
    a.batch_execute(
        "BEGIN; DROP TABLE tt; CREATE TABLE tt (x text); INSERT INTO tt VALUES ('new')",
    )
    .await
    .expect("replace");
    let reader = tokio::spawn(async move {
        let r = column(&b, "SELECT a FROM tt ORDER BY a").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!reader.is_finished(), "the reader waits for the DROP");
    assert_eq!(
        column(&a, "SELECT x FROM tt").await.expect("own"),
        vec!["new"]
    );
    a.batch_execute("COMMIT").await.expect("commit");
    let (b, r) = reader.await.expect("join");
    assert_eq!(code(&r.expect_err("old column")), Some("42703"));
    assert_eq!(
        column(&b, "SELECT x FROM tt").await.expect("new"),
        vec!["new"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_waited_for_a_drop_finds_the_table_gone() {
    let server = TestServer::start();
    let a = server.connect().await;
    let b = server.connect().await;
    a.batch_execute("CREATE TABLE rv (a int); INSERT INTO rv VALUES (1)")
        .await
        .expect("setup");
    a.batch_execute("BEGIN; DROP TABLE rv").await.expect("drop");
    let writer = tokio::spawn(async move {
        let r = b.batch_execute("INSERT INTO rv VALUES (2)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.batch_execute("COMMIT").await.expect("commit");
    let (b, r) = writer.await.expect("join");
    let err = r.expect_err("the table it was bound to is gone");
    assert_eq!(code(&err), Some("42P01"));
    // Had the drop rolled back, the same write would have gone in.
    // (Separate strings: BEGIN would pull the CREATE into its block.)
    a.batch_execute("CREATE TABLE rv (a int)")
        .await
        .expect("again");
    a.batch_execute("BEGIN; DROP TABLE rv").await.expect("drop");
    let writer = tokio::spawn(async move {
        let r = b.batch_execute("INSERT INTO rv VALUES (3)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.batch_execute("ROLLBACK").await.expect("rollback");
    let (b, r) = writer.await.expect("join");
    r.expect("inserted after the rollback");
    assert_eq!(
        column(&b, "SELECT a FROM rv").await.expect("rows"),
        vec!["3"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_follow_the_table_they_name() {
    let server = TestServer::start();
    let a = server.connect().await;
    let p = server.connect().await;
    a.batch_execute("CREATE TABLE pv (a int); INSERT INTO pv VALUES (1)")
        .await
        .expect("setup");
    let stmt = p
        .prepare("SELECT * FROM pv WHERE a > $1")
        .await
        .expect("prepare");
    let read =
        |rows: Vec<tokio_postgres::Row>| -> Vec<i32> { rows.iter().map(|r| r.get(0)).collect() };
    assert_eq!(read(p.query(&stmt, &[&0i32]).await.expect("1")), vec![1]);

    // Same columns: the statement reads the new table.
    a.batch_execute("DROP TABLE pv; CREATE TABLE pv (a int); INSERT INTO pv VALUES (7)")
        .await
        .expect("replace");
    assert_eq!(read(p.query(&stmt, &[&0i32]).await.expect("7")), vec![7]);

    // Other columns: PostgreSQL's error, since the client holds the old description.
    a.batch_execute(
        "DROP TABLE pv; CREATE TABLE pv (a int, b text); INSERT INTO pv VALUES (8, 'x')",
    )
    .await
    .expect("replace");
    let err = p.query(&stmt, &[&0i32]).await.expect_err("result type");
    assert_eq!(code(&err), Some("0A000"));
    assert_eq!(
        err.as_db_error().map(|e| e.message()),
        Some("cached plan must not change result type")
    );

    // Gone: the bind error, pointing at the name.
    a.batch_execute("DROP TABLE pv").await.expect("drop");
    let err = p.query(&stmt, &[&0i32]).await.expect_err("gone");
    assert_eq!(code(&err), Some("42P01"));
    let position = err.as_db_error().and_then(|e| e.position().cloned());
    assert!(
        matches!(
            position,
            Some(tokio_postgres::error::ErrorPosition::Original(15))
        ),
        "{position:?}"
    );

    // Back with the original columns: it works again.
    a.batch_execute("CREATE TABLE pv (a int); INSERT INTO pv VALUES (10)")
        .await
        .expect("back");
    assert_eq!(read(p.query(&stmt, &[&0i32]).await.expect("10")), vec![10]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_bounds_the_wait_for_a_row_lock() {
    let server = TestServer::start();
    let a = server.connect().await;
    let b = server.connect().await;
    a.batch_execute("CREATE TABLE lw (a int); INSERT INTO lw VALUES (1)")
        .await
        .expect("create");
    a.batch_execute("BEGIN; UPDATE lw SET a = 5")
        .await
        .expect("a holds the row");
    b.batch_execute("SET statement_timeout = '300ms'")
        .await
        .expect("set");
    let started = Instant::now();
    let err = b
        .batch_execute("UPDATE lw SET a = 6")
        .await
        .expect_err("times out while waiting");
    assert_eq!(code(&err), Some("57014"));
    assert!(started.elapsed() < Duration::from_secs(5));
    a.batch_execute("COMMIT").await.expect("commit");
    b.batch_execute("UPDATE lw SET a = a + 1")
        .await
        .expect("free now");
    let v = column(&b, "SELECT a::text FROM lw").await.expect("read");
    assert_eq!(v, vec!["6"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_portal_keeps_its_rows_while_others_update_and_the_vacuum_runs() {
    let server = TestServer::start();
    let mut reader = server.connect().await;
    let writer = server.connect().await;
    writer
        .batch_execute(
            "CREATE TABLE pr (id int, v int); \
             INSERT INTO pr SELECT g, 1 FROM generate_series(1, 5000) g",
        )
        .await
        .expect("setup");
    let tx = reader.transaction().await.expect("begin");
    let stmt = tx.prepare("SELECT id, v FROM pr").await.expect("prepare");
    let portal = tx.bind(&stmt, &[]).await.expect("bind");
    let first = tx.query_portal(&portal, 100).await.expect("first rows");
    assert_eq!(first.len(), 100);
    // Enough dead versions for the vacuum, which runs on its own thread.
    for _ in 0..4 {
        writer
            .batch_execute("UPDATE pr SET v = v + 1")
            .await
            .expect("update");
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let rest = tx.query_portal(&portal, 0).await.expect("the rest");
    let all: Vec<(i32, i32)> = first
        .iter()
        .chain(rest.iter())
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(all.len(), 5000);
    assert!(all.iter().all(|&(_, v)| v == 1), "the portal's snapshot");
    tx.commit().await.expect("commit");
    let now = column(&reader, "SELECT count(*) || ' ' || sum(v) FROM pr")
        .await
        .expect("now");
    assert_eq!(now, vec!["5000 25000"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vacuum_reclaims_dead_versions_and_dropped_tables() {
    let cluster = kiln::Cluster::default_arc();
    let server = TestServer::start_with(cluster.clone());
    let c = server.connect().await;
    let db = cluster
        .database("test")
        .expect("made by the first connection");
    c.batch_execute(
        "CREATE TABLE vu (id int, v int); \
         INSERT INTO vu SELECT g, 0 FROM generate_series(1, 5000) g",
    )
    .await
    .expect("setup");
    for _ in 0..20 {
        c.batch_execute("UPDATE vu SET v = v + 1")
            .await
            .expect("update");
    }
    let stored = || {
        let snapshot = db.txns.snapshot(0);
        db.catalog
            .table(kiln::catalog::namespace::PUBLIC_OID, "vu", &snapshot)
            .map(|t| t.storage.stored_rows())
    };
    // 105,000 versions were written; the vacuum thread keeps about the live 5,000 plus
    // what is below its threshold. Bounded wait: it runs on its own.
    let deadline = Instant::now() + Duration::from_secs(10);
    while stored().unwrap_or(0) > 12_000 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left = stored().unwrap_or(0);
    assert!(left <= 12_000, "{left} versions stored");
    assert_eq!(
        column(&c, "SELECT count(*) || ' ' || sum(v) FROM vu")
            .await
            .expect("rows"),
        vec!["5000 100000"]
    );
    // A dropped table leaves the catalog once no snapshot can see it.
    c.batch_execute("DROP TABLE vu").await.expect("drop");
    db.vacuum_now();
    assert!(db.catalog.all_tables().is_empty());
}
