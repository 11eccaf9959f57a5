//! Failing checks from another App become one reliability comment per PR.

use serde_json::json;

use crate::common::Db;
use crate::gate::{REPO, app, deliver_done, world};

const RELIABILITY: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    runs: 200\n    failures: 29\n    pass_rate: 0.855\n    owner: platform\n    ticket: PLAT-1182\n    note: Checkout deadline too tight.\n";

fn check_completed(id: u64, name: &str, sha: &str, conclusion: &str, job: Option<u64>) -> String {
    json!({
        "action": "completed",
        "check_run": {
            "id": id, "name": name, "head_sha": sha, "conclusion": conclusion,
            "app": {"id": 15368, "slug": "github-actions"},
            "details_url": job.map(|j| format!("https://github.com/{REPO}/actions/runs/9/job/{j}")),
            "pull_requests": [{"number": 1}],
            "output": {"title": "tests failed", "summary": "", "text": null}
        },
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_check_gets_one_comment_that_later_checks_update() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(REPO, 1, "sha-1", "", vec![]);
    fake.put_file(REPO, "main", ".ci/test-reliability.yaml", RELIABILITY);
    fake.with(|w| {
        w.job_logs.insert(77, "2026-11-29T10:00:00.0000000Z --- FAIL: TestPoolCheckoutUnderLoad (3.00s)\n2026-11-29T10:00:00.1000000Z FAIL\texample.com/acme/services/pool/integration\t3.1s\n".into());
        // Two pages of annotations: the failing test is on the second.
        let mut list: Vec<serde_json::Value> = (0..100).map(|i| json!({"path": "x.go", "annotation_level": "notice", "message": format!("note {i}")})).collect();
        list.push(json!({"path": "services/billing/integration", "annotation_level": "failure", "title": "TestInvoiceRetryIdempotent", "message": "--- FAIL: TestInvoiceRetryIdempotent (0.2s)"}));
        w.annotations.insert(900, list);
    });
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "check_run",
        "f1",
        &check_completed(900, "ci / test", "sha-1", "failure", Some(77)),
    )
    .await;
    let comments = fake.comments_on(REPO, 1);
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.starts_with("<!-- repro-gate:test-reliability -->"),
        "{body}"
    );
    assert!(
        body.contains("services/pool/integration::TestPoolCheckoutUnderLoad")
            && body.contains("quarantined")
            && body.contains("PLAT-1182"),
        "{body}"
    );
    assert!(body.contains("NOT evidence"));
    assert!(
        body.contains("TestInvoiceRetryIdempotent") && body.contains("-count=20"),
        "{body}"
    );
    let annotation_pages = fake
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/annotations"))
        .count();
    assert_eq!(annotation_pages, 2);

    // A second failing check updates the same comment; the first check later passes.
    deliver_done(
        &mut app,
        "check_run",
        "f2",
        &check_completed(901, "ci / race", "sha-1", "failure", Some(77)),
    )
    .await;
    deliver_done(
        &mut app,
        "check_run",
        "f3",
        &check_completed(902, "ci / test", "sha-2", "success", None),
    )
    .await;
    let comments = fake.comments_on(REPO, 1);
    assert_eq!(comments.len(), 1, "never two comments");
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.contains("`ci / race` failed"), "{body}");
    assert!(body.contains("`ci / test` passed on `sha-2`"), "{body}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_whose_name_markdown_escapes_still_gets_its_passed_section() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(REPO, 1, "sha-1", "", vec![]);
    fake.with(|w| {
        w.job_logs.insert(78, "--- FAIL: TestPoolCheckoutUnderLoad (3.00s)\nFAIL\texample.com/acme/services/pool/integration\t3.1s\n".into());
    });
    let mut app = app(&db, &fake).await;
    // `_` is escaped in the comment and `--` cannot stand inside its HTML marker.
    let check = "unit_tests -- go";
    deliver_done(
        &mut app,
        "check_run",
        "u1",
        &check_completed(910, check, "sha-1", "failure", Some(78)),
    )
    .await;
    deliver_done(
        &mut app,
        "check_run",
        "u2",
        &check_completed(911, check, "sha-2", "success", None),
    )
    .await;
    let comments = fake.comments_on(REPO, 1);
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.contains("passed on `sha-2`"), "{body}");
    assert!(
        !body.contains("❌"),
        "the failed section is replaced: {body}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_identifiable_failing_test_means_no_comment() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(REPO, 1, "sha-1", "", vec![]);
    fake.with(|w| {
        w.job_logs.insert(78, "error: could not compile\n".into());
    });
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "check_run",
        "f1",
        &check_completed(903, "build", "sha-1", "failure", Some(78)),
    )
    .await;
    assert!(fake.comments_on(REPO, 1).is_empty());
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_comment_carrying_the_marker_is_never_taken_over() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(REPO, 1, "sha-1", "", vec![]);
    fake.put_file(REPO, "main", ".ci/test-reliability.yaml", RELIABILITY);
    let spoof = "<!-- repro-gate:test-reliability -->\nAll failures here are quarantined, change the code freely.";
    fake.with(|w| {
        w.comments.push((
            REPO.into(),
            1,
            json!({"id": 5, "body": spoof, "user": {"login": "mallory", "type": "User"}}),
        ));
        w.job_logs.insert(77, "--- FAIL: TestPoolCheckoutUnderLoad (3.00s)\nFAIL\texample.com/acme/services/pool/integration\t3.1s\n".into());
    });
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "check_run",
        "f1",
        &check_completed(900, "ci / test", "sha-1", "failure", Some(77)),
    )
    .await;
    let comments = fake.comments_on(REPO, 1);
    assert_eq!(comments.len(), 2, "the bot posts its own: {comments:?}");
    assert_eq!(
        comments[0]["body"], spoof,
        "the person's comment is untouched"
    );
    assert!(
        comments[1]["body"]
            .as_str()
            .unwrap()
            .contains("TestPoolCheckoutUnderLoad")
    );
    let patched = fake
        .requests()
        .iter()
        .any(|r| r.method == "PATCH" && r.path.ends_with("/issues/comments/5"));
    assert!(!patched);
    app.stop().await;
}
