//! The durable mode, against the real `kiln` binary: what a session committed is there
//! after a clean restart and after `kill -9`; what it did not commit is not; the schema
//! (keys, indexes, foreign keys, sequences, views, roles) comes back as it was.

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{code, connect_url};

/// A kiln process over a data directory.
struct Kiln {
    child: Child,
    port: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Kiln {
    fn start(dir: &PathBuf) -> Kiln {
        Kiln::start_with(dir, &[])
    }

    fn start_with(dir: &PathBuf, extra: &[&str]) -> Kiln {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(["--port", &port.to_string(), "--data-dir"])
            .arg(dir)
            .args(extra)
            .env("KILN_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kiln");
        let mut child = child;
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                panic!("kiln exited ({status}): {err}");
            }
            assert!(Instant::now() < deadline, "kiln did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        }
        Kiln { child, port }
    }

    fn url(&self) -> String {
        format!("host=127.0.0.1 port={} user=kiln dbname=kiln", self.port)
    }

    /// `kill -9`.
    fn crash(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, and wait for the shutdown checkpoint.
    fn stop(mut self) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().ok().flatten().is_none() {
            assert!(Instant::now() < deadline, "kiln did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Kiln {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh data directory, removed when dropped.
struct DataDir(PathBuf);

impl DataDir {
    fn new(name: &str) -> DataDir {
        let dir = std::env::temp_dir().join(format!("kiln-durable-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything a query returns, as text rows.
async fn rows(c: &tokio_postgres::Client, sql: &str) -> Vec<Vec<Option<String>>> {
    let mut out = Vec::new();
    for m in c.simple_query(sql).await.expect(sql) {
        if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
            out.push((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect());
        }
    }
    out
}

/// What a restart must keep: the catalog as psql's queries see it, and every table's
/// rows in a fixed order.
async fn fingerprint(c: &tokio_postgres::Client) -> Vec<Vec<Option<String>>> {
    let mut all = Vec::new();
    for sql in [
        "SELECT table_name, column_name, data_type, is_nullable, column_default, \
         is_identity, identity_generation, is_generated, generation_expression \
         FROM information_schema.columns WHERE table_schema = 'public' \
         ORDER BY table_name, ordinal_position",
        "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' \
         ORDER BY 1, 2",
        "SELECT c.relname, r.conname, pg_get_constraintdef(r.oid) FROM pg_constraint r \
         JOIN pg_class c ON c.oid = r.conrelid ORDER BY 1, 2",
        "SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1",
        "SELECT sequencename, data_type, start_value, min_value, max_value, increment_by, \
         cycle FROM pg_sequences ORDER BY 1",
        "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles ORDER BY 1",
        "SELECT c.relname, d.objsubid, d.description FROM pg_description d \
         JOIN pg_class c ON c.oid = d.objoid ORDER BY 1, 2",
        "SELECT * FROM accounts ORDER BY id",
        "SELECT * FROM \"Odd Name\" ORDER BY \"Key\"",
        "SELECT * FROM orders ORDER BY id",
        "SELECT * FROM items ORDER BY order_id, line",
        "SELECT * FROM big_view ORDER BY id",
    ] {
        all.push(vec![Some(sql.to_string())]);
        all.extend(rows(c, sql).await);
    }
    all
}

/// Every sequence's last value.
async fn sequences(c: &tokio_postgres::Client) -> Vec<(String, i64, i64)> {
    rows(
        c,
        "SELECT sequencename, last_value, increment_by FROM pg_sequences ORDER BY 1",
    )
    .await
    .into_iter()
    .map(|r| {
        let name = r[0].clone().unwrap_or_default();
        let int = |i: usize| r[i].as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
        (name, int(1), int(2))
    })
    .collect()
}

/// After a crash a sequence may skip values (up to 32, as PostgreSQL's) but never
/// hands out one it handed out before.
async fn assert_sequences_moved_on(c: &tokio_postgres::Client, before: &[(String, i64, i64)]) {
    let after = sequences(c).await;
    assert_eq!(after.len(), before.len());
    for ((name, was, step), (_, now, _)) in before.iter().zip(&after) {
        assert!(
            *now >= *was && *now <= *was + 32 * step,
            "{name}: {was} before, {now} after"
        );
    }
}

/// Asserts two fingerprints are equal, showing where they first differ.
fn assert_same(after: &[Vec<Option<String>>], before: &[Vec<Option<String>>], when: &str) {
    if let Some(i) = (0..after.len().max(before.len())).find(|&i| after.get(i) != before.get(i)) {
        let query = before[..i.min(before.len())]
            .iter()
            .rev()
            .find(|r| r.len() == 1 && r[0].as_deref().is_some_and(|q| q.starts_with("SELECT")));
        panic!(
            "{when}: row {i} differs (in {query:?})\n  now:    {:?}\n  before: {:?}",
            after.get(i),
            before.get(i)
        );
    }
}

const SCHEMA: &str = "
    CREATE SEQUENCE ticket START 100 INCREMENT 5;
    CREATE TABLE accounts (
        id serial PRIMARY KEY,
        owner text NOT NULL UNIQUE,
        balance numeric(12,2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
        opened date DEFAULT '2024-01-01',
        flags boolean[],
        ratio double precision,
        span interval
    );
    CREATE TABLE \"Odd Name\" (\"Key\" bigint GENERATED ALWAYS AS IDENTITY (START WITH 7) PRIMARY KEY,
        \"Value\" varchar(20), twice bigint GENERATED ALWAYS AS (\"Key\" * 2) STORED);
    CREATE TABLE orders (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account int REFERENCES accounts ON DELETE CASCADE, ticket bigint DEFAULT nextval('ticket'),
        note text);
    CREATE TABLE items (order_id int NOT NULL, line int NOT NULL, sku char(4), qty smallint,
        PRIMARY KEY (order_id, line),
        CONSTRAINT items_order FOREIGN KEY (order_id) REFERENCES orders (id)
            ON UPDATE CASCADE ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED);
    CREATE UNIQUE INDEX items_sku ON items (sku) NULLS NOT DISTINCT;
    CREATE INDEX accounts_rich ON accounts (opened DESC NULLS LAST, owner) WHERE balance > 100;
    CREATE VIEW big_view (id, who) AS SELECT id, owner FROM accounts WHERE balance > 50;
    CREATE ROLE app LOGIN PASSWORD 'secret';
    COMMENT ON TABLE accounts IS 'money, kept';
    COMMENT ON COLUMN \"Odd Name\".\"Value\" IS 'it''s odd';
    COMMENT ON INDEX items_sku IS 'one per sku';
";

async fn workload(c: &tokio_postgres::Client, round: i32) {
    c.batch_execute(&format!(
        "INSERT INTO accounts (owner, balance, flags, ratio, span)
           SELECT 'o{round}_' || g, g * 10.25, ARRAY[g % 2 = 0, NULL], g / 3.0, g * interval '1 hour'
           FROM generate_series(1, 50) g;
         INSERT INTO accounts (owner) VALUES ('zero{round}'), ('dup{round}');
         UPDATE accounts SET balance = balance + 1, ratio = -0.0 WHERE id % 7 = 0;
         DELETE FROM accounts WHERE id % 11 = 0;
         INSERT INTO \"Odd Name\" (\"Value\") VALUES ('a''b'), (NULL), ('r{round}');
         INSERT INTO orders (account, note) SELECT id, 'n' || id FROM accounts WHERE id % 5 = 0;
         INSERT INTO items SELECT id, 1, lpad(id::text, 4, '0'), 3 FROM orders WHERE id % 2 = 0 AND NOT EXISTS
           (SELECT 1 FROM items i WHERE i.order_id = orders.id);
         BEGIN; DELETE FROM accounts WHERE id = 5 * {round}; UPDATE orders SET note = 'moved'
           WHERE id % 3 = 0; COMMIT;
         BEGIN; INSERT INTO accounts (owner) VALUES ('never{round}'); ROLLBACK;
         SELECT nextval('ticket'); SELECT setval('accounts_id_seq', 1000 * {round});"
    ))
    .await
    .expect("workload");
}

#[tokio::test(flavor = "multi_thread")]
async fn schema_and_rows_survive_restarts_and_crashes() {
    let dir = DataDir::new("restart");
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    c.batch_execute(SCHEMA).await.expect("schema");
    workload(&c, 1).await;
    let before = fingerprint(&c).await;
    let seqs = sequences(&c).await;
    assert!(before.len() > 100, "the workload stored rows");
    drop(c);
    // A crash: the schema from its checkpoint, the rows from the log.
    kiln.crash();
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    assert_same(&fingerprint(&c).await, &before, "after kill -9");
    assert_sequences_moved_on(&c, &seqs).await;
    // More work on the recovered state, then a clean stop (a shutdown checkpoint).
    workload(&c, 2).await;
    c.batch_execute("ALTER TABLE accounts ADD COLUMN note text DEFAULT 'x'")
        .await
        .expect("alter");
    workload(&c, 3).await;
    let before = fingerprint(&c).await;
    let seqs = sequences(&c).await;
    drop(c);
    kiln.stop();
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    assert_same(&fingerprint(&c).await, &before, "after a clean stop");
    assert_eq!(
        sequences(&c).await,
        seqs,
        "a clean stop keeps sequences exactly"
    );
    // Keys and constraints were rebuilt and still hold.
    let e = c
        .batch_execute("INSERT INTO accounts (id, owner) VALUES (1, 'o1_1')")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("23505"));
    let e = c
        .batch_execute("INSERT INTO orders (account) VALUES (999999)")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("23503"));
    let e = c
        .batch_execute("INSERT INTO \"Odd Name\" (\"Key\") VALUES (1)")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("428C9"));
    // Sequences go on from where they were.
    let next = rows(&c, "SELECT nextval('accounts_id_seq')").await;
    assert_eq!(next[0][0].as_deref(), Some("3001"));
    // A checkpoint by hand, more commits, a crash: the log after it replays.
    c.batch_execute("CHECKPOINT").await.expect("checkpoint");
    workload(&c, 4).await;
    let before = fingerprint(&c).await;
    let seqs = sequences(&c).await;
    drop(c);
    kiln.crash();
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    assert_same(
        &fingerprint(&c).await,
        &before,
        "after CHECKPOINT and kill -9",
    );
    assert_sequences_moved_on(&c, &seqs).await;
    drop(c);
    drop(kiln);
}

#[test]
fn a_second_server_on_the_same_directory_is_refused() {
    let dir = DataDir::new("lock");
    let kiln = Kiln::start(&dir.0);
    let out = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["--port", &free_port().to_string(), "--data-dir"])
        .arg(&dir.0)
        .output()
        .expect("run kiln");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is in use by another kiln server"), "{err}");
    kiln.crash();
}

/// Kill -9 while writers commit transfers: after the restart every acknowledged
/// commit is there, nothing that was not committed is, and the invariants hold
/// (money is conserved, keys are unique, every ledger line matches a transfer).
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_under_concurrent_writes_loses_no_acknowledged_commit() {
    const WRITERS: i64 = 4;
    const ACCOUNTS: i64 = 20;
    const BULK_ROWS: i64 = 25_000;
    let trials: u64 = std::env::var("KILN_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let dir = DataDir::new("crash");
    {
        let kiln = Kiln::start(&dir.0);
        let c = connect_url(&kiln.url()).await;
        c.batch_execute(&format!(
            "CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL);
             CREATE TABLE ledger (id bigserial PRIMARY KEY, writer int, seq bigint,
                 src int, dst int, amount bigint, UNIQUE (writer, seq));
             CREATE TABLE bulk (batch int, n int, pad text);
             INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, {ACCOUNTS}) g;"
        ))
        .await
        .expect("setup");
        drop(c);
        kiln.crash();
    }
    // Per writer: the last sequence number whose COMMIT was acknowledged.
    let mut acked = vec![0i64; WRITERS as usize];
    let mut bulk_acked = 0i64;
    for trial in 0..trials {
        let kiln = Kiln::start(&dir.0);
        let url = kiln.url();
        let stop = Arc::new(AtomicBool::new(false));
        let mut tasks = Vec::new();
        for w in 0..WRITERS {
            let (url, stop) = (url.clone(), stop.clone());
            let mut seq = acked[w as usize];
            tasks.push(tokio::spawn(async move {
                let Ok((c, conn)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await
                else {
                    return seq;
                };
                tokio::spawn(async move {
                    let _ = conn.await;
                });
                let mut n: i64 = seq * 7 + w;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let (src, dst) = (n % ACCOUNTS + 1, (n * 3 + w) % ACCOUNTS + 1);
                    let amount = n % 13 + 1;
                    let sql = format!(
                        "BEGIN;
                         UPDATE accounts SET balance = balance - {amount} WHERE id = {src};
                         UPDATE accounts SET balance = balance + {amount} WHERE id = {dst};
                         INSERT INTO ledger (writer, seq, src, dst, amount)
                           VALUES ({w}, {}, {src}, {dst}, {amount});
                         COMMIT;",
                        seq + 1
                    );
                    match c.batch_execute(&sql).await {
                        Ok(()) => seq += 1,
                        // Deadlocks and serialization failures roll back; a dead
                        // server ends the loop.
                        Err(e) if e.code().is_some() => {
                            let _ = c.batch_execute("ROLLBACK").await;
                        }
                        Err(_) => break,
                    }
                }
                seq
            }));
        }
        // One more writer commits large transactions (several MB each: the log takes
        // them in pieces, between the transfers' records).
        let bulk = {
            let (url, stop) = (url.clone(), stop.clone());
            let mut batches = bulk_acked;
            tokio::spawn(async move {
                let Ok((c, conn)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await
                else {
                    return batches;
                };
                tokio::spawn(async move {
                    let _ = conn.await;
                });
                while !stop.load(Ordering::Relaxed) {
                    let sql = format!(
                        "INSERT INTO bulk SELECT {}, g, repeat('x', 60) FROM generate_series(1, {BULK_ROWS}) g",
                        batches + 1
                    );
                    match c.batch_execute(&sql).await {
                        Ok(()) => batches += 1,
                        Err(_) => break,
                    }
                }
                batches
            })
        };
        let run_for = 150 + (trial * 97) % 400;
        tokio::time::sleep(Duration::from_millis(run_for)).await;
        // The crash happens while the writers are still committing.
        kiln.crash();
        stop.store(true, Ordering::Relaxed);
        let bulk_sent = bulk.await.expect("bulk writer");
        let mut in_flight = vec![0i64; WRITERS as usize];
        for (w, t) in tasks.into_iter().enumerate() {
            let seq = t.await.expect("writer");
            in_flight[w] = seq + 1;
            acked[w] = seq;
        }
        let kiln = Kiln::start(&dir.0);
        let c = connect_url(&kiln.url()).await;
        let total = rows(&c, "SELECT sum(balance), count(*) FROM accounts").await;
        assert_eq!(
            total[0],
            vec![
                Some((1000 * ACCOUNTS).to_string()),
                Some(ACCOUNTS.to_string())
            ],
            "trial {trial}: money is conserved"
        );
        for w in 0..WRITERS as usize {
            let got = rows(
                &c,
                &format!("SELECT count(*), coalesce(max(seq), 0) FROM ledger WHERE writer = {w}"),
            )
            .await;
            let count: i64 = got[0][0].as_deref().unwrap_or("0").parse().unwrap_or(-1);
            let max: i64 = got[0][1].as_deref().unwrap_or("0").parse().unwrap_or(-1);
            // Every acknowledged commit, with no gap; at most the one whose
            // acknowledgment the crash cut off beyond it.
            assert_eq!(count, max, "trial {trial} writer {w}: no gaps");
            assert!(
                max == acked[w] || max == in_flight[w],
                "trial {trial} writer {w}: {max} rows, {} acknowledged",
                acked[w]
            );
            acked[w] = max;
        }
        // Each account's balance is what its ledger lines say.
        let mismatched = rows(
            &c,
            "SELECT a.id FROM accounts a
               LEFT JOIN (SELECT id, sum(d) AS d FROM (
                   SELECT dst AS id, amount AS d FROM ledger
                   UNION ALL SELECT src, -amount FROM ledger) m GROUP BY id) l ON l.id = a.id
             WHERE a.balance <> 1000 + coalesce(l.d, 0)",
        )
        .await;
        assert!(mismatched.is_empty(), "trial {trial}: {mismatched:?}");
        // Large transactions: whole or not at all, every acknowledged one there.
        let got = rows(
            &c,
            "SELECT count(*), count(DISTINCT batch), coalesce(max(batch), 0) FROM bulk",
        )
        .await;
        let int = |i: usize| {
            got[0][i]
                .as_deref()
                .unwrap_or("0")
                .parse::<i64>()
                .unwrap_or(-1)
        };
        let (count, batches, max) = (int(0), int(1), int(2));
        assert_eq!(
            count,
            batches * BULK_ROWS,
            "trial {trial}: no partial large transaction"
        );
        assert_eq!(batches, max, "trial {trial}: no missing large transaction");
        assert!(
            max == bulk_sent || max == bulk_sent + 1,
            "trial {trial}: {max} large transactions, {bulk_sent} acknowledged"
        );
        bulk_acked = max;
        let dup = rows(&c, "SELECT count(*) - count(DISTINCT id) FROM ledger").await;
        assert_eq!(dup[0][0].as_deref(), Some("0"), "trial {trial}: unique ids");
        drop(c);
        kiln.crash();
    }
    // The trials did commit under the crash (the test is not vacuous).
    let committed: i64 = acked.iter().sum();
    eprintln!(
        "{committed} transfers and {bulk_acked} large transactions committed over {trials} crashes"
    );
    assert!(committed >= 10 * trials as i64, "only {committed} commits");
    assert!(bulk_acked >= 1, "no large transaction committed");
}

/// Recovery reads a log written by hand: transactions' records interleaved, one without
/// its commit record (dropped), one committed (kept), a torn frame at the end (cut off),
/// a sequence record (applied); then a tail overwritten with garbage (cut off there).
#[tokio::test(flavor = "multi_thread")]
async fn recovery_keeps_committed_transactions_only() {
    use kiln::durable::{codec, wal};
    use kiln::exec::vector::Vector;
    use kiln::types::{DataType, Value};

    let dir = DataDir::new("handmade");
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    c.batch_execute(
        "CREATE TABLE t (a int, b text); CREATE SEQUENCE s; INSERT INTO t VALUES (0, 'kept')",
    )
    .await
    .expect("setup");
    // The database's own directory (DIR/base/<oid>) holds its log.
    let oid = rows(
        &c,
        "SELECT oid FROM pg_database WHERE datname = current_database()",
    )
    .await;
    let db_dir = dir
        .0
        .join("base")
        .join(oid[0][0].clone().unwrap_or_default());
    drop(c);
    kiln.stop();

    let batch = |values: &[(i32, &str)]| {
        let mut a = Vector::with_capacity(DataType::Int4, values.len());
        let mut b = Vector::with_capacity(DataType::Text, values.len());
        for (x, y) in values {
            a.push_value(&Value::Int4(*x));
            b.push_value(&Value::Text(y.to_string()));
        }
        let mut out = Vec::new();
        codec::encode_batch(&[a, b], values.len(), &mut out);
        out
    };
    let row_frame = |kind: u8, txn: u64, values: &[(i32, &str)], log: &mut Vec<u8>| {
        let mut p = Vec::new();
        wal::payload_start(kind, txn, "t", &mut p);
        p.extend_from_slice(&batch(values));
        wal::frame(&p, log);
    };
    let commit = |txn: u64, log: &mut Vec<u8>| {
        let mut p = Vec::new();
        wal::commit_payload(txn, &mut p);
        wal::frame(&p, log);
    };
    let mut log = Vec::new();
    row_frame(wal::INSERT, 7, &[(1, "never committed")], &mut log);
    row_frame(
        wal::INSERT,
        8,
        &[(2, "committed"), (3, "deleted later")],
        &mut log,
    );
    row_frame(wal::INSERT, 7, &[(4, "never committed")], &mut log);
    commit(8, &mut log);
    let mut p = Vec::new();
    wal::sequence_payload("s", &mut p);
    p.extend_from_slice(&41i64.to_le_bytes());
    p.push(1);
    wal::frame(&p, &mut log);
    row_frame(wal::DELETE, 9, &[(3, "deleted later")], &mut log);
    commit(9, &mut log);
    // A torn commit of a third transaction.
    row_frame(wal::INSERT, 10, &[(5, "torn")], &mut log);
    let mut torn = Vec::new();
    commit(10, &mut torn);
    log.extend_from_slice(&torn[..torn.len() - 3]);
    let newest = wal::segments(&db_dir)
        .expect("segments")
        .into_iter()
        .max()
        .expect("a segment");
    std::fs::write(wal::segment_path(&db_dir, newest), &log).expect("write the log");

    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    let got = rows(&c, "SELECT a, b FROM t ORDER BY a").await;
    assert_eq!(
        got,
        vec![
            vec![Some("0".to_string()), Some("kept".to_string())],
            vec![Some("2".to_string()), Some("committed".to_string())],
        ]
    );
    let next = rows(&c, "SELECT nextval('s')").await;
    assert_eq!(next[0][0].as_deref(), Some("42"));
    drop(c);
    kiln.crash();

    // Then a log whose tail is overwritten with garbage: the transaction before it is
    // kept, the one whose commit record the garbage hit is not.
    let newest = wal::segments(&db_dir)
        .expect("segments")
        .into_iter()
        .max()
        .expect("a segment");
    let path = wal::segment_path(&db_dir, newest);
    let mut log = std::fs::read(&path).expect("read the log");
    row_frame(wal::INSERT, 20, &[(6, "before the garbage")], &mut log);
    commit(20, &mut log);
    row_frame(wal::INSERT, 21, &[(7, "garbled")], &mut log);
    let mut garbled = Vec::new();
    commit(21, &mut garbled);
    log.extend(garbled.iter().map(|b| b ^ 0x5a));
    log.extend_from_slice(&[0xab; 64]);
    std::fs::write(&path, &log).expect("write the log");
    let kiln = Kiln::start(&dir.0);
    let c = connect_url(&kiln.url()).await;
    let got = rows(&c, "SELECT a FROM t ORDER BY a").await;
    let got: Vec<Option<String>> = got.into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(
        got,
        vec![
            Some("0".to_string()),
            Some("2".to_string()),
            Some("6".to_string())
        ]
    );
    drop(c);
    kiln.crash();
}

/// Roles and their passwords survive a crash; the superuser's password is always the
/// one the command line gives.
#[tokio::test(flavor = "multi_thread")]
async fn roles_and_passwords_survive_a_crash() {
    let dir = DataDir::new("roles");
    std::fs::create_dir_all(&dir.0).expect("dir");
    let pw = dir.0.with_extension("pw");
    std::fs::write(&pw, "rootpw\n").expect("password file");
    let auth = [
        "--auth",
        "scram-sha-256",
        "--password-file",
        pw.to_str().unwrap_or(""),
    ];
    let kiln = Kiln::start_with(&dir.0, &auth);
    let url = |port: u16, user: &str, password: &str| {
        format!("host=127.0.0.1 port={port} user={user} password={password} dbname=postgres")
    };
    let admin = connect_url(&url(kiln.port, "kiln", "rootpw")).await;
    admin
        .batch_execute("CREATE ROLE app LOGIN PASSWORD 'apppw'; CREATE ROLE nologin")
        .await
        .expect("roles");
    drop(admin);
    kiln.crash();
    let kiln = Kiln::start_with(&dir.0, &auth);
    let app = connect_url(&url(kiln.port, "app", "apppw")).await;
    let who = rows(&app, "SELECT current_user").await;
    assert_eq!(who[0][0].as_deref(), Some("app"));
    let wrong = tokio_postgres::connect(&url(kiln.port, "app", "nope"), tokio_postgres::NoTls)
        .await
        .err()
        .expect("a wrong password is refused");
    assert_eq!(code(&wrong), Some("28P01"));
    let roles = rows(
        &app,
        "SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname NOT LIKE 'pg_%' ORDER BY 1",
    )
    .await;
    assert_eq!(
        roles,
        vec![
            vec![Some("app".into()), Some("t".into())],
            vec![Some("kiln".into()), Some("t".into())],
            vec![Some("nologin".into()), Some("f".into())],
        ]
    );
    drop(app);
    kiln.crash();
    let _ = std::fs::remove_file(&pw);
}

/// Databases are durable: one made by CREATE DATABASE (and one made by a first
/// connection) comes back after a crash with its rows, each in its own directory; a
/// dropped one stays dropped and its directory goes.
#[tokio::test(flavor = "multi_thread")]
async fn databases_survive_a_crash_and_dropped_ones_stay_dropped() {
    let dir = DataDir::new("databases");
    let kiln = Kiln::start(&dir.0);
    let at = |port: u16, db: &str| format!("host=127.0.0.1 port={port} user=kiln dbname={db}");
    let admin = connect_url(&at(kiln.port, "postgres")).await;
    admin
        .batch_execute(
            "CREATE DATABASE app; CREATE DATABASE gone; CREATE ROLE owner_role; \
             CREATE DATABASE old_name; ALTER DATABASE old_name RENAME TO new_name; \
             ALTER DATABASE new_name SET timezone TO 'Asia/Tokyo'; \
             ALTER DATABASE new_name OWNER TO owner_role",
        )
        .await
        .expect("databases");
    let app = connect_url(&at(kiln.port, "app")).await;
    app.batch_execute(
        "CREATE TABLE t (a int PRIMARY KEY, b text); INSERT INTO t VALUES (1, 'one'), (2, 'two')",
    )
    .await
    .expect("app's table");
    let gone_oid = rows(&admin, "SELECT oid FROM pg_database WHERE datname = 'gone'").await;
    let gone_dir = dir
        .0
        .join("base")
        .join(gone_oid[0][0].clone().unwrap_or_default());
    assert!(gone_dir.is_dir(), "each database has its directory");
    admin
        .batch_execute("DROP DATABASE gone")
        .await
        .expect("drop");
    assert!(!gone_dir.exists(), "a dropped database's directory goes");
    drop(app);
    drop(admin);
    kiln.crash();

    let kiln = Kiln::start(&dir.0);
    let admin = connect_url(&at(kiln.port, "postgres")).await;
    let names = rows(&admin, "SELECT datname FROM pg_database ORDER BY 1").await;
    let names: Vec<_> = names.into_iter().filter_map(|r| r[0].clone()).collect();
    assert_eq!(
        names,
        ["app", "new_name", "postgres", "template0", "template1"]
    );
    assert_eq!(
        rows(
            &admin,
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'new_name'"
        )
        .await[0][0]
            .as_deref(),
        Some("owner_role")
    );
    let renamed = connect_url(&at(kiln.port, "new_name")).await;
    assert_eq!(
        rows(&renamed, "SHOW timezone").await[0][0].as_deref(),
        Some("Asia/Tokyo")
    );
    drop(renamed);
    let app = connect_url(&at(kiln.port, "app")).await;
    assert_eq!(
        rows(&app, "SELECT a, b FROM t ORDER BY a").await,
        vec![
            vec![Some("1".into()), Some("one".into())],
            vec![Some("2".into()), Some("two".into())],
        ]
    );
    let e = app
        .batch_execute("INSERT INTO t VALUES (1, 'again')")
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("23505"));
    assert_eq!(
        rows(
            &app,
            "SELECT count(*) FROM pg_roles WHERE rolname = 'owner_role'"
        )
        .await[0][0]
            .as_deref(),
        Some("1")
    );
    // The database a first connection made (trust) is durable too.
    let kiln_db = connect_url(&kiln.url()).await;
    kiln_db
        .batch_execute("CREATE TABLE k (x int); INSERT INTO k VALUES (42)")
        .await
        .expect("k");
    drop((app, admin, kiln_db));
    kiln.stop();
    let kiln = Kiln::start(&dir.0);
    let kiln_db = connect_url(&kiln.url()).await;
    assert_eq!(
        rows(&kiln_db, "SELECT x FROM k").await[0][0].as_deref(),
        Some("42")
    );
}
