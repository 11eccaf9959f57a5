//! A realistic history, shared by the dashboard's bench (at 50,000 tests), its browser tests
//! and the screenshots in `docs/`: tests named as real suites name them, 36 runs on main with a
//! few flaky tests (failing now and then with a message), one broken test (failing its last 12
//! runs), one that failed once, a pull request's run where a test failed and passed on one
//! commit, a reliability file with owners, tickets and a note, the history's proposals in an
//! open reliability pull request, and gate outcomes (evidence, verified, overridden, exempted,
//! blocked) over the weeks.
//!
//! Included with `#[path]` by `benches/dashboard.rs` and `tests/it/browser.rs`.

use repro_gate::core::failures::Outcome;
use repro_gate::history::{self, RunInfo, RunResults};
use repro_gate::store::Store;

/// Runs recorded on main.
pub const MAIN_RUNS: u32 = 36;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// The test ids, `tests` of them: the first few are the ones with a story.
pub fn test_id(i: usize) -> String {
    const NAMED: [&str; 8] = [
        "services/checkout::TestCheckoutDeadline",
        "services/ledger::TestReconcileNightly",
        "services/pool::TestPoolLostWakeup",
        "services/queue::TestQueueRetryOrdering",
        "services/cache::TestCacheEvictionRace",
        "services/auth::TestTokenRefreshExpired",
        "services/search::TestIndexRebuild",
        "services/billing::TestInvoiceRoundTrip",
    ];
    match NAMED.get(i) {
        Some(n) => n.to_string(),
        None => {
            const SVC: [&str; 6] = ["api", "worker", "storage", "gateway", "notify", "export"];
            format!(
                "services/{}/pkg{:03}::Test{}Case{i:05}",
                SVC[i % SVC.len()],
                i % 97,
                ["Handles", "Rejects", "Retries", "Streams"][i % 4]
            )
        }
    }
}

/// What test `i` did in main run `r` (0 = oldest).
fn outcome(i: usize, r: u32) -> Outcome {
    let fail = match i {
        // Flaky: a deadline that trips now and then.
        0 => r % 7 == 3,
        1 => r % 11 == 5,
        3 => r % 9 == 2,
        4 => r == 30,
        // Broken since run 24: its last 12 runs fail.
        5 => r >= MAIN_RUNS - 12,
        // Failed once.
        6 => r == 17,
        // One in 200 of the rest fails once in a while.
        n if n >= 8 && n % 200 == 13 => r % 12 == (n % 12) as u32,
        _ => false,
    };
    if i == 2 && r == 20 {
        // Failed, then passed on the runner's retry.
        return Outcome::Flaky;
    }
    if fail { Outcome::Fail } else { Outcome::Pass }
}

fn message(i: usize, r: u32) -> String {
    match i {
        0 => format!(
            "checkout_test.go:88: checkout deadline of 50ms exceeded (waited {}ms)\n    checkout_test.go:91: the pool had 0 idle connections",
            51 + r
        ),
        1 => "reconcile_test.go:19: 3 entries unmatched after the nightly job".into(),
        5 => "token_test.go:42: expected token to be refreshed: got 401 Unauthorized".into(),
        6 => "index_test.go:120: rebuild took 5.2s, budget 5s".into(),
        _ => format!(
            "case_test.go:{}: assertion failed: got {r}, want 0",
            10 + i % 90
        ),
    }
}

/// The reliability file of the default branch.
pub fn reliability_file(tests: usize) -> String {
    let mut f = String::from(
        "# Generated nightly by repro-gate from CI history. Edit tier/notes by PR; never hand-edit stats.\n\
         policy:\n  window_runs: 200\n  flake_budget: 0.02\n  default_tier: probation\n  min_runs: 20\n  broken_after: 10\ntests:\n",
    );
    let entry = |f: &mut String, i: usize, tier: &str, extra: &str| {
        f.push_str(&format!(
            "  - id: \"{}\"\n    tier: {tier}\n{extra}",
            test_id(i)
        ));
    };
    entry(
        &mut f,
        0,
        "quarantined",
        "    owner: payments\n    ticket: \"#482\"\n    note: \"Deadline trips when the pool is cold; see the ticket.\"\n",
    );
    entry(
        &mut f,
        1,
        "probation",
        "    owner: ledger\n    ticket: https://tracker.example/LEDGER-77\n",
    );
    entry(&mut f, 2, "trusted", "    owner: platform\n");
    entry(&mut f, 5, "trusted", "    owner: identity\n");
    for i in (8..tests).step_by(10) {
        let tier = if i % 50 == 0 { "trusted" } else { "probation" };
        f.push_str(&format!(
            "  - id: \"{}\"\n    tier: {tier}\n    owner: team{}\n",
            test_id(i),
            i % 7
        ));
    }
    f
}

