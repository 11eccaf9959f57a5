//! The history (docs/history.md) end to end: a completed Actions run recorded from its artifact (or its job
//! log), once; uploads with a repository's token; the nightly file proposed by one pull request
//! and not rewritten when nothing changed. On SQLite and on Postgres.

use serde_json::json;

use repro_gate::core::reliability::ReliabilityFile;
use repro_gate::github::types::RepoName;
use repro_gate::github::{AppKey, ClientConfig, GitHub};
use repro_gate::history::{self, tokens};
use repro_gate::store::Store;

use crate::both_backends;
use crate::common::{Db, TEST_KEY};
use crate::fake_actions::{FakeRun, zip_of};
use crate::gate::{REPO, app, deliver_done, world};

both_backends!(
    a_completed_run_is_recorded_once_from_its_matching_artifact,
    a_run_without_a_matching_artifact_is_read_from_its_job_log,
    a_fork_prs_run_from_a_branch_named_main_writes_no_branch_history,
    a_fork_prs_own_runs_are_not_its_flakiness,
    uploads_need_the_repositorys_token_and_count_once,
    the_test_command_records_its_run_through_the_upload_route,
    publishing_proposes_one_pull_request_and_rewrites_nothing_unchanged,
    history_import_at_records_a_past_run_with_its_failures_story,
);

const CONFIG: &str = "history:\n  enabled: true\n  branches: [main]\n  artifacts: [\"*junit*\"]\n";

fn junit(cases: &[(&str, &str)]) -> String {
    let mut s = String::from("<testsuites><testsuite name=\"s\">");
    for (name, outcome) in cases {
        match *outcome {
            "fail" => s.push_str(&format!("<testcase classname=\"services/ledger\" name=\"{name}\"><failure message=\"x\"/></testcase>")),
            "skip" => s.push_str(&format!("<testcase classname=\"services/ledger\" name=\"{name}\"><skipped/></testcase>")),
            _ => s.push_str(&format!("<testcase classname=\"services/ledger\" name=\"{name}\"/>")),
        }
    }
    s.push_str("</testsuite></testsuites>");
    s
}

fn run_event(run: u64, branch: &str) -> String {
    json!({
        "action": "completed",
        "workflow_run": {
            "id": run, "run_attempt": 1, "head_sha": format!("sha-{run}"), "head_branch": branch,
            "event": "push", "conclusion": "failure", "display_title": "CI",
            "html_url": format!("https://github.com/{REPO}/actions/runs/{run}")
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
        "installation": {"id": 7}
    })
    .to_string()
}

async fn built(db: &Db) -> ReliabilityFile {
    let store = Store::connect(&db.url).await.expect("store");
    let b = history::build_from_store(&store, REPO, &ReliabilityFile::default())
        .await
        .expect("build");
    store.close().await;
    b.file
}

fn entry<'a>(
    f: &'a ReliabilityFile,
    name: &str,
) -> Option<&'a repro_gate::core::reliability::TestEntry> {
    f.tests
        .iter()
        .find(|t| t.id.ends_with(&format!("::{name}")))
}

