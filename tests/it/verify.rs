//! Verified reproduction (docs/verification.md) end to end: a PR whose description claims a forcing test gets its
//! check `in_progress` while the gate runs the test on the merge base (with the PR's test file)
//! and on the head through the shipped workflow; the runs' reports decide the check. A push
//! starts a new session and the old one's late results change nothing; a restart carries a
//! session on; a fork's PR runs nothing until a writer asks.

use serde_json::{Value, json};

use std::sync::Arc;

use repro_gate::clock::ManualClock;
use repro_gate::queue::QueueEventKind;
use repro_gate::store::Store;

use crate::both_backends;
use crate::common::{Db, Spawn, TestApp};
use crate::fake_actions::{finish_run, junit_runs};
use crate::fake_github::FakeGitHub;
use crate::gate::{RACY_PATCH, REPO, deliver_done, pr_event, world};

both_backends!(
    a_forcing_test_that_fails_on_the_base_and_passes_on_the_head_is_verified,
    a_test_that_passes_on_the_merge_base_is_refuted_and_the_check_says_what_to_do,
    a_push_during_verification_starts_a_new_session_and_the_old_results_change_nothing,
    a_restart_during_verification_carries_the_session_on,
    a_fork_runs_nothing_until_a_writer_asks,
    a_side_that_never_completes_times_out,
    a_run_that_only_carries_the_sessions_title_counts_for_nothing,
    with_run_details_only_the_run_a_dispatch_returned_counts,
);

const WORKFLOW: &str = include_str!("../../deploy/repro-gate-rerun.yml");
const TEST: &str = "pool::TestCheckoutWakeupOrdering";
const TEST_FILE: &str = "pool/wakeup_test.go";
const BODY: &str = "Fix the lost wakeup in Pool.Checkout.\n\n## Reproduction\nkind: interleaving\ntest: pool::TestCheckoutWakeupOrdering\nbase: fails 20/20\nbranch: passes 20/20\n\n`TestCheckoutWakeupOrdering` (added in `pool/wakeup_test.go`) forces the bad ordering with a hook every time: it fails deterministically on the merge base and passes with this change.\n";
const ADDED_TEST: &str = "@@ -0,0 +1,6 @@\n+package pool\n+\n+func TestCheckoutWakeupOrdering(t *testing.T) {\n+\tp.beforeWait = func() { close(parked); <-release }\n+\t<-parked\n+}\n";

async fn verify_world(head: &str) -> FakeGitHub {
    let fake = world().await;
    fake.put_file(
        REPO,
        "main",
        ".github/repro-gate.yml",
        "rerun:\n  auto: []\nverify:\n  mode: required\n  runs: 20\n  timeout_minutes: 30\n",
    );
    fake.put_file(
        REPO,
        "main",
        ".github/workflows/repro-gate-rerun.yml",
        WORKFLOW,
    );
    fake.add_pr(
        REPO,
        1,
        head,
        BODY,
        vec![
            ("pool/pool.go", Some(RACY_PATCH)),
            (TEST_FILE, Some(ADDED_TEST)),
        ],
    );
    fake.set_pr(REPO, 1, |p| p.files[1]["status"] = json!("added"));
    fake.with(|w| {
        w.permissions
            .insert((REPO.into(), "alice".into()), "write".into());
        w.permissions
            .insert((REPO.into(), "bob".into()), "read".into());
        w.actions
            .merge_bases
            .insert((REPO.into(), head.into()), format!("base-of-{head}"));
    });
    fake
}

fn dispatches(fake: &FakeGitHub) -> Vec<Value> {
    fake.with(|w| w.actions.dispatches.iter().map(|d| d.2.clone()).collect())
}

fn check(fake: &FakeGitHub, sha: &str) -> Value {
    let runs = fake.check_runs_for(sha);
    assert_eq!(runs.len(), 1, "one check run per SHA: {runs:?}");
    runs[0].clone()
}

fn summary(run: &Value) -> String {
    format!(
        "{}\n{}",
        run["output"]["title"].as_str().unwrap_or(""),
        run["output"]["summary"].as_str().unwrap_or("")
    )
}

/// (session, branch side's inputs, base side's inputs) of the dispatches made for `head`.
fn pair(fake: &FakeGitHub, head: &str) -> (String, Value, Value) {
    let ds: Vec<Value> = dispatches(fake)
        .into_iter()
        .filter(|d| {
            d["inputs"]["sha"] == head
                || d["inputs"]["tests_from"] == head
                || d["inputs"]["sha"] == format!("base-of-{head}")
        })
        .collect();
    assert_eq!(ds.len(), 2, "{ds:?}");
    let side = |s: &str| {
        ds.iter()
            .find(|d| d["inputs"]["side"] == s)
            .unwrap_or_else(|| panic!("a side-{s} dispatch: {ds:?}"))["inputs"]
            .clone()
    };
    let (b, base) = (side("branch"), side("base"));
    assert_eq!(b["session"], base["session"]);
    (b["session"].as_str().unwrap().to_string(), b, base)
}

