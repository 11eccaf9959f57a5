//! The reproduction gate end to end: webhooks in, labels and check runs out, through the fake
//! GitHub.

use serde_json::{Value, json};

use crate::common::{Db, Spawn, TestApp};
use crate::fake_github::{APP_ID, FakeGitHub};

pub const REPO: &str = "acme/pool";
pub const RACY_PATCH: &str =
    "@@ -10,2 +10,3 @@ func (p *Pool) Get() {\n \tx := 1\n+\tgo p.refill()\n \treturn\n";
pub const PLAIN_PATCH: &str = "@@ -1,2 +1,2 @@\n-// old comment\n+// new comment\n x := 1\n";
pub const EVIDENCE: &str = "Fixes the refill race.\n\n## Reproduction\nkind: seed\ntest: pool::TestPoolRefill\nseed: 7311\nbase: fails 100/100\n";

pub fn pr_event(action: &str, number: u64, extra: Value) -> String {
    let mut v = json!({
        "action": action,
        "number": number,
        "pull_request": {"number": number},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    });
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, x) in e {
            o.insert(k.clone(), x.clone());
        }
    }
    v.to_string()
}

pub async fn world() -> FakeGitHub {
    let fake = FakeGitHub::start().await;
    fake.add_repo(REPO);
    fake
}