async fn a_completed_run_is_recorded_once_from_its_matching_artifact(db: Db) {
    let fake = world().await;
    fake.put_file(REPO, "main", ".github/repro-gate.yml", CONFIG);
    fake.with(|w| {
        w.job_logs.insert(
            77,
            "=== RUN   TestOnlyInTheLog\n--- PASS: TestOnlyInTheLog (0.01s)\nok  \texample.com/x\t0.1s\n".into(),
        );
        let report = junit(&[("TestAlpha", "pass"), ("TestBeta", "fail"), ("TestGamma", "pass")]);
        let stray = junit(&[("TestFromAStrayArtifact", "pass")]);
        w.actions.runs.insert(
            501,
            FakeRun {
                artifacts: vec![
                    (9001, "junit-results".into(), zip_of(&[("report.xml", &report)])),
                    (9002, "build-logs".into(), zip_of(&[("stray.xml", &stray)])),
                ],
                jobs: vec![77],
            },
        );
    });
    let mut app = app(&db, &fake).await;
    let before = fake.requests().len();
    deliver_done(&mut app, "workflow_run", "run-501", &run_event(501, "main")).await;
    let used: Vec<String> = fake.requests()[before..]
        .iter()
        // The run's own requests (the start-up catch-up pass runs beside it), downloads aside.
        .filter(|r| {
            r.path.starts_with("/repos/") && !r.path.ends_with("/zip") && !r.path.ends_with("/logs")
        })
        .filter(|r| !r.path.contains("/check-runs") && !r.path.contains("/pulls"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    // The config, the run's artifacts, the matching artifact's download: no job list, no log.
    assert!(
        used.len() <= 3,
        "at most 3 requests beyond the downloads: {used:?}"
    );
    assert!(!used.iter().any(|u| u.contains("/jobs")), "{used:?}");

    // The same run delivered again (another delivery id) is not recorded twice.
    deliver_done(
        &mut app,
        "workflow_run",
        "run-501-again",
        &run_event(501, "main"),
    )
    .await;
    app.stop().await;
    let file = built(&db).await;
    for (name, fails) in [("TestAlpha", 0), ("TestBeta", 1), ("TestGamma", 0)] {
        let e = entry(&file, name).unwrap_or_else(|| panic!("{name} listed: {file:?}"));
        assert_eq!((e.runs, e.failures), (Some(1), Some(fails)), "{name}");
    }
    assert!(entry(&file, "TestOnlyInTheLog").is_none());
    assert!(entry(&file, "TestFromAStrayArtifact").is_none());
}

/// A fork may name its branch `main`: its PR's run never counts as the repository's `main` (a
/// fork could otherwise make a test look broken, or healthy).
async fn a_fork_prs_run_from_a_branch_named_main_writes_no_branch_history(db: Db) {
    let fake = world().await;
    fake.put_file(REPO, "main", ".github/repro-gate.yml", CONFIG);
    fake.with(|w| {
        let fork_report = junit(&[("TestAlpha", "fail"), ("TestBeta", "fail")]);
        let own_report = junit(&[("TestAlpha", "pass")]);
        for (run, report) in [(601, fork_report), (602, own_report)] {
            w.actions.runs.insert(
                run,
                FakeRun {
                    artifacts: vec![(
                        run + 9000,
                        "junit-results".into(),
                        zip_of(&[("report.xml", &report)]),
                    )],
                    jobs: vec![],
                },
            );
        }
    });
    let mut app = app(&db, &fake).await;
    let mut from_fork: serde_json::Value = serde_json::from_str(&run_event(601, "main")).unwrap();
    from_fork["workflow_run"]["event"] = json!("pull_request");
    from_fork["workflow_run"]["head_repository"] = json!({"full_name": "mallory/pool"});
    deliver_done(&mut app, "workflow_run", "run-601", &from_fork.to_string()).await;
    // The repository's own run on main, as the control: it counts.
    let mut own: serde_json::Value = serde_json::from_str(&run_event(602, "main")).unwrap();
    own["workflow_run"]["head_repository"] = json!({"full_name": REPO});
    deliver_done(&mut app, "workflow_run", "run-602", &own.to_string()).await;
    app.stop().await;
    let file = built(&db).await;
    let alpha = entry(&file, "TestAlpha").expect("TestAlpha listed from main's own run");
    assert_eq!(
        (alpha.runs, alpha.failures),
        (Some(1), Some(0)),
        "{alpha:?}"
    );
    let beta = entry(&file, "TestBeta");
    assert!(
        beta.is_none_or(|b| b.runs.unwrap_or(0) == 0 && b.failures.unwrap_or(0) == 0),
        "the fork's failures are no branch history: {beta:?}"
    );
}

/// A test failing then passing on one SHA of a PR is that PR's flakiness, but not when the runs
/// are a fork's own workflow on its branch (their results are the fork author's to write).
async fn a_fork_prs_own_runs_are_not_its_flakiness(db: Db) {
    let fake = world().await;
    fake.put_file(REPO, "main", ".github/repro-gate.yml", CONFIG);
    fake.with(|w| {
        for (run, test, outcome) in [
            (611, "TestForkFlaky", "fail"),
            (612, "TestForkFlaky", "pass"),
            (613, "TestOwnFlaky", "fail"),
            (614, "TestOwnFlaky", "pass"),
        ] {
            w.actions.runs.insert(
                run,
                FakeRun {
                    artifacts: vec![(
                        run + 9000,
                        "junit-results".into(),
                        zip_of(&[("report.xml", &junit(&[(test, outcome)]))]),
                    )],
                    jobs: vec![],
                },
            );
        }
    });
    let mut app = app(&db, &fake).await;
    for (run, sha, head_repo) in [
        (611, "sha-fork", "mallory/pool"),
        (612, "sha-fork", "mallory/pool"),
        (613, "sha-own", REPO),
        (614, "sha-own", REPO),
    ] {
        let mut ev: serde_json::Value = serde_json::from_str(&run_event(run, "feature/x")).unwrap();
        ev["workflow_run"]["event"] = json!("pull_request");
        ev["workflow_run"]["head_sha"] = json!(sha);
        ev["workflow_run"]["head_repository"] = json!({"full_name": head_repo});
        if head_repo != REPO {
            ev["workflow_run"]["pull_requests"] = json!([{"number": 9}]);
        }
        deliver_done(
            &mut app,
            "workflow_run",
            &format!("run-{run}"),
            &ev.to_string(),
        )
        .await;
    }
    let store = &app.app.store;
    assert!(!store.has_run(REPO, "611", 1).await.unwrap());
    assert!(!store.has_run(REPO, "612", 1).await.unwrap());
    assert!(store.has_run(REPO, "614", 1).await.unwrap(), "the control");
    app.stop().await;
    let file = built(&db).await;
    let own = entry(&file, "TestOwnFlaky").expect("the repository's own PR flakiness counts");
    assert!(own.failures.unwrap_or(0) >= 1, "{own:?}");
    let fork = entry(&file, "TestForkFlaky");
    assert!(
        fork.is_none_or(|f| f.runs.unwrap_or(0) == 0),
        "a fork's own runs are no flakiness: {fork:?}"
    );
}

async fn a_run_without_a_matching_artifact_is_read_from_its_job_log(db: Db) {
    let fake = world().await;
    fake.put_file(REPO, "main", ".github/repro-gate.yml", CONFIG);
    fake.with(|w| {
        w.job_logs.insert(
            78,
            "2026-12-01T10:00:00.0000000Z === RUN   TestLogPasses\n2026-12-01T10:00:00.0000000Z --- PASS: TestLogPasses (0.02s)\n=== RUN   TestLogFails\n    ledger_test.go:77: got 90\n--- FAIL: TestLogFails (0.03s)\nFAIL\nFAIL\texample.com/acme/services/ledger\t0.2s\n".into(),
        );
        w.actions.runs.insert(502, FakeRun { artifacts: vec![], jobs: vec![78] });
        w.actions.runs.insert(503, FakeRun { artifacts: vec![], jobs: vec![78] });
    });
    let mut app = app(&db, &fake).await;
    deliver_done(&mut app, "workflow_run", "run-502", &run_event(502, "main")).await;
    // A PR branch's run: only same-SHA flakiness counts there; a plain failure is not a run.
    deliver_done(
        &mut app,
        "workflow_run",
        "run-503",
        &run_event(503, "feature/x"),
    )
    .await;
    app.stop().await;
    let file = built(&db).await;
    let fails = entry(&file, "TestLogFails").expect("listed");
    assert_eq!((fails.runs, fails.failures), (Some(1), Some(1)));
    let passes = entry(&file, "TestLogPasses").expect("listed");
    assert_eq!((passes.runs, passes.failures), (Some(1), Some(0)));
}

async fn post(
    app: &crate::common::TestApp,
    query: &str,
    token: Option<&str>,
    body: Vec<u8>,
    gzip: bool,
) -> (u16, serde_json::Value) {
    let mut req = app
        .http
        .post(format!("{}/api/v1/results?{query}", app.base))
        .body(body);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if gzip {
        req = req.header("content-encoding", "gzip");
    }
    let resp = req.send().await.expect("sent");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(serde_json::Value::Null))
}

async fn uploads_need_the_repositorys_token_and_count_once(db: Db) {
    let fake = world().await;
    let app = app(&db, &fake).await;
    let store = Store::connect(&db.url).await.expect("store");
    let token = tokens::new_token();
    let id = store
        .add_token(REPO, &tokens::hash(&token), 0)
        .await
        .expect("token");
    let other = tokens::new_token();
    store
        .add_token("acme/other", &tokens::hash(&other), 0)
        .await
        .expect("token");
    let q = |run: u32| format!("repo={REPO}&sha=abc&branch=main&run={run}&attempt=1");
    let report = junit(&[("TestUpA", "pass"), ("TestUpB", "fail")]).into_bytes();

    let (s, j) = post(
        &app,
        &format!("{}&format=junit", q(1)),
        Some(&token),
        report.clone(),
        false,
    )
    .await;
    assert_eq!(
        (s, j["status"].as_str(), j["results"].as_u64()),
        (202, Some("recorded"), Some(2)),
        "{j}"
    );
    let (s, j) = post(&app, &q(1), Some(&token), report.clone(), false).await;
    assert_eq!((s, j["status"].as_str()), (202, Some("duplicate")), "{j}");

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &junit(&[("TestUpC", "pass")]).into_bytes()).unwrap();
    let (s, j) = post(&app, &q(2), Some(&token), gz.finish().unwrap(), true).await;
    assert_eq!((s, j["results"].as_u64()), (202, Some(1)), "{j}");

    let refused = junit(&[("TestRefused", "fail")]).into_bytes();
    for (t, what) in [
        (None, "no token"),
        (Some(other.as_str()), "another repository's token"),
        (Some("rgu_wrong"), "a wrong token"),
    ] {
        let (s, _) = post(&app, &q(3), t, refused.clone(), false).await;
        assert_eq!(s, 401, "{what}");
    }
    let (s, j) = post(&app, &q(4), Some(&token), b"<testsuites/>".to_vec(), false).await;
    assert_eq!(s, 400, "{j}");
    let (s, _) = post(
        &app,
        "sha=abc&branch=main&run=5",
        Some(&token),
        report.clone(),
        false,
    )
    .await;
    assert_eq!(s, 400, "no repo");
    let (s, _) = post(
        &app,
        &format!("{}&format=cobol", q(6)),
        Some(&token),
        report.clone(),
        false,
    )
    .await;
    assert_eq!(s, 400, "an unknown format");
    assert!(store.revoke_token(REPO, id, 1).await.unwrap());
    let (s, _) = post(&app, &q(7), Some(&token), refused, false).await;
    assert_eq!(s, 401, "a revoked token");
    store.close().await;
    app.stop().await;

    let file = built(&db).await;
    assert_eq!(
        entry(&file, "TestUpA").and_then(|e| e.runs),
        Some(1),
        "the duplicate is not counted"
    );
    assert_eq!(entry(&file, "TestUpB").and_then(|e| e.failures), Some(1));
    assert_eq!(entry(&file, "TestUpC").and_then(|e| e.runs), Some(1));
    assert!(
        entry(&file, "TestRefused").is_none(),
        "a refused upload leaves no trace"
    );
}

