//! Operating: the App manifest flow in setup mode, and the catch-up pass.

use std::sync::Arc;

use serde_json::json;

use repro_gate::clock::{Clock as _, ManualClock, SystemClock};
use repro_gate::handlers::Services;
use repro_gate::handlers::catch_up::{Limits, run_once};

use crate::common::{Db, Spawn};
use crate::fake_github::FakeGitHub;
use crate::gate::{REPO, add_racy_pr, world};
use crate::github_client::client;

/// `/setup` in one browser: the page, the cookie it set, and the flow's `state`.
async fn start_setup(app: &crate::common::TestApp, query: &str) -> (u16, String, String, String) {
    let (status, headers, page) = app.get_with(&format!("/setup{query}"), &[]).await;
    let cookie = headers
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .map(|c| c.split(';').next().unwrap_or("").to_string())
        .unwrap_or_default();
    let state = page
        .split("state=")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("")
        .to_string();
    (status, page, cookie, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manifest_flow_writes_the_credentials_to_env_with_mode_0600() {
    let db = Db::sqlite();
    let fake = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join(".env");
    std::fs::write(&env_file, "RUST_LOG=debug\nGITHUB_APP_ID=1\n").unwrap();
    let mut spawn = Spawn::new(&db).setup_mode();
    spawn.settings.github_api_url = fake.url();
    spawn.settings.env_file = env_file.clone();
    let app = spawn.start().await;
    let (status, page, cookie, state) = start_setup(&app, "?org=acme").await;
    assert_eq!(status, 200);
    assert!(
        page.contains(&format!(
            "{}/organizations/acme/settings/apps/new?state=",
            fake.url()
        )),
        "{page}"
    );
    assert!(
        page.contains("&quot;checks&quot;:&quot;write&quot;"),
        "the manifest is in the form: {page}"
    );
    assert!(
        page.contains("loopback address GitHub cannot reach"),
        "{page}"
    );
    assert!(cookie.starts_with("repro_gate_setup="), "{cookie}");

    // A forged state is refused; so is the right state from another browser (no cookie).
    let callback = format!("/setup/callback?code=good-code&state={state}");
    let forged = app
        .get_with(
            "/setup/callback?code=good-code&state=forged",
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(forged.0, 400);
    assert_eq!(app.get_with(&callback, &[]).await.0, 400);
    // GitHub's callback in the browser that started the flow writes the file.
    let (status, _, done) = app.get_with(&callback, &[("cookie", &cookie)]).await;
    assert_eq!(status, 200, "{done}");
    assert!(done.contains("installations/new"));
    let written = std::fs::read_to_string(&env_file).unwrap();
    assert!(
        written.contains("RUST_LOG=debug"),
        "other settings are kept: {written}"
    );
    assert!(
        written.contains("GITHUB_APP_ID=4242") && !written.contains("GITHUB_APP_ID=1\n"),
        "{written}"
    );
    assert!(written.contains("GITHUB_WEBHOOK_SECRET=whsec-from-github"));
    assert!(written.contains("GITHUB_APP_PRIVATE_KEY=\"-----BEGIN RSA PRIVATE KEY-----\\nMIIfake"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    // Setup completes once: the page and the callback are closed now, for everyone.
    let before = std::fs::read(&env_file).unwrap();
    let (status, _, _, _) = start_setup(&app, "").await;
    assert_eq!(status, 410);
    assert_eq!(app.get_with(&callback, &[("cookie", &cookie)]).await.0, 410);
    assert_eq!(std::fs::read(&env_file).unwrap(), before);
    let conversions = fake
        .requests()
        .iter()
        .filter(|r| r.path.contains("/app-manifests/"))
        .count();
    assert_eq!(conversions, 1);
    let logs =
        String::from_utf8_lossy(&crate::common::captured_logs().lock().unwrap()).into_owned();
    assert!(
        !logs.contains("whsec-from-github") && !logs.contains("MIIfake"),
        "credentials in logs"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_reachable_beyond_loopback_needs_the_token_from_the_log() {
    let db = Db::sqlite();
    let dir = tempfile::tempdir().unwrap();
    let mut spawn = Spawn::new(&db).setup_mode();
    spawn.settings.env_file = dir.path().join(".env");
    spawn.settings.public_url = Some("https://gate.acme.io".into());
    let app = spawn.start().await;
    let (status, page, _, _) = start_setup(&app, "").await;
    assert_eq!(status, 403, "{page}");
    let logs =
        String::from_utf8_lossy(&crate::common::captured_logs().lock().unwrap()).into_owned();
    let token = logs
        .lines()
        .filter(|l| {
            l.contains(&format!(
                "{}/setup?token=",
                app.base.trim_start_matches("http://")
            ))
        })
        .find_map(|l| l.split("setup?token=").nth(1))
        .map(|t| t.split_whitespace().next().unwrap_or("").to_string())
        .expect("the start-up line names the token");
    let (status, page, _, _) = start_setup(&app, &format!("?token={token}")).await;
    assert_eq!(status, 200, "{page}");
    // The URLs offered are the public ones, and no loopback warning.
    assert!(
        page.contains("https://gate.acme.io/setup/callback"),
        "{page}"
    );
    assert!(!page.contains("loopback address"), "{page}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catch_up_redelivers_failed_deliveries_and_evaluates_prs_without_a_check() {
    let db = Db::sqlite();
    let fake = world().await;
    add_racy_pr(&fake, 1, "sha-1");
    add_racy_pr(&fake, 2, "sha-2");
    fake.with(|w| {
        w.installations = vec![7];
        w.installation_repos.insert(7, vec![REPO.into()]);
        w.check_runs.push(json!({"id": 1, "repo": REPO, "name": "repro-gate", "head_sha": "sha-2", "app": {"id": 42}, "conclusion": "success"}));
        w.hook_deliveries = vec![
            json!({"id": 11, "guid": "g-ok", "status_code": 202, "event": "pull_request"}),
            json!({"id": 12, "guid": "g-down", "status_code": 502, "event": "pull_request"}),
            json!({"id": 13, "guid": "g-stored", "status_code": 500, "event": "pull_request"}),
            // Failed once, then a redelivery succeeded (newest first).
            json!({"id": 14, "guid": "g-retried", "status_code": 202, "event": "pull_request", "redelivery": true}),
            json!({"id": 15, "guid": "g-retried", "status_code": 0, "event": "pull_request"}),
        ];
    });
    let app = Spawn::new(&db).workers(0).start().await;
    app.deliver(
        "pull_request",
        "g-stored",
        &crate::gate::pr_event("opened", 9, json!({})),
    )
    .await;
    let (gh, _) = client(&fake, false);
    let svc = Services::new(
        gh,
        app.app.store.clone(),
        // One reconcile slot for the whole test: a real clock crossing a minute between the
        // two passes gave the second its own slot and a new job (seen once under load).
        Arc::new(ManualClock::new(
            SystemClock.now_ms() / 60_000 * 60_000 + 1_000,
        )),
        app.app.queue.clone(),
    );
    let pass = run_once(&svc, Limits::default()).await.unwrap();
    assert_eq!(fake.with(|w| w.redelivery_requests.clone()), [12]);
    assert_eq!(pass.redelivered, 1);
    // PR 1 had no check run for its head: an evaluation is queued (the pass never evaluates
    // itself: that is the PR's serial work). PR 2 had one: left alone.
    assert_eq!(pass.queued, 1);
    let queued = app.app.store.jobs_of_kind("evaluate_pr").await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].serial_key, format!("{REPO}#1"));
    // The same pass again (a retry) queues nothing new.
    assert_eq!(run_once(&svc, Limits::default()).await.unwrap().queued, 0);
    // Bounded: with no budget nothing is done.
    let none = run_once(
        &svc,
        Limits {
            delivery_pages: 1,
            max_redeliveries: 0,
            max_evaluations: 0,
        },
    )
    .await
    .unwrap();
    assert_eq!(none, Default::default());
    app.stop().await;

    // A process with workers runs the queued evaluation: PR 1 gets its check run.
    let mut worker = Spawn::new(&db).workers(1).github(&fake);
    worker.settings.reconcile_minutes = 0;
    worker.settings.history_schedule_minutes = 0;
    let mut worker = worker.start().await;
    worker
        .wait_for(|e| e.work == "evaluate_pr" && e.kind == repro_gate::queue::QueueEventKind::Done)
        .await;
    assert_eq!(fake.check_runs_for("sha-1").len(), 1);
    assert_eq!(fake.check_runs_for("sha-2").len(), 1);
    worker.stop().await;
}
