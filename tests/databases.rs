//! CREATE DATABASE / DROP DATABASE and connecting to databases by name, as test
//! runners use them: each database its own namespace, templates copied whole,
//! PostgreSQL's errors when a database is in use.

mod common;

use common::{TestServer, code, connect_url};

fn url(server: &TestServer, db: &str) -> String {
    format!(
        "host={} port={} user=tester dbname={db}",
        server.addr.ip(),
        server.addr.port()
    )
}

/// The first column of every row, as text.
async fn column(c: &tokio_postgres::Client, sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in c.simple_query(sql).await.expect(sql) {
        if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
            out.push(r.get(0).unwrap_or("NULL").to_string());
        }
    }
    out
}

async fn error(c: &tokio_postgres::Client, sql: &str) -> (String, String, Option<String>) {
    let e = c.batch_execute(sql).await.expect_err(sql);
    let db = e.as_db_error().expect("an ErrorResponse");
    (
        db.code().code().to_string(),
        db.message().to_string(),
        db.detail().map(str::to_string),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_database_is_a_namespace_of_its_own() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    assert_eq!(
        column(&admin, "SELECT datname FROM pg_database ORDER BY 1").await,
        ["postgres", "template0", "template1"]
    );
    admin
        .batch_execute("CREATE DATABASE app")
        .await
        .expect("create");
    assert_eq!(
        error(&admin, "CREATE DATABASE app").await,
        (
            "42P04".into(),
            "database \"app\" already exists".into(),
            None
        )
    );
    let app = connect_url(&url(&server, "app")).await;
    app.batch_execute("CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)")
        .await
        .expect("table in app");
    assert_eq!(column(&app, "SELECT current_database()").await, ["app"]);
    // Not in postgres: the same name is free there.
    assert_eq!(error(&admin, "SELECT * FROM t").await.0, "42P01");
    admin
        .batch_execute("CREATE TABLE t (b text); INSERT INTO t VALUES ('x')")
        .await
        .expect("table in postgres");
    assert_eq!(column(&app, "SELECT sum(a) FROM t").await, ["3"]);
    assert_eq!(column(&admin, "SELECT b FROM t").await, ["x"]);
    // In use: refused with PostgreSQL's DETAIL; the current one never.
    assert_eq!(
        error(&admin, "DROP DATABASE app").await,
        (
            "55006".into(),
            "database \"app\" is being accessed by other users".into(),
            Some("There is 1 other session using the database.".into())
        )
    );
    assert_eq!(
        error(&app, "DROP DATABASE app").await.1,
        "cannot drop the currently open database"
    );
    assert_eq!(error(&admin, "BEGIN; DROP DATABASE app").await.0, "25001");
    admin.batch_execute("ROLLBACK").await.expect("rollback");
    drop(app);
    // The session leaves asynchronously; DROP waits for nobody, so retry briefly.
    let mut dropped = false;
    for _ in 0..200 {
        if admin.batch_execute("DROP DATABASE app").await.is_ok() {
            dropped = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(dropped, "DROP DATABASE once its session left");
    assert_eq!(
        column(
            &admin,
            "SELECT count(*) FROM pg_database WHERE datname = 'app'"
        )
        .await,
        ["0"]
    );
    // Under trust, connecting to a database that does not exist makes it, empty.
    let again = connect_url(&url(&server, "app")).await;
    assert_eq!(error(&again, "SELECT * FROM t").await.0, "42P01");
    // template0 takes no connections.
    let refused = tokio_postgres::connect(&url(&server, "template0"), tokio_postgres::NoTls)
        .await
        .err()
        .expect("template0 refuses");
    assert_eq!(code(&refused), Some("55000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_database_with_template_copies_it_whole() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    admin
        .batch_execute("CREATE DATABASE src")
        .await
        .expect("create");
    let src = connect_url(&url(&server, "src")).await;
    src.batch_execute(
        "CREATE TABLE p (id serial PRIMARY KEY, name text UNIQUE); \
         CREATE TABLE c (p int REFERENCES p, v numeric(10,2)); \
         INSERT INTO p (name) SELECT 'n' || g FROM generate_series(1, 1000) g; \
         INSERT INTO c SELECT g % 1000 + 1, g * 1.5 FROM generate_series(1, 5000) g; \
         DELETE FROM c WHERE p = 7; \
         CREATE VIEW pv AS SELECT count(*) AS n FROM p; \
         COMMENT ON TABLE p IS 'people'",
    )
    .await
    .expect("fill src");
    // Nobody else may be connected to the template meanwhile.
    assert_eq!(
        error(&admin, "CREATE DATABASE dst TEMPLATE src").await,
        (
            "55006".into(),
            "source database \"src\" is being accessed by other users".into(),
            Some("There is 1 other session using the database.".into())
        )
    );
    drop(src);
    let mut made = false;
    for _ in 0..200 {
        if admin
            .batch_execute("CREATE DATABASE dst WITH TEMPLATE = src")
            .await
            .is_ok()
        {
            made = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(made, "CREATE DATABASE … TEMPLATE once src is free");
    let dst = connect_url(&url(&server, "dst")).await;
    assert_eq!(
        column(&dst, "SELECT count(*) || ' ' || sum(v) FROM c").await,
        ["4995 18738705.00"]
    );
    assert_eq!(column(&dst, "SELECT n FROM pv").await, ["1000"]);
    assert_eq!(
        column(&dst, "SELECT obj_description('p'::regclass)").await,
        ["people"]
    );
    // The sequence goes on where src's was; keys and references still hold.
    assert_eq!(
        column(&dst, "INSERT INTO p (name) VALUES ('new') RETURNING id").await,
        ["1001"]
    );
    assert_eq!(
        error(&dst, "INSERT INTO p (name) VALUES ('n5')").await.0,
        "23505"
    );
    assert_eq!(
        error(&dst, "INSERT INTO c VALUES (5000, 1)").await.0,
        "23503"
    );
    // The copy is separate from the template.
    dst.batch_execute("DELETE FROM c").await.expect("delete");
    let src = connect_url(&url(&server, "src")).await;
    assert_eq!(column(&src, "SELECT count(*) FROM c").await, ["4995"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_database_with_force_ends_the_sessions_on_it() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    admin
        .batch_execute("CREATE DATABASE busy")
        .await
        .expect("create");
    let a = connect_url(&url(&server, "busy")).await;
    let b = connect_url(&url(&server, "busy")).await;
    assert_eq!(
        error(&admin, "DROP DATABASE busy").await.2.as_deref(),
        Some("There are 2 other sessions using the database.")
    );
    admin
        .batch_execute("DROP DATABASE busy WITH (FORCE)")
        .await
        .expect("drop with force");
    for c in [&a, &b] {
        let e = c.batch_execute("SELECT 1").await.expect_err("terminated");
        assert!(
            code(&e) == Some("57P01") || e.is_closed(),
            "a terminated session: {e}"
        );
    }
    assert_eq!(error(&admin, "DROP DATABASE busy").await.0, "3D000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn createdb_is_needed_and_owners_may_drop() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    admin
        .batch_execute("CREATE ROLE plain LOGIN; CREATE ROLE maker LOGIN CREATEDB")
        .await
        .expect("roles");
    let plain = connect_url(&format!(
        "host={} port={} user=plain dbname=postgres",
        server.addr.ip(),
        server.addr.port()
    ))
    .await;
    assert_eq!(
        error(&plain, "CREATE DATABASE nope").await,
        (
            "42501".into(),
            "permission denied to create database".into(),
            None
        )
    );
    let maker = connect_url(&format!(
        "host={} port={} user=maker dbname=postgres",
        server.addr.ip(),
        server.addr.port()
    ))
    .await;
    maker
        .batch_execute("CREATE DATABASE mine")
        .await
        .expect("CREATEDB may create");
    assert_eq!(
        column(
            &admin,
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'mine'"
        )
        .await,
        ["maker"]
    );
    assert_eq!(
        column(
            &admin,
            "SELECT rolcreatedb FROM pg_roles WHERE rolname = 'maker'"
        )
        .await,
        ["t"]
    );
    assert_eq!(
        error(&plain, "DROP DATABASE mine").await.1,
        "must be owner of database mine"
    );
    // The owner of a database may create in its schema public (pg_database_owner).
    let in_mine = connect_url(&format!(
        "host={} port={} user=maker dbname=mine",
        server.addr.ip(),
        server.addr.port()
    ))
    .await;
    in_mine
        .batch_execute("CREATE TABLE t (a int)")
        .await
        .expect("the owner creates in public");
    drop(in_mine);
    // A role owning a database cannot be dropped.
    assert_eq!(
        error(&admin, "DROP ROLE maker").await.2.as_deref(),
        Some("owner of database mine")
    );
    let mut dropped = false;
    for _ in 0..200 {
        if maker.batch_execute("DROP DATABASE mine").await.is_ok() {
            dropped = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(dropped, "its owner drops it");
}

/// ALTER DATABASE … SET gives the database's new sessions their defaults (a client's
/// startup option still wins, and RESET returns to what the session started with);
/// RENAME TO moves it, refused while someone is connected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_database_sets_defaults_and_renames() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    admin
        .batch_execute(
            "CREATE DATABASE tz; ALTER DATABASE tz SET timezone TO 'Asia/Tokyo'; \
             ALTER DATABASE tz SET extra_float_digits = 2",
        )
        .await
        .expect("alter");
    let s = connect_url(&url(&server, "tz")).await;
    assert_eq!(column(&s, "SHOW timezone").await, ["Asia/Tokyo"]);
    assert_eq!(column(&s, "SHOW extra_float_digits").await, ["2"]);
    s.batch_execute("SET timezone = 'UTC'; RESET timezone")
        .await
        .expect("reset");
    assert_eq!(column(&s, "SHOW timezone").await, ["Asia/Tokyo"]);
    let paris = connect_url(&format!(
        "{} options='-c timezone=Europe/Paris'",
        url(&server, "tz")
    ))
    .await;
    assert_eq!(column(&paris, "SHOW timezone").await, ["Europe/Paris"]);
    paris
        .batch_execute("SET timezone = 'UTC'; RESET timezone")
        .await
        .expect("reset");
    assert_eq!(column(&paris, "SHOW timezone").await, ["Europe/Paris"]);
    // Elsewhere, nothing changed.
    assert_eq!(column(&admin, "SHOW timezone").await, ["UTC"]);
    assert_eq!(
        error(&admin, "ALTER DATABASE tz RENAME TO tokyo")
            .await
            .2
            .as_deref(),
        Some("There are 2 other sessions using the database.")
    );
    assert_eq!(
        error(&s, "ALTER DATABASE tz RENAME TO tokyo").await.1,
        "current database cannot be renamed"
    );
    drop((s, paris));
    let mut renamed = false;
    for _ in 0..200 {
        if admin
            .batch_execute("ALTER DATABASE tz RENAME TO tokyo")
            .await
            .is_ok()
        {
            renamed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(renamed, "renamed once nobody is connected");
    let s = connect_url(&url(&server, "tokyo")).await;
    assert_eq!(column(&s, "SELECT current_database()").await, ["tokyo"]);
    assert_eq!(column(&s, "SHOW timezone").await, ["Asia/Tokyo"]);
}

/// ALTER ROLE … SET gives the role's new sessions their defaults, over the database's
/// (ALTER DATABASE … SET) and under the role's in that database; the client's startup
/// options win over all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn role_settings_start_the_roles_sessions_in_postgresql_order() {
    let server = TestServer::start();
    let admin = connect_url(&url(&server, "postgres")).await;
    admin
        .batch_execute(
            "CREATE DATABASE rsdb; CREATE ROLE rs_app LOGIN; \
             ALTER DATABASE rsdb SET timezone TO 'Asia/Tokyo'; \
             ALTER DATABASE rsdb SET extra_float_digits = 2; \
             ALTER ROLE rs_app SET timezone TO 'Europe/Paris'; \
             ALTER ROLE rs_app SET search_path TO rs_app, public; \
             ALTER ROLE rs_app IN DATABASE rsdb SET extra_float_digits = 0",
        )
        .await
        .expect("settings");
    let as_app = |db: &str| {
        format!(
            "host={} port={} user=rs_app dbname={db}",
            server.addr.ip(),
            server.addr.port()
        )
    };
    let s = connect_url(&as_app("rsdb")).await;
    assert_eq!(column(&s, "SHOW timezone").await, ["Europe/Paris"]);
    assert_eq!(column(&s, "SHOW extra_float_digits").await, ["0"]);
    assert_eq!(column(&s, "SHOW search_path").await, ["rs_app, public"]);
    // In another database only the role's own apply.
    let p = connect_url(&as_app("postgres")).await;
    assert_eq!(column(&p, "SHOW timezone").await, ["Europe/Paris"]);
    assert_eq!(column(&p, "SHOW extra_float_digits").await, ["1"]);
    // Another role in rsdb gets the database's.
    let other = connect_url(&url(&server, "rsdb")).await;
    assert_eq!(column(&other, "SHOW timezone").await, ["Asia/Tokyo"]);
    assert_eq!(column(&other, "SHOW extra_float_digits").await, ["2"]);
    // The client's own options win.
    let opt = connect_url(&format!("{} options='-c timezone=UTC'", as_app("rsdb"))).await;
    assert_eq!(column(&opt, "SHOW timezone").await, ["UTC"]);
}