/// A side's run `run` completing with a report of `runs` runs of the test, `fails` failing: the
/// `workflow_run` delivery to send.
fn run_event(
    fake: &FakeGitHub,
    run: u64,
    session: &str,
    side: &str,
    fails: usize,
    runs: usize,
) -> String {
    let report = junit_runs("pool", "TestCheckoutWakeupOrdering", runs, fails);
    finish_run(fake, REPO, run, session, side, &report)
}

/// Completes one side's run as the workflow does: a report of `runs` runs of the test, `fails`
/// failing (`runs` = 0: a build error, no run of the test at all).
async fn complete(
    app: &mut TestApp,
    fake: &FakeGitHub,
    run: u64,
    session: &str,
    side: &str,
    fails: usize,
    runs: usize,
) {
    let ev = run_event(fake, run, session, side, fails, runs);
    deliver_done(app, "workflow_run", &format!("run-{run}"), &ev).await;
    // The session asks for the PR to be evaluated again: the check shows what came in.
    app.wait_for(|e| e.work == "evaluate_pr" && e.kind == QueueEventKind::Done)
        .await;
}

async fn open(app: &mut TestApp, id: &str) {
    deliver_done(app, "pull_request", id, &pr_event("opened", 1, json!({}))).await;
}

async fn verdicts(db: &Db) -> Vec<(bool, String)> {
    let store = Store::connect(&db.url).await.expect("store");
    let rows = store.audit(Some(REPO), Some(1), None).await.expect("audit");
    store.close().await;
    rows.into_iter()
        .filter(|r| r.command == "verify-verdict")
        .map(|r| (r.accepted, r.why))
        .collect()
}

async fn a_forcing_test_that_fails_on_the_base_and_passes_on_the_head_is_verified(db: Db) {
    let fake = verify_world("head-1").await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "d1").await;

    let run = check(&fake, "head-1");
    assert_eq!(run["status"], "in_progress", "{run}");
    let text = summary(&run);
    assert!(text.contains("Verifying the reproduction"), "{text}");
    assert!(
        text.contains(TEST) && text.contains("head-1") && text.contains("base-of"),
        "the claim and both SHAs: {text}"
    );
    let (session, branch, base) = pair(&fake, "head-1");
    assert_eq!(branch["sha"], "head-1");
    assert_eq!(base["sha"], "base-of-head-1");
    assert_eq!(base["tests_from"], "head-1");
    assert_eq!(base["tests"], TEST_FILE);
    assert!(branch.get("tests_from").is_none(), "{branch}");
    for d in [&branch, &base] {
        assert_eq!(d["test"], TEST);
        assert_eq!(d["runs"], 20);
        assert!(d.get("seed").is_none(), "no seed claimed: {d}");
    }

    complete(&mut app, &fake, 901, &session, "base", 20, 20).await;
    assert_eq!(check(&fake, "head-1")["status"], "in_progress");
    complete(&mut app, &fake, 902, &session, "branch", 0, 20).await;
    let run = check(&fake, "head-1");
    assert_eq!(
        (&run["status"], &run["conclusion"]),
        (&json!("completed"), &json!("success"))
    );
    let text = summary(&run);
    assert!(text.contains("Verification: verified"), "{text}");
    assert!(
        text.contains("fails 20/20") && text.contains("fails 0/20"),
        "{text}"
    );
    assert!(
        text.contains("/actions/runs/901") && text.contains("/actions/runs/902"),
        "{text}"
    );
    let v = verdicts(&db).await;
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].0 && v[0].1.starts_with("verified"), "{v:?}");
    assert!(
        v[0].1.ends_with("runs: merge base 901, head 902"),
        "the audit names the bound runs: {v:?}"
    );

    // The same run's completion delivered again (a new delivery id) changes nothing: no
    // dispatch, no second verdict, no write to the check.
    let writes = fake.requests().len();
    let again = json!({
        "action": "completed",
        "workflow_run": {"id": 902, "run_attempt": 1, "head_sha": "main-sha", "head_branch": "main",
            "event": "workflow_dispatch", "conclusion": "success",
            "display_title": format!("repro-gate rerun {session} branch")},
        "repository": {"full_name": REPO, "default_branch": "main"},
        "installation": {"id": 7}
    });
    deliver_done(
        &mut app,
        "workflow_run",
        "run-902-again",
        &again.to_string(),
    )
    .await;
    assert_eq!(dispatches(&fake).len(), 2);
    assert!(
        fake.requests()[writes..].iter().all(|r| r.method == "GET"),
        "{:?}",
        &fake.requests()[writes..]
    );
    assert_eq!(verdicts(&db).await.len(), 1);
    app.stop().await;
}