const MAIN_FILE: &str = "policy:\n  window_runs: 200\n  flake_budget: 0.02\ntests:\n  - id: services/pay::TestPayRefund\n    tier: trusted\n  - id: services/pay::TestPayCapture\n    tier: trusted\n    owner: payments\n    note: \"Talks to the sandbox: keep it #1\"\n";

async fn import_runs(store: &Store, from: u32, to: u32, failing: &[(&str, &[u32])]) {
    for i in from..to {
        let results: Vec<(String, repro_gate::core::failures::Outcome)> =
            ["TestPayRefund", "TestPayCapture"]
                .iter()
                .map(|t| {
                    let fails = failing.iter().any(|(n, runs)| n == t && runs.contains(&i));
                    (
                        format!("services/pay::{t}"),
                        if fails {
                            repro_gate::core::failures::Outcome::Fail
                        } else {
                            repro_gate::core::failures::Outcome::Pass
                        },
                    )
                })
                .collect();
        let run = crate::dashboard::run(REPO, i);
        history::record(
            store,
            &run,
            &history::RunResults::from(results),
            1_764_547_200_000 + i64::from(i),
        )
        .await
        .expect("recorded");
    }
}

fn writes(fake: &crate::fake_github::FakeGitHub, from: usize) -> Vec<String> {
    fake.requests()[from..]
        .iter()
        .filter(|r| r.path.starts_with("/repos/") && r.method != "GET")
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

async fn publishing_proposes_one_pull_request_and_rewrites_nothing_unchanged(db: Db) {
    let fake = world().await;
    fake.put_file(REPO, "main", ".ci/test-reliability.yaml", MAIN_FILE);
    fake.with(|w| {
        w.actions
            .refs
            .insert((REPO.into(), "main".into()), "c0".into());
    });
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrate");
    let key = AppKey::from_pem(42, &secrecy::SecretString::from(TEST_KEY), "test").expect("key");
    let gh = GitHub::new(ClientConfig::new(fake.url()), key);
    let repo = RepoName::parse(REPO).unwrap();
    let file_on = |branch: &str| {
        fake.with(|w| {
            w.files
                .get(&(
                    REPO.to_string(),
                    branch.to_string(),
                    ".ci/test-reliability.yaml".to_string(),
                ))
                .cloned()
        })
    };

    import_runs(&store, 0, 30, &[("TestPayRefund", &[3, 11, 20])]).await;
    let first = history::publish::publish(&gh, &store, 7, &repo)
        .await
        .expect("published");
    assert_eq!(first.pull_request_action, Some("created"));
    let on_branch = file_on(history::publish::BRANCH).expect("the branch holds the file");
    let parsed = repro_gate::core::reliability::parse(&on_branch).expect("the written file parses");
    let refund = parsed
        .tests
        .iter()
        .find(|t| t.id.ends_with("TestPayRefund"))
        .unwrap();
    assert_eq!(
        (refund.tier.as_str(), refund.runs, refund.failures),
        ("probation", Some(30), Some(3))
    );
    let capture = parsed
        .tests
        .iter()
        .find(|t| t.id.ends_with("TestPayCapture"))
        .unwrap();
    assert_eq!(
        capture.note.as_deref(),
        Some("Talks to the sandbox: keep it #1")
    );
    assert_eq!(
        file_on("main").as_deref(),
        Some(MAIN_FILE),
        "the default branch is never written"
    );
    let pr = first.pull_request.expect("a PR");
    let body = fake.with(|w| w.prs[&(REPO.to_string(), pr)].body.clone());
    assert!(
        body.contains("TestPayRefund") && body.contains("10.0 %"),
        "{body}"
    );

    // Nothing new: no write at all.
    let before = fake.requests().len();
    let again = history::publish::publish(&gh, &store, 7, &repo)
        .await
        .expect("published");
    assert_eq!(writes(&fake, before), Vec::<String>::new());
    assert_eq!(again.status, history::publish::Status::UpToDate);

    // New runs: the same PR, updated; the branch moved.
    import_runs(&store, 30, 40, &[("TestPayCapture", &[31, 35])]).await;
    let third = history::publish::publish(&gh, &store, 7, &repo)
        .await
        .expect("published");
    assert_eq!(
        (third.pull_request, third.pull_request_action),
        (Some(pr), Some("updated"))
    );
    let body = fake.with(|w| w.prs[&(REPO.to_string(), pr)].body.clone());
    assert!(
        body.contains("TestPayCapture") && body.contains("TestPayRefund"),
        "{body}"
    );
    let opened = fake
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/pulls"))
        .count();
    assert_eq!(opened, 1, "one PR ever opened");
    assert!(
        !fake.requests().iter().any(|r| r.path.contains("/merge")),
        "never merged"
    );
    store.close().await;
}

/// `repro-gate test --upload` against the service itself: the run is recorded once (a second
/// invocation for the same run is a duplicate) and the quarantined failure counts in the
/// history although the build passed.
async fn the_test_command_records_its_run_through_the_upload_route(db: Db) {
    let fake = world().await;
    let app = app(&db, &fake).await;
    let store = Store::connect(&db.url).await.expect("store");
    let token = tokens::new_token();
    store
        .add_token(REPO, &tokens::hash(&token), 0)
        .await
        .expect("token");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".ci")).expect("mkdir");
    std::fs::write(
        dir.path().join(".ci/test-reliability.yaml"),
        "tests:\n  - id: services/ledger::TestUpFlaky\n    tier: quarantined\n    ticket: L-7\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("out.txt"),
        "=== RUN   TestUpFlaky\n    up_test.go:9: lost a wakeup\n--- FAIL: TestUpFlaky (0.10s)\n=== RUN   TestUpSteady\n--- PASS: TestUpSteady (0.01s)\nFAIL\nFAIL\texample.com/acme/services/ledger\t0.2s\n",
    )
    .expect("write");
    let invoke = |dir: std::path::PathBuf, base: String, token: String| {
        std::process::Command::new(env!("CARGO_BIN_EXE_repro-gate"))
            .args([
                "test",
                "--upload",
                &base,
                "--",
                "sh",
                "-c",
                "cat out.txt; exit 1",
            ])
            .current_dir(dir)
            .env_remove("GITLAB_CI")
            .env("GITHUB_ACTIONS", "true")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("GITHUB_REPOSITORY", REPO)
            .env("GITHUB_SHA", "sha-up")
            .env("GITHUB_REF_NAME", "main")
            .env("GITHUB_HEAD_REF", "")
            .env("GITHUB_RUN_ID", "7001")
            .env("GITHUB_RUN_ATTEMPT", "1")
            .env("GITHUB_REF", "refs/pull/31/merge")
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("REPRO_GATE_UPLOAD_TOKEN", token)
            .output()
            .expect("runs")
    };
    for want in ["recorded", "duplicate"] {
        let (d, b, t) = (dir.path().to_path_buf(), app.base.clone(), token.clone());
        let o = tokio::task::spawn_blocking(move || invoke(d, b, t))
            .await
            .expect("ran");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains(want), "{want}: {err}");
    }
    app.stop().await;
    // The failure is kept with its story: the run's link, its pull request, its message.
    let id = store
        .windows(REPO)
        .await
        .expect("windows")
        .into_iter()
        .map(|(t, _)| t)
        .find(|t| t.ends_with("::TestUpFlaky"))
        .expect("recorded");
    let (failures, kept) = store.test_failures(REPO, &id, 10).await.expect("failures");
    assert_eq!(kept, 1);
    let f = &failures[0];
    assert_eq!(f.message.as_deref(), Some("up_test.go:9: lost a wakeup"));
    assert_eq!(
        f.run_url.as_deref(),
        Some(format!("https://github.com/{REPO}/actions/runs/7001").as_str())
    );
    assert_eq!(
        (f.pr, f.run_id.as_str(), f.sha.as_str()),
        (Some(31), "7001", "sha-up")
    );
    store.close().await;
    let file = built(&db).await;
    let flaky = entry(&file, "TestUpFlaky").expect("listed");
    assert_eq!((flaky.runs, flaky.failures), (Some(1), Some(1)));
    let steady = entry(&file, "TestUpSteady").expect("listed");
    assert_eq!((steady.runs, steady.failures), (Some(1), Some(0)));
}

