//! Runs every `.slt` file under `tests/slt/` against a fresh kiln server, through
//! tokio-postgres's simple query protocol (the text psql shows).
//!
//! With `KILN_SLT_URL` set (a libpq-style connection string to a PostgreSQL 15 server
//! whose user may create databases), the same files run against that server instead,
//! each in a new database with C collation: this is how the expected results are shown
//! to be PostgreSQL's (`scripts/slt-postgres.sh`). `KILN_SLT_FILTER` limits the files.
//! `KILN_SLT_OVERRIDE=1` (with `KILN_SLT_URL`) rewrites the expected results from that
//! server instead of checking them. `KILN_SLT_ROOT` runs another directory of `.slt` files
//! instead of `tests/slt/` (`tests/slt-pending/` holds PostgreSQL-verified files for
//! features not built yet).

mod common;

use std::path::{Path, PathBuf};

use sqllogictest::{AsyncDB, DBOutput, DefaultColumnType};
use tokio_postgres::SimpleQueryMessage;

#[derive(Debug)]
struct SltError {
    message: String,
    code: Option<String>,
}

impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for SltError {}

impl From<tokio_postgres::Error> for SltError {
    fn from(e: tokio_postgres::Error) -> SltError {
        match e.as_db_error() {
            Some(db) => SltError {
                message: db.message().to_string(),
                code: Some(db.code().code().to_string()),
            },
            None => SltError {
                message: e.to_string(),
                code: None,
            },
        }
    }
}

struct Conn {
    client: tokio_postgres::Client,
    engine: &'static str,
    /// KILN_SLT_DURABLE: the data directory (root, name) and the live database, checked
    /// after every statement.
    durable: Option<(PathBuf, std::sync::Arc<kiln::Database>)>,
}

#[async_trait::async_trait]
impl AsyncDB for Conn {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        let result = self.client.simple_query(sql).await;
        // Checked between transactions only: a sequence's options change in place
        // under an open ALTER SEQUENCE (its undo puts them back).
        if let Some((dir, db)) = &self.durable
            && db.txns.snapshot(0).active.is_empty()
            && let Err(e) = recovers_the_same(dir, db)
        {
            panic!("after {sql:?}: {e}");
        }
        let messages = result?;
        let mut rows = Vec::new();
        let mut width = None;
        let mut affected = 0;
        for m in messages {
            match m {
                SimpleQueryMessage::Row(row) => {
                    width = Some(row.len());
                    rows.push(
                        (0..row.len())
                            .map(|i| match row.get(i) {
                                None => "NULL".to_string(),
                                Some("") => "(empty)".to_string(),
                                Some(s) => s.to_string(),
                            })
                            .collect(),
                    );
                }
                SimpleQueryMessage::RowDescription(cols) => width = Some(cols.len()),
                SimpleQueryMessage::CommandComplete(n) => affected = n,
                _ => {}
            }
        }
        match width {
            Some(w) => Ok(DBOutput::Rows {
                types: vec![DefaultColumnType::Any; w],
                rows,
            }),
            None => Ok(DBOutput::StatementComplete(affected)),
        }
    }

    async fn shutdown(&mut self) {}

    fn engine_name(&self) -> &str {
        self.engine
    }

    fn error_sql_state(err: &SltError) -> Option<String> {
        err.code.clone()
    }
}

fn slt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            slt_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "slt") {
            out.push(p);
        }
    }
}