async fn a_test_that_passes_on_the_merge_base_is_refuted_and_the_check_says_what_to_do(db: Db) {
    let fake = verify_world("head-2").await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "d2").await;
    let (session, _, _) = pair(&fake, "head-2");
    complete(&mut app, &fake, 911, &session, "branch", 0, 20).await;
    complete(&mut app, &fake, 912, &session, "base", 0, 20).await;
    let run = check(&fake, "head-2");
    assert_eq!(run["conclusion"], "failure");
    let text = summary(&run);
    assert!(text.contains("does not fail without the change"), "{text}");
    assert!(text.contains("force the bad ordering"), "{text}");
    assert!(
        !text.contains("still fails") && !text.contains("not deterministic"),
        "{text}"
    );
    let v = verdicts(&db).await;
    assert_eq!(v.len(), 1);
    assert!(!v[0].0 && v[0].1.contains("merge base fails 0/20"), "{v:?}");

    // An override still applies over a refuted reproduction.
    deliver_done(
        &mut app,
        "issue_comment",
        "c-ovr",
        &json!({
            "action": "created",
            "issue": {"number": 1, "pull_request": {"url": "x"}},
            "comment": {"id": 77, "body": "/repro override the hook is in review", "user": {"login": "alice", "type": "User"}, "created_at": chrono::Utc::now().to_rfc3339()},
            "repository": {"full_name": REPO},
            "installation": {"id": 7}
        })
        .to_string(),
    )
    .await;
    assert_eq!(check(&fake, "head-2")["conclusion"], "success");
    app.stop().await;
}

async fn a_push_during_verification_starts_a_new_session_and_the_old_results_change_nothing(
    db: Db,
) {
    let fake = verify_world("head-3").await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "d3").await;
    let (old, _, _) = pair(&fake, "head-3");

    fake.set_pr(REPO, 1, |p| p.head_sha = "head-4".into());
    fake.with(|w| {
        w.actions
            .merge_bases
            .insert((REPO.into(), "head-4".into()), "base-of-head-4".into())
    });
    deliver_done(
        &mut app,
        "pull_request",
        "d4",
        &pr_event(
            "synchronize",
            1,
            json!({"before": "head-3", "after": "head-4"}),
        ),
    )
    .await;
    let (new, _, _) = pair(&fake, "head-4");
    assert_ne!(old, new, "a push is a new session");
    assert_eq!(check(&fake, "head-4")["status"], "in_progress");

    // The old session verifies, late: the new head's check stays in progress.
    complete(&mut app, &fake, 921, &old, "base", 20, 20).await;
    complete(&mut app, &fake, 922, &old, "branch", 0, 20).await;
    let run = check(&fake, "head-4");
    assert_eq!(run["status"], "in_progress", "{run}");
    assert!(!summary(&run).contains("Verification: verified"));

    complete(&mut app, &fake, 923, &new, "base", 13, 20).await;
    complete(&mut app, &fake, 924, &new, "branch", 0, 20).await;
    let run = check(&fake, "head-4");
    assert_eq!(run["conclusion"], "failure");
    let text = summary(&run);
    assert!(
        text.contains("not deterministic") && text.contains("13/20"),
        "{text}"
    );
    assert_eq!(dispatches(&fake).len(), 4);
    app.stop().await;
}

async fn a_restart_during_verification_carries_the_session_on(db: Db) {
    let fake = verify_world("head-5").await;
    let mut first = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut first, "d5").await;
    let (session, _, _) = pair(&fake, "head-5");
    first.stop().await;

    let mut second = Spawn::new(&db).workers(2).github(&fake).start().await;
    complete(&mut second, &fake, 931, &session, "base", 20, 20).await;
    complete(&mut second, &fake, 932, &session, "branch", 2, 20).await;
    let run = check(&fake, "head-5");
    assert_eq!(run["conclusion"], "failure");
    let text = summary(&run);
    assert!(
        text.contains("still fails with the change") && text.contains("2/20"),
        "{text}"
    );
    // The same PR evaluated again after the restart does not start the session twice.
    deliver_done(
        &mut second,
        "pull_request",
        "d5b",
        &pr_event("edited", 1, json!({"changes": {"body": {"from": "x"}}})),
    )
    .await;
    assert_eq!(dispatches(&fake).len(), 2);
    second.stop().await;
}

fn comment(id: u64, login: &str, body: &str) -> String {
    json!({
        "action": "created",
        "issue": {"number": 1, "pull_request": {"url": "x"}},
        "comment": {"id": id, "body": body, "user": {"login": login, "type": "User"}, "created_at": chrono::Utc::now().to_rfc3339()},
        "repository": {"full_name": REPO},
        "installation": {"id": 7}
    })
    .to_string()
}

