//! GitHub requests per event kind, with the installation token warm and the config seen: the
//! `pull_request` payload stands in for reading the PR, the App's check run is remembered per
//! head SHA, and nothing is written when nothing changed. The figures are printed (a tracked
//! number) and held to budgets.

use serde_json::json;

use crate::both_backends;
use crate::common::{Db, Spawn, TestApp};
use crate::fake_github::FakeGitHub;
use crate::gate::{RACY_PATCH, REPO, deliver_done, world};

both_backends!(requests_per_event_kind_stay_within_their_budgets);

/// A `pull_request` delivery carrying the PR as GitHub does.
fn pr_delivery(
    action: &str,
    number: u64,
    sha: &str,
    body: &str,
    labels: &[&str],
    at: &str,
) -> String {
    json!({
        "action": action,
        "number": number,
        "pull_request": {
            "number": number, "title": format!("PR {number}"), "body": body, "state": "open",
            "draft": false,
            "head": {"sha": sha, "ref": "feature", "repo": {"full_name": REPO}},
            "base": {"sha": "base", "ref": "main", "repo": {"full_name": REPO}},
            "labels": labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
            "user": {"login": "author", "type": "User"},
            "updated_at": at
        },
        "changes": {"body": {"from": "before"}},
        "repository": {"full_name": REPO, "default_branch": "main"},
        "installation": {"id": 7}
    })
    .to_string()
}

/// The requests `step` made to GitHub, less installation tokens.
async fn requests_of(
    fake: &FakeGitHub,
    step: impl std::future::Future<Output = ()>,
) -> Vec<String> {
    let before = fake.requests().len();
    step.await;
    fake.requests()[before..]
        .iter()
        .filter(|r| !r.path.contains("/access_tokens"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

fn is_write(r: &str) -> bool {
    !r.starts_with("GET ")
}

async fn requests_per_event_kind_stay_within_their_budgets(db: Db) {
    let fake: FakeGitHub = world().await;
    for (n, sha) in [(1, "sha-1"), (2, "sha-2")] {
        fake.add_pr(
            REPO,
            n,
            sha,
            "No evidence.",
            vec![("pool/pool.go", Some(RACY_PATCH))],
        );
    }
    fake.with(|w| {
        w.job_logs.insert(
            71,
            "--- FAIL: TestLedgerReconcileNightly (0.10s)\nFAIL\texample.com/acme/services/ledger\t0.2s\n".into(),
        )
    });
    // The figures are an event's own requests: the scheduled passes (a catch-up pass and a
    // history-schedule pass at start, which list installations and may evaluate these PRs
    // too) would land in whichever step they overlap, so they are off here; the recovery and
    // replica tests run them as shipped.
    let mut spawn = Spawn::new(&db).workers(2).github(&fake);
    spawn.settings.reconcile_minutes = 0;
    spawn.settings.history_schedule_minutes = 0;
    let mut app: TestApp = spawn.start().await;
    // Warm: the token, the default branch, the config, the label.
    let t0 = "2026-12-01T10:00:00Z";
    deliver_done(
        &mut app,
        "pull_request",
        "w",
        &pr_delivery("opened", 1, "sha-1", "No evidence.", &[], t0),
    )
    .await;

    let opened = requests_of(&fake, async {
        deliver_done(
            &mut app,
            "pull_request",
            "o",
            &pr_delivery("opened", 2, "sha-2", "No evidence.", &[], t0),
        )
        .await;
    })
    .await;
    fake.set_pr(REPO, 2, |p| {
        p.head_sha = "sha-3".into();
        p.labels = vec!["concurrency".into()];
    });
    let t1 = "2026-12-01T10:05:00Z";
    let synchronize = requests_of(&fake, async {
        deliver_done(
            &mut app,
            "pull_request",
            "s",
            &pr_delivery(
                "synchronize",
                2,
                "sha-3",
                "No evidence.",
                &["concurrency"],
                t1,
            ),
        )
        .await;
    })
    .await;
    let t2 = "2026-12-01T10:06:00Z";
    let evidence = "## Reproduction\nkind: seed\ntest: pool::TestPoolRefill\nseed: 7311\nbase: fails 100/100\n";
    fake.set_pr(REPO, 2, |p| p.body = evidence.into());
    let edited = requests_of(&fake, async {
        deliver_done(
            &mut app,
            "pull_request",
            "e",
            &pr_delivery("edited", 2, "sha-3", evidence, &["concurrency"], t2),
        )
        .await;
    })
    .await;
    let unchanged = requests_of(&fake, async {
        let at = "2026-12-01T10:07:00Z";
        deliver_done(
            &mut app,
            "pull_request",
            "e2",
            &pr_delivery("edited", 2, "sha-3", evidence, &["concurrency"], at),
        )
        .await;
    })
    .await;
    let failed_check = json!({
        "action": "completed",
        "check_run": {
            "id": 501, "name": "ci / test", "head_sha": "sha-3", "conclusion": "failure",
            "app": {"id": 15368, "slug": "github-actions"},
            "details_url": format!("https://github.com/{REPO}/actions/runs/9/job/71"),
            "pull_requests": [{"number": 2}],
            "output": {"title": "tests failed", "summary": "", "text": null}
        },
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    });
    let check_run = requests_of(&fake, async {
        deliver_done(&mut app, "check_run", "c", &failed_check.to_string()).await;
    })
    .await;
    let command = json!({
        "action": "created",
        "issue": {"number": 2, "pull_request": {"url": "x"}},
        "comment": {"id": 90, "body": "/repro recheck", "user": {"login": "rita", "type": "User"}, "created_at": chrono::Utc::now().to_rfc3339()},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    });
    let comment = requests_of(&fake, async {
        deliver_done(&mut app, "issue_comment", "k", &command.to_string()).await;
    })
    .await;

    for (kind, reqs) in [
        ("opened", &opened),
        ("synchronize", &synchronize),
        ("edited", &edited),
        ("edited, nothing changed", &unchanged),
        ("check_run failure", &check_run),
        ("comment command", &comment),
    ] {
        eprintln!("requests per event: {kind}: {} {reqs:?}", reqs.len());
    }
    let never_read_pr = |reqs: &[String]| {
        !reqs
            .iter()
            .any(|r| r == &format!("GET /repos/{REPO}/pulls/2"))
    };
    assert!(opened.len() <= 4 && never_read_pr(&opened), "{opened:?}");
    assert!(
        synchronize.len() <= 3 && never_read_pr(&synchronize),
        "{synchronize:?}"
    );
    // An edit that now claims a reproduction also asks whether the rerun workflow is there
    // (remembered for a minute).
    assert!(
        edited.len() <= 3
            && never_read_pr(&edited)
            && !edited.iter().any(|r| r.contains("/commits/")),
        "the check run is remembered, not listed: {edited:?}"
    );
    assert!(
        !unchanged.iter().any(|r| is_write(r)),
        "an edit that changes nothing writes nothing: {unchanged:?}"
    );
    assert!(check_run.len() <= 7, "{check_run:?}");
    assert!(
        comment.len() <= 3,
        "the PR is read once for a command: {comment:?}"
    );
    app.stop().await;
}
