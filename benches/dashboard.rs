//! The repository page for a repository of 50,000 tests, over HTTP: the service in-process on
//! SQLite (release build), signed in through the OAuth flow against a small stand-in for GitHub
//! (the user routes and the reliability file), then pages requested one after another:
//! default order page 1 (problems first), a deep page, sorted by pass rate, filtered to
//! quarantined, sorted by runs, a search, a status filter, and a failing test's own page (its
//! failures with their messages). Reports p50, p99 and max per kind and overall.
//!
//!     cargo bench --bench dashboard
//!     DASH_TESTS=50000 DASH_REQUESTS=880 cargo bench --bench dashboard
//!
//! The history is `support/realistic_history.rs` (36 runs on main, flaky, broken and
//! failed-once tests with messages, proposals, gate outcomes) at `DASH_TESTS` tests.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::extract::{Path, Query};
use axum::routing::{get, post};
use repro_gate::app::{self, Deps};
use repro_gate::clock::SystemClock;
use repro_gate::settings::Settings;
use repro_gate::store::Store;
use serde_json::json;

#[path = "support/realistic_history.rs"]
mod realistic;

const KEY: &str = include_str!("../tests/fixtures/test-app-key.pem");
const REPO: &str = "acme/big";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// GitHub's user routes and the repository's reliability file, nothing else.
async fn stand_in(file: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = axum::Router::new()
        .route(
            "/login/oauth/authorize",
            get(|Query(q): Query<HashMap<String, String>>| async move {
                let to = format!("{}?code=bench-code&state={}", q["redirect_uri"], q["state"]);
                (
                    axum::http::StatusCode::FOUND,
                    [(axum::http::header::LOCATION, to)],
                )
            }),
        )
        .route(
            "/login/oauth/access_token",
            post(|| async {
                axum::Json(json!({"access_token": "ghu_bench", "expires_in": 28800}))
            }),
        )
        .route(
            "/user",
            get(|| async { axum::Json(json!({"login": "bench"})) }),
        )
        .route(
            "/user/installations",
            get(|| async { axum::Json(json!({"installations": [{"id": 1}]})) }),
        )
        .route(
            "/user/installations/1/repositories",
            get(|| async { axum::Json(json!({"repositories": [{"full_name": REPO}]})) }),
        )
        .route(
            "/app/installations/1/access_tokens",
            post(|| async {
                (
                    axum::http::StatusCode::CREATED,
                    axum::Json(json!({"token": "ghs_bench", "expires_at": "2099-01-01T00:00:00Z"})),
                )
            }),
        )
        .route(
            "/repos/acme/big",
            get(|| async { axum::Json(json!({"default_branch": "main", "full_name": REPO})) }),
        )
        .route(
            "/repos/acme/big/contents/{*path}",
            get(move |Path(path): Path<String>| {
                let file = file.clone();
                async move {
                    use base64::Engine as _;
                    if path == ".ci/test-reliability.yaml" {
                        let content = base64::engine::general_purpose::STANDARD.encode(&file);
                        (
                            axum::http::StatusCode::OK,
                            axum::Json(
                                json!({"content": content, "encoding": "base64", "sha": "f1le"}),
                            ),
                        )
                    } else {
                        (
                            axum::http::StatusCode::NOT_FOUND,
                            axum::Json(json!({"message": "Not Found"})),
                        )
                    }
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::var("RUST_LOG").is_ok() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    }
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not: a smoke size then, so
    // the test run checks that the bench works without loading 50,000 tests in a debug build.
    let full = std::env::args().any(|a| a == "--bench");
    let tests: usize = env_or("DASH_TESTS", if full { 50_000 } else { 300 });
    let requests: usize = env_or("DASH_REQUESTS", if full { 880 } else { 11 });
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());

    // The realistic history the browser tests and the screenshots use, at `tests` tests.
    let t0 = Instant::now();
    let store = Store::connect(&url).await.expect("store");
    store.migrate().await.expect("migrate");
    let now = chrono::Utc::now().timestamp_millis();
    realistic::record(&store, REPO, tests, now).await;
    let file = realistic::reliability_file(tests);
    store.close().await;
    eprintln!(
        "setup: {tests} tests x {} runs recorded in {:.1} s; file {} KiB",
        realistic::MAIN_RUNS,
        t0.elapsed().as_secs_f64(),
        file.len() / 1024
    );

    let gh = stand_in(file).await;
    let mut settings = Settings::new(url).with_credentials(1, KEY, "bench-secret");
    settings.listen = "127.0.0.1:0".parse().expect("addr");
    settings.github_api_url = gh;
    settings.reconcile_minutes = 0;
    settings.history_schedule_minutes = 0;
    settings.oauth_client = Some((
        "Iv1.bench".into(),
        secrecy::SecretString::from("bench-client-secret".to_string()),
    ));
    let running = app::start(
        settings,
        Deps {
            clock: std::sync::Arc::new(SystemClock),
            handler: None,
            events: None,
        },
    )
    .await
    .expect("service starts");
    let base = format!("http://{}", running.addr);

    // Sign in: /dashboard/login → authorize → callback, cookies by hand.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let mut cookies: Vec<String> = Vec::new();
    let keep = |resp: &reqwest::Response, cookies: &mut Vec<String>| {
        for c in resp.headers().get_all("set-cookie") {
            if let Some(nv) = c.to_str().ok().and_then(|c| c.split(';').next()) {
                cookies.push(nv.to_string());
            }
        }
    };
    let r = http
        .get(format!("{base}/dashboard/login"))
        .send()
        .await
        .expect("login");
    keep(&r, &mut cookies);
    let authorize = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let r = http.get(&authorize).send().await.expect("authorize");
    let callback = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let r = http
        .get(&callback)
        .header("cookie", cookies.join("; "))
        .send()
        .await
        .expect("callback");
    keep(&r, &mut cookies);
    let cookie = cookies.join("; ");

    let deep = (tests / 100 / 2).max(1);
    let failing = format!(
        "/tests/{}",
        percent_encoding::utf8_percent_encode(
            &realistic::test_id(0),
            percent_encoding::NON_ALPHANUMERIC
        )
    );
    let page = |q: &str| format!("/dashboard/{REPO}{q}");
    let kinds = [
        ("page 1, problems", page("")),
        ("deep page", page(&format!("?page={deep}"))),
        ("by pass rate", page("?sort=pass_rate")),
        ("quarantined", page("?tier=quarantined")),
        ("by runs, page 100", page("?sort=runs&page=100")),
        ("search ?q=pkg012", page("?q=pkg012")),
        ("two words", page("?q=pkg012%20test")),
        ("status flaky", page("?status=flaky")),
        ("a test's page", page(&failing)),
        ("a test's JSON", format!("/api/v1/repos/{REPO}{failing}")),
        ("the tests JSON", format!("/api/v1/repos/{REPO}/tests")),
    ];
    // The first request reads the reliability file into rows (once per file change): timed apart.
    let t = Instant::now();
    let first = http
        .get(format!("{base}/dashboard/{REPO}"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("page");
    assert_eq!(first.status(), 200, "signed in");
    let body = first.text().await.expect("body");
    assert!(body.contains("/tests/"), "the page lists tests");
    eprintln!(
        "first request (reads the 1/10-listed file into rows): {}",
        ms(t.elapsed())
    );

    let mut all = Vec::new();
    let mut per: HashMap<&str, Vec<Duration>> = HashMap::new();
    for i in 0..requests {
        let (name, path) = &kinds[i % kinds.len()];
        let t = Instant::now();
        let resp = http
            .get(format!("{base}{path}"))
            .header("cookie", &cookie)
            .send()
            .await
            .expect("page");
        let status = resp.status();
        let bytes = resp.bytes().await.expect("body").len();
        let d = t.elapsed();
        assert!(
            status == 200 && bytes > 1_000,
            "{name}: {status}, {bytes} bytes"
        );
        all.push(d);
        per.entry(name).or_default().push(d);
    }
    for (name, _) in &kinds {
        let mut v = per.remove(name).unwrap_or_default();
        v.sort();
        println!(
            "{name:>20}: n={} p50 {} p99 {} max {}",
            v.len(),
            ms(pct(&v, 0.5)),
            ms(pct(&v, 0.99)),
            ms(*v.last().expect("one"))
        );
    }
    all.sort();
    println!(
        "{:>20}: n={} p50 {} p99 {} max {}",
        "all",
        all.len(),
        ms(pct(&all, 0.5)),
        ms(pct(&all, 0.99)),
        ms(*all.last().expect("one"))
    );
    let _ = running.shutdown().await;
}
