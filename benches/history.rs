//! The history at scale (docs/history.md): recording throughput, recomputing the file for 50,000 tests with
//! 200-run windows, and memory as stored results grow. One core (a current-thread runtime).
//!
//!     cargo bench --bench history                                   # SQLite (a temp file)
//!     HISTORY_DB=postgres://postgres@127.0.0.1:55432/postgres cargo bench --bench history
//!     HISTORY_TESTS=5000 HISTORY_RUNS=40 HISTORY_WINDOWS=50000 cargo bench --bench history
//!
//! Recording goes through `history::record`, the path `history import`, the upload route and
//! `workflow_run` all take. Each test's window is one compact row updated as results arrive,
//! so a recomputation reads one row per test and never the results themselves.

use std::time::Instant;

use repro_gate::core::failures::Outcome;
use repro_gate::core::history::file::render;
use repro_gate::core::history::window::{Counted, Window};
use repro_gate::core::reliability::ReliabilityFile;
use repro_gate::history::{self, RunInfo};
use repro_gate::store::Store;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Peak resident memory of this process, in MiB (Linux `VmHWM`).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Current resident memory, in MiB (`VmRSS`).
fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// A deterministic 2 % failure pattern.
fn fails(test: usize, run: usize) -> bool {
    (test * 7919 + run * 104_729).is_multiple_of(50)
}

async fn record_phase(store: &Store, repo: &str, tests: usize, runs: usize) {
    let names: Vec<String> = (0..tests)
        .map(|t| format!("services/bench/pkg{}::TestBench{t}", t % 97))
        .collect();
    let mut total = 0usize;
    let mut elapsed = 0f64;
    for run in 0..runs {
        let results: Vec<(String, Outcome)> = names
            .iter()
            .enumerate()
            .map(|(t, n)| {
                (
                    n.clone(),
                    if fails(t, run) {
                        Outcome::Fail
                    } else {
                        Outcome::Pass
                    },
                )
            })
            .collect();
        let info = RunInfo {
            repository: repo.into(),
            run_id: run.to_string(),
            attempt: 1,
            sha: format!("sha{run}"),
            branch: "main".into(),
            source: "bench",
            installation_id: None,
            default_branch: Some("main".into()),
            branches: vec!["main".into()],
            url: None,
            pr: None,
        };
        // Each failure with a message, as JUnit gives them (kept with its story).
        let mut results = history::RunResults::from(results);
        let failing: Vec<String> = results
            .results
            .iter()
            .filter(|(_, o)| *o == Outcome::Fail)
            .map(|(t, _)| t.clone())
            .collect();
        for t in failing {
            results.messages.insert(
                t,
                format!("bench_test.go:88: checkout deadline of 50ms exceeded in run {run}\n    waited 61ms for a connection"),
            );
        }
        let t0 = Instant::now();
        history::record(store, &info, &results, 1_764_547_200_000 + run as i64)
            .await
            .expect("recorded");
        elapsed += t0.elapsed().as_secs_f64();
        total += results.len();
        if run + 1 == runs / 2 || run + 1 == runs {
            println!(
                "  after {:>3} runs ({:>9} results stored): {:>8.0} results/s so far, RSS {:>6.1} MiB, peak {:>6.1} MiB",
                run + 1,
                total,
                total as f64 / elapsed,
                rss_mib(),
                peak_rss_mib()
            );
        }
    }
    println!(
        "record: {tests} tests x {runs} runs = {total} results in {elapsed:.2} s: {:.0} results/s",
        total as f64 / elapsed
    );
}

async fn seed_windows(store: &Store, url: &str, repo: &str, n: usize) {
    // 200 outcomes per test, written as the compact rows recording keeps.
    let mut rows = Vec::with_capacity(n);
    for t in 0..n {
        let mut w = Window::default();
        for run in 0..200 {
            w.push(
                if fails(t, run) {
                    Counted::Fail
                } else {
                    Counted::Pass
                },
                "2026-11-30",
            );
        }
        rows.push((
            format!("services/big/pkg{}::TestBig{t}", t % 211),
            w.encode(),
        ));
    }
    let insert = "INSERT INTO history_tests (repository, test, win, updated_ms) ";
    if url.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(url).await.expect("pg");
        for chunk in rows.chunks(1000) {
            let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(insert);
            q.push_values(chunk, |mut b, (t, w)| {
                b.push_bind(repo).push_bind(t).push_bind(w).push_bind(0i64);
            });
            q.build().execute(&pool).await.expect("seeded");
        }
        pool.close().await;
    } else {
        let pool = sqlx::SqlitePool::connect(url).await.expect("sqlite");
        for chunk in rows.chunks(1000) {
            let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(insert);
            q.push_values(chunk, |mut b, (t, w)| {
                b.push_bind(repo).push_bind(t).push_bind(w).push_bind(0i64);
            });
            q.build().execute(&pool).await.expect("seeded");
        }
        pool.close().await;
    }
    let _ = store;
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let url = std::env::var("HISTORY_DB")
        .unwrap_or_else(|_| format!("sqlite://{}/history.db", dir.path().display()));
    // `cargo bench` passes `--bench`; `cargo test --all-targets` does not: a smoke size then.
    let full = std::env::args().any(|a| a == "--bench");
    let tests = env_or("HISTORY_TESTS", if full { 5_000usize } else { 50 });
    let runs = env_or("HISTORY_RUNS", if full { 40usize } else { 4 });
    let windows = env_or("HISTORY_WINDOWS", if full { 50_000usize } else { 500 });
    let tag = std::process::id();
    rt.block_on(async {
        let store = Store::connect(&url).await.expect("database");
        store.migrate().await.expect("migrations");
        println!("backend: {}", store.backend());
        record_phase(&store, &format!("bench/record-{tag}"), tests, runs).await;

        let repo = format!("bench/recompute-{tag}");
        seed_windows(&store, &url, &repo, windows).await;
        let before = peak_rss_mib();
        let t0 = Instant::now();
        let built = history::build_from_store(&store, &repo, &ReliabilityFile::default())
            .await
            .expect("built");
        let text = render(&built.file);
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "recompute: {} tests with 200-run windows in {secs:.2} s ({} tier changes, {:.1} MiB of YAML); peak RSS {before:.1} -> {:.1} MiB",
            built.file.tests.len(),
            built.changes.len(),
            text.len() as f64 / 1_048_576.0,
            peak_rss_mib()
        );
        store.close().await;
    });
}
