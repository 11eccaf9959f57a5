//! Webhook intake: signatures, rejections, storage and duplicates.

use crate::both_backends;
use crate::common::{Db, SECRET, Spawn, pr_payload};
use repro_gate::server::signature::sign;

both_backends!(
    signed_delivery_is_stored_and_queued,
    wrong_or_missing_signature_is_401_and_stores_nothing,
    rotated_secret_is_accepted,
    malformed_requests_are_400_with_a_reason,
    oversized_payload_is_413,
    ping_is_200,
    duplicate_delivery_is_not_queued_twice,
    unhandled_events_are_ignored_without_a_job,
    health_ready_and_metrics,
    setup_mode_answers_503_and_serves_the_setup_page,
    a_refusal_does_not_wait_for_a_withheld_body,
);

async fn signed_delivery_is_stored_and_queued(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let body = pr_payload("opened", "acme/pool", 12);
    let a = app.deliver("pull_request", "d-1", &body).await;
    assert_eq!(a.status, 202);
    assert_eq!(a.json["delivery"], "d-1");
    assert_eq!(a.json["status"], "queued");
    let store = &app.app.store;
    assert_eq!(
        store.delivery_payload("d-1").await.unwrap().as_deref(),
        Some(body.as_bytes())
    );
    let jobs = store.jobs_for_delivery("d-1").await.unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].state, "queued");
    assert_eq!(jobs[0].serial_key, "acme/pool#12");
    assert_eq!(jobs[0].action.as_deref(), Some("opened"));
    app.stop().await;
}

async fn wrong_or_missing_signature_is_401_and_stores_nothing(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let body = pr_payload("opened", "acme/pool", 1);
    let forged = sign("not-the-secret", body.as_bytes());
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-github-delivery", "forged"),
                ("x-hub-signature-256", &forged),
            ],
            body.clone().into_bytes(),
        )
        .await;
    assert_eq!(a.status, 401);
    assert!(
        a.json["error"].as_str().unwrap().contains("does not match"),
        "{}",
        a.json
    );
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-github-delivery", "unsigned"),
            ],
            body.clone().into_bytes(),
        )
        .await;
    assert_eq!(a.status, 401);
    assert!(a.json["error"].as_str().unwrap().contains("missing"));
    // A valid signature over a different body is still wrong.
    let other = sign(SECRET, b"{}");
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-github-delivery", "swapped"),
                ("x-hub-signature-256", &other),
            ],
            body.into_bytes(),
        )
        .await;
    assert_eq!(a.status, 401);
    for id in ["forged", "unsigned", "swapped"] {
        assert!(!app.app.store.has_delivery(id).await.unwrap(), "{id}");
    }
    app.stop().await;
}

async fn rotated_secret_is_accepted(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let body = pr_payload("opened", "acme/pool", 2);
    let sig = sign("previous-secret", body.as_bytes());
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-github-delivery", "old-secret"),
                ("x-hub-signature-256", &sig),
            ],
            body.into_bytes(),
        )
        .await;
    assert_eq!(a.status, 202, "{}", a.json);
    assert!(app.app.store.has_delivery("old-secret").await.unwrap());
    app.stop().await;
}

async fn malformed_requests_are_400_with_a_reason(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let not_json = "{not json";
    let a = app.deliver("pull_request", "bad-json", not_json).await;
    assert_eq!(a.status, 400);
    assert!(a.json["error"].as_str().unwrap().contains("not a JSON"));

    let body = pr_payload("opened", "acme/pool", 3);
    let sig = sign(SECRET, body.as_bytes());
    let a = app
        .post_webhook(
            &[
                ("x-github-delivery", "no-event"),
                ("x-hub-signature-256", &sig),
            ],
            body.clone().into_bytes(),
        )
        .await;
    assert_eq!(a.status, 400);
    assert!(a.json["error"].as_str().unwrap().contains("X-GitHub-Event"));
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-hub-signature-256", &sig),
            ],
            body.into_bytes(),
        )
        .await;
    assert_eq!(a.status, 400);
    assert!(
        a.json["error"]
            .as_str()
            .unwrap()
            .contains("X-GitHub-Delivery")
    );
    // A delivery id is a GUID-like token: a long or odd one is refused, not stored.
    let body = pr_payload("opened", "acme/pool", 3);
    for id in ["x".repeat(129), "id<script>".to_string(), "a b".to_string()] {
        let a = app.deliver("pull_request", &id, &body).await;
        assert_eq!(a.status, 400, "{id:?}");
        assert!(!app.app.store.has_delivery(&id).await.unwrap());
    }
    assert_eq!(
        app.deliver("pull_request", &"x".repeat(128), &body)
            .await
            .status,
        202
    );
    assert!(!app.app.store.has_delivery("bad-json").await.unwrap());
    assert!(!app.app.store.has_delivery("no-event").await.unwrap());
    app.stop().await;
}

