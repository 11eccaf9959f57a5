//! Why a test fails, since when, and one count per result (docs/dashboard.md): ten runs of JUnit
//! reports recorded a day apart, then the repository's JSON, a test's JSON and its page. Search
//! reads words as AND and names what it did not understand; signing in from a filtered page
//! comes back to it. Over HTTP, on SQLite and on Postgres.

use repro_gate::history::{self, ReportFormat, RunResults};
use repro_gate::store::Store;
use serde_json::Value;

use crate::both_backends;
use crate::common::Db;
use crate::dashboard::{Browser, REPO, dash_app, percent_decode, run, world};

both_backends!(
    failures_group_by_reason_and_the_onset_names_its_commits,
    one_count_per_result_skips_durations_and_a_test_broken_since_it_appeared,
    search_reads_words_as_and_and_names_terms_it_did_not_understand,
    signing_in_from_a_filtered_page_comes_back_to_it,
    a_test_s_page_says_since_when_and_by_whom_it_has_its_tier,
);

const DAY: i64 = 86_400_000;
const T0: i64 = 1_764_547_200_000;

fn sha(i: u32) -> String {
    format!("{:040x}", 0xabc000 + i)
}

/// Run `i` as JUnit: `Reservations` fails with two reasons, `Drain` fails from run 6 on,
/// `Resend` fails then passes on a retry in runs 1, 4 and 8, `Migrate` appears in runs 8 and 9
/// failing both, `NeedsRedis` is always skipped, `Export` takes 200 + 10 i ms.
fn report(i: u32) -> String {
    let reason = match i {
        0 => Some("deadline exceeded after 1.5s waiting on 0x7ffd12ab (thread 4411)"),
        2 => Some("deadline exceeded after 900ms waiting on 0x7ffd99cd (thread 12)"),
        5 => Some("deadline exceeded after 3s waiting on 0x7ffd0001 (thread 7)"),
        3 => Some("row count 12 != 13 in /tmp/pytest-of-ci/pytest-4/orders.db"),
        7 => Some("row count 40 != 39 in /tmp/pytest-of-ci/pytest-88/orders.db"),
        _ => None,
    };
    let fail = |m: &str| format!("<failure message=\"{m}\">{m}</failure>");
    let mut cases = vec![
        format!(
            r#"<testcase classname="svc/orders" name="TestReservations" time="0.01">{}</testcase>"#,
            reason.map(fail).unwrap_or_default()
        ),
        format!(
            r#"<testcase classname="svc/orders" name="TestDrain" time="0.01">{}</testcase>"#,
            if i >= 6 { fail("queue closed early") } else { String::new() }
        ),
        format!(
            r#"<testcase classname="svc/orders" name="TestResend" time="0.01">{}</testcase>"#,
            if [1, 4, 8].contains(&i) {
                r#"<flakyFailure message="reset by peer"><stackTrace>reset by peer</stackTrace></flakyFailure>"#
            } else {
                ""
            }
        ),
        r#"<testcase classname="svc/orders" name="TestNeedsRedis" time="0"><skipped message="no redis"/></testcase>"#.to_string(),
        format!(
            r#"<testcase classname="svc/orders" name="TestExport" time="{:.3}"/>"#,
            0.2 + 0.01 * f64::from(i)
        ),
    ];
    if i >= 8 {
        cases.push(format!(
            r#"<testcase classname="svc/orders" name="TestMigrate" time="0.01">{}</testcase>"#,
            fail("no such column: tenant")
        ));
    }
    format!(
        "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"svc/orders\">\n{}\n</testsuite></testsuites>\n",
        cases.join("\n")
    )
}

async fn record_ten(db: &Db) {
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrations");
    for i in 0..10u32 {
        let parsed = history::read_report(report(i).as_bytes(), ReportFormat::Auto).expect("junit");
        let mut results = RunResults::default();
        results.add(parsed);
        let mut info = run(REPO, 7000 + i);
        info.sha = sha(i);
        history::record(&store, &info, &results, T0 + i64::from(i) * DAY)
            .await
            .expect("recorded");
    }
}

async fn signed_in(
    db: &Db,
) -> (
    Browser,
    crate::fake_github::FakeGitHub,
    crate::common::TestApp,
) {
    let fake = world().await;
    record_ten(db).await;
    let app = dash_app(db, &fake).await;
    let mut b = Browser::new(&app);
    b.sign_in(&fake, "alice").await;
    (b, fake, app)
}