/// A commit id that looks like one.
fn sha_of(n: u64) -> String {
    let a = (n + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let b = a.rotate_left(29) ^ 0xD6E8_FEB8_6659_FD93;
    format!("{a:016x}{b:016x}{:08x}", (a ^ b) as u32)
}

fn run_info(repo: &str, run: u32, sha: String, branch: &str, pr: Option<i64>) -> RunInfo {
    RunInfo {
        repository: repo.into(),
        run_id: (7_000_000 + run).to_string(),
        attempt: 1,
        sha,
        branch: branch.into(),
        source: "import",
        installation_id: Some(7),
        default_branch: Some("main".into()),
        branches: vec!["main".into()],
        url: Some(format!(
            "https://github.com/{repo}/actions/runs/{}",
            7_000_000 + run
        )),
        pr,
    }
}

/// Records the history of `tests` tests of `repo`, the last run at `now_ms`.
pub async fn record(store: &Store, repo: &str, tests: usize, now_ms: i64) {
    for r in 0..MAIN_RUNS {
        let mut results = RunResults::from(
            (0..tests)
                .map(|i| (test_id(i), outcome(i, r)))
                .collect::<Vec<_>>(),
        );
        for (i, o) in (0..tests).map(|i| (i, outcome(i, r))) {
            if o != Outcome::Pass {
                results.messages.insert(test_id(i), message(i, r));
            }
        }
        let at = now_ms - i64::from(MAIN_RUNS - 1 - r) * 2 * DAY / 3;
        let info = run_info(
            repo,
            r,
            format!("{:040x}", 0xa11ce_u64 + u64::from(r)),
            "main",
            None,
        );
        history::record(store, &info, &results, at)
            .await
            .expect("recorded");
    }
    // A pull request whose run failed the queue test, then passed it on a rerun of the same
    // commit: same-SHA flakiness.
    let sha = sha_of(900);
    for attempt in 1..=2 {
        let mut info = run_info(repo, 900, sha.clone(), "fix/queue-ordering", Some(214));
        info.attempt = attempt;
        let o = if attempt == 1 {
            Outcome::Fail
        } else {
            Outcome::Pass
        };
        let mut results = RunResults::from(vec![(test_id(3), o), (test_id(9), Outcome::Pass)]);
        if o == Outcome::Fail {
            results.messages.insert(
                test_id(3),
                "queue_test.go:57: job 12 ran before job 11".into(),
            );
        }
        history::record(store, &info, &results, now_ms - 2 * HOUR + attempt)
            .await
            .expect("recorded");
    }
    // The file as it was a week ago, before a person quarantined the checkout test and trusted
    // the pool test: the dashboard shows those as merged changes when it reads today's file.
    let before = reliability_file(tests)
        .replacen("    tier: quarantined\n", "    tier: probation\n", 1)
        .replacen(
            "    tier: trusted\n    owner: platform",
            "    tier: probation\n    owner: platform",
            1,
        );
    let old = repro_gate::core::reliability::parse(&before).expect("the old file parses");
    store
        .replace_reliability_file(
            repo,
            ("blob-a-week-ago", &old.policy),
            &repro_gate::dashboard::data::entries_of(&old),
            now_ms - 7 * DAY,
        )
        .await
        .expect("the old file");
    // The history's proposals in the open reliability pull request.
    store
        .propose_changes(
            repo,
            &[
                (test_id(1), "quarantined".into(), u64::from(MAIN_RUNS)),
                (test_id(4), "probation".into(), u64::from(MAIN_RUNS)),
            ],
        )
        .await
        .expect("proposed");
    store
        .log_tier_changes(
            repo,
            &[
                (test_id(1), "quarantined".into()),
                (test_id(4), "probation".into()),
            ],
            now_ms - DAY,
        )
        .await
        .expect("logged");
    store
        .set_reliability_pull(repo, 311, now_ms - DAY)
        .await
        .expect("pull");
    for (n, basis, ago) in [
        (201, "evidence", 60),
        (202, "verified", 45),
        (203, "blocked", 40),
        (204, "overridden", 33),
        (205, "verified", 26),
        (206, "exempted", 20),
        (207, "evidence", 12),
        (208, "verified", 9),
        (209, "overridden", 5),
        (210, "blocked", 3),
        (211, "verified", 1),
    ] {
        store
            .record_gate_outcome(repo, n, &format!("head{n}"), basis, now_ms - ago * DAY)
            .await
            .expect("outcome");
    }
}