/// `history import --at` records a run at the time it ran, with its link and its failures'
/// messages; a time that is not RFC 3339 is a usage error and records nothing.
async fn history_import_at_records_a_past_run_with_its_failures_story(db: Db) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.xml");
    std::fs::write(
        &report,
        "<testsuite><testcase classname=\"services/ledger\" name=\"TestPast\"><failure message=\"ledger drifted by 3\">ledger_test.go:40</failure></testcase></testsuite>",
    )
    .expect("write");
    let import = |at: &'static str| {
        let (url, report) = (db.url.clone(), report.clone());
        move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_repro-gate"))
                .args(["history", "import", "--database-url", &url, "--repo", REPO])
                .args(["--sha", "abc123", "--branch", "main", "--run", "55"])
                .args(["--at", at, "--url", "https://ci.example/runs/55"])
                .arg(&report)
                .output()
                .expect("runs")
        }
    };
    let bad = tokio::task::spawn_blocking(import("yesterday"))
        .await
        .expect("ran");
    assert_eq!(bad.status.code(), Some(2), "a bad --at is a usage error");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("RFC 3339"));
    let ok = tokio::task::spawn_blocking(import("2026-11-02T09:30:00Z"))
        .await
        .expect("ran");
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let store = Store::connect(&db.url).await.expect("store");
    let (failures, kept) = store
        .test_failures(REPO, "services/ledger::TestPast", 10)
        .await
        .expect("failures");
    assert_eq!(kept, 1, "the bad invocation recorded nothing");
    let f = &failures[0];
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-02T09:30:00Z")
        .expect("time")
        .timestamp_millis();
    assert_eq!(f.at_ms, at, "recorded when it ran");
    assert_eq!(
        f.message.as_deref(),
        Some("ledger drifted by 3\nledger_test.go:40")
    );
    assert_eq!(f.run_url.as_deref(), Some("https://ci.example/runs/55"));
    let w = store
        .test_window(REPO, "services/ledger::TestPast")
        .await
        .expect("window")
        .expect("recorded");
    assert_eq!(
        w.last_failure.as_deref(),
        Some("2026-11-02"),
        "dated by --at"
    );
    store.close().await;
}