/// A fresh PostgreSQL database for one file; returns its connection string.
async fn fresh_postgres_db(admin_url: &str, file: &Path) -> String {
    let admin = common::connect_url(admin_url).await;
    let name = format!(
        "slt_{}",
        file.file_stem()
            .map(|s| s
                .to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_"))
            .unwrap_or_default()
    );
    admin
        .simple_query(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .expect("drop database");
    admin
        .simple_query(&format!(
            "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
        ))
        .await
        .expect("create database");
    format!("{admin_url} dbname={name}")
}

/// Recovers a copy of database directory `from` (the live server still holds it) and
/// compares its contents with `live`'s.
fn recovers_the_same(from: &Path, live: &kiln::Database) -> Result<(), String> {
    if let Some(d) = live.durable.get() {
        d.sync();
    }
    let to = from.with_extension("copy");
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(from)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        if entry.file_name() != "kiln.lock" {
            std::fs::copy(entry.path(), to.join(entry.file_name())).map_err(|e| e.to_string())?;
        }
    }
    let expected = kiln::durable::contents(live);
    let cluster = kiln::Cluster::default_arc();
    let spec = kiln::DatabaseSpec {
        name: "copy".into(),
        owner: kiln::auth::BOOTSTRAP_SUPERUSER_OID,
        is_template: false,
        allow_connections: true,
        connection_limit: -1,
        settings: Vec::new(),
    };
    let db = std::sync::Arc::new(kiln::Database::new(&cluster, live.oid, spec));
    let recovered = kiln::durable::Durability::open(&db, &to)
        .map_err(|e| format!("recovery failed: {}", e.message))?;
    let got = kiln::durable::contents(&db);
    drop(recovered);
    let _ = std::fs::remove_dir_all(&to);
    match (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "recovered contents differ at line {i}:\n  live:      {:?}\n  recovered: {:?}",
            expected
                .get(i)
                .map(|s| s.chars().take(300).collect::<String>()),
            got.get(i).map(|s| s.chars().take(300).collect::<String>())
        )),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqllogictest_files() {
    let root = match std::env::var("KILN_SLT_ROOT") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slt"),
    };
    let mut files = Vec::new();
    slt_files(&root, &mut files);
    files.sort();
    let filter = std::env::var("KILN_SLT_FILTER").ok();
    let external = std::env::var("KILN_SLT_URL").ok();
    // KILN_SLT_DURABLE=DIR: each file runs on a durable database in DIR; afterwards a copy
    // of its directory (as a crash would leave it) is recovered and must hold the same.
    let durable = std::env::var("KILN_SLT_DURABLE").ok().map(PathBuf::from);
    let mut live: Option<std::sync::Arc<kiln::Database>> = None;
    let mut failures = Vec::new();
    let mut ran = 0;
    // Files the COPY … TO 'file' tests write (kiln's run and PostgreSQL's may run as
    // different users: neither may find the other's file in /tmp).
    let remove_copy_files = || {
        for name in [
            "kiln-slt-copy-file.csv",
            "kiln-slt-copy-file.txt",
            "kiln-slt-copy-file.program",
        ] {
            let _ = std::fs::remove_file(std::env::temp_dir().join(name));
        }
    };
    for file in &files {
        if let Some(f) = &filter
            && !file.to_string_lossy().contains(f.as_str())
        {
            continue;
        }
        ran += 1;
        let (url, _server) = match &external {
            Some(admin) => (fresh_postgres_db(admin, file).await, None),
            None => {
                let cluster = kiln::Cluster::default_arc();
                if let Some(root) = &durable {
                    let dir = root.join(format!("f{ran}"));
                    let _ = std::fs::remove_dir_all(&dir);
                    let d = kiln::durable::cluster::DataDir::open(&cluster, &dir)
                        .expect("open a data directory");
                    let _ = cluster.durable.set(d);
                }
                // The database the test's sessions use (common::TestServer::url).
                let db = cluster
                    .connect_to("test", "tester", true)
                    .expect("database test");
                let s = common::TestServer::start_with(cluster);
                live = Some(db);
                (s.url(), Some(s))
            }
        };
        // `onlyif kiln` / `onlyif postgres` records run on one engine only.
        let engine = if external.is_some() {
            "postgres"
        } else {
            "kiln"
        };
        let check = durable
            .clone()
            .zip(live.clone())
            .map(|(root, db)| (root.join(format!("f{ran}/base/{}", db.oid)), db));
        let mut runner = sqllogictest::Runner::new(move || {
            let url = url.clone();
            let durable = check.clone();
            async move {
                Ok::<_, SltError>(Conn {
                    client: common::connect_url(&url).await,
                    engine,
                    durable,
                })
            }
        });
        if std::env::var("KILN_SLT_OVERRIDE").is_ok() {
            // Complete mode: rewrite the file's expected results with what the server says.
            if let Err(e) = runner
                .update_test_file(
                    file,
                    " ",
                    sqllogictest::default_validator,
                    sqllogictest::default_normalizer,
                    sqllogictest::default_column_validator,
                )
                .await
            {
                failures.push(format!("{}\n{e}", file.display()));
            }
            continue;
        }
        remove_copy_files();
        if let Err(e) = runner.run_file_async(file).await {
            failures.push(format!("{}\n{}", file.display(), e.display(true)));
        }
        remove_copy_files();
        if let (Some(root), Some(db)) = (&durable, live.take()) {
            if let Err(e) = recovers_the_same(&root.join(format!("f{ran}/base/{}", db.oid)), &db) {
                failures.push(format!("{} (durable)\n{e}", file.display()));
            }
            let _ = std::fs::remove_dir_all(root.join(format!("f{ran}")));
        }
    }
    assert!(ran > 0, "no .slt files ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} files failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
