//! The `kiln` binary as a user runs it: start, answer a client, stop on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_serves_and_shuts_down_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["--listen", "127.0.0.1", "--port", "0"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kiln");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    // The log line names the bound address.
    let addr = loop {
        let line = lines
            .next()
            .expect("kiln printed a line")
            .expect("read line");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().expect("address").to_string();
        }
    };
    let (host, port) = addr.rsplit_once(':').expect("host:port");
    let url = format!("host={host} port={port} user=someone");
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let row = client
        .query_one("SELECT version()", &[])
        .await
        .expect("query");
    assert!(row.get::<_, String>(0).starts_with("PostgreSQL 15."));

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "kiln did not stop within 10 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "kiln exited with {exit}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        rest.iter().any(|l| l.contains("kiln stopped")),
        "shutdown was logged: {rest:?}"
    );
}