/// PR `number` at `sha` with no description whose one change takes a lock.
pub fn add_racy_pr(fake: &FakeGitHub, number: u64, sha: &str) {
    fake.add_pr(
        REPO,
        number,
        sha,
        "",
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
}

pub async fn app(db: &Db, fake: &FakeGitHub) -> TestApp {
    Spawn::new(db).workers(2).github(fake).start().await
}

/// Delivers and waits for the job to finish.
pub async fn deliver_done(app: &mut TestApp, event: &str, id: &str, body: &str) {
    let a = app.deliver(event, id, body).await;
    assert_eq!(a.json["status"], "queued", "{id}: {}", a.json);
    app.wait_done(id).await;
}

fn only_run(fake: &FakeGitHub, sha: &str) -> Value {
    let runs = fake.check_runs_for(sha);
    assert_eq!(runs.len(), 1, "one check run per SHA: {runs:?}");
    runs[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opened_without_evidence_fails_then_edited_with_evidence_passes() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(
        REPO,
        1,
        "sha-a",
        "Adds a refill goroutine. Reran CI and it is green.",
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "d1",
        &pr_event("opened", 1, json!({})),
    )
    .await;
    let run = only_run(&fake, "sha-a");
    assert_eq!(run["conclusion"], "failure");
    assert_eq!(run["name"], "repro-gate");
    assert_eq!(run["actions"][0]["identifier"], "recheck");
    let summary = run["output"]["summary"].as_str().unwrap();
    assert!(summary.contains("go.goroutine"), "{summary}");
    assert!(summary.contains("## Reproduction"), "{summary}");
    assert!(summary.contains("rerun-is-not-evidence"), "{summary}");
    assert_eq!(fake.labels_of(REPO, 1), ["concurrency"]);
    assert!(fake.with(|w| w.repo_labels[REPO].contains(&"concurrency".to_string())));

    // The author adds a reproduction: the same check run turns green.
    fake.set_pr(REPO, 1, |p| p.body = EVIDENCE.into());
    deliver_done(
        &mut app,
        "pull_request",
        "d2",
        &pr_event("edited", 1, json!({"changes": {"body": {"from": "old"}}})),
    )
    .await;
    let run = only_run(&fake, "sha-a");
    assert_eq!(run["conclusion"], "success");
    assert!(
        run["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("confirm the reproduction fails without the change")
    );

    // An edit of something else (the base branch) writes nothing.
    let writes_before = fake.requests().iter().filter(|r| r.method != "GET").count();
    deliver_done(
        &mut app,
        "pull_request",
        "d3",
        &pr_event(
            "edited",
            1,
            json!({"changes": {"base": {"ref": {"from": "dev"}}}}),
        ),
    )
    .await;
    let writes_after = fake.requests().iter().filter(|r| r.method != "GET").count();
    assert_eq!(writes_before, writes_after);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn synchronize_writes_a_check_on_the_new_sha_and_order_does_not_matter() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(
        REPO,
        2,
        "sha-1",
        EVIDENCE,
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "s1",
        &pr_event("opened", 2, json!({})),
    )
    .await;
    // A push that drops the evidence from the body; then a late redelivery of `opened`.
    fake.set_pr(REPO, 2, |p| {
        p.head_sha = "sha-2".into();
        p.body = "no repro".into();
    });
    deliver_done(
        &mut app,
        "pull_request",
        "s2",
        &pr_event("synchronize", 2, json!({})),
    )
    .await;
    deliver_done(
        &mut app,
        "pull_request",
        "s0-late",
        &pr_event("opened", 2, json!({})),
    )
    .await;
    assert_eq!(only_run(&fake, "sha-1")["conclusion"], "success");
    assert_eq!(only_run(&fake, "sha-2")["conclusion"], "failure");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_changes_pass_without_a_label_but_a_persons_label_gates() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(
        REPO,
        3,
        "sha-p",
        "",
        vec![
            ("pool/pool.go", Some(PLAIN_PATCH)),
            ("docs/locks.md", Some("@@ -1 +1 @@\n+sync.Mutex\n")),
        ],
    );
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "p1",
        &pr_event("opened", 3, json!({})),
    )
    .await;
    let run = only_run(&fake, "sha-p");
    assert_eq!(run["conclusion"], "success");
    assert!(fake.labels_of(REPO, 3).is_empty());
    // A person adds the label: the PR is now under the gate.
    fake.set_pr(REPO, 3, |p| p.labels.push("concurrency".into()));
    deliver_done(
        &mut app,
        "pull_request",
        "p2",
        &pr_event("labeled", 3, json!({"label": {"name": "concurrency"}})),
    )
    .await;
    assert_eq!(only_run(&fake, "sha-p")["conclusion"], "failure");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_comes_from_the_default_branch_and_errors_are_shown() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.put_file(
        REPO,
        "main",
        ".github/repro-gate.yml",
        "label: needs-repro\npaths: [\"sched/**\"]\n",
    );
    fake.put_file(
        REPO,
        "feature",
        ".github/repro-gate.yml",
        "paths: []\nignore: [\"**\"]\n",
    );
    fake.add_pr(
        REPO,
        4,
        "sha-c",
        "",
        vec![("sched/queue.go", Some(PLAIN_PATCH))],
    );
    let clock = repro_gate::clock::ManualClock::new(chrono::Utc::now().timestamp_millis());
    let mut app = Spawn::new(&db)
        .workers(2)
        .github(&fake)
        .clock(std::sync::Arc::new(clock.clone()))
        .start()
        .await;
    deliver_done(
        &mut app,
        "pull_request",
        "c1",
        &pr_event("opened", 4, json!({})),
    )
    .await;
    assert_eq!(only_run(&fake, "sha-c")["conclusion"], "failure");
    assert_eq!(fake.labels_of(REPO, 4), ["needs-repro"]);

    fake.put_file(
        REPO,
        "main",
        ".github/repro-gate.yml",
        "label: x\nlabels: y\n",
    );
    // A config read is trusted for a minute (docs/configuration.md); the change applies after it.
    clock.advance_ms(61_000);
    fake.add_pr(
        REPO,
        5,
        "sha-d",
        "",
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    deliver_done(
        &mut app,
        "pull_request",
        "c2",
        &pr_event("opened", 5, json!({})),
    )
    .await;
    let summary = only_run(&fake, "sha-d")["output"]["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        summary.contains("Configuration error") && summary.contains(":2:"),
        "{summary}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recheck_button_and_rerun_requests_reevaluate() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(
        REPO,
        6,
        "sha-r",
        "",
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "r1",
        &pr_event("opened", 6, json!({})),
    )
    .await;
    assert_eq!(only_run(&fake, "sha-r")["conclusion"], "failure");
    fake.set_pr(REPO, 6, |p| p.body = EVIDENCE.into());
    let button = json!({
        "action": "requested_action",
        "requested_action": {"identifier": "recheck"},
        "check_run": {"id": 1, "name": "repro-gate", "head_sha": "sha-r", "app": {"id": APP_ID}, "pull_requests": [{"number": 6}]},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    });
    deliver_done(&mut app, "check_run", "r2", &button.to_string()).await;
    assert_eq!(only_run(&fake, "sha-r")["conclusion"], "success");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_group_passes_only_when_every_pr_passes() {
    let db = Db::sqlite();
    let fake = world().await;
    fake.add_pr(
        REPO,
        7,
        "sha-7",
        EVIDENCE,
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    fake.add_pr(
        REPO,
        8,
        "sha-8",
        "",
        vec![("pool/pool.go", Some(RACY_PATCH))],
    );
    let mut app = app(&db, &fake).await;
    let group = |n: u64, sha: &str| {
        json!({
        "action": "checks_requested",
        "merge_group": {"head_sha": sha, "head_ref": format!("refs/heads/gh-readonly-queue/main/pr-{n}-abcdef")},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    }).to_string()
    };
    deliver_done(&mut app, "merge_group", "m7", &group(7, "mg-7")).await;
    deliver_done(&mut app, "merge_group", "m8", &group(8, "mg-8")).await;
    assert_eq!(only_run(&fake, "mg-7")["conclusion"], "success");
    let failed = only_run(&fake, "mg-8");
    assert_eq!(failed["conclusion"], "failure");
    assert!(failed["output"]["title"].as_str().unwrap().contains("#8"));
    app.stop().await;
}

crate::both_backends!(the_owners_github_repository_configures_a_repository_without_a_file);

async fn the_owners_github_repository_configures_a_repository_without_a_file(db: Db) {
    let fake = world().await;
    fake.add_repo("acme/.github");
    fake.put_file(
        "acme/.github",
        "main",
        ".github/repro-gate.yml",
        "label: needs-repro\n",
    );
    add_racy_pr(&fake, 1, "sha-org");
    let mut app = app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "o1",
        &pr_event("opened", 1, json!({})),
    )
    .await;
    assert_eq!(fake.labels_of(REPO, 1), ["needs-repro"]);
    let run = only_run(&fake, "sha-org");
    assert_eq!(run["conclusion"], "failure");
    let summary = run["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("of `acme/.github` (the owner's `.github` repository)"),
        "{summary}"
    );
    app.stop().await;

    // A repository with its own file uses it, not the organisation's.
    let fake = world().await;
    fake.add_repo("acme/.github");
    fake.put_file(
        "acme/.github",
        "main",
        ".github/repro-gate.yml",
        "label: needs-repro\n",
    );
    fake.put_file(REPO, "main", ".github/repro-gate.yml", "label: racy\n");
    add_racy_pr(&fake, 2, "sha-own");
    // The same database: a later repository of the same installation.
    let mut app = crate::gate::app(&db, &fake).await;
    deliver_done(
        &mut app,
        "pull_request",
        "o2",
        &pr_event("opened", 2, json!({})),
    )
    .await;
    assert_eq!(fake.labels_of(REPO, 2), ["racy"]);
    let summary = only_run(&fake, "sha-own")["output"]["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        summary.contains("on this repository's default branch"),
        "{summary}"
    );
    app.stop().await;
}
