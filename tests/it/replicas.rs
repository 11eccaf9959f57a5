//! Two `repro-gate serve` processes on one Postgres: 1,000 deliveries spread over both, every
//! job done exactly once, each PR's effects written once. Postgres only (TEST_DATABASE_URL).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{Db, SECRET, TEST_KEY};
use crate::fake_github::FakeGitHub;
use crate::gate::{RACY_PATCH, REPO, pr_event};

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

fn spawn_server(db: &str, fake: &str, port: u16, key_path: &std::path::Path) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .arg("serve")
        .env("REPRO_GATE_LISTEN", format!("127.0.0.1:{port}"))
        .env("DATABASE_URL", db)
        .env("GITHUB_API_URL", fake)
        .env("GITHUB_APP_ID", "42")
        .env("GITHUB_APP_PRIVATE_KEY_PATH", key_path)
        .env("GITHUB_WEBHOOK_SECRET", SECRET)
        .env("REPRO_GATE_WORKERS", "4")
        .env("REPRO_GATE_RECONCILE_MINUTES", "0")
        .env("REPRO_GATE_HISTORY_SCHEDULE_MINUTES", "0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start repro-gate serve");
    Server(child)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "set TEST_DATABASE_URL to run the two-replica test"
)]
async fn two_replicas_share_the_queue_and_write_each_effect_once() {
    let db = Db::postgres().await;
    let fake = FakeGitHub::start().await;
    fake.add_repo(REPO);
    const PRS: u64 = 100;
    for n in 1..=PRS {
        fake.add_pr(
            REPO,
            n,
            &format!("sha-{n}"),
            "",
            vec![("pool/pool.go", Some(RACY_PATCH))],
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.pem");
    std::fs::write(&key, TEST_KEY).unwrap();
    let ports = [free_port(), free_port()];
    // Migrations run once before the replicas start (as `repro-gate migrate` would in a deploy).
    let status = Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .args(["migrate", "--database-url", &db.url])
        .status()
        .unwrap();
    assert!(status.success());
    let _a = spawn_server(&db.url, &fake.url(), ports[0], &key);
    let _b = spawn_server(&db.url, &fake.url(), ports[1], &key);
    let http = reqwest::Client::new();
    for port in ports {
        let deadline = Instant::now() + Duration::from_secs(30);
        while http
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "replica on {port} did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let actions = [
        "opened",
        "edited",
        "synchronize",
        "reopened",
        "ready_for_review",
    ];
    let mut sends = Vec::new();
    for i in 0..1000u64 {
        let n = i % PRS + 1;
        let action = actions[(i / PRS) as usize % actions.len()];
        let extra = if action == "edited" {
            json!({"changes": {"body": {"from": ""}}})
        } else {
            json!({})
        };
        let body = pr_event(action, n, extra);
        let sig = repro_gate::server::signature::sign(SECRET, body.as_bytes());
        let port = ports[(i % 2) as usize];
        let http = http.clone();
        sends.push(async move {
            http.post(format!("http://127.0.0.1:{port}/api/github/webhooks"))
                .header("x-github-event", "pull_request")
                .header("x-github-delivery", format!("rep-{i}"))
                .header("x-hub-signature-256", sig)
                .body(body)
                .send()
                .await
                .map(|r| r.status().as_u16())
        });
    }
    use futures::StreamExt as _;
    let statuses: Vec<_> = futures::stream::iter(sends)
        .buffer_unordered(32)
        .collect()
        .await;
    assert!(
        statuses.iter().all(|s| matches!(s, Ok(202))),
        "{:?}",
        statuses.iter().find(|s| !matches!(s, Ok(202)))
    );

    // Wait on the shared database until the queue is drained (the processes are outside this
    // test, so their progress is observed there).
    let store = repro_gate::store::Store::connect(&db.url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let c = store.job_counts().await.unwrap();
        if c.done + c.dead == 1000 {
            assert_eq!(c.dead, 0);
            break;
        }
        assert!(Instant::now() < deadline, "queue not drained: {c:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for i in 0..1000u64 {
        let jobs = store.jobs_for_delivery(&format!("rep-{i}")).await.unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].state, "done");
        assert_eq!(jobs[0].attempts, 1, "rep-{i} ran more than once");
    }
    let requests = fake.requests();
    for n in 1..=PRS {
        let sha = format!("sha-{n}");
        assert_eq!(
            fake.check_runs_for(&sha).len(),
            1,
            "one check run for PR {n}"
        );
        let creates = requests
            .iter()
            .filter(|r| {
                r.method == "POST"
                    && r.path.ends_with("/check-runs")
                    && r.body["head_sha"] == sha.as_str()
            })
            .count();
        assert_eq!(creates, 1, "PR {n}: check run created once");
        let label_adds = requests
            .iter()
            .filter(|r| r.method == "POST" && r.path == format!("/repos/{REPO}/issues/{n}/labels"))
            .count();
        assert_eq!(label_adds, 1, "PR {n}: label added once");
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_exits_zero_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .arg("serve")
        .env("REPRO_GATE_LISTEN", format!("127.0.0.1:{port}"))
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("t.db").display()),
        )
        .env("RUST_LOG", "warn")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while http
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "serve did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(exit.code(), Some(0));
}
