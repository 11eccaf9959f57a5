//! Maintainer commands end to end: permissions, effects, replies, reactions, audit.

use serde_json::json;

use crate::common::{Db, TestApp};
use crate::fake_github::FakeGitHub;
use crate::gate::{REPO, add_racy_pr, app, deliver_done, pr_event, world};

fn comment(id: u64, user: &str, kind: &str, body: &str, number: u64) -> String {
    json!({
        "action": "created",
        "issue": {"number": number, "pull_request": {"url": "x"}},
        "comment": {"id": id, "body": body, "user": {"login": user, "type": kind}},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string()
}

async fn setup() -> (Db, FakeGitHub, TestApp) {
    setup_with(None).await
}

/// With this `.github/repro-gate.yml` on the default branch from the start (a config read is
/// trusted for a minute, so a test that changed it later would see it only then).
async fn setup_with(config: Option<&str>) -> (Db, FakeGitHub, TestApp) {
    let db = Db::sqlite();
    let fake = world().await;
    if let Some(c) = config {
        fake.put_file(REPO, "main", ".github/repro-gate.yml", c);
    }
    add_racy_pr(&fake, 1, "sha-1");
    fake.with(|w| {
        w.permissions
            .insert((REPO.into(), "maya".into()), "maintain".into());
        w.permissions
            .insert((REPO.into(), "rita".into()), "read".into());
        w.team_members
            .insert(("acme".into(), "platform".into()), vec!["tom".into()]);
    });
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "open",
        &pr_event("opened", 1, json!({})),
    )
    .await;
    (db, fake, app)
}

fn conclusion(fake: &FakeGitHub, sha: &str) -> String {
    fake.check_runs_for(sha)[0]["conclusion"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorised_override_passes_this_commit_only() {
    let (_db, fake, mut app) = setup().await;
    assert_eq!(conclusion(&fake, "sha-1"), "failure");
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(
            500,
            "maya",
            "User",
            "/repro override hotfix for the outage",
            1,
        ),
    )
    .await;
    let run = &fake.check_runs_for("sha-1")[0];
    assert_eq!(run["conclusion"], "success");
    let summary = run["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("@maya") && summary.contains("hotfix for the outage"),
        "{summary}"
    );
    assert!(fake.with(|w| w.reactions.contains(&(500, "+1".into()))));
    // A new push is evaluated afresh, and lists the earlier override.
    fake.set_pr(REPO, 1, |p| p.head_sha = "sha-2".into());
    deliver_done(
        &mut app,
        "pull_request",
        "push",
        &pr_event("synchronize", 1, json!({})),
    )
    .await;
    let run = &fake.check_runs_for("sha-2")[0];
    assert_eq!(run["conclusion"], "failure");
    assert!(
        run["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("Earlier overrides")
    );
    let audit = app
        .app
        .store
        .audit(Some(REPO), Some(1), None)
        .await
        .unwrap();
    assert_eq!(audit.len(), 1);
    assert!(audit[0].accepted && audit[0].command == "override" && audit[0].actor == "maya");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthorised_override_is_refused_with_a_reply_and_audited() {
    let (_db, fake, mut app) = setup().await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(501, "rita", "User", "/repro override trust me", 1),
    )
    .await;
    assert_eq!(conclusion(&fake, "sha-1"), "failure");
    let replies = fake.comments_on(REPO, 1);
    assert_eq!(replies.len(), 1);
    let text = replies[0]["body"].as_str().unwrap();
    assert!(
        text.contains("@rita may not") && text.contains("write, maintain or admin"),
        "{text}"
    );
    assert!(fake.with(|w| w.reactions.is_empty()));
    let audit = app.app.store.audit(None, None, None).await.unwrap();
    assert_eq!(audit.len(), 1);
    assert!(!audit[0].accepted);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_and_edited_comments_do_nothing() {
    let (_db, fake, mut app) = setup().await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(502, "ci[bot]", "Bot", "/repro override automated", 1),
    )
    .await;
    assert_eq!(conclusion(&fake, "sha-1"), "failure");
    let mut edited: serde_json::Value =
        serde_json::from_str(&comment(503, "maya", "User", "/repro override x", 1)).unwrap();
    edited["action"] = json!("edited");
    let a = app
        .deliver("issue_comment", "c2", &edited.to_string())
        .await;
    assert_eq!(a.json["status"], "ignored");
    assert!(fake.comments_on(REPO, 1).is_empty());
    assert!(
        app.app
            .store
            .audit(None, None, None)
            .await
            .unwrap()
            .is_empty()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_concurrency_removes_the_label_and_survives_pushes() {
    let (_db, fake, mut app) = setup().await;
    assert_eq!(fake.labels_of(REPO, 1), ["concurrency"]);
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(
            504,
            "maya",
            "User",
            "/repro not-concurrency only renames the pool's metric",
            1,
        ),
    )
    .await;
    assert!(fake.labels_of(REPO, 1).is_empty());
    assert_eq!(conclusion(&fake, "sha-1"), "success");
    fake.set_pr(REPO, 1, |p| p.head_sha = "sha-3".into());
    deliver_done(
        &mut app,
        "pull_request",
        "push",
        &pr_event("synchronize", 1, json!({})),
    )
    .await;
    let run = &fake.check_runs_for("sha-3")[0];
    assert_eq!(run["conclusion"], "success");
    assert!(
        run["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("@maya marked this PR as not a concurrency change")
    );
    assert!(
        fake.labels_of(REPO, 1).is_empty(),
        "an exempt PR is not labelled again"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_listed_as_maintainers_may_override() {
    let (_db, fake, mut app) = setup_with(Some("maintainers: [acme/platform]\n")).await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(505, "tom", "User", "/repro override platform call", 1),
    )
    .await;
    assert_eq!(conclusion(&fake, "sha-1"), "success");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_and_malformed_commands_reply() {
    let (_db, fake, mut app) = setup().await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(506, "rita", "User", "/repro help", 1),
    )
    .await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c2",
        &comment(507, "rita", "User", "/repro overide please", 1),
    )
    .await;
    let replies = fake.comments_on(REPO, 1);
    assert_eq!(replies.len(), 2);
    assert!(
        replies[0]["body"]
            .as_str()
            .unwrap()
            .contains("/repro not-concurrency <reason>")
    );
    assert!(
        replies[1]["body"]
            .as_str()
            .unwrap()
            .contains("Did you mean `/repro override`")
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_command_prints_json_lines() {
    let (db, _fake, mut app) = setup().await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(508, "maya", "User", "/repro override ok", 1),
    )
    .await;
    deliver_done(
        &mut app,
        "issue_comment",
        "c2",
        &comment(509, "rita", "User", "/repro override no", 1),
    )
    .await;
    app.stop().await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .args([
            "audit",
            "--repo",
            REPO,
            "--pr",
            "1",
            "--database-url",
            &db.url,
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["actor"], "maya");
    assert_eq!(lines[0]["accepted"], true);
    assert_eq!(lines[1]["accepted"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_override_never_lands_on_a_head_pushed_after_the_comment() {
    let (_db, fake, mut app) = setup().await;
    // Maya comments while the head is sha-1 ...
    let posted = chrono::Utc::now().to_rfc3339();
    // ... and before her comment is handled, someone pushes sha-2.
    fake.set_pr(REPO, 1, |p| p.head_sha = "sha-2".into());
    deliver_done(
        &mut app,
        "pull_request",
        "push-after",
        &pr_event(
            "synchronize",
            1,
            json!({"pull_request": {"number": 1, "head": {"sha": "sha-2"}}}),
        ),
    )
    .await;
    let body = json!({
        "action": "created",
        "issue": {"number": 1, "pull_request": {"url": "x"}},
        "comment": {"id": 777, "body": "/repro override looked at it", "created_at": posted,
                    "user": {"login": "maya", "type": "User"}},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string();
    deliver_done(&mut app, "issue_comment", "late-override", &body).await;
    assert_eq!(
        conclusion(&fake, "sha-2"),
        "failure",
        "sha-2 was not overridden"
    );
    let replies = fake.comments_on(REPO, 1);
    let reply = replies.last().unwrap()["body"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reply.contains("moved from `sha-1` to `sha-2`"), "{reply}");
    assert!(!fake.with(|w| w.reactions.iter().any(|(id, _)| *id == 777)));
    let audit = app
        .app
        .store
        .audit(Some(REPO), Some(1), None)
        .await
        .unwrap();
    assert!(!audit.last().unwrap().accepted);
    app.stop().await;
}

const RELIABILITY: &str = ".ci/test-reliability.yaml";
const TIERS_BASE: &str = "tests:\n  - id: services/billing/integration::TestInvoiceRetryIdempotent\n    tier: probation\n  - id: services/pool/unit::TestAcquireReleaseOrdering\n    tier: trusted\n";

crate::both_backends!(a_pr_that_lowers_a_tier_waits_for_a_maintainers_approve_tiers);

/// A docs-only PR moves a test from probation to quarantined: the check does not pass and names
/// it; a reader's `/repro approve-tiers` is refused; a maintainer's passes this head only.
async fn a_pr_that_lowers_a_tier_waits_for_a_maintainers_approve_tiers(db: Db) {
    let fake = world().await;
    let head = TIERS_BASE.replace("tier: probation", "tier: quarantined");
    fake.put_file(REPO, "main", RELIABILITY, TIERS_BASE);
    fake.put_file(REPO, "base-1", RELIABILITY, TIERS_BASE);
    fake.put_file(REPO, "sha-t1", RELIABILITY, &head);
    fake.put_file(REPO, "sha-t2", RELIABILITY, &head);
    fake.add_pr(
        REPO,
        1,
        "sha-t1",
        "Quarantine TestInvoiceRetryIdempotent: BILL-311.",
        vec![
            (
                RELIABILITY,
                Some("@@ -1,3 +1,3 @@\n tests:\n   - id: services/billing/integration::TestInvoiceRetryIdempotent\n-    tier: probation\n+    tier: quarantined\n"),
            ),
            ("docs/billing.md", Some("@@ -1 +1 @@\n-a\n+b\n")),
        ],
    );
    fake.with(|w| {
        for sha in ["sha-t1", "sha-t2"] {
            w.actions
                .merge_bases
                .insert((REPO.into(), sha.into()), "base-1".into());
        }
        w.permissions
            .insert((REPO.into(), "maya".into()), "maintain".into());
        w.permissions
            .insert((REPO.into(), "rita".into()), "read".into());
    });
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "open",
        &pr_event("opened", 1, json!({})),
    )
    .await;
    let runs = fake.check_runs_for("sha-t1");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["conclusion"], "action_required");
    let summary = runs[0]["output"]["summary"].as_str().unwrap().to_string();
    assert!(
        summary.contains("TestInvoiceRetryIdempotent")
            && summary.contains("/repro approve-tiers")
            && !summary.contains("TestAcquireReleaseOrdering"),
        "{summary}"
    );
    // A reader may not.
    deliver_done(
        &mut app,
        "issue_comment",
        "c1",
        &comment(601, "rita", "User", "/repro approve-tiers", 1),
    )
    .await;
    assert_eq!(conclusion(&fake, "sha-t1"), "action_required");
    let replies = fake.comments_on(REPO, 1);
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0]["body"]
            .as_str()
            .unwrap()
            .contains("@rita may not use `/repro approve-tiers`")
    );
    assert!(fake.with(|w| w.reactions.is_empty()));
    // A maintainer may: this head passes, in the same check run.
    deliver_done(
        &mut app,
        "issue_comment",
        "c2",
        &comment(602, "maya", "User", "/repro approve-tiers", 1),
    )
    .await;
    let runs = fake.check_runs_for("sha-t1");
    assert_eq!(runs.len(), 1, "one check run, updated");
    assert_eq!(runs[0]["conclusion"], "success");
    assert!(
        runs[0]["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("@maya approved these tiers")
    );
    assert!(fake.with(|w| w.reactions.contains(&(602, "+1".into()))));
    let audit = app
        .app
        .store
        .audit(Some(REPO), Some(1), None)
        .await
        .unwrap();
    assert_eq!(audit.len(), 2);
    assert!(!audit[0].accepted && audit[0].actor == "rita");
    assert!(
        audit[1].accepted
            && audit[1].command == "approve-tiers"
            && audit[1].actor == "maya"
            && audit[1].head_sha.as_deref() == Some("sha-t1")
    );
    // A new push needs a new approval.
    fake.set_pr(REPO, 1, |p| p.head_sha = "sha-t2".into());
    deliver_done(
        &mut app,
        "pull_request",
        "push",
        &pr_event("synchronize", 1, json!({})),
    )
    .await;
    assert_eq!(conclusion(&fake, "sha-t2"), "action_required");
    app.stop().await;
}

/// Thirty lines of help, refused overrides or unknown commands get one reply, naming what was
/// not acted on; two hundred rechecks cost what one does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_comment_gets_one_reply_and_a_bounded_number_of_commands() {
    let (_db, fake, mut app) = setup().await;
    let mut id = 700;
    for (i, line) in [
        "/repro help",
        "/repro override trust me",
        "/repro frobnicate",
    ]
    .iter()
    .enumerate()
    {
        let before = fake.comments_on(REPO, 1).len();
        let body = format!("{line}\n").repeat(30);
        id += 1;
        deliver_done(
            &mut app,
            "issue_comment",
            &format!("c{i}"),
            &comment(id, "rita", "User", &body, 1),
        )
        .await;
        let replies = fake.comments_on(REPO, 1);
        assert_eq!(replies.len(), before + 1, "{line}: one reply");
    }
    // Thirty different unknown commands: ten acted on, the rest named.
    let body: String = (0..30).map(|i| format!("/repro frob{i}\n")).collect();
    deliver_done(
        &mut app,
        "issue_comment",
        "c-many",
        &comment(800, "rita", "User", &body, 1),
    )
    .await;
    let replies = fake.comments_on(REPO, 1);
    assert_eq!(replies.len(), 4);
    let last = replies[3]["body"].as_str().unwrap();
    assert!(
        last.contains("Unknown command `/repro frob9`")
            && !last.contains("Unknown command `/repro frob10`")
            && last.contains("ignored")
            && last.contains("`/repro frob10`"),
        "{last}"
    );
    // Two hundred rechecks: the requests of one.
    let before = fake.requests().len();
    deliver_done(
        &mut app,
        "issue_comment",
        "c-one",
        &comment(801, "rita", "User", "/repro recheck", 1),
    )
    .await;
    let one = fake.requests().len() - before;
    let before = fake.requests().len();
    deliver_done(
        &mut app,
        "issue_comment",
        "c-200",
        &comment(802, "rita", "User", &"/repro recheck\n".repeat(200), 1),
    )
    .await;
    let many = fake.requests().len() - before;
    assert!(
        many <= one,
        "200 rechecks cost {many} requests, one costs {one}"
    );
    assert_eq!(
        fake.comments_on(REPO, 1).len(),
        4,
        "no reply to accepted rechecks"
    );
    app.stop().await;
}