/// A fork's PR opened (delivery `opened`): its check is `action_required` and nothing is
/// dispatched, and a reader's `/repro verify` (comment `id`) starts nothing either. The check
/// run as it was opened.
async fn a_fork_waits_for_a_writer(
    app: &mut TestApp,
    fake: &FakeGitHub,
    sha: &str,
    opened: &str,
    id: u64,
) -> Value {
    open(app, opened).await;
    let run = check(fake, sha);
    assert_eq!(run["conclusion"], "action_required", "{run}");
    assert!(
        dispatches(fake).is_empty(),
        "a fork's code ran without a person"
    );
    deliver_done(
        app,
        "issue_comment",
        &format!("c-bob-{opened}"),
        &comment(id, "bob", "/repro verify"),
    )
    .await;
    assert!(dispatches(fake).is_empty(), "a reader started it");
    run
}

async fn a_fork_runs_nothing_until_a_writer_asks(db: Db) {
    let fake = verify_world("head-6").await;
    fake.set_pr(REPO, 1, |p| p.head_repo = Some("mallory/pool".into()));
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    let run = a_fork_waits_for_a_writer(&mut app, &fake, "head-6", "d6", 61).await;
    assert!(summary(&run).contains("/repro verify"));
    assert!(
        fake.comments_on(REPO, 1).iter().any(|c| c["body"]
            .as_str()
            .unwrap_or("")
            .contains("may not use `/repro verify`")),
        "{:?}",
        fake.comments_on(REPO, 1)
    );

    deliver_done(
        &mut app,
        "issue_comment",
        "c-alice",
        &comment(62, "alice", "/repro verify"),
    )
    .await;
    let (session, _, base) = pair(&fake, "head-6");
    assert_eq!(base["tests_from"], "head-6");
    assert!(fake.with(|w| w.reactions.contains(&(62, "+1".into()))));
    let run = check(&fake, "head-6");
    assert_eq!(run["status"], "in_progress", "{run}");
    assert!(summary(&run).contains("@alice"), "who asked is shown");
    complete(&mut app, &fake, 941, &session, "base", 20, 20).await;
    complete(&mut app, &fake, 942, &session, "branch", 0, 20).await;
    assert_eq!(check(&fake, "head-6")["conclusion"], "success");
    app.stop().await;
}

async fn a_side_that_never_completes_times_out(db: Db) {
    let fake = verify_world("head-7").await;
    let clock = ManualClock::new(chrono::Utc::now().timestamp_millis());
    let mut app = Spawn::new(&db)
        .workers(2)
        .github(&fake)
        .clock(Arc::new(clock.clone()))
        .start()
        .await;
    open(&mut app, "d7").await;
    let (session, _, _) = pair(&fake, "head-7");
    complete(&mut app, &fake, 951, &session, "base", 20, 20).await;
    assert_eq!(check(&fake, "head-7")["status"], "in_progress");
    // verify.timeout_minutes: 30 in this repository's config.
    clock.advance_ms(31 * 60 * 1000);
    app.wait_for(|e| e.work == "rerun_timeout" && e.kind == QueueEventKind::Done)
        .await;
    app.wait_for(|e| e.work == "evaluate_pr" && e.kind == QueueEventKind::Done)
        .await;
    let run = check(&fake, "head-7");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(
        text.contains("Verification: timed out") && text.contains("30 minutes"),
        "{text}"
    );
    assert!(
        text.contains("fails 20/20"),
        "what did arrive is shown: {text}"
    );
    // The missing side's run completing after the timeout changes nothing.
    let writes = fake.requests().len();
    let late = json!({
        "action": "completed",
        "workflow_run": {"id": 952, "run_attempt": 1, "head_sha": "main-sha", "head_branch": "main",
            "event": "workflow_dispatch", "conclusion": "success",
            "display_title": format!("repro-gate rerun {session} branch")},
        "repository": {"full_name": REPO, "default_branch": "main"},
        "installation": {"id": 7}
    });
    deliver_done(&mut app, "workflow_run", "run-952", &late.to_string()).await;
    assert!(fake.requests()[writes..].iter().all(|r| r.method == "GET"));
    assert_eq!(check(&fake, "head-7")["conclusion"], "failure");
    let v = verdicts(&db).await;
    assert_eq!(v.len(), 1);
    assert!(v[0].1.starts_with("timed out"), "{v:?}");
    app.stop().await;
}

/// A forged run: the session's title and the rerun artifact, its other fields changed by
/// `forge` (the event, who started it, from which repository, which workflow).
async fn forged(
    app: &mut TestApp,
    fake: &FakeGitHub,
    run: u64,
    session: &str,
    side: &str,
    fails: usize,
    forge: impl Fn(&mut Value),
) {
    let mut ev: Value =
        serde_json::from_str(&run_event(fake, run, session, side, fails, 20)).unwrap();
    forge(&mut ev["workflow_run"]);
    deliver_done(
        app,
        "workflow_run",
        &format!("forged-{run}"),
        &ev.to_string(),
    )
    .await;
}