async fn oversized_payload_is_413(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let big = vec![b' '; 25 * 1024 * 1024 + 1];
    let sig = sign(SECRET, &big);
    let a = app
        .post_webhook(
            &[
                ("x-github-event", "pull_request"),
                ("x-github-delivery", "huge"),
                ("x-hub-signature-256", &sig),
            ],
            big,
        )
        .await;
    assert_eq!(a.status, 413);
    assert!(a.json["error"].as_str().unwrap().contains("larger than"));
    assert!(!app.app.store.has_delivery("huge").await.unwrap());
    app.stop().await;
}

async fn ping_is_200(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let a = app
        .deliver(
            "ping",
            "p-1",
            r#"{"zen":"Keep it logically awesome.","hook_id":1}"#,
        )
        .await;
    assert_eq!(a.status, 200);
    assert!(!app.app.store.has_delivery("p-1").await.unwrap());
    app.stop().await;
}

async fn duplicate_delivery_is_not_queued_twice(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let body = pr_payload("synchronize", "acme/pool", 4);
    assert_eq!(
        app.deliver("pull_request", "dup", &body).await.json["status"],
        "queued"
    );
    let again = app.deliver("pull_request", "dup", &body).await;
    assert_eq!(again.status, 202);
    assert_eq!(again.json["status"], "duplicate");
    assert_eq!(
        app.app.store.jobs_for_delivery("dup").await.unwrap().len(),
        1
    );
    // Concurrent redeliveries of one id: still one job.
    let sends = (0..8).map(|_| app.deliver("pull_request", "dup-2", &body));
    let answers = futures::future::join_all(sends).await;
    let queued = answers
        .iter()
        .filter(|a| a.json["status"] == "queued")
        .count();
    assert_eq!(queued, 1);
    assert_eq!(
        app.app
            .store
            .jobs_for_delivery("dup-2")
            .await
            .unwrap()
            .len(),
        1
    );
    app.stop().await;
}

async fn unhandled_events_are_ignored_without_a_job(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    let a = app.deliver("star", "s-1", r#"{"action":"created"}"#).await;
    assert_eq!(a.status, 202);
    assert_eq!(a.json["status"], "ignored");
    let closed = pr_payload("closed", "acme/pool", 5);
    let a = app.deliver("pull_request", "closed-1", &closed).await;
    assert_eq!(a.json["status"], "ignored");
    assert!(
        app.app
            .store
            .jobs_for_delivery("closed-1")
            .await
            .unwrap()
            .is_empty()
    );
    app.stop().await;
}

async fn health_ready_and_metrics(db: Db) {
    let app = Spawn::new(&db).workers(0).start().await;
    assert_eq!(app.get("/healthz").await.0, 200);
    assert_eq!(app.get("/readyz").await.0, 200);
    app.deliver("pull_request", "m-1", &pr_payload("opened", "acme/pool", 9))
        .await;
    let (status, text) = app.get("/metrics").await;
    assert_eq!(status, 200);
    assert!(
        text.contains(r#"repro_gate_webhooks_total{event="pull_request",outcome="queued"}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"repro_gate_jobs{state="queued"} "#),
        "{text}"
    );
    assert!(text.contains(r#"repro_gate_jobs{state="dead"} "#), "{text}");
    app.stop().await;
}

async fn setup_mode_answers_503_and_serves_the_setup_page(db: Db) {
    let app = Spawn::new(&db).setup_mode().start().await;
    let a = app
        .deliver("pull_request", "x", &pr_payload("opened", "acme/pool", 1))
        .await;
    assert_eq!(a.status, 503);
    assert!(a.json["error"].as_str().unwrap().contains("setup mode"));
    assert_eq!(app.get("/readyz").await.0, 503);
    assert_eq!(app.get("/healthz").await.0, 200);
    let (status, page) = app.get("/setup").await;
    assert_eq!(status, 200);
    assert!(page.contains("GITHUB_APP_ID"), "{page}");
    // A first-time visitor of the root finds the setup page from it.
    let (status, home) = app.get("/").await;
    assert_eq!(status, 200);
    assert!(home.contains("href=\"/setup\""), "{home}");
    assert!(home.contains("/healthz"), "{home}");
    app.stop().await;
}

/// A request refused from its headers (no signature, no live upload token) whose client then
/// withholds the announced body is answered while the body is still withheld, not after the
/// 30 s body read timeout (the wait below is a safety net well inside it).
async fn a_refusal_does_not_wait_for_a_withheld_body(db: Db) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let app = Spawn::new(&db).workers(0).start().await;
    let addr = app.base.trim_start_matches("http://").to_string();
    for head in [
        "POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\nContent-Length: 100000\r\n\r\n",
        "POST /api/v1/results?repo=acme/pool&sha=a&branch=main&run=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Length: 100000\r\n\r\n{",
    ] {
        let mut conn = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        conn.write_all(head.as_bytes()).await.expect("headers");
        let mut got = vec![0u8; 4096];
        let n = tokio::time::timeout(std::time::Duration::from_secs(20), conn.read(&mut got))
            .await
            .expect("answered while the body is withheld")
            .expect("read");
        let text = String::from_utf8_lossy(&got[..n]);
        assert!(text.starts_with("HTTP/1.1 401"), "{head}: {text}");
    }
    app.stop().await;
}
