//! `spawn_app`, fresh databases, signing, and waiting on job events.

use std::sync::Arc;
use std::time::Duration;

use repro_gate::app::{self, Deps, RunningApp};
use repro_gate::clock::{Clock, SystemClock};
use repro_gate::handlers::JobHandler;
use repro_gate::queue::{QueueEvent, QueueEventKind};
use repro_gate::server::signature::sign;
use repro_gate::settings::Settings;
use tokio::sync::broadcast;

pub const SECRET: &str = "test-webhook-secret";
pub const TEST_KEY: &str = include_str!("../fixtures/test-app-key.pem");

/// Everything this test binary logs, at TRACE, for the test that checks no secret is logged.
pub fn captured_logs() -> &'static std::sync::Mutex<Vec<u8>> {
    static LOGS: std::sync::OnceLock<std::sync::Mutex<Vec<u8>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(Default::default)
}

struct CaptureWriter;

impl std::io::Write for CaptureWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        captured_logs()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs one global subscriber for the whole run (a scoped one would race with the
/// callsite interest cache of tests running on other threads).
pub fn init_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(|| CaptureWriter)
            .try_init();
    });
}

/// Generates `sqlite` and `postgres` tests from one `async fn(Db)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name($crate::common::Db::sqlite()).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            #[cfg_attr(not(postgres_tests), ignore = "set TEST_DATABASE_URL to run it on Postgres")]
            async fn postgres() {
                super::$name($crate::common::Db::postgres().await).await
            }
        }
    )*};
}

/// A fresh database for one test, removed (SQLite) or left for the throwaway cluster (Postgres).
pub struct Db {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
}

impl Db {
    pub fn sqlite() -> Db {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("test.db").display());
        Db {
            url,
            _dir: Some(dir),
        }
    }

    /// A fresh database on the cluster of `TEST_DATABASE_URL`. Only the Postgres variants call
    /// it, and the build ignores them unless the variable is set (build.rs), so a missing
    /// variable here is a failure, never a silent pass.
    pub async fn postgres() -> Db {
        let admin = std::env::var("TEST_DATABASE_URL")
            .expect("TEST_DATABASE_URL is set (build.rs ignores the Postgres tests without it)");
        let name = format!("rg_test_{:016x}", rand_u64());
        let store = repro_gate::store::Store::connect(&admin)
            .await
            .expect("TEST_DATABASE_URL answers");
        let repro_gate::store::Store::Postgres(pool) = &store else {
            panic!("TEST_DATABASE_URL must be a postgres:// URL");
        };
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(pool)
            .await
            .expect("create test database");
        store.close().await;
        let mut url = reqwest::Url::parse(&admin).expect("TEST_DATABASE_URL is a URL");
        url.set_path(&name);
        Db {
            url: url.to_string(),
            _dir: None,
        }
    }
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

/// Options for one spawned service.
pub struct Spawn {
    pub settings: Settings,
    pub handler: Option<Arc<dyn JobHandler>>,
    pub clock: Arc<dyn Clock>,
}

impl Spawn {
    /// Configured (not setup mode), port 0, fast retries, workers on.
    pub fn new(db: &Db) -> Spawn {
        let mut settings = Settings::new(db.url.clone()).with_credentials(
            42,
            TEST_KEY,
            &format!("previous-secret,{SECRET}"),
        );
        settings.listen = "127.0.0.1:0".parse().expect("address");
        settings.queue.retry_base = Duration::from_millis(1);
        settings.queue.retry_cap = Duration::from_millis(5);
        settings.queue.poll_interval = Duration::from_millis(50);
        settings.queue.shutdown_grace = Duration::from_secs(5);
        // The start-up catch-up pass stays on, as shipped.
        Spawn {
            settings,
            // Without a fake GitHub there is nothing for the product's handler to talk to.
            handler: Some(Arc::new(repro_gate::handlers::LogOnly)),
            clock: Arc::new(SystemClock),
        }
    }

    pub fn workers(mut self, n: usize) -> Self {
        self.settings.queue.workers = n;
        self
    }

