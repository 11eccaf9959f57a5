//! The real GitHub payloads in `../shared/fixtures/webhooks/` go through intake as GitHub would
//! send them. Skipped, with a message, when the folder is absent.

use std::path::PathBuf;

use crate::common::{Db, Spawn};

fn fixtures_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/webhooks");
    dir.is_dir().then_some(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_webhook_payloads_are_accepted_routed_and_stored() {
    let Some(dir) = fixtures_dir() else {
        eprintln!("skipped: ../shared/fixtures/webhooks is absent");
        return;
    };
    let db = Db::sqlite();
    let app = Spawn::new(&db).workers(0).start().await;
    let mut seen = 0;
    let mut events: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    events.sort_by_key(|e| e.file_name());
    for event_dir in events {
        let event = event_dir.file_name().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(event_dir.path())
            .unwrap()
            .flatten()
            .collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let body = std::fs::read_to_string(file.path()).unwrap();
            let name = file.file_name().to_string_lossy().into_owned();
            let id = format!("{event}/{name}");
            let a = app.deliver(&event, &id, &body).await;
            let payload: serde_json::Value = serde_json::from_str(&body).unwrap();
            let action = payload["action"].as_str().unwrap_or("");
            let expected = expected_status(&event, action);
            assert_eq!(a.status, if event == "ping" { 200 } else { 202 }, "{id}");
            assert_eq!(a.json["status"], expected, "{id}: {}", a.json);
            let stored = app.app.store.has_delivery(&id).await.unwrap();
            assert_eq!(stored, expected == "queued", "{id}");
            seen += 1;
        }
    }
    assert!(seen >= 20, "only {seen} fixture payloads found");
    app.stop().await;
}

/// What the contract says each real event should become.
fn expected_status(event: &str, action: &str) -> &'static str {
    match (event, action) {
        ("ping", _) => "pong",
        (
            "pull_request",
            "opened" | "reopened" | "synchronize" | "edited" | "ready_for_review" | "labeled"
            | "unlabeled",
        ) => "queued",
        ("check_run", "completed" | "requested_action" | "rerequested") => "queued",
        ("check_suite", "rerequested") => "queued",
        ("issue_comment", "created") => "queued",
        ("merge_group", "checks_requested") => "queued",
        ("installation" | "installation_repositories", _) => "queued",
        _ => "ignored",
    }
}
