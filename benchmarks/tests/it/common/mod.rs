//! Shared helpers of the integration tests: paths, the staged data directory (for the
//! `#[ignore]`d tests that need it), and a tiny HTTP/1.1 server on 127.0.0.1 (bounded in
//! requests and time) for `bench fetch`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Workspace root (parent of the `benchmarks` crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crate has a parent directory")
        .to_path_buf()
}

/// `datasets/fixtures/<name>` of the workspace.
pub fn fixture(name: &str) -> PathBuf {
    workspace_root()
        .join("datasets")
        .join("fixtures")
        .join(name)
}

/// How to run the tests that need an external input (the `#[ignore]` reason names it).
pub const RUN_IGNORED: &str = "cargo test --workspace -- --ignored";

/// The staged data directory ([`testdata::data_dir`]). Panics, naming the directory and how to point at it, when it does
/// not hold the staged subsets: the tests that call it are `#[ignore]`d and run only when
/// asked for, so a missing input must fail them, never let them pass.
pub fn staged_dir() -> PathBuf {
    let dir = testdata::data_dir();
    assert!(
        dir.join("hotpotqa").is_dir() && dir.join("multihop_rag").is_dir(),
        "this test needs the staged dataset subsets (hotpotqa/ and multihop_rag/), not found in \
         {}: set CRABPATH_DATA_DIR to the directory holding them",
        dir.display()
    );
    dir
}

/// A file of the staged data directory; panics (see [`staged_dir`]) when it is absent.
pub fn staged_file(rel: &str) -> PathBuf {
    let p = staged_dir().join(rel);
    assert!(
        p.is_file(),
        "this test needs the staged file {rel}, not found at {}",
        p.display()
    );
    p
}

/// SHA-256 hex of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

/// A `Command` for the built `bench` binary with the environment variables that would change
/// its behaviour removed.
pub fn bench_cmd() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_bench"));
    for v in [
        "CRABPATH_DATA_DIR",
        "CRABPATH_REQUIRE_DATA",
        "CRABPATH_FETCH_URL_BASE",
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        c.env_remove(v);
    }
    c
}

/// Minimal HTTP server: answers `GET path` from a fixed table (404 otherwise), closes each
/// connection, and stops after `max_requests` connections or `lifetime`, whichever is first.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Paths requested, in order.
    pub requests: Arc<Mutex<Vec<String>>>,
    handle: Option<JoinHandle<()>>,
}

impl TestServer {
    pub fn start(
        routes: HashMap<String, Vec<u8>>,
        max_requests: usize,
        lifetime: Duration,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        let handle = std::thread::spawn(move || {
            let deadline = Instant::now() + lifetime;
            let mut served = 0;
            while served < max_requests && Instant::now() < deadline {
                let (stream, _) = match listener.accept() {
                    Ok(s) => s,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                    Err(_) => break,
                };
                served += 1;
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
                let mut reader = BufReader::new(stream);
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    continue;
                }
                // Drain the header block.
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if line == "\r\n" || line == "\n" => break,
                        Ok(_) => {}
                    }
                }
                let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(path.clone());
                let mut stream = reader.into_inner();
                let (status, body): (&str, &[u8]) = match routes.get(&path) {
                    Some(b) => ("200 OK", b),
                    None => ("404 Not Found", b"not found"),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(body);
                let _ = stream.flush();
            }
        });
        TestServer {
            base,
            requests,
            handle: Some(handle),
        }
    }

    /// Paths requested so far.
    pub fn requested(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // The thread ends on its own (request count or lifetime); do not wait for it here.
        let _ = self.handle.take();
    }
}