/// Where GitHub answers a dispatch 204 (no run details), a run that carries a session's title
/// counts only when it is the rerun workflow's `workflow_dispatch` run by the App, in the
/// repository, after the dispatch: a fork's `pull_request` run and a person's own dispatch with
/// the same title and a convincing report count for nothing and are never linked.
async fn a_run_that_only_carries_the_sessions_title_counts_for_nothing(db: Db) {
    let fake = verify_world("head-f").await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "df").await;
    let (session, _, _) = pair(&fake, "head-f");
    // A fork's CI names its runs like the session's and uploads base 20/20, head 0/20.
    forged(&mut app, &fake, 771, &session, "base", 20, |r| {
        r["event"] = json!("pull_request");
        r["path"] = json!(".github/workflows/ci.yml");
        r["actor"] = json!({"login": "mallory"});
        r["head_repository"] = json!({"full_name": "mallory/pool"});
    })
    .await;
    // A person dispatches the rerun workflow by hand with the same title.
    forged(&mut app, &fake, 772, &session, "branch", 0, |r| {
        r["actor"] = json!({"login": "alice"});
    })
    .await;
    let run = check(&fake, "head-f");
    assert_eq!(
        run["status"], "in_progress",
        "forged runs decide nothing: {run}"
    );
    assert!(verdicts(&db).await.is_empty());

    complete(&mut app, &fake, 901, &session, "base", 0, 20).await;
    complete(&mut app, &fake, 902, &session, "branch", 0, 20).await;
    let run = check(&fake, "head-f");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(text.contains("does not fail without the change"), "{text}");
    assert!(
        !text.contains("/actions/runs/771") && !text.contains("/actions/runs/772"),
        "no forged run linked: {text}"
    );
    let v = verdicts(&db).await;
    assert!(v[0].1.ends_with("runs: merge base 901, head 902"), "{v:?}");
    app.stop().await;
}

/// Where GitHub returns the run a dispatch started, each side is that run's and no other's:
/// even a run that looks like the App's own (its workflow, its bot, this repository) with the
/// session's title counts for nothing.
async fn with_run_details_only_the_run_a_dispatch_returned_counts(db: Db) {
    let fake = verify_world("head-d").await;
    fake.with(|w| w.actions.run_details = Some(5000));
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "dd").await;
    let (session, _, _) = pair(&fake, "head-d");
    let sides: Vec<String> = dispatches(&fake)
        .iter()
        .map(|d| d["inputs"]["side"].as_str().unwrap_or("").to_string())
        .collect();
    let id_of = |side: &str| 5000 + sides.iter().position(|s| s == side).unwrap() as u64;
    let (base_run, branch_run) = (id_of("base"), id_of("branch"));
    forged(&mut app, &fake, 6001, &session, "base", 20, |_| {}).await;
    forged(&mut app, &fake, 6002, &session, "branch", 0, |_| {}).await;
    let run = check(&fake, "head-d");
    assert_eq!(
        run["status"], "in_progress",
        "only the returned runs count: {run}"
    );

    complete(&mut app, &fake, base_run, &session, "base", 0, 20).await;
    complete(&mut app, &fake, branch_run, &session, "branch", 0, 20).await;
    let run = check(&fake, "head-d");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(text.contains("does not fail without the change"), "{text}");
    assert!(
        text.contains(&format!("/actions/runs/{base_run}")) && !text.contains("/actions/runs/6001"),
        "{text}"
    );
    let v = verdicts(&db).await;
    assert!(
        v[0].1
            .ends_with(&format!("runs: merge base {base_run}, head {branch_run}")),
        "{v:?}"
    );
    app.stop().await;
}

// ---- Found in the PR's tests (docs/verification.md#found-in-the-prs-tests)

both_backends!(
    a_pr_without_a_claim_finds_its_reproduction_among_its_tests_and_verifies_it,
    a_find_round_where_every_test_passes_on_the_base_fails_with_its_table,
    a_find_round_whose_base_does_not_build_could_not_run,
    a_pr_without_a_claim_or_a_test_file_is_judged_on_its_text,
    an_older_workflow_without_the_find_mode_leaves_the_text_only_gate,
    a_push_during_the_find_round_starts_over,
    a_rust_source_s_changed_test_runs_in_each_side_s_own_copy,
    a_fork_s_search_runs_once_a_writer_asks_and_its_candidates_follow,
);

const PROSE: &str = "Fix the lost wakeup in Pool.Checkout: Return signals while it holds the lock.\n\nThe new tests cover the drained pool and the idle list.\n";
const TWO_TESTS: &str = "@@ -0,0 +1,9 @@\n+package pool\n+\n+func TestCheckoutWakeupOrdering(t *testing.T) {\n+\tp.beforeWait = func() { close(parked); <-release }\n+}\n+\n+func TestCheckoutReturnsIdle(t *testing.T) {\n+\tp.Return(c)\n+}\n";
const PKG: &str = "example.com/acme/pool";
const BUILD_FAILED: &str = "<testsuites><testsuite name=\"example.com/acme/pool\"><testcase classname=\"example.com/acme/pool\" name=\"[build failed]\"><error message=\"Build error\">pool/wakeup_test.go:4:4: p.beforeWait undefined (type *Pool has no field or method beforeWait)</error></testcase></testsuite></testsuites>";