async fn json(b: &mut Browser, path: &str) -> Value {
    let r = b.get(path).await;
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    serde_json::from_str(&r.body).expect("json")
}

fn listed<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["id"].as_str().is_some_and(|id| id.ends_with(name)))
        .unwrap_or_else(|| panic!("{name} is not listed: {v}"))
}

const API: &str = "/api/v1/repos/acme/pool/tests";

async fn failures_group_by_reason_and_the_onset_names_its_commits(db: Db) {
    let (mut b, _fake, _app) = signed_in(&db).await;
    let t = json(&mut b, &format!("{API}/svc%2Forders%3A%3ATestReservations")).await;
    let reasons = t["reasons"].as_array().expect("reasons");
    assert_eq!(reasons.len(), 2, "two reasons: {reasons:?}");
    assert_eq!(reasons[0]["count"], 3);
    assert!(
        reasons[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("deadline exceeded")
    );
    assert_eq!(
        (
            reasons[0]["first_run"].as_str(),
            reasons[0]["last_run"].as_str()
        ),
        (Some("7000"), Some("7005"))
    );
    assert!(
        reasons[0]["example"].as_str().unwrap().contains("after 3s"),
        "the newest example"
    );
    assert_eq!(reasons[1]["count"], 2);
    assert_eq!(
        (
            reasons[1]["first_run"].as_str(),
            reasons[1]["last_run"].as_str()
        ),
        (Some("7003"), Some("7007"))
    );

    let d = json(&mut b, &format!("{API}/svc%2Forders%3A%3ATestDrain")).await;
    assert_eq!(d["onset"]["last_pass_sha"], sha(5), "{d}");
    assert_eq!(d["onset"]["first_fail_sha"], sha(6));
    assert_eq!(d["onset"]["at"], "2025-12-07T00:00:00Z");
    let r = json(&mut b, &format!("{API}/svc%2Forders%3A%3ATestExport")).await;
    assert_eq!(
        r["onset"],
        Value::Null,
        "a test that never failed has no onset"
    );

    let page = b
        .get("/dashboard/acme/pool/tests/svc%2Forders%3A%3ATestDrain")
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains(&format!("/acme/pool/compare/{}...{}", sha(5), sha(6))),
        "a compare link between the last passing and the first failing commit: {}",
        page.body
    );
    let page = b
        .get("/dashboard/acme/pool/tests/svc%2Forders%3A%3ATestReservations")
        .await;
    assert!(page.body.contains("2 different reasons"), "{}", page.body);
}

async fn one_count_per_result_skips_durations_and_a_test_broken_since_it_appeared(db: Db) {
    let (mut b, _fake, _app) = signed_in(&db).await;
    let v = json(&mut b, API).await;
    let resend = listed(&v, "TestResend");
    assert_eq!(
        (
            resend["runs"].as_i64(),
            resend["failures"].as_i64(),
            resend["flaky"].as_i64()
        ),
        (Some(10), Some(0), Some(3)),
        "{resend}"
    );
    assert_eq!(
        resend["pass_rate"].as_f64(),
        Some(0.7),
        "passed on the first try in 7 of 10"
    );
    let one = json(&mut b, &format!("{API}/svc%2Forders%3A%3ATestResend")).await;
    assert_eq!(
        (one["failures"].as_i64(), one["flaky"].as_i64()),
        (Some(0), Some(3)),
        "the page counts as the list"
    );
    assert_eq!(
        listed(&v, "TestMigrate")["status"],
        "broken",
        "failed both runs since it appeared"
    );
    let skipped = listed(&v, "TestNeedsRedis");
    assert_eq!(
        (skipped["skipped"].as_u64(), skipped["runs"].as_i64()),
        (Some(10), Some(0))
    );
    let export = listed(&v, "TestExport");
    assert_eq!(
        (
            export["duration_p50_ms"].as_u64(),
            export["duration_p95_ms"].as_u64()
        ),
        (Some(240), Some(290))
    );
    assert_eq!(
        listed(&v, "TestDrain")["duration_p50_ms"].as_u64(),
        Some(10)
    );
    let page = b
        .get("/dashboard/acme/pool/tests/svc%2Forders%3A%3ATestNeedsRedis")
        .await;
    assert_eq!(page.status, 200, "a test skipped in every run has a page");
    assert!(page.body.contains("in 10 runs"), "{}", page.body);
    let list = b.get("/dashboard/acme/pool?q=TestResend").await;
    assert!(
        list.body.contains("0 failed, 3 flaky"),
        "the sparkline counts a retry once: {}",
        list.body
    );
}

