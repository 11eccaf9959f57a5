//! Intake load generator: starts the release `repro-gate serve` as a child process (SQLite,
//! workers off), sends signed `pull_request` deliveries, each with a new delivery id, over a
//! fixed number of connections, and reports deliveries/s, p50/p99 latency and the server's peak
//! RSS (VmHWM).
//!
//!     cargo bench --bench intake_load
//!     INTAKE_CONNECTIONS=32 INTAKE_SECONDS=10 cargo bench --bench intake_load
//!
//! The payload is `../shared/fixtures/webhooks/pull_request/opened.json` when present, else a
//! generated one of about 28 KB.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const SECRET: &str = "bench-secret";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn payload() -> (String, String) {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/webhooks/pull_request/opened.json");
    match std::fs::read_to_string(&fixture) {
        Ok(body) => (body, fixture.display().to_string()),
        Err(_) => {
            let filler = "x".repeat(26_000);
            let body = serde_json::json!({
                "action": "opened", "number": 1,
                "pull_request": {"number": 1, "body": filler},
                "repository": {"full_name": "acme/pool"},
                "installation": {"id": 1}
            })
            .to_string();
            (body, "generated".into())
        }
    }
}

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// User + system CPU seconds the process has used.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it with no such flag: then
    // only check that the harness builds.
    if !std::env::args().any(|a| a == "--bench") {
        println!("intake_load: run with `cargo bench --bench intake_load`");
        return;
    }
    let connections: usize = env_or("INTAKE_CONNECTIONS", 32);
    let seconds: u64 = env_or("INTAKE_SECONDS", 10);
    let warmup: u64 = env_or("INTAKE_WARMUP_SECONDS", 2);
    let (body, source) = payload();
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("bench.db");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let key = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test-app-key.pem");
    let child = Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .arg("serve")
        .env("REPRO_GATE_LISTEN", format!("127.0.0.1:{port}"))
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .env("REPRO_GATE_WORKERS", "0")
        .env("GITHUB_APP_ID", "1")
        .env("GITHUB_APP_PRIVATE_KEY_PATH", key)
        .env("GITHUB_WEBHOOK_SECRET", SECRET)
        .env("RUST_LOG", "warn")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .expect("start repro-gate serve");
    let pid = child.id();
    let _server = Server(child);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let base = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(connections)
            .build()
            .expect("client");
        for _ in 0..200 {
            if client.get(format!("{base}/healthz")).send().await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let signature = repro_gate::server::signature::sign(SECRET, body.as_bytes());
        let body = bytes::Bytes::from(body);
        let next_id = Arc::new(AtomicU64::new(0));
        let errors = Arc::new(AtomicU64::new(0));

        let run = |duration: Duration, record: bool| {
            let start = Instant::now();
            let tasks: Vec<_> = (0..connections)
                .map(|_| {
                    let (base, body, signature, next_id, errors) = (
                        base.clone(),
                        body.clone(),
                        signature.clone(),
                        next_id.clone(),
                        errors.clone(),
                    );
                    tokio::spawn(async move {
                        let mut latencies = Vec::new();
                        // One HTTP/1.1 keep-alive connection per task: a lean client, so the
                        // two cores go to the server rather than the load generator.
                        let addr = base.trim_start_matches("http://").to_string();
                        let stream = tokio::net::TcpStream::connect(&addr)
                            .await
                            .expect("connect");
                        stream.set_nodelay(true).expect("nodelay");
                        let (mut sender, conn) = hyper::client::conn::http1::handshake(
                            hyper_util::rt::TokioIo::new(stream),
                        )
                        .await
                        .expect("handshake");
                        tokio::spawn(conn);
                        while start.elapsed() < duration {
                            let id = next_id.fetch_add(1, Ordering::Relaxed);
                            let sent = Instant::now();
                            let req = http::Request::post("/api/github/webhooks")
                                .header("host", addr.as_str())
                                .header("x-github-event", "pull_request")
                                .header("x-github-delivery", format!("bench-{id}"))
                                .header("x-hub-signature-256", signature.as_str())
                                .header("content-type", "application/json")
                                .body(http_body_util::Full::new(body.clone()))
                                .expect("request");
                            let ok = match sender.send_request(req).await {
                                Ok(resp) => {
                                    let status = resp.status().as_u16();
                                    let _ =
                                        http_body_util::BodyExt::collect(resp.into_body()).await;
                                    status == 202
                                }
                                Err(_) => false,
                            };
                            if !ok {
                                errors.fetch_add(1, Ordering::Relaxed);
                            }
                            if record {
                                latencies.push(sent.elapsed().as_micros() as u32);
                            }
                        }
                        latencies
                    })
                })
                .collect();
            async move {
                let mut all = Vec::new();
                for t in tasks {
                    all.extend(t.await.expect("load task"));
                }
                (all, start.elapsed())
            }
        };
        let _ = run(Duration::from_secs(warmup), false).await;
        let cpu_before = cpu_seconds(pid);
        errors.store(0, Ordering::Relaxed);
        let (mut lat, elapsed) = run(Duration::from_secs(seconds), true).await;
        lat.sort_unstable();
        let pct = |p: f64| {
            lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0) as f64
                / 1000.0
        };
        println!("intake_load: payload {} bytes ({source})", body.len());
        println!(
            "intake_load: {} deliveries in {:.2}s over {connections} connections, {} errors",
            lat.len(),
            elapsed.as_secs_f64(),
            errors.load(Ordering::Relaxed)
        );
        println!(
            "intake_load: {:.0} deliveries/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            lat.len() as f64 / elapsed.as_secs_f64(),
            pct(0.50),
            pct(0.99),
            lat.last().copied().unwrap_or(0) as f64 / 1000.0
        );
        if let (Some(a), Some(b)) = (cpu_before, cpu_seconds(pid)) {
            println!(
                "intake_load: server CPU {:.2} s over {:.2} s ({:.0}% of one core)",
                b - a,
                elapsed.as_secs_f64(),
                (b - a) / elapsed.as_secs_f64() * 100.0
            );
        }
        match peak_rss_kb(pid) {
            Some(kb) => println!("intake_load: server peak RSS {:.1} MB", kb as f64 / 1024.0),
            None => println!("intake_load: server peak RSS unavailable (no /proc)"),
        }
    });
}