/// A PR whose description names no claim; `tests`: it adds the test file with two tests.
async fn find_world(head: &str, tests: bool, workflow: &str) -> FakeGitHub {
    let fake = verify_world(head).await;
    fake.put_file(
        REPO,
        "main",
        ".github/workflows/repro-gate-rerun.yml",
        workflow,
    );
    let mut files = vec![("pool/pool.go", Some(RACY_PATCH))];
    if tests {
        files.push((TEST_FILE, Some(TWO_TESTS)));
    }
    fake.add_pr(REPO, 1, head, PROSE, files);
    if tests {
        fake.set_pr(REPO, 1, |p| p.files[1]["status"] = json!("added"));
    }
    fake
}

/// A find run's report: each test once (`true`: it failed).
fn find_report(tests: &[(&str, bool)]) -> String {
    let mut xml = format!("<testsuites><testsuite name=\"{PKG}\">");
    for (name, failed) in tests {
        xml.push_str(&format!("<testcase classname=\"{PKG}\" name=\"{name}\">"));
        if *failed {
            xml.push_str("<failure message=\"wakeup_test.go:42: waiter never woke\"/>");
        }
        xml.push_str("</testcase>");
    }
    xml.push_str("</testsuite></testsuites>");
    xml
}

async fn complete_with(
    app: &mut TestApp,
    fake: &FakeGitHub,
    run: u64,
    session: &str,
    side: &str,
    report: &str,
) {
    let ev = finish_run(fake, REPO, run, session, side, report);
    deliver_done(app, "workflow_run", &format!("run-{run}"), &ev).await;
    app.wait_for(|e| e.work == "evaluate_pr" && e.kind == QueueEventKind::Done)
        .await;
}

/// The find round's pair for `head`: one session, runs 1, an empty test, the test file on both
/// sides, the base at the merge base with the head's test files.
fn find_pair(fake: &FakeGitHub, head: &str) -> String {
    let (session, branch, base) = pair(fake, head);
    assert_eq!(branch["sha"], head);
    assert_eq!(base["sha"], format!("base-of-{head}"));
    assert_eq!(base["tests_from"], head);
    for d in [&branch, &base] {
        assert_eq!(d["test"], "", "{d}");
        assert_eq!(d["runs"], 1, "{d}");
        assert_eq!(d["tests"], TEST_FILE, "{d}");
    }
    session
}

async fn a_pr_without_a_claim_finds_its_reproduction_among_its_tests_and_verifies_it(db: Db) {
    let fake = find_world("head-f1", true, WORKFLOW).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f1").await;
    let run = check(&fake, "head-f1");
    assert_eq!(run["status"], "in_progress", "{run}");
    assert!(
        summary(&run).contains("Looking for a reproduction among the PR's tests"),
        "{}",
        summary(&run)
    );
    let find = find_pair(&fake, "head-f1");

    let idle = "TestCheckoutReturnsIdle";
    let wake = "TestCheckoutWakeupOrdering";
    complete_with(
        &mut app,
        &fake,
        931,
        &find,
        "base",
        &find_report(&[(wake, true), (idle, false)]),
    )
    .await;
    assert_eq!(dispatches(&fake).len(), 2, "the head's run is not in yet");
    complete_with(
        &mut app,
        &fake,
        932,
        &find,
        "branch",
        &find_report(&[(wake, false), (idle, false)]),
    )
    .await;

    // The one candidate is verified as a claim is: two dispatches, runs 20.
    let ds = dispatches(&fake);
    assert_eq!(ds.len(), 4, "{ds:?}");
    let later: Vec<&Value> = ds[2..].iter().map(|d| &d["inputs"]).collect();
    assert!(
        later.iter().all(|d| d["test"] == TEST && d["runs"] == 20),
        "{later:?}"
    );
    let verify = later[0]["session"].as_str().unwrap().to_string();
    assert_ne!(verify, find);
    let run = check(&fake, "head-f1");
    assert_eq!(run["status"], "in_progress", "{run}");

    complete(&mut app, &fake, 933, &verify, "base", 20, 20).await;
    complete(&mut app, &fake, 934, &verify, "branch", 0, 20).await;
    let run = check(&fake, "head-f1");
    assert_eq!(run["conclusion"], "success", "{run}");
    let text = summary(&run);
    assert!(text.contains("found in the PR's tests"), "{text}");
    assert!(
        text.contains(wake) && text.contains("fails 20/20") && text.contains("fails 0/20"),
        "{text}"
    );
    assert!(
        text.contains("/actions/runs/933") && text.contains("/actions/runs/934"),
        "{text}"
    );
    assert_eq!(dispatches(&fake).len(), 4);
    let v = verdicts(&db).await;
    assert!(v.len() == 1 && v[0].0, "{v:?}");
    app.stop().await;
}

