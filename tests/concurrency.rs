//! Many writers: sessions driven step by step, asserting which step blocks, when it
//! unblocks and how it ends. Every case states PostgreSQL 15's behaviour; with
//! `KILN_PG_URL` set (scripts/slt-postgres.sh sets it) the same tests run against a
//! real PostgreSQL, proving the expectations. Each test uses its own tables.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Target, code};
use tokio_postgres::Client;

async fn text(c: &Client, sql: &str) -> Vec<String> {
    c.query(sql, &[])
        .await
        .expect(sql)
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
}

async fn ints(c: &Client, sql: &str) -> Vec<i64> {
    c.query(sql, &[])
        .await
        .expect(sql)
        .iter()
        .map(|r| r.get::<_, i64>(0))
        .collect()
}

/// Whether `task` is still running after `ms` milliseconds (it is blocked).
async fn still_blocked<T>(task: &tokio::task::JoinHandle<T>, ms: u64) -> bool {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    !task.is_finished()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_increments_are_never_lost() {
    let t = Target::new();
    let setup = t.connect().await;
    setup
        .batch_execute(
            "DROP TABLE IF EXISTS cc_counter; CREATE TABLE cc_counter (id int PRIMARY KEY, n bigint); INSERT INTO cc_counter VALUES (1, 0)",
        )
        .await
        .expect("setup");
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let c = t.connect().await;
        tasks.push(tokio::spawn(async move {
            for _ in 0..50 {
                c.batch_execute("BEGIN; UPDATE cc_counter SET n = n + 1 WHERE id = 1; COMMIT")
                    .await
                    .expect("increment");
            }
        }));
    }
    for task in tasks {
        task.await.expect("join");
    }
    assert_eq!(ints(&setup, "SELECT n FROM cc_counter").await, vec![200]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_committed_rechecks_the_new_version_of_an_updated_row() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_rc; CREATE TABLE cc_rc (id int PRIMARY KEY, v int); INSERT INTO cc_rc VALUES (1, 10), (2, 20)",
    )
    .await
    .expect("setup");
    a.batch_execute("BEGIN; UPDATE cc_rc SET v = v + 5 WHERE id = 1")
        .await
        .expect("a holds row 1");
    // b's update of row 1 blocks; after a commits it applies to the new version
    // (15 → 30), and its WHERE is evaluated again on it.
    let b_task = tokio::spawn(async move {
        let n = b
            .execute("UPDATE cc_rc SET v = v * 2 WHERE v >= 10", &[])
            .await
            .expect("b updates");
        (b, n)
    });
    assert!(still_blocked(&b_task, 300).await, "b waits for a");
    a.batch_execute("COMMIT").await.expect("a commits");
    let (b, n) = b_task.await.expect("join");
    assert_eq!(n, 2);
    assert_eq!(
        ints(&b, "SELECT v::bigint FROM cc_rc ORDER BY id").await,
        vec![30, 40]
    );
    // A re-check that fails: the row no longer matches and is left alone.
    a.batch_execute("BEGIN; UPDATE cc_rc SET v = 0 WHERE id = 1")
        .await
        .expect("a again");
    let b_task = tokio::spawn(async move {
        let n = b
            .execute("UPDATE cc_rc SET v = -1 WHERE v = 30", &[])
            .await
            .expect("b updates");
        (b, n)
    });
    assert!(still_blocked(&b_task, 300).await);
    a.batch_execute("COMMIT").await.expect("a commits");
    let (b, n) = b_task.await.expect("join");
    assert_eq!(n, 0, "v is 0 now: the row no longer qualifies");
    assert_eq!(
        ints(&b, "SELECT v::bigint FROM cc_rc ORDER BY id").await,
        vec![0, 40]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_key_waits_for_the_inserting_transaction() {
    let t = Target::new();
    let a = t.connect().await;
    let b = Arc::new(t.connect().await);
    a.batch_execute("DROP TABLE IF EXISTS cc_uq; CREATE TABLE cc_uq (k int PRIMARY KEY)")
        .await
        .expect("setup");
    // After a commit: 23505.
    a.batch_execute("BEGIN; INSERT INTO cc_uq VALUES (1)")
        .await
        .expect("a inserts");
    let b2 = b.clone();
    let task = tokio::spawn(async move { b2.execute("INSERT INTO cc_uq VALUES (1)", &[]).await });
    assert!(still_blocked(&task, 300).await, "b waits for a's key");
    a.batch_execute("COMMIT").await.expect("a commits");
    let err = task.await.expect("join").expect_err("duplicate");
    assert_eq!(code(&err), Some("23505"));
    // After a rollback: b's row goes in.
    a.batch_execute("BEGIN; INSERT INTO cc_uq VALUES (2)")
        .await
        .expect("a inserts");
    let b2 = b.clone();
    let task = tokio::spawn(async move { b2.execute("INSERT INTO cc_uq VALUES (2)", &[]).await });
    assert!(still_blocked(&task, 300).await);
    a.batch_execute("ROLLBACK").await.expect("a rolls back");
    assert_eq!(task.await.expect("join").expect("b inserts"), 1);
    assert_eq!(
        ints(&a, "SELECT k::bigint FROM cc_uq ORDER BY k").await,
        vec![1, 2]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crossing_updates_are_a_deadlock_and_one_transaction_survives() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_dl; CREATE TABLE cc_dl (id int PRIMARY KEY, v int); INSERT INTO cc_dl VALUES (1, 0), (2, 0)",
    )
    .await
    .expect("setup");
    a.batch_execute("SET deadlock_timeout = '100ms'; BEGIN; UPDATE cc_dl SET v = 1 WHERE id = 1")
        .await
        .expect("a holds 1");
    b.batch_execute("SET deadlock_timeout = '100ms'; BEGIN; UPDATE cc_dl SET v = 2 WHERE id = 2")
        .await
        .expect("b holds 2");
    let a_task = tokio::spawn(async move {
        let r = a.execute("UPDATE cc_dl SET v = 1 WHERE id = 2", &[]).await;
        (a, r)
    });
    assert!(still_blocked(&a_task, 200).await, "a waits for b");
    let b_result = b.execute("UPDATE cc_dl SET v = 2 WHERE id = 1", &[]).await;
    // One of the two is the deadlock's victim (40P01); the other goes on once the
    // victim's transaction is rolled back.
    let (a, a_result) = if b_result.is_err() {
        b.batch_execute("ROLLBACK").await.expect("b rolls back");
        a_task.await.expect("join")
    } else {
        a_task.await.expect("join")
    };
    let codes = [&a_result, &b_result].map(|r| r.as_ref().err().and_then(code));
    assert!(
        codes == [Some("40P01"), None] || codes == [None, Some("40P01")],
        "exactly one deadlock victim: {codes:?}"
    );
    if a_result.is_err() {
        a.batch_execute("ROLLBACK").await.expect("a rolls back");
        b.batch_execute("COMMIT").await.expect("b commits");
        assert_eq!(
            ints(&b, "SELECT v::bigint FROM cc_dl ORDER BY id").await,
            vec![2, 2]
        );
    } else {
        a.batch_execute("COMMIT").await.expect("a commits");
        assert_eq!(
            ints(&a, "SELECT v::bigint FROM cc_dl ORDER BY id").await,
            vec![1, 1]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_timeout_ends_a_wait_for_a_row() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_lt; CREATE TABLE cc_lt (id int PRIMARY KEY, v int); INSERT INTO cc_lt VALUES (1, 0)",
    )
    .await
    .expect("setup");
    a.batch_execute("BEGIN; DELETE FROM cc_lt WHERE id = 1")
        .await
        .expect("a holds the row");
    b.batch_execute("SET lock_timeout = '200ms'")
        .await
        .expect("set");
    let err = b
        .execute("UPDATE cc_lt SET v = 1", &[])
        .await
        .expect_err("times out");
    assert_eq!(code(&err), Some("55P03"));
    a.batch_execute("COMMIT").await.expect("a commits");
    assert_eq!(
        b.execute("UPDATE cc_lt SET v = 1", &[])
            .await
            .expect("no row left"),
        0
    );
}

/// Random transfers between accounts by several clients at once, in random order (so
/// they deadlock now and then and retry): money is neither made nor lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_transfers_keep_the_total() {
    let t = Target::new();
    let setup = t.connect().await;
    setup
        .batch_execute(
            "DROP TABLE IF EXISTS cc_bank; CREATE TABLE cc_bank (id int PRIMARY KEY, balance bigint NOT NULL CHECK (balance >= 0));
             INSERT INTO cc_bank SELECT g, 1000 FROM generate_series(1, 8) g",
        )
        .await
        .expect("setup");
    let mut tasks = Vec::new();
    for client in 0..4u64 {
        let c = t.connect().await;
        tasks.push(tokio::spawn(async move {
            c.batch_execute("SET deadlock_timeout = '50ms'")
                .await
                .expect("set");
            // A small deterministic generator per client.
            let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (client + 1);
            let mut next = move |n: u64| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % n
            };
            let mut done = 0;
            while done < 40 {
                let from = next(8) + 1;
                let to = (from + next(7)) % 8 + 1;
                let amount = next(300) as i64;
                let sql = format!(
                    "BEGIN; UPDATE cc_bank SET balance = balance - {amount} WHERE id = {from};
                     UPDATE cc_bank SET balance = balance + {amount} WHERE id = {to}; COMMIT"
                );
                match c.batch_execute(&sql).await {
                    Ok(()) => done += 1,
                    Err(e) => {
                        // Deadlock victims and overdrafts (the CHECK) roll back.
                        assert!(
                            matches!(code(&e), Some("40P01") | Some("23514")),
                            "unexpected error: {e:?}"
                        );
                        c.batch_execute("ROLLBACK").await.expect("rollback");
                        done += 1;
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("join");
    }
    assert_eq!(
        ints(&setup, "SELECT sum(balance)::bigint FROM cc_bank").await,
        vec![8000]
    );
    assert_eq!(
        ints(&setup, "SELECT count(*) FROM cc_bank WHERE balance < 0").await,
        vec![0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeatable_read_keeps_its_snapshot_and_refuses_lost_updates() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_rr; CREATE TABLE cc_rr (id int PRIMARY KEY, v int); INSERT INTO cc_rr VALUES (1, 10)",
    )
    .await
    .expect("setup");
    b.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        .await
        .expect("begin");
    assert_eq!(ints(&b, "SELECT v::bigint FROM cc_rr").await, vec![10]);
    let level = b
        .query_one("SHOW transaction_isolation", &[])
        .await
        .expect("show");
    assert_eq!(level.get::<_, &str>(0), "repeatable read");
    a.execute("UPDATE cc_rr SET v = 20", &[])
        .await
        .expect("a updates");
    // b still reads its snapshot…
    assert_eq!(ints(&b, "SELECT v::bigint FROM cc_rr").await, vec![10]);
    // …and cannot update the row a changed after it.
    let err = b
        .execute("UPDATE cc_rr SET v = v + 1", &[])
        .await
        .expect_err("serialization failure");
    assert_eq!(code(&err), Some("40001"));
    b.batch_execute("ROLLBACK").await.expect("rollback");
    // A waiting REPEATABLE READ update fails once the holder commits.
    b.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1")
        .await
        .expect("begin");
    a.batch_execute("BEGIN; UPDATE cc_rr SET v = 30")
        .await
        .expect("a holds");
    let task = tokio::spawn(async move {
        let r = b.execute("UPDATE cc_rr SET v = v + 1", &[]).await;
        (b, r)
    });
    assert!(still_blocked(&task, 300).await);
    a.batch_execute("COMMIT").await.expect("commit");
    let (b, r) = task.await.expect("join");
    assert_eq!(r.as_ref().err().and_then(code), Some("40001"));
    b.batch_execute("ROLLBACK").await.expect("rollback");
    assert_eq!(ints(&b, "SELECT v::bigint FROM cc_rr").await, vec![30]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_refuses_write_skew() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_oncall; CREATE TABLE cc_oncall (name text PRIMARY KEY, on_call bool); INSERT INTO cc_oncall VALUES ('alice', true), ('bob', true)",
    )
    .await
    .expect("setup");
    // Each doctor checks that someone else is on call, then leaves.
    for c in [&a, &b] {
        c.batch_execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
            .await
            .expect("begin");
        assert_eq!(
            ints(c, "SELECT count(*) FROM cc_oncall WHERE on_call").await,
            vec![2]
        );
    }
    a.execute(
        "UPDATE cc_oncall SET on_call = false WHERE name = 'alice'",
        &[],
    )
    .await
    .expect("alice leaves");
    b.execute(
        "UPDATE cc_oncall SET on_call = false WHERE name = 'bob'",
        &[],
    )
    .await
    .expect("bob leaves");
    a.batch_execute("COMMIT")
        .await
        .expect("the first commit goes through");
    let err = b.batch_execute("COMMIT").await.expect_err("write skew");
    assert_eq!(code(&err), Some("40001"));
    assert_eq!(
        ints(&a, "SELECT count(*) FROM cc_oncall WHERE on_call").await,
        vec![1]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_transactions_refuse_writes() {
    let t = Target::new();
    let a = t.connect().await;
    a.batch_execute("DROP TABLE IF EXISTS cc_ro; CREATE TABLE cc_ro (x int)")
        .await
        .expect("setup");
    a.batch_execute("BEGIN READ ONLY").await.expect("begin");
    let err = a
        .execute("INSERT INTO cc_ro VALUES (1)", &[])
        .await
        .expect_err("read-only");
    assert_eq!(code(&err), Some("25006"));
    a.batch_execute("ROLLBACK").await.expect("rollback");
    a.batch_execute("SET default_transaction_read_only = on")
        .await
        .expect("set");
    let err = a
        .batch_execute("CREATE TABLE cc_ro2 (x int)")
        .await
        .expect_err("read-only DDL");
    assert_eq!(code(&err), Some("25006"));
    a.batch_execute("SET default_transaction_read_only = off")
        .await
        .expect("set");
    // The isolation level is fixed once the transaction has run a query.
    a.batch_execute("BEGIN; SELECT 1").await.expect("begin");
    let err = a
        .batch_execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        .await
        .expect_err("too late");
    assert_eq!(code(&err), Some("25001"));
    a.batch_execute("ROLLBACK").await.expect("rollback");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_update_waits_nowait_fails_and_skip_locked_skips() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_jobs; CREATE TABLE cc_jobs (id int PRIMARY KEY, done bool, n int);
         INSERT INTO cc_jobs SELECT g, false, 0 FROM generate_series(1, 4) g",
    )
    .await
    .expect("setup");
    // a takes the first two jobs.
    a.batch_execute("BEGIN").await.expect("begin");
    let taken = ints(
        &a,
        "SELECT id::bigint FROM cc_jobs WHERE NOT done ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED",
    )
    .await;
    assert_eq!(taken, vec![1, 2]);
    // b skips them, …
    b.batch_execute("BEGIN").await.expect("begin");
    let next = ints(
        &b,
        "SELECT id::bigint FROM cc_jobs WHERE NOT done ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED",
    )
    .await;
    assert_eq!(next, vec![3, 4]);
    b.batch_execute("ROLLBACK").await.expect("rollback");
    // … NOWAIT refuses at once, …
    let err = b
        .query("SELECT id FROM cc_jobs WHERE id = 1 FOR UPDATE NOWAIT", &[])
        .await
        .expect_err("locked");
    assert_eq!(code(&err), Some("55P03"));
    // … and a plain FOR UPDATE waits, then sees a's change (READ COMMITTED).
    let task = tokio::spawn(async move {
        let r = b
            .query("SELECT n::bigint FROM cc_jobs WHERE id = 1 FOR UPDATE", &[])
            .await
            .map(|rows| rows.iter().map(|r| r.get::<_, i64>(0)).collect::<Vec<_>>());
        (b, r)
    });
    assert!(still_blocked(&task, 300).await, "b waits for a's lock");
    a.batch_execute("UPDATE cc_jobs SET n = 7 WHERE id = 1; COMMIT")
        .await
        .expect("a updates and commits");
    let (_b, r) = task.await.expect("join");
    assert_eq!(r.expect("b locks"), vec![7]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skip_locked_through_an_index_walk_finds_the_next_rows() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_queue; CREATE TABLE cc_queue (id bigint PRIMARY KEY, done bool);
         INSERT INTO cc_queue SELECT g, false FROM generate_series(1, 5000) g",
    )
    .await
    .expect("setup");
    // ORDER BY the key with a LIMIT reads through the primary key's index: the rows a
    // holds are skipped and the walk goes on to the next ones.
    a.batch_execute("BEGIN").await.expect("begin");
    let first: Vec<i64> = (1..=40).collect();
    assert_eq!(
        ints(
            &a,
            "SELECT id FROM cc_queue ORDER BY id LIMIT 40 FOR UPDATE SKIP LOCKED"
        )
        .await,
        first
    );
    b.batch_execute("BEGIN").await.expect("begin");
    assert_eq!(
        ints(
            &b,
            "SELECT id FROM cc_queue ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED"
        )
        .await,
        vec![41, 42]
    );
    let newest = "SELECT id FROM cc_queue ORDER BY id DESC LIMIT 1 FOR UPDATE SKIP LOCKED";
    assert_eq!(ints(&a, newest).await, vec![5000]);
    assert_eq!(ints(&b, newest).await, vec![4999]);
    a.batch_execute("ROLLBACK").await.expect("rollback");
    b.batch_execute("ROLLBACK; DROP TABLE cc_queue")
        .await
        .expect("rollback");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_waits_for_a_reader_and_later_readers_queue_behind_it() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    let c = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_drop; CREATE TABLE cc_drop (v int); INSERT INTO cc_drop VALUES (1)",
    )
    .await
    .expect("setup");
    // a reads the table in an open transaction: it holds ACCESS SHARE.
    a.batch_execute("BEGIN").await.expect("begin");
    assert_eq!(ints(&a, "SELECT v::bigint FROM cc_drop").await, vec![1]);
    let dropper = tokio::spawn(async move {
        let r = b.batch_execute("DROP TABLE cc_drop").await;
        (b, r)
    });
    assert!(
        still_blocked(&dropper, 300).await,
        "DROP waits for the reader"
    );
    // A later reader queues behind the DROP rather than slipping past it.
    let reader = tokio::spawn(async move {
        let r = c.query("SELECT v FROM cc_drop", &[]).await;
        (c, r)
    });
    assert!(
        still_blocked(&reader, 300).await,
        "the next reader waits too"
    );
    // pg_locks shows the granted lock and the two waiting ones.
    let mut locks = Vec::new();
    for m in a
        .simple_query(
            "SELECT mode, granted::text FROM pg_locks WHERE relation = 'cc_drop'::regclass \
             ORDER BY granted DESC, mode",
        )
        .await
        .expect("pg_locks")
    {
        if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
            locks.push(format!(
                "{} {}",
                r.get(0).unwrap_or(""),
                r.get(1).unwrap_or("")
            ));
        }
    }
    assert_eq!(
        locks,
        vec![
            "AccessShareLock true",
            "AccessExclusiveLock false",
            "AccessShareLock false"
        ]
    );
    // a still reads (it holds its lock), then ends: the DROP goes, the reader finds
    // no table.
    assert_eq!(ints(&a, "SELECT v::bigint FROM cc_drop").await, vec![1]);
    a.batch_execute("COMMIT").await.expect("commit");
    let (_b, dropped) = dropper.await.expect("join");
    dropped.expect("DROP finishes");
    let (_c, read) = reader.await.expect("join");
    assert_eq!(code(&read.expect_err("gone")), Some("42P01"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_and_writers_of_one_table_wait_for_each_other_not_for_other_tables() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_alt, cc_other; CREATE TABLE cc_alt (id int); CREATE TABLE cc_other (id int)",
    )
    .await
    .expect("setup");
    // A writer of cc_alt holds ROW EXCLUSIVE: ALTER TABLE waits for it …
    a.batch_execute("BEGIN; INSERT INTO cc_alt VALUES (1)")
        .await
        .expect("a writes");
    // … while DDL on another table does not.
    b.batch_execute("ALTER TABLE cc_other ADD COLUMN w int")
        .await
        .expect("DDL elsewhere goes at once");
    let alter = tokio::spawn(async move {
        let r = b.batch_execute("ALTER TABLE cc_alt ADD COLUMN v int").await;
        (b, r)
    });
    assert!(
        still_blocked(&alter, 300).await,
        "ALTER waits for the writer"
    );
    a.batch_execute("COMMIT").await.expect("commit");
    let (b, altered) = alter.await.expect("join");
    altered.expect("ALTER finishes");
    // Now the ALTER's transaction holds the table and a writer waits for it.
    b.batch_execute("BEGIN; ALTER TABLE cc_alt ADD COLUMN w int")
        .await
        .expect("b alters");
    let writer = tokio::spawn(async move {
        let r = a.batch_execute("INSERT INTO cc_alt (id) VALUES (2)").await;
        (a, r)
    });
    assert!(
        still_blocked(&writer, 300).await,
        "the writer waits for the ALTER"
    );
    b.batch_execute("COMMIT").await.expect("commit");
    let (a, wrote) = writer.await.expect("join");
    wrote.expect("the insert goes after the ALTER");
    assert_eq!(
        ints(&a, "SELECT count(w)::bigint + count(*) FROM cc_alt").await,
        vec![2]
    );
    a.batch_execute("DROP TABLE cc_alt, cc_other")
        .await
        .expect("cleanup");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_table_modes_conflict_as_postgresqls() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_modes; CREATE TABLE cc_modes (id int); INSERT INTO cc_modes VALUES (1)",
    )
    .await
    .expect("setup");
    a.batch_execute("BEGIN; LOCK TABLE cc_modes IN SHARE MODE")
        .await
        .expect("a shares");
    // SHARE lets readers and other sharers in, not writers.
    assert_eq!(ints(&b, "SELECT id::bigint FROM cc_modes").await, vec![1]);
    b.batch_execute("BEGIN; LOCK TABLE cc_modes IN SHARE MODE NOWAIT; COMMIT")
        .await
        .expect("two sharers");
    let err = b
        .batch_execute("BEGIN; LOCK TABLE cc_modes IN ROW EXCLUSIVE MODE NOWAIT")
        .await
        .expect_err("a writer's mode conflicts");
    assert_eq!(code(&err), Some("55P03"));
    b.batch_execute("ROLLBACK; SET lock_timeout = '200ms'")
        .await
        .expect("rollback");
    let err = b
        .batch_execute("INSERT INTO cc_modes VALUES (2)")
        .await
        .expect_err("an insert waits, then times out");
    assert_eq!(code(&err), Some("55P03"));
    a.batch_execute("COMMIT").await.expect("commit");
    b.batch_execute("INSERT INTO cc_modes VALUES (2); DROP TABLE cc_modes")
        .await
        .expect("free again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_wait_and_a_table_wait_make_a_deadlock() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_dl1, cc_dl2; CREATE TABLE cc_dl1 (id int); CREATE TABLE cc_dl2 (id int PRIMARY KEY, v int); INSERT INTO cc_dl2 VALUES (1, 0)",
    )
    .await
    .expect("setup");
    // a reads cc_dl1; b updates the row of cc_dl2.
    a.batch_execute("SET deadlock_timeout = '100ms'; BEGIN; SELECT * FROM cc_dl1")
        .await
        .expect("a reads");
    b.batch_execute("SET deadlock_timeout = '100ms'; BEGIN; UPDATE cc_dl2 SET v = 2 WHERE id = 1")
        .await
        .expect("b updates");
    // a waits for b's row; b's DROP waits for a's table lock: a cycle.
    let a_task = tokio::spawn(async move {
        let r = a
            .batch_execute("UPDATE cc_dl2 SET v = 1 WHERE id = 1")
            .await;
        (a, r)
    });
    assert!(still_blocked(&a_task, 200).await, "a waits for b's row");
    let b_result = b.batch_execute("DROP TABLE cc_dl1").await;
    let (a, a_result) = if b_result.is_err() {
        b.batch_execute("ROLLBACK").await.expect("b rolls back");
        a_task.await.expect("join")
    } else {
        a_task.await.expect("join")
    };
    let codes = [&a_result, &b_result].map(|r| r.as_ref().err().and_then(code));
    assert!(
        codes == [Some("40P01"), None] || codes == [None, Some("40P01")],
        "exactly one deadlock victim: {codes:?}"
    );
    if a_result.is_err() {
        a.batch_execute("ROLLBACK").await.expect("a rolls back");
        b.batch_execute("COMMIT").await.expect("b commits");
    } else {
        a.batch_execute("COMMIT").await.expect("a commits");
    }
    a.batch_execute("DROP TABLE IF EXISTS cc_dl1, cc_dl2")
        .await
        .expect("cleanup");
}

async fn flag(c: &Client, sql: &str) -> bool {
    c.query_one(sql, &[]).await.expect(sql).get::<_, bool>(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advisory_locks_exclude_other_sessions_until_released() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute("SELECT pg_advisory_lock(4242)")
        .await
        .expect("a locks");
    assert!(!flag(&b, "SELECT pg_try_advisory_lock(4242)").await);
    assert!(
        flag(&a, "SELECT pg_try_advisory_lock(4242)").await,
        "reentrant"
    );
    let task = tokio::spawn(async move {
        b.batch_execute("SELECT pg_advisory_lock(4242)")
            .await
            .expect("b locks");
        b
    });
    assert!(still_blocked(&task, 300).await, "b waits");
    assert!(flag(&a, "SELECT pg_advisory_unlock(4242)").await);
    assert!(still_blocked(&task, 200).await, "a still holds it once");
    assert!(flag(&a, "SELECT pg_advisory_unlock(4242)").await);
    let b = task.await.expect("join");
    assert!(
        !flag(&a, "SELECT pg_advisory_unlock(4242)").await,
        "a holds nothing"
    );
    assert!(flag(&b, "SELECT pg_advisory_unlock(4242)").await);
    // A transaction-level lock goes with the transaction; two-key form.
    a.batch_execute("BEGIN; SELECT pg_advisory_xact_lock(1, 2)")
        .await
        .expect("xact lock");
    assert!(!flag(&b, "SELECT pg_try_advisory_xact_lock(1, 2)").await);
    a.batch_execute("COMMIT").await.expect("commit");
    assert!(flag(&b, "SELECT pg_try_advisory_lock(1, 2)").await);
    assert!(flag(&b, "SELECT pg_advisory_unlock(1, 2)").await);
    // Shared locks share.
    assert!(flag(&a, "SELECT pg_try_advisory_lock_shared(7)").await);
    assert!(flag(&b, "SELECT pg_try_advisory_lock_shared(7)").await);
    assert!(!flag(&b, "SELECT pg_try_advisory_lock(7)").await);
    a.batch_execute("SELECT pg_advisory_unlock_all()")
        .await
        .expect("unlock all");
    assert!(flag(&b, "SELECT pg_advisory_unlock_shared(7)").await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_transaction_times_out_and_releases_its_locks() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_idle; CREATE TABLE cc_idle (id int PRIMARY KEY, v int); INSERT INTO cc_idle VALUES (1, 0)",
    )
    .await
    .expect("setup");
    a.batch_execute(
        "SET idle_in_transaction_session_timeout = '200ms'; BEGIN; UPDATE cc_idle SET v = 1",
    )
    .await
    .expect("a holds the row and goes idle");
    // b waits for the row until a's session is ended; a's update is rolled back.
    let n = b
        .execute("UPDATE cc_idle SET v = v + 10", &[])
        .await
        .expect("b gets the row");
    assert_eq!(n, 1);
    assert_eq!(ints(&b, "SELECT v::bigint FROM cc_idle").await, vec![10]);
    let err = a
        .batch_execute("SELECT 1")
        .await
        .expect_err("a was disconnected");
    assert!(
        code(&err) == Some("25P03") || err.is_closed(),
        "a's next statement finds the connection ended: {err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_table_needs_a_block_and_nowait_refuses_a_busy_table() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute("DROP TABLE IF EXISTS cc_lock; CREATE TABLE cc_lock (x int)")
        .await
        .expect("setup");
    let err = a
        .batch_execute("LOCK TABLE cc_lock")
        .await
        .expect_err("outside a block");
    assert_eq!(code(&err), Some("25P01"));
    a.batch_execute("BEGIN; INSERT INTO cc_lock VALUES (1)")
        .await
        .expect("a writes");
    b.batch_execute("BEGIN").await.expect("begin");
    let err = b
        .batch_execute("LOCK TABLE cc_lock IN ACCESS EXCLUSIVE MODE NOWAIT")
        .await
        .expect_err("a writes to it");
    assert_eq!(code(&err), Some("55P03"));
    b.batch_execute("ROLLBACK").await.expect("rollback");
    a.batch_execute("COMMIT").await.expect("commit");
    b.batch_execute("BEGIN; LOCK TABLE cc_lock; INSERT INTO cc_lock VALUES (2); COMMIT")
        .await
        .expect("lock and write");
    assert_eq!(ints(&a, "SELECT count(*) FROM cc_lock").await, vec![2]);
}

/// pg_cancel_backend cancels another session's statement (here: waiting for a row lock),
/// pg_terminate_backend ends an idle session with FATAL 57P01, and a process id that
/// is no session answers false.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_and_terminate_another_backend() {
    let t = Target::new();
    let admin = t.connect().await;
    admin
        .batch_execute(
            "DROP TABLE IF EXISTS cc_signal; CREATE TABLE cc_signal (id int PRIMARY KEY, v int);
             INSERT INTO cc_signal VALUES (1, 0)",
        )
        .await
        .unwrap();
    let holder = t.connect().await;
    holder
        .batch_execute("BEGIN; UPDATE cc_signal SET v = 1 WHERE id = 1")
        .await
        .unwrap();
    let waiter = Arc::new(t.connect().await);
    let pid: i32 = waiter
        .query_one("SELECT pg_backend_pid()", &[])
        .await
        .unwrap()
        .get(0);
    let w = waiter.clone();
    let blocked = tokio::spawn(async move {
        w.batch_execute("UPDATE cc_signal SET v = 2 WHERE id = 1")
            .await
    });
    assert!(
        still_blocked(&blocked, 300).await,
        "the update waits for the row lock"
    );
    let cancelled: bool = admin
        .query_one("SELECT pg_cancel_backend($1)", &[&pid])
        .await
        .unwrap()
        .get(0);
    assert!(cancelled);
    let e = tokio::time::timeout(Duration::from_secs(10), blocked)
        .await
        .expect("the cancel ends the wait")
        .unwrap()
        .unwrap_err();
    assert_eq!(code(&e), Some("57014"));
    holder.batch_execute("ROLLBACK").await.unwrap();
    // The cancelled session goes on.
    let one: i32 = waiter.query_one("SELECT 1", &[]).await.unwrap().get(0);
    assert_eq!(one, 1);
    let terminated: bool = admin
        .query_one("SELECT pg_terminate_backend($1)", &[&pid])
        .await
        .unwrap()
        .get(0);
    assert!(terminated);
    let mut gone = false;
    for _ in 0..100 {
        if let Err(e) = waiter.query_one("SELECT 1", &[]).await {
            assert!(code(&e) == Some("57P01") || e.is_closed(), "{e:?}");
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the terminated session ends");
    let none: bool = admin
        .query_one("SELECT pg_cancel_backend(999999)", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!none);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_wait_shows_in_pg_locks_and_pg_blocking_pids() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    let c = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_block; CREATE TABLE cc_block (id int PRIMARY KEY, v int); \
         INSERT INTO cc_block VALUES (1, 0)",
    )
    .await
    .expect("setup");
    let a_pid = ints(&a, "SELECT pg_backend_pid()::bigint").await[0];
    let b_pid = ints(&b, "SELECT pg_backend_pid()::bigint").await[0];
    a.batch_execute("BEGIN; UPDATE cc_block SET v = 1 WHERE id = 1")
        .await
        .expect("a locks the row");
    let waiter = tokio::spawn(async move {
        let r = b
            .batch_execute("UPDATE cc_block SET v = 2 WHERE id = 1")
            .await;
        (b, r)
    });
    assert!(still_blocked(&waiter, 300).await, "b waits for a's row");
    let blocking: Vec<i32> = c
        .query_one("SELECT pg_blocking_pids($1)", &[&(b_pid as i32)])
        .await
        .expect("pg_blocking_pids")
        .get(0);
    assert_eq!(blocking, vec![a_pid as i32]);
    let none: Vec<i32> = c
        .query_one("SELECT pg_blocking_pids($1)", &[&(a_pid as i32)])
        .await
        .expect("pg_blocking_pids of a")
        .get(0);
    assert!(none.is_empty());
    // a holds its transaction id; b waits on it.
    let rows = c
        .query(
            "SELECT pid::bigint, mode, granted FROM pg_locks WHERE locktype = 'transactionid' \
             AND transactionid = (SELECT transactionid FROM pg_locks WHERE locktype = \
             'transactionid' AND pid = $1 AND granted) ORDER BY granted DESC",
            &[&(a_pid as i32)],
        )
        .await
        .expect("pg_locks");
    let seen: Vec<(i64, String, bool)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        seen,
        vec![
            (a_pid, "ExclusiveLock".to_string(), true),
            (b_pid, "ShareLock".to_string(), false),
        ]
    );
    a.batch_execute("COMMIT").await.expect("commit");
    let (b, done) = waiter.await.expect("join");
    done.expect("b's update goes through");
    assert_eq!(ints(&b, "SELECT v::bigint FROM cc_block").await, vec![2]);
    b.batch_execute("DROP TABLE cc_block").await.expect("drop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_activity_shows_what_each_session_does_to_whom_may_see_it() {
    let t = Target::new();
    let a = t.connect().await;
    let c = t.connect().await;
    let a_pid = ints(&a, "SELECT pg_backend_pid()::bigint").await[0] as i32;
    a.batch_execute("SET application_name = 'cc-app'; BEGIN; SELECT 1 AS cc_marker")
        .await
        .expect("a idles in a transaction");
    let row = c
        .query_one(
            "SELECT state, query, application_name, xact_start IS NOT NULL, \
             query_start >= backend_start, state_change >= query_start \
             FROM pg_stat_activity WHERE pid = $1",
            &[&a_pid],
        )
        .await
        .expect("pg_stat_activity");
    assert_eq!(row.get::<_, String>(0), "idle in transaction");
    assert_eq!(
        row.get::<_, String>(1),
        "SET application_name = 'cc-app'; BEGIN; SELECT 1 AS cc_marker"
    );
    assert_eq!(row.get::<_, String>(2), "cc-app");
    assert!(row.get::<_, bool>(3) && row.get::<_, bool>(4) && row.get::<_, bool>(5));
    // The session asking sees itself active.
    let own: String = c
        .query_one(
            "SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .expect("own row")
        .get(0);
    assert_eq!(own, "active");
    // A role without the other session's privileges sees that it exists, not what it does.
    c.batch_execute("DROP ROLE IF EXISTS cc_watcher; CREATE ROLE cc_watcher; SET ROLE cc_watcher")
        .await
        .expect("set role");
    let row = c
        .query_one(
            "SELECT state, query, application_name FROM pg_stat_activity WHERE pid = $1",
            &[&a_pid],
        )
        .await
        .expect("as cc_watcher");
    assert_eq!(row.get::<_, Option<String>>(0), None);
    assert_eq!(row.get::<_, String>(1), "<insufficient privilege>");
    assert_eq!(row.get::<_, String>(2), "cc-app");
    c.batch_execute("RESET ROLE; DROP ROLE cc_watcher")
        .await
        .expect("cleanup");
    a.batch_execute("ROLLBACK").await.expect("rollback");
    let state: String = c
        .query_one(
            "SELECT state FROM pg_stat_activity WHERE pid = $1",
            &[&a_pid],
        )
        .await
        .expect("after")
        .get(0);
    assert_eq!(state, "idle");
}

/// Temporary tables are their session's: another session sees its own table of the
/// same name (or none), cannot reach the first one's through its schema, and the
/// table goes when its session ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporary_tables_are_their_sessions_and_go_with_them() {
    let t = Target::new();
    let a = t.connect().await;
    let b = t.connect().await;
    a.batch_execute(
        "DROP TABLE IF EXISTS cc_tmp; CREATE TABLE cc_tmp (v text); INSERT INTO cc_tmp VALUES ('shared'); \
         CREATE TEMP TABLE cc_tmp (v text); INSERT INTO cc_tmp VALUES ('a''s')",
    )
    .await
    .expect("a's tables");
    assert_eq!(text(&a, "SELECT v FROM cc_tmp").await, ["a's"]);
    assert_eq!(text(&b, "SELECT v FROM cc_tmp").await, ["shared"]);
    let schema = text(
        &a,
        "SELECT nspname::text FROM pg_namespace WHERE oid = pg_my_temp_schema()",
    )
    .await;
    assert!(schema[0].starts_with("pg_temp_"), "{schema:?}");
    let e = b
        .simple_query(&format!("SELECT v FROM {}.cc_tmp", schema[0]))
        .await
        .expect_err("another session's temporary table");
    assert_eq!(code(&e), Some("0A000"));
    b.batch_execute("CREATE TEMP TABLE cc_tmp (v text); INSERT INTO cc_tmp VALUES ('b''s')")
        .await
        .expect("b's own");
    assert_eq!(text(&b, "SELECT v FROM cc_tmp").await, ["b's"]);
    drop(a);
    // a's session ends (its server process or thread tidies up shortly after).
    let mut gone = false;
    for _ in 0..100 {
        let left = text(
            &b,
            "SELECT count(*)::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relname = 'cc_tmp' AND n.nspname LIKE 'pg_temp%'",
        )
        .await;
        if left == ["1"] {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "a's temporary table went with its session");
    b.batch_execute("DROP TABLE cc_tmp; DROP TABLE cc_tmp")
        .await
        .expect("b's temporary table, then the shared one");
}
