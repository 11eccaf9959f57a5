//! The retry protocol (docs/rerun.md) end to end: `/repro rerun` by who may, two dispatches of the
//! workflow this repository ships (`deploy/repro-gate-rerun.yml`), the session's one comment
//! updated as each side completes, the verdict, the timeout, and automatic starts once per test
//! and head.

use std::sync::Arc;

use serde_json::{Value, json};

use repro_gate::clock::ManualClock;
use repro_gate::queue::QueueEventKind;

use crate::both_backends;
use crate::common::{Db, Spawn, TestApp};
use crate::fake_actions::{finish_run, junit_runs};
use crate::fake_github::FakeGitHub;
use crate::gate::{REPO, deliver_done, world};

both_backends!(
    a_rerun_command_dispatches_both_sides_and_its_comment_gives_the_verdict,
    a_session_whose_runs_never_finish_says_so_at_its_timeout,
    a_failing_unlisted_test_starts_one_session_per_test_and_head,
    without_the_workflow_a_command_says_how_to_install_it_and_auto_stays_quiet,
    two_sessions_of_one_test_finishing_together_open_one_quarantine_issue,
);

const TEST: &str = "services/billing/integration::TestInvoiceRetryIdempotent";
const WORKFLOW: &str = include_str!("../../deploy/repro-gate-rerun.yml");
const RELIABILITY: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/billing/integration::TestInvoiceRetryIdempotent\n    tier: probation\n    runs: 200\n    failures: 7\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n";

async fn rerun_world(auto: &str) -> FakeGitHub {
    let fake = world().await;
    fake.put_file(
        REPO,
        "main",
        ".github/repro-gate.yml",
        &format!("rerun:\n  workflow: repro-gate-rerun.yml\n  runs: 20\n  auto: {auto}\n  timeout_minutes: 60\n"),
    );
    fake.put_file(
        REPO,
        "main",
        ".github/workflows/repro-gate-rerun.yml",
        WORKFLOW,
    );
    fake.put_file(REPO, "main", ".ci/test-reliability.yaml", RELIABILITY);
    fake.add_pr(
        REPO,
        1,
        "head-sha-1",
        "Docs only.",
        vec![("docs/a.md", None)],
    );
    fake.with(|w| {
        w.permissions
            .insert((REPO.into(), "alice".into()), "write".into());
        w.permissions
            .insert((REPO.into(), "bob".into()), "read".into());
        w.actions
            .merge_bases
            .insert((REPO.into(), "head-sha-1".into()), "merge-base-sha".into());
    });
    fake
}