async fn a_find_round_where_every_test_passes_on_the_base_fails_with_its_table(db: Db) {
    let fake = find_world("head-f2", true, WORKFLOW).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f2").await;
    let find = find_pair(&fake, "head-f2");
    let all_pass = find_report(&[
        ("TestCheckoutWakeupOrdering", false),
        ("TestCheckoutReturnsIdle", false),
    ]);
    complete_with(&mut app, &fake, 941, &find, "base", &all_pass).await;
    complete_with(&mut app, &fake, 942, &find, "branch", &all_pass).await;
    let run = check(&fake, "head-f2");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(
        text.contains("None of the PR's 2 tests fails on the merge base"),
        "{text}"
    );
    assert!(
        text.contains("TestCheckoutWakeupOrdering") && text.contains("TestCheckoutReturnsIdle"),
        "{text}"
    );
    assert!(text.contains("| passed | passed |"), "the table: {text}");
    assert_eq!(dispatches(&fake).len(), 2, "no candidate: nothing verified");
    let v = verdicts(&db).await;
    assert!(
        v.len() == 1 && !v[0].0 && v[0].1.ends_with("runs: merge base 941, head 942"),
        "{v:?}"
    );
    app.stop().await;
}

async fn a_find_round_whose_base_does_not_build_could_not_run(db: Db) {
    let fake = find_world("head-f3", true, WORKFLOW).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f3").await;
    let find = find_pair(&fake, "head-f3");
    complete_with(&mut app, &fake, 951, &find, "base", BUILD_FAILED).await;
    complete_with(
        &mut app,
        &fake,
        952,
        &find,
        "branch",
        &find_report(&[
            ("TestCheckoutWakeupOrdering", false),
            ("TestCheckoutReturnsIdle", false),
        ]),
    )
    .await;
    let run = check(&fake, "head-f3");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(text.contains("could not run"), "{text}");
    assert!(
        text.contains("p.beforeWait undefined"),
        "the first error line: {text}"
    );
    assert!(
        text.contains("/actions/runs/951"),
        "the base run's link: {text}"
    );
    assert!(
        !text.contains("does not fail without") && !text.contains("still fails"),
        "{text}"
    );
    assert_eq!(dispatches(&fake).len(), 2);
    app.stop().await;
}

async fn a_pr_without_a_claim_or_a_test_file_is_judged_on_its_text(db: Db) {
    let fake = find_world("head-f4", false, WORKFLOW).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f4").await;
    let run = check(&fake, "head-f4");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run).to_lowercase();
    assert!(
        text.contains("seed") && text.contains("interleaving") && text.contains("trace"),
        "{text}"
    );
    assert!(dispatches(&fake).is_empty());
    app.stop().await;
}

async fn an_older_workflow_without_the_find_mode_leaves_the_text_only_gate(db: Db) {
    let older: String = WORKFLOW
        .lines()
        .filter(|l| !l.contains(repro_gate::core::verify::find::MARKER))
        .map(|l| format!("{l}\n"))
        .collect();
    let fake = find_world("head-f5", true, &older).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f5").await;
    let run = check(&fake, "head-f5");
    assert_eq!(run["conclusion"], "failure", "{run}");
    let text = summary(&run);
    assert!(text.contains("older copy"), "{text}");
    assert!(dispatches(&fake).is_empty());
    app.stop().await;
}

/// A fork's PR with no claim and a test file: nothing runs, the check waits for a writer; a
/// reader's `/repro verify` starts nothing; a writer's starts the find round (the audit names
/// them), and its candidate is verified without asking again.
async fn a_fork_s_search_runs_once_a_writer_asks_and_its_candidates_follow(db: Db) {
    let fake = find_world("head-f7", true, WORKFLOW).await;
    fake.set_pr(REPO, 1, |p| p.head_repo = Some("mallory/pool".into()));
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    let run = a_fork_waits_for_a_writer(&mut app, &fake, "head-f7", "f7", 71).await;
    let text = summary(&run);
    assert!(
        text.contains("waits for a writer") && text.contains(TEST_FILE),
        "{text}"
    );

    deliver_done(
        &mut app,
        "issue_comment",
        "c-alice-f7",
        &comment(72, "alice", "/repro verify"),
    )
    .await;
    let find = find_pair(&fake, "head-f7");
    let run = check(&fake, "head-f7");
    assert_eq!(run["status"], "in_progress", "{run}");
    assert!(
        summary(&run).contains("Looking for a reproduction among the PR's tests"),
        "{}",
        summary(&run)
    );
    let (wake, idle) = ("TestCheckoutWakeupOrdering", "TestCheckoutReturnsIdle");
    complete_with(
        &mut app,
        &fake,
        971,
        &find,
        "base",
        &find_report(&[(wake, true), (idle, false)]),
    )
    .await;
    complete_with(
        &mut app,
        &fake,
        972,
        &find,
        "branch",
        &find_report(&[(wake, false), (idle, false)]),
    )
    .await;
    let ds = dispatches(&fake);
    assert_eq!(ds.len(), 4, "the candidate followed: {ds:?}");
    let verify = ds[2]["inputs"]["session"].as_str().unwrap().to_string();
    assert!(
        ds[2..].iter().all(|d| d["inputs"]["test"] == TEST),
        "{ds:?}"
    );
    complete(&mut app, &fake, 973, &verify, "base", 20, 20).await;
    complete(&mut app, &fake, 974, &verify, "branch", 0, 20).await;
    assert_eq!(check(&fake, "head-f7")["conclusion"], "success");
    let store = Store::connect(&db.url).await.expect("store");
    let rows = store.audit(Some(REPO), Some(1), None).await.expect("audit");
    store.close().await;
    let started: Vec<(&str, bool)> = rows
        .iter()
        .filter(|r| r.command == "verify")
        .map(|r| (r.actor.as_str(), r.accepted))
        .collect();
    assert_eq!(started, [("bob", false), ("alice", true)], "{rows:?}");
    let v = verdicts(&db).await;
    assert!(v.len() == 1 && v[0].0, "{v:?}");
    app.stop().await;
}

