//! Who may connect: SCRAM-SHA-256 and MD5 password authentication through a real
//! client (tokio-postgres, which speaks both), roles made in SQL, and what a role
//! without superuser may not do. PostgreSQL 15's answers: 28P01 for a wrong password
//! or an unknown user (the same message), 42501 for a missing privilege.

mod common;

use common::{TestServer, connect_url};
use kiln::auth::{Method, Role, Secret};
use kiln::{Cluster, Config};

fn server(method: Method) -> TestServer {
    let cluster = Cluster::new(Config {
        auth: method,
        ..Default::default()
    });
    cluster.roles.put(
        "admin",
        Some(Role {
            oid: kiln::auth::BOOTSTRAP_SUPERUSER_OID,
            name: "admin".into(),
            superuser: true,
            login: true,
            createdb: true,
            secret: Some(Secret::new("right horse")),
        }),
    );
    TestServer::start_with(cluster)
}

fn url(server: &TestServer, user: &str, password: &str) -> String {
    format!(
        "host={} port={} user={user} password='{password}' dbname=postgres",
        server.addr.ip(),
        server.addr.port()
    )
}

async fn refused(url: &str) -> (String, String, String) {
    let e = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .err()
        .expect("refused");
    let db = e.as_db_error().expect("an ErrorResponse");
    (
        db.severity().to_string(),
        db.code().code().to_string(),
        db.message().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_and_md5_let_the_right_password_in_and_nothing_else() {
    for method in [Method::Scram, Method::Md5] {
        let server = server(method);
        let c = connect_url(&url(&server, "admin", "right horse")).await;
        let row = c.query_one("SELECT 1 + 1", &[]).await.expect("query");
        assert_eq!(row.get::<_, i32>(0), 2);
        let failed = |user: &str| {
            (
                "FATAL".to_string(),
                "28P01".to_string(),
                format!("password authentication failed for user \"{user}\""),
            )
        };
        assert_eq!(
            refused(&url(&server, "admin", "wrong horse")).await,
            failed("admin")
        );
        // An unknown name fails the same way (no hint that it does not exist).
        assert_eq!(
            refused(&url(&server, "nobody", "right horse")).await,
            failed("nobody")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_made_in_sql_log_in_and_are_not_superusers() {
    let server = server(Method::Scram);
    let admin = connect_url(&url(&server, "admin", "right horse")).await;
    admin
        .batch_execute(
            "CREATE ROLE app LOGIN PASSWORD 'app pw'; CREATE USER other WITH PASSWORD 'o'",
        )
        .await
        .expect("create roles");
    // A role made in a transaction that rolls back is gone.
    admin
        .batch_execute("BEGIN; CREATE ROLE ghost LOGIN PASSWORD 'g'; ROLLBACK")
        .await
        .expect("rolled back");
    assert_eq!(refused(&url(&server, "ghost", "g")).await.1, "28P01");
    let app = connect_url(&url(&server, "app", "app pw")).await;
    let rows = app.simple_query("SHOW is_superuser").await.expect("show");
    assert!(
        matches!(&rows[1], tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("off"))
    );
    let e = app
        .batch_execute("CREATE ROLE sneaky SUPERUSER")
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42501"));
    // Files on the server are for superusers (PostgreSQL's pg_read/write_server_files).
    admin
        .batch_execute("CREATE TABLE files (a int)")
        .await
        .expect("table");
    for sql in [
        "COPY files FROM '/tmp/kiln-auth-test-none.csv'",
        "COPY files TO '/tmp/kiln-auth-test-none.csv'",
    ] {
        let e = app.batch_execute(sql).await.unwrap_err();
        assert_eq!(e.code().map(|c| c.code()), Some("42501"), "{sql}");
    }
    assert!(!std::path::Path::new("/tmp/kiln-auth-test-none.csv").exists());
    // Its own password it may change; then only the new one works.
    app.batch_execute("ALTER ROLE app PASSWORD 'new pw'")
        .await
        .expect("own password");
    assert_eq!(refused(&url(&server, "app", "app pw")).await.1, "28P01");
    connect_url(&url(&server, "app", "new pw")).await;
    // NOLOGIN, then DROP: no way in.
    admin
        .batch_execute("ALTER ROLE other NOLOGIN")
        .await
        .expect("nologin");
    assert_eq!(refused(&url(&server, "other", "o")).await.1, "28P01");
    admin.batch_execute("DROP ROLE other").await.expect("drop");
    let e = admin.batch_execute("DROP ROLE other").await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42704"));
    let e = admin.batch_execute("CREATE ROLE app").await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42710"));
}

/// A role that logs in with its password has the privileges granted to it and no
/// more: 42501 for the rest, through a real client, with the owner's work unaffected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logged_in_roles_have_what_was_granted_and_no_more() {
    let server = server(Method::Scram);
    let admin = connect_url(&url(&server, "admin", "right horse")).await;
    admin
        .batch_execute(
            "CREATE ROLE reader LOGIN PASSWORD 'r'; CREATE ROLE writers; \
             CREATE TABLE accounts (id serial PRIMARY KEY, owner text, balance int); \
             INSERT INTO accounts (owner, balance) VALUES ('a', 10), ('b', 20); \
             CREATE TABLE audit (note text); \
             GRANT SELECT ON accounts TO reader; \
             GRANT INSERT ON audit TO writers; GRANT writers TO reader",
        )
        .await
        .expect("setup");
    let reader = connect_url(&url(&server, "reader", "r")).await;
    let sum: i64 = reader
        .query_one("SELECT sum(balance) FROM accounts", &[])
        .await
        .expect("granted SELECT")
        .get(0);
    assert_eq!(sum, 30);
    // Through the writers role it belongs to.
    reader
        .batch_execute("INSERT INTO audit VALUES ('seen')")
        .await
        .expect("inherited INSERT");
    let code = |e: tokio_postgres::Error| {
        let db = e.as_db_error().expect("an ErrorResponse").clone();
        (db.code().code().to_string(), db.message().to_string())
    };
    for (sql, message) in [
        (
            "UPDATE accounts SET balance = 0",
            "permission denied for table accounts",
        ),
        ("SELECT * FROM audit", "permission denied for table audit"),
        ("DROP TABLE accounts", "must be owner of table accounts"),
        (
            "CREATE TABLE mine (a int)",
            "permission denied for schema public",
        ),
        (
            "SELECT nextval('accounts_id_seq')",
            "permission denied for sequence accounts_id_seq",
        ),
    ] {
        let e = reader.batch_execute(sql).await.unwrap_err();
        assert_eq!(code(e), ("42501".to_string(), message.to_string()), "{sql}");
    }
    // A prepared statement is checked each time it runs: a REVOKE stops it.
    let stmt = reader
        .prepare("SELECT count(*) FROM accounts")
        .await
        .expect("prepare");
    reader.query_one(&stmt, &[]).await.expect("allowed");
    admin
        .batch_execute("REVOKE SELECT ON accounts FROM reader")
        .await
        .expect("revoke");
    let e = reader.query_one(&stmt, &[]).await.unwrap_err();
    assert_eq!(code(e).0, "42501");
    let rows = admin
        .query("SELECT count(*) FROM accounts", &[])
        .await
        .expect("owner reads");
    assert_eq!(rows[0].get::<_, i64>(0), 2);
}

/// kiln will not serve the network with trust authentication, nor start password
/// authentication without the superuser's password.
#[test]
fn refuses_to_start_open_to_the_network_or_without_a_password() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(args)
            .output()
            .expect("run kiln");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run(&["--listen", "0.0.0.0", "--port", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("refusing to listen on 0.0.0.0 with --auth trust"),
        "{err}"
    );
    let (code, err) = run(&["--auth", "scram-sha-256", "--port", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs --password-file"), "{err}");
    let (code, err) = run(&["--auth", "password", "--port", "0"]);
    assert_eq!(code, Some(2), "{err}");
}

/// PostgreSQL 15 keeps passwords as SCRAM verifiers and, under `md5`, authenticates a
/// role whose password is SCRAM by SCRAM: the server's first request is SASL (10), not
/// MD5 (5). Under passwords, an unknown database is 3D000 and template0 55000.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn md5_runs_scram_for_scram_verifiers_and_unknown_databases_are_refused() {
    use std::io::{Read, Write};
    let server = server(Method::Md5);
    let mut s = std::net::TcpStream::connect(server.addr).expect("connect");
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    let mut body = 196608i32.to_be_bytes().to_vec();
    body.extend_from_slice(b"user\0admin\0database\0postgres\0\0");
    let mut msg = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    msg.extend_from_slice(&body);
    s.write_all(&msg).expect("startup");
    let mut head = [0u8; 9];
    s.read_exact(&mut head).expect("an authentication request");
    assert_eq!(head[0], b'R');
    assert_eq!(
        i32::from_be_bytes([head[5], head[6], head[7], head[8]]),
        10,
        "AuthenticationSASL, not AuthenticationMD5Password"
    );
    drop(s);
    let c = connect_url(&url(&server, "admin", "right horse")).await;
    c.batch_execute("CREATE DATABASE app; CREATE ROLE outsider LOGIN PASSWORD 'o'")
        .await
        .expect("create");
    let other_db = |db: &str| {
        format!(
            "host={} port={} user=admin password='right horse' dbname={db}",
            server.addr.ip(),
            server.addr.port()
        )
    };
    let app = connect_url(&other_db("app")).await;
    assert_eq!(
        app.query_one("SELECT current_database()", &[])
            .await
            .expect("query")
            .get::<_, String>(0),
        "app"
    );
    assert_eq!(
        refused(&other_db("nope")).await,
        (
            "FATAL".into(),
            "3D000".into(),
            "database \"nope\" does not exist".into()
        )
    );
    assert_eq!(refused(&other_db("template0")).await.1, "55000");
    // CONNECT taken from PUBLIC: a role without it is refused; superusers are not.
    c.batch_execute("REVOKE CONNECT ON DATABASE app FROM PUBLIC")
        .await
        .expect("revoke");
    let outsider = format!(
        "host={} port={} user=outsider password=o dbname=app",
        server.addr.ip(),
        server.addr.port()
    );
    assert_eq!(
        refused(&outsider).await,
        (
            "FATAL".into(),
            "42501".into(),
            "permission denied for database \"app\"".into()
        )
    );
    c.batch_execute("GRANT CONNECT ON DATABASE app TO outsider")
        .await
        .expect("grant");
    connect_url(&outsider).await;
}

/// The last superuser_reserved_connections (3) slots of max_connections are for
/// superusers: another role gets PostgreSQL's FATAL 53300 once only they are left, a
/// superuser gets in until every slot is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_slots_are_reserved_for_superusers() {
    let cluster = Cluster::new(Config {
        auth: Method::Scram,
        max_connections: 5,
        ..Default::default()
    });
    cluster.roles.put(
        "admin",
        Some(Role {
            oid: kiln::auth::BOOTSTRAP_SUPERUSER_OID,
            name: "admin".into(),
            superuser: true,
            login: true,
            createdb: true,
            secret: Some(Secret::new("right horse")),
        }),
    );
    let server = TestServer::start_with(cluster);
    let admin = connect_url(&url(&server, "admin", "right horse")).await;
    admin
        .batch_execute("CREATE ROLE app LOGIN PASSWORD 'pw'")
        .await
        .expect("role");
    let app = connect_url(&url(&server, "app", "pw")).await;
    assert_eq!(
        refused(&url(&server, "app", "pw")).await,
        (
            "FATAL".to_string(),
            "53300".to_string(),
            "remaining connection slots are reserved for non-replication superuser connections"
                .to_string()
        )
    );
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_url(&url(&server, "admin", "right horse")).await);
    }
    assert_eq!(
        refused(&url(&server, "admin", "right horse")).await.2,
        "sorry, too many clients already"
    );
    let rows = app
        .simple_query("SHOW superuser_reserved_connections")
        .await
        .expect("show");
    assert!(
        matches!(&rows[1], tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("3"))
    );
    drop((admin, held));
}
