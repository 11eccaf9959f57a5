//! The dashboard as the place people fix flaky tests (docs/dashboard.md): a page per test with its failures
//! (run, commit, branch or PR, message), statuses, search on the page and in the JSON, counts
//! from the default branch's file on the index before any repository page was opened, merged
//! tier changes apart from the history's proposals, gzip and the security headers. Over HTTP,
//! on SQLite and on Postgres.

use repro_gate::history::{self, ReportFormat, RunResults};
use repro_gate::store::Store;
use serde_json::Value;

use crate::both_backends;
use crate::common::Db;
use crate::dashboard::{Browser, REPO, dash_app, record, run, world};

both_backends!(
    the_index_counts_the_files_tiers_before_any_repository_page_was_opened,
    a_tests_page_shows_each_failure_with_its_run_commit_pr_and_message,
    search_finds_tests_by_id_owner_tier_and_status,
    the_history_s_proposals_are_not_shown_as_changes,
    pages_are_compressed_and_carry_security_headers,
    the_status_filter_in_sql_and_each_row_s_status_agree,
);

fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                tag = true;
                out.push(' ');
            }
            '>' => tag = false,
            c if !tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn the_index_counts_the_files_tiers_before_any_repository_page_was_opened(db: Db) {
    let fake = world().await;
    record(&db).await;
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let index = alice.get("/dashboard").await;
    assert_eq!(index.status, 200);
    let text = text_of(&index.body);
    // The file lists Alpha trusted and Beta quarantined; Gamma takes the default tier.
    for want in ["1 quarantined", "1 probation", "1 trusted", "1 flaky"] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

const JUNIT_FAIL: &str = r#"<?xml version="1.0"?>
<testsuite name="pool" tests="2" failures="1">
  <testcase classname="pool" name="TestBeta" time="0.1"><failure message="checkout deadline of 50ms exceeded">pool_test.go:88: waited 61ms for a &lt;conn&gt;</failure></testcase>
  <testcase classname="pool" name="TestAlpha" time="0.1"/>
</testsuite>
"#;

async fn record_junit(db: &Db, run_id: u32, pr: Option<i64>, at_ms: i64) {
    let store = Store::connect(&db.url).await.expect("store");
    let parsed = history::read_report(JUNIT_FAIL.as_bytes(), ReportFormat::Auto).expect("junit");
    let mut results = RunResults::default();
    results.add(parsed);
    let mut info = run(REPO, run_id);
    info.url = Some(format!("https://github.com/{REPO}/actions/runs/{run_id}"));
    info.pr = pr;
    if pr.is_some() {
        info.branch = "fix/pool-deadline".into();
    }
    info.sha = format!("{run_id:0>40}");
    history::record(&store, &info, &results, at_ms)
        .await
        .expect("recorded");
}

async fn a_tests_page_shows_each_failure_with_its_run_commit_pr_and_message(db: Db) {
    let fake = world().await;
    record(&db).await;
    record_junit(&db, 9100, None, 1_764_600_000_000).await;
    record_junit(&db, 9102, Some(12), 1_764_700_000_000).await;
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let repo_page = alice.get("/dashboard/acme/pool").await;
    assert!(
        repo_page
            .body
            .contains("href=\"/dashboard/acme/pool/tests/pool%3A%3ATestBeta\""),
        "the id links to its page"
    );
    let page = alice
        .get("/dashboard/acme/pool/tests/pool%3A%3ATestBeta")
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let text = text_of(&page.body);
    for want in [
        "run 9102 (attempt 1)",
        "run 9100 (attempt 1)",
        "checkout deadline of 50ms exceeded",
        "pool_test.go:88: waited 61ms for a &lt;conn&gt;",
        "PR #12",
        "fix/pool-deadline",
        "PLAT-2024",
        "Owner platform",
        "flaky",
        "quarantined",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(
        page.body
            .contains("href=\"https://github.com/acme/pool/actions/runs/9102\""),
        "the run links to its page"
    );
    let listed = &page.body[page
        .body
        .find("id=\"failures\"")
        .expect("the failures section")..];
    assert!(
        listed.find("run 9102") < listed.find("run 9100"),
        "newest first"
    );
    assert_eq!(
        alice
            .get("/dashboard/acme/pool/tests/pool%3A%3ATestNoSuch")
            .await
            .status,
        404
    );
    let mut anon = Browser::new(&app);
    let signed_out = anon
        .get("/dashboard/acme/pool/tests/pool%3A%3ATestBeta")
        .await;
    assert!(
        matches!(signed_out.status, 302 | 303 | 307),
        "signed out: {}",
        signed_out.status
    );
}

async fn ids(b: &mut Browser, query: &str) -> (Vec<String>, Value) {
    let js = b
        .get(&format!("/api/v1/repos/acme/pool/tests?{query}"))
        .await;
    assert_eq!(js.status, 200, "{query}: {}", js.body);
    let v: Value = serde_json::from_str(&js.body).expect("json");
    let ids = v["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["test"].as_str().map(str::to_string))
        .collect();
    (ids, v)
}

async fn search_finds_tests_by_id_owner_tier_and_status(db: Db) {
    let fake = world().await;
    record(&db).await;
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let (found, v) = ids(&mut alice, "q=gamma").await;
    assert_eq!(found, ["pool::TestGamma"], "any case");
    assert_eq!(v["total"], 1);
    let (found, _) = ids(&mut alice, "q=owner%3Aplatform&sort=name").await;
    assert_eq!(found, ["pool::TestAlpha", "pool::TestBeta"]);
    let (found, _) = ids(&mut alice, "q=Test%20tier%3Aquarantined").await;
    assert_eq!(found, ["pool::TestBeta"]);
    let (found, v) = ids(&mut alice, "status=flaky").await;
    assert_eq!(found, ["pool::TestBeta"]);
    assert_eq!(v["tests"][0]["status"], "flaky");
    let (found, _) = ids(&mut alice, "q=%25").await;
    assert!(found.is_empty(), "a % is a character, not a wildcard");
    // Problems first by default.
    let (found, v) = ids(&mut alice, "").await;
    assert_eq!(found[0], "pool::TestBeta");
    assert_eq!(v["counts"]["flaky"], 1);
    assert_eq!(v["counts"]["healthy"], 2);
    let page = alice.get("/dashboard/acme/pool?q=Gamma").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("pool::TestGamma"));
    assert!(!page.body.contains("pool::TestAlpha") && !page.body.contains("pool::TestBeta"));
    assert!(
        page.body.contains("value=\"Gamma\""),
        "the box keeps the query"
    );
}

async fn the_history_s_proposals_are_not_shown_as_changes(db: Db) {
    let fake = world().await;
    record(&db).await;
    let store = Store::connect(&db.url).await.expect("store");
    // The history proposed Gamma quarantined in an open pull request: not merged.
    store
        .propose_changes(REPO, &[("pool::TestGamma".into(), "quarantined".into(), 5)])
        .await
        .expect("proposed");
    store
        .log_tier_changes(
            REPO,
            &[("pool::TestGamma".into(), "quarantined".into())],
            1_764_500_000_000,
        )
        .await
        .expect("logged");
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let index = text_of(&alice.get("/dashboard").await.body);
    assert!(
        !index.contains("pool::TestGamma"),
        "the index lists an unmerged proposal as a change: {index}"
    );
    let (_, v) = ids(&mut alice, "").await;
    assert_eq!(v["tier_changes"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["proposals"][0]["test"], "pool::TestGamma");
    assert_eq!(v["proposals"][0]["tier"], "quarantined");
    let page = alice.get("/dashboard/acme/pool").await.body;
    assert!(page.contains("Proposed by the history, not merged"));

    // A new blob of the file moves Beta to probation: a merged change, dated when read.
    let entry = repro_gate::store::FileEntry::new;
    let policy = repro_gate::core::reliability::Policy::default();
    store
        .replace_reliability_file(
            REPO,
            ("blob-2", &policy),
            &[
                entry("pool::TestAlpha", "trusted"),
                entry("pool::TestBeta", "probation"),
            ],
            1_764_800_000_000,
        )
        .await
        .expect("stored");
    let changes = store.tier_changes(REPO, 0, 10).await.expect("changes");
    let moved: Vec<(String, Option<String>, String)> = changes
        .into_iter()
        .map(|c| (c.test, c.from, c.tier))
        .collect();
    assert_eq!(
        moved,
        [(
            "pool::TestBeta".to_string(),
            Some("quarantined".to_string()),
            "probation".to_string()
        )]
    );
}

async fn pages_are_compressed_and_carry_security_headers(db: Db) {
    let fake = world().await;
    record(&db).await;
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let http = reqwest::Client::new();
    for path in ["/dashboard/acme/pool", "/api/v1/repos/acme/pool/tests"] {
        let resp = http
            .get(format!("{}{path}", app.base))
            .header("cookie", alice.cookie_header())
            .header("accept-encoding", "gzip")
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 200, "{path}");
        let h = resp.headers();
        assert_eq!(
            h.get("content-encoding").and_then(|v| v.to_str().ok()),
            Some("gzip"),
            "{path}"
        );
        assert_eq!(
            h.get("x-content-type-options")
                .and_then(|v| v.to_str().ok()),
            Some("nosniff")
        );
        let csp = h
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"),
            "{csp}"
        );
        let body = resp.bytes().await.expect("body");
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut text)
            .expect("gzip");
        assert!(text.contains("pool::TestBeta"), "{path}");
    }
    // Without Accept-Encoding, plain.
    let plain = http
        .get(format!("{}/dashboard/acme/pool", app.base))
        .header("cookie", alice.cookie_header())
        .send()
        .await
        .expect("request");
    assert!(plain.headers().get("content-encoding").is_none());
}