async fn search_reads_words_as_and_and_names_terms_it_did_not_understand(db: Db) {
    let (mut b, _fake, _app) = signed_in(&db).await;
    let v = json(&mut b, &format!("{API}?q=orders%20Drain")).await;
    let ids: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        ["svc/orders::TestDrain"],
        "both words, any order in the id"
    );
    let v = json(&mut b, &format!("{API}?q=Drain%20orders")).await;
    assert_eq!(v["total"], 1);
    let v = json(&mut b, &format!("{API}?q=Drain%20tier%3Agold")).await;
    assert_eq!(v["not_understood"], serde_json::json!(["tier:gold"]));
    assert_eq!(v["total"], 1, "the words it understood still search");
    let page = b.get("/dashboard/acme/pool?q=Drain%20tier%3Agold").await;
    assert!(
        page.body.contains("Not understood, so ignored"),
        "{}",
        page.body
    );
    assert!(page.body.contains("<code>tier:gold</code>"));
}

async fn signing_in_from_a_filtered_page_comes_back_to_it(db: Db) {
    let fake = world().await;
    record_ten(&db).await;
    let app = dash_app(&db, &fake).await;
    let mut b = Browser::new(&app);
    let start = "/dashboard/acme/pool?q=Resend&status=flaky";
    let p = b.get(start).await;
    let login = p.location.expect("to sign-in");
    let p = b.get(&login).await;
    let authorize = p.location.expect("to GitHub");
    fake.with(|w| w.oauth_user = Some("alice".into()));
    let at_github = b.get(&authorize).await;
    let back = b.get(&at_github.location.expect("callback")).await;
    let to = percent_decode(&back.location.expect("back"));
    assert!(to.ends_with(start), "signing in from {start} lands on {to}");
    let page = b.get(start).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("svc/orders::TestResend"));
}

async fn a_test_s_page_says_since_when_and_by_whom_it_has_its_tier(db: Db) {
    let fake = world().await;
    crate::dashboard::record(&db).await;
    // What the service read before: Beta on probation. The default branch's file now
    // quarantines it, merged by PR 311 (commit c0ffee…, carol's).
    let store = Store::connect(&db.url).await.expect("store");
    let entry = repro_gate::store::FileEntry::new;
    let policy = repro_gate::core::reliability::Policy::default();
    store
        .replace_reliability_file(
            REPO,
            ("old-blob", &policy),
            &[
                entry("pool::TestAlpha", "trusted"),
                entry("pool::TestBeta", "probation"),
            ],
            T0,
        )
        .await
        .expect("stored");
    let merge = "c0ffee0000000000000000000000000000000311";
    fake.add_pr(REPO, 311, merge, "Quarantine TestBeta", vec![]);
    fake.with(|w| {
        w.file_commits.insert(
            (REPO.into(), ".ci/test-reliability.yaml".into()),
            vec![serde_json::json!({
                "sha": merge,
                "commit": {"committer": {"date": "2025-12-03T10:00:00Z"}},
                "author": {"login": "carol"},
            })],
        );
        w.commit_pulls
            .insert((REPO.into(), merge.into()), vec![311]);
    });
    let app = dash_app(&db, &fake).await;
    let mut b = Browser::new(&app);
    b.sign_in(&fake, "alice").await;
    let page = b.get("/dashboard/acme/pool/tests/pool%3A%3ATestBeta").await;
    assert_eq!(page.status, 200);
    for want in [
        "quarantined since",
        "(was probation), set by",
        "/acme/pool/pull/311\"",
        "by @carol",
    ] {
        assert!(page.body.contains(want), "{want}: {}", page.body);
    }
    let v = json(&mut b, &format!("{API}/pool%3A%3ATestBeta")).await;
    assert_eq!(v["tier_set"]["pr"], 311);
    assert_eq!(v["tier_set"]["commit_sha"], merge);
    assert_eq!(
        v["tier_set"]["at_ms"], 1_764_756_000_000i64,
        "the merge's time, not the read's"
    );
}