    pub fn handler(mut self, h: Arc<dyn JobHandler>) -> Self {
        self.handler = Some(h);
        self
    }

    pub fn clock(mut self, c: Arc<dyn Clock>) -> Self {
        self.clock = c;
        self
    }

    /// Talk to a fake GitHub.
    pub fn github(mut self, fake: &crate::fake_github::FakeGitHub) -> Self {
        self.settings.github_api_url = fake.url();
        self.handler = None;
        self
    }

    pub fn setup_mode(mut self) -> Self {
        self.settings.credentials = None;
        self.settings.missing_credentials = vec!["GITHUB_APP_ID"];
        self
    }

    pub async fn start(self) -> TestApp {
        init_logs();
        // Subscribed before start: jobs released at start-up may finish at once.
        let (sender, events) = broadcast::channel(4096);
        let app = app::start(
            self.settings,
            Deps {
                clock: self.clock,
                handler: self.handler,
                events: Some(sender),
            },
        )
        .await
        .expect("service starts");
        TestApp {
            base: format!("http://{}", app.addr),
            app,
            events,
            http: reqwest::Client::new(),
        }
    }
}

pub struct TestApp {
    pub app: RunningApp,
    pub base: String,
    pub events: broadcast::Receiver<QueueEvent>,
    pub http: reqwest::Client,
}

/// A webhook answer: status and JSON body.
pub struct Answer {
    pub status: u16,
    pub json: serde_json::Value,
}

impl TestApp {
    /// Sends a delivery signed with the current secret.
    pub async fn deliver(&self, event: &str, delivery: &str, body: &str) -> Answer {
        let sig = sign(SECRET, body.as_bytes());
        self.post_webhook(
            &[
                ("x-github-event", event),
                ("x-github-delivery", delivery),
                ("x-hub-signature-256", &sig),
            ],
            body.as_bytes().to_vec(),
        )
        .await
    }

    pub async fn post_webhook(&self, headers: &[(&str, &str)], body: Vec<u8>) -> Answer {
        let mut req = self
            .http
            .post(format!("{}/api/github/webhooks", self.base))
            .header("content-type", "application/json")
            .body(body);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.expect("request sent");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body read");
        let json = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
        Answer { status, json }
    }

    /// A GET with request headers; answers the status, the response headers and the body.
    pub async fn get_with(
        &self,
        path: &str,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut req = self.http.get(format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.expect("request sent");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        (status, headers, resp.text().await.expect("body read"))
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request sent");
        let status = resp.status().as_u16();
        (status, resp.text().await.expect("body read"))
    }

    /// Waits for the first job event matching `pred`. The timeout only turns a hang into a
    /// failure; the test proceeds on the event itself.
    pub async fn wait_for(&mut self, pred: impl Fn(&QueueEvent) -> bool) -> QueueEvent {
        wait_for(&mut self.events, pred).await
    }

    pub async fn wait_done(&mut self, delivery: &str) -> QueueEvent {
        self.wait_for(|e| {
            e.delivery_id.as_deref() == Some(delivery) && e.kind == QueueEventKind::Done
        })
        .await
    }

    pub async fn stop(self) {
        self.app.shutdown().await.expect("clean shutdown");
    }
}

pub async fn wait_for(
    rx: &mut broadcast::Receiver<QueueEvent>,
    pred: impl Fn(&QueueEvent) -> bool,
) -> QueueEvent {
    let fut = async {
        loop {
            match rx.recv().await {
                Ok(e) if pred(&e) => return e,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("event channel closed"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), fut)
        .await
        .expect("the awaited job event never came")
}

/// A small `pull_request` payload of the project's own.
pub fn pr_payload(action: &str, repo: &str, number: u64) -> String {
    serde_json::json!({
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "title": "Fix pool checkout",
            "body": "",
            "head": {"sha": "0123456789abcdef0123456789abcdef01234567", "ref": "fix"},
            "base": {"ref": "main"}
        },
        "repository": {"full_name": repo, "name": repo.split('/').nth(1).unwrap_or(repo),
                        "owner": {"login": repo.split('/').next().unwrap_or(repo)}},
        "installation": {"id": 7}
    })
    .to_string()
}