async fn the_status_filter_in_sql_and_each_row_s_status_agree(db: Db) {
    use repro_gate::core::failures::Outcome;
    let fake = world().await;
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrations");
    // 12 runs: broken (its last 10 fail), flaky (fails every third run), a flaky result, one
    // failure, healthy.
    for i in 0..12u32 {
        let o = |fail: bool| if fail { Outcome::Fail } else { Outcome::Pass };
        let results = vec![
            ("pool::TestBroken".to_string(), o(i >= 2)),
            ("pool::TestIntermittent".to_string(), o(i % 3 == 0)),
            (
                "pool::TestRetried".to_string(),
                if i == 5 {
                    Outcome::Flaky
                } else {
                    Outcome::Pass
                },
            ),
            ("pool::TestOnce".to_string(), o(i == 7)),
            ("pool::TestFine".to_string(), Outcome::Pass),
        ];
        history::record(
            &store,
            &run(REPO, i),
            &RunResults::from(results),
            1_764_547_200_000 + i64::from(i),
        )
        .await
        .expect("recorded");
    }
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let want = [
        ("broken", vec!["pool::TestBroken"]),
        ("flaky", vec!["pool::TestIntermittent", "pool::TestRetried"]),
        ("failed_once", vec!["pool::TestOnce"]),
        ("healthy", vec!["pool::TestFine"]),
    ];
    for (status, tests) in want {
        let (found, v) = ids(&mut alice, &format!("status={status}&sort=name")).await;
        assert_eq!(found, tests, "{status}");
        for t in v["tests"].as_array().expect("tests") {
            assert_eq!(t["status"], status, "{t}");
        }
        assert_eq!(v["counts"][status], tests.len(), "{status}");
    }
    let (all, _) = ids(&mut alice, "").await;
    assert_eq!(
        all,
        [
            "pool::TestBroken",
            "pool::TestIntermittent",
            "pool::TestRetried",
            "pool::TestOnce",
            "pool::TestFine"
        ],
        "problems first, worst first"
    );
}