fn comment_event(id: u64, login: &str, body: &str) -> String {
    json!({
        "action": "created",
        "issue": {"number": 1, "pull_request": {"url": "x"}},
        "comment": {"id": id, "body": body, "user": {"login": login, "type": "User"}, "created_at": chrono::Utc::now().to_rfc3339()},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string()
}

fn dispatches(fake: &FakeGitHub) -> Vec<Value> {
    fake.with(|w| w.actions.dispatches.iter().map(|d| d.2.clone()).collect())
}

fn marked(fake: &FakeGitHub, session: &str) -> Vec<Value> {
    let marker = format!("<!-- repro-gate:rerun:{session} -->");
    fake.comments_on(REPO, 1)
        .into_iter()
        .filter(|c| c["body"].as_str().is_some_and(|b| b.contains(&marker)))
        .collect()
}

/// Completes the run of one side as the workflow would: an artifact with `runs` testcases of
/// the test, `fails` of them failing, and the `workflow_run` completed delivery.
async fn complete(
    app: &mut TestApp,
    fake: &FakeGitHub,
    run: u64,
    session: &str,
    side: &str,
    fails: usize,
) {
    let report = junit_runs(
        "services/billing/integration",
        "TestInvoiceRetryIdempotent",
        20,
        fails,
    );
    let ev = finish_run(fake, REPO, run, session, side, &report);
    deliver_done(app, "workflow_run", &format!("run-{run}"), &ev).await;
}

async fn a_rerun_command_dispatches_both_sides_and_its_comment_gives_the_verdict(db: Db) {
    let fake = rerun_world("[]").await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;

    let cmd = format!("/repro rerun {TEST} 20");
    deliver_done(
        &mut app,
        "issue_comment",
        "c-bob",
        &comment_event(11, "bob", &cmd),
    )
    .await;
    assert!(dispatches(&fake).is_empty(), "bob may not rerun");
    let replies = fake.comments_on(REPO, 1);
    assert!(
        replies.iter().any(|c| c["body"]
            .as_str()
            .unwrap_or("")
            .contains("may not use `/repro rerun`")),
        "{replies:?}"
    );
    assert!(!fake.with(|w| w.reactions.iter().any(|(id, _)| *id == 11)));

    deliver_done(
        &mut app,
        "issue_comment",
        "c-alice",
        &comment_event(12, "alice", &cmd),
    )
    .await;
    let ds = dispatches(&fake);
    assert_eq!(ds.len(), 2, "{ds:?}");
    let mut shas: Vec<&str> = ds
        .iter()
        .map(|d| d["inputs"]["sha"].as_str().unwrap())
        .collect();
    shas.sort();
    assert_eq!(shas, ["head-sha-1", "merge-base-sha"]);
    let session = ds[0]["inputs"]["session"].as_str().unwrap().to_string();
    for d in &ds {
        assert_eq!(d["ref"], "main");
        assert_eq!(d["inputs"]["test"], TEST);
        assert_eq!(
            d["inputs"]["runs"], 20,
            "a number, as the workflow declares"
        );
        assert_eq!(d["inputs"]["session"], session.as_str());
    }
    let sides: Vec<&str> = ds
        .iter()
        .map(|d| d["inputs"]["side"].as_str().unwrap())
        .collect();
    assert_eq!(
        sides,
        ["branch", "base"],
        "the shipped workflow declares `side`"
    );
    assert!(fake.with(|w| w.reactions.contains(&(12, "+1".into()))));
    assert_eq!(marked(&fake, &session).len(), 1);

    // The same command delivered again (a redelivery is a duplicate; a retried job is the
    // same session): no new dispatch.
    complete(&mut app, &fake, 801, &session, "branch", 3).await;
    let c = marked(&fake, &session);
    assert_eq!(c.len(), 1);
    let body = c[0]["body"].as_str().unwrap();
    assert!(body.contains("3/20") && body.contains("Waiting"), "{body}");
    complete(&mut app, &fake, 802, &session, "base", 3).await;
    let c = marked(&fake, &session);
    assert_eq!(c.len(), 1, "one comment, updated in place");
    let body = c[0]["body"].as_str().unwrap();
    assert!(body.contains("**Not this change**"), "{body}");
    assert_eq!(
        body.matches("| 3/20 (15.0 %) |").count(),
        2,
        "both sides in the table: {body}"
    );
    assert!(
        body.contains("p = 0.67") && body.contains("36.0 %"),
        "{body}"
    );
    assert!(
        body.contains("Quarantine services/billing/integration::TestInvoiceRetryIdempotent"),
        "{body}"
    );
    assert!(
        body.contains("History (default branch and merge queue)")
            || body.contains("History: no recorded runs"),
        "{body}"
    );
    assert!(body.contains("4242"), "the seed the runner printed: {body}");
    let posted = fake
        .requests()
        .iter()
        .filter(|r| {
            r.method == "POST"
                && r.path.ends_with("/issues/1/comments")
                && r.body["body"]
                    .as_str()
                    .is_some_and(|b| b.contains(&session))
        })
        .count();
    assert_eq!(posted, 1);
    assert_eq!(dispatches(&fake).len(), 2);
    app.stop().await;
}

async fn a_session_whose_runs_never_finish_says_so_at_its_timeout(db: Db) {
    let fake = rerun_world("[]").await;
    let clock = ManualClock::new(chrono::Utc::now().timestamp_millis());
    let mut app = Spawn::new(&db)
        .workers(2)
        .github(&fake)
        .clock(Arc::new(clock.clone()))
        .start()
        .await;
    let cmd = format!("/repro rerun {TEST}");
    deliver_done(
        &mut app,
        "issue_comment",
        "c-1",
        &comment_event(21, "alice", &cmd),
    )
    .await;
    let session = dispatches(&fake)[0]["inputs"]["session"]
        .as_str()
        .unwrap()
        .to_string();
    complete(&mut app, &fake, 811, &session, "branch", 1).await;

    clock.advance_ms(61 * 60 * 1000);
    app.wait_for(|e| e.work == "rerun_timeout" && e.kind == QueueEventKind::Done)
        .await;
    let c = marked(&fake, &session);
    let body = c[0]["body"].as_str().unwrap();
    assert!(
        body.contains("**Timed out**") && body.contains("within 60 minutes"),
        "{body}"
    );
    assert!(
        body.contains("1/20"),
        "what did arrive is still shown: {body}"
    );
    app.stop().await;
}

fn failed_check(id: u64, job: u64) -> String {
    json!({
        "action": "completed",
        "check_run": {
            "id": id, "name": format!("ci / test {id}"), "head_sha": "head-sha-1", "conclusion": "failure",
            "app": {"id": 15368, "slug": "github-actions"},
            "details_url": format!("https://github.com/{REPO}/actions/runs/9/job/{job}"),
            "pull_requests": [{"number": 1}],
            "output": {"title": "tests failed", "summary": "", "text": null}
        },
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string()
}

async fn a_failing_unlisted_test_starts_one_session_per_test_and_head(db: Db) {
    let fake = rerun_world("[probation, unlisted]").await;
    fake.with(|w| {
        w.job_logs.insert(91, "--- FAIL: TestPoolCheckoutUnderLoad (3.00s)\nFAIL\texample.com/acme/services/pool/integration\t3.1s\n--- FAIL: TestLedgerReconcileNightly (0.10s)\nFAIL\texample.com/acme/services/ledger\t0.2s\n".into());
        w.job_logs.insert(92, "--- FAIL: TestLedgerReconcileNightly (0.10s)\n--- FAIL: TestLedgerAuditTrail (0.10s)\nFAIL\texample.com/acme/services/ledger\t0.2s\n".into());
    });
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    deliver_done(&mut app, "check_run", "chk-1", &failed_check(501, 91)).await;
    let ds = dispatches(&fake);
    assert_eq!(
        ds.len(),
        2,
        "the unlisted test, both sides; never the quarantined one: {ds:?}"
    );
    assert!(ds.iter().all(|d| {
        d["inputs"]["test"]
            .as_str()
            .unwrap()
            .ends_with("::TestLedgerReconcileNightly")
    }));
    let reliability = fake
        .comments_on(REPO, 1)
        .into_iter()
        .find(|c| {
            c["body"]
                .as_str()
                .is_some_and(|b| b.contains("<!-- repro-gate:test-reliability -->"))
        })
        .expect("the reliability comment");
    let body = reliability["body"].as_str().unwrap();
    assert!(body.contains("wait for its verdict; do not change code for this test until it says `this change makes it fail`"), "{body}");

    deliver_done(&mut app, "check_run", "chk-2", &failed_check(502, 92)).await;
    let ds = dispatches(&fake);
    assert_eq!(
        ds.len(),
        4,
        "a new test gets its session; the same test and head does not get a second: {ds:?}"
    );
    let audit_trail = ds
        .iter()
        .filter(|d| {
            d["inputs"]["test"]
                .as_str()
                .unwrap()
                .ends_with("::TestLedgerAuditTrail")
        })
        .count();
    assert_eq!(audit_trail, 2);
    app.stop().await;
}

async fn without_the_workflow_a_command_says_how_to_install_it_and_auto_stays_quiet(db: Db) {
    let fake = rerun_world("[probation, unlisted]").await;
    fake.with(|w| {
        w.files.remove(&(REPO.into(), "main".into(), ".github/workflows/repro-gate-rerun.yml".into()));
        w.job_logs.insert(93, "--- FAIL: TestLedgerReconcileNightly (0.10s)\nFAIL\texample.com/acme/services/ledger\t0.2s\n".into());
    });
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    deliver_done(&mut app, "check_run", "chk-3", &failed_check(503, 93)).await;
    let before = fake.comments_on(REPO, 1).len();
    deliver_done(
        &mut app,
        "issue_comment",
        "c-2",
        &comment_event(31, "alice", &format!("/repro rerun {TEST}")),
    )
    .await;
    assert!(dispatches(&fake).is_empty());
    let comments = fake.comments_on(REPO, 1);
    assert_eq!(
        comments.len(),
        before + 1,
        "one reply to the command, nothing from the automatic start"
    );
    let reply = comments.last().unwrap()["body"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reply.contains("deploy/repro-gate-rerun.yml"), "{reply}");
    app.stop().await;
}

async fn two_sessions_of_one_test_finishing_together_open_one_quarantine_issue(db: Db) {
    let fake = rerun_world("[]").await;
    fake.put_file(
        REPO,
        "main",
        ".github/repro-gate.yml",
        "rerun:\n  workflow: repro-gate-rerun.yml\n  auto: []\n  tickets: issue\n",
    );
    fake.add_pr(
        REPO,
        2,
        "head-sha-2",
        "Docs only.",
        vec![("docs/b.md", None)],
    );
    fake.with(|w| {
        w.actions.merge_bases.insert(
            (REPO.into(), "head-sha-2".into()),
            "merge-base-sha-2".into(),
        );
    });
    let mut app = Spawn::new(&db).workers(4).github(&fake).start().await;
    let cmd = format!("/repro rerun {TEST}");
    let on_pr = |pr: u64, id: u64| {
        comment_event(id, "alice", &cmd).replace("\"number\":1", &format!("\"number\":{pr}"))
    };
    deliver_done(&mut app, "issue_comment", "c-pr1", &on_pr(1, 41)).await;
    deliver_done(&mut app, "issue_comment", "c-pr2", &on_pr(2, 42)).await;
    let ds = dispatches(&fake);
    assert_eq!(ds.len(), 4, "{ds:?}");
    let session_of = |sha: &str| {
        ds.iter()
            .find(|d| d["inputs"]["sha"] == sha)
            .map(|d| d["inputs"]["session"].as_str().unwrap().to_string())
            .unwrap()
    };
    let (s1, s2) = (session_of("head-sha-1"), session_of("head-sha-2"));
    complete(&mut app, &fake, 861, &s1, "branch", 3).await;
    complete(&mut app, &fake, 862, &s2, "branch", 4).await;
    // The last side of each session arrives at once: two ticket jobs for one test.
    for (run, session) in [(863, &s1), (864, &s2)] {
        let report = junit_runs(
            "services/billing/integration",
            "TestInvoiceRetryIdempotent",
            20,
            3,
        );
        let ev = finish_run(&fake, REPO, run, session, "base", &report);
        let a = app
            .deliver("workflow_run", &format!("run-{run}"), &ev)
            .await;
        assert_eq!(a.json["status"], "queued");
    }
    for _ in 0..2 {
        app.wait_for(|e| e.work == "quarantine_ticket" && e.kind == QueueEventKind::Done)
            .await;
    }
    let issues = fake.with(|w| w.issues.clone());
    assert_eq!(issues.len(), 1, "one issue per test: {issues:?}");
    let issue = &issues[0].2;
    assert_eq!(issue["title"], format!("Quarantine: {TEST}"));
    assert_eq!(issue["labels"][0]["name"], "flaky-test");
    let body = issue["body"].as_str().unwrap();
    assert!(
        body.contains(&format!("<!-- repro-gate:quarantine:{TEST} -->")),
        "{body}"
    );
    assert!(body.contains("3/20"), "{body}");
    let creates = fake
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with(&format!("/repos/{REPO}/issues")))
        .count();
    assert_eq!(creates, 1);
    // Each session's comment links the issue.
    let n = issues[0].1;
    for (pr, s) in [(1, &s1), (2, &s2)] {
        let marker = format!("<!-- repro-gate:rerun:{s} -->");
        let c: Vec<Value> = fake
            .comments_on(REPO, pr)
            .into_iter()
            .filter(|c| c["body"].as_str().is_some_and(|b| b.contains(&marker)))
            .collect();
        assert!(
            c[0]["body"]
                .as_str()
                .unwrap()
                .contains(&format!("filed as #{n}")),
            "{c:?}"
        );
    }
    app.stop().await;
}