async fn a_push_during_the_find_round_starts_over(db: Db) {
    let fake = find_world("head-f6", true, WORKFLOW).await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f6").await;
    let old = find_pair(&fake, "head-f6");
    // A restart carries the round on: the same PR evaluated again dispatches nothing more.
    app.stop().await;
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f6-again").await;
    assert_eq!(dispatches(&fake).len(), 2);

    fake.set_pr(REPO, 1, |p| p.head_sha = "head-f7".into());
    fake.with(|w| {
        w.actions
            .merge_bases
            .insert((REPO.into(), "head-f7".into()), "base-of-head-f7".into())
    });
    deliver_done(
        &mut app,
        "pull_request",
        "f7",
        &pr_event(
            "synchronize",
            1,
            json!({"before": "head-f6", "after": "head-f7"}),
        ),
    )
    .await;
    let new = find_pair(&fake, "head-f7");
    assert_ne!(old, new, "a push is a new find round");
    // The old round's late results change nothing: no candidate of the old head is verified.
    let wake = "TestCheckoutWakeupOrdering";
    complete_with(
        &mut app,
        &fake,
        961,
        &old,
        "base",
        &find_report(&[(wake, true)]),
    )
    .await;
    complete_with(
        &mut app,
        &fake,
        962,
        &old,
        "branch",
        &find_report(&[(wake, false)]),
    )
    .await;
    assert_eq!(dispatches(&fake).len(), 4, "only the two find rounds");
    let run = check(&fake, "head-f7");
    assert_eq!(run["status"], "in_progress", "{run}");
    app.stop().await;
}

const RUST_SOURCE_TEST: &str = "@@ -10,6 +10,7 @@\n #[cfg(test)]\n mod tests {\n     #[test]\n     fn take_wakes_the_waiter() {\n+        super::park_before_wait();\n         assert_eq!(super::take(), 1);\n     }\n";

async fn a_rust_source_s_changed_test_runs_in_each_side_s_own_copy(db: Db) {
    // No test file: the changed test lives in src/pool.rs's test module. The find round runs
    // it on each side's own copy (find_sources in the options), nothing is laid over the base,
    // and the test failing there and passing on the head is verified as a claim.
    let fake = verify_world("head-f9").await;
    fake.add_pr(
        REPO,
        1,
        "head-f9",
        PROSE,
        vec![
            ("pool/pool.go", Some(RACY_PATCH)),
            ("src/pool.rs", Some(RUST_SOURCE_TEST)),
        ],
    );
    let mut app = Spawn::new(&db).workers(2).github(&fake).start().await;
    open(&mut app, "f9").await;
    let (find, branch, base) = pair(&fake, "head-f9");
    for d in [&branch, &base] {
        assert_eq!(d["test"], "", "{d}");
        assert!(d.get("tests").is_none(), "nothing laid over: {d}");
        let options: Value =
            serde_json::from_str(d["options"].as_str().expect("options")).expect("JSON");
        assert_eq!(options["find_sources"], json!(["src/pool.rs"]), "{d}");
    }
    let report = |failed: bool| {
        format!(
            "<testsuites><testsuite name=\"src\"><testcase classname=\"src\" name=\"pool::tests::take_wakes_the_waiter\">{}</testcase></testsuite></testsuites>",
            if failed {
                "<failure message=\"assertion failed\"/>"
            } else {
                ""
            }
        )
    };
    complete_with(&mut app, &fake, 991, &find, "base", &report(true)).await;
    complete_with(&mut app, &fake, 992, &find, "branch", &report(false)).await;
    let ds = dispatches(&fake);
    assert_eq!(ds.len(), 4, "the candidate verified: {ds:?}");
    for d in &ds[2..] {
        assert_eq!(
            d["inputs"]["test"], "src/pool.rs::tests::take_wakes_the_waiter",
            "{d}"
        );
    }
    app.stop().await;
}
