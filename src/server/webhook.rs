//! `POST /api/github/webhooks`: verify, store with its job in one transaction, answer 202.
//! Nothing here talks to GitHub; workers do the rest.

use axum::Json;
use axum::extract::{FromRequest, Request, State};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{HeaderMap, StatusCode};
use tracing::Instrument as _;

use super::{ApiError, AppState, signature};
use crate::core::delivery::{Envelope, Route, route};
use crate::queue::EnqueueError;
use crate::store::{InsertOutcome, NewDelivery, StoredPayload};

/// A delivery whose signature checked out, with the headers intake needs.
pub struct VerifiedDelivery {
    pub event: String,
    pub delivery_id: String,
    pub body: Bytes,
}

impl FromRequest<AppState> for VerifiedDelivery {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(secrets) = state.webhook_secrets.clone() else {
            count("-", "setup_mode");
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "repro-gate is in setup mode: the GitHub App is not configured (see /setup)",
            ));
        };
        let headers = req.headers().clone();
        let event = header(&headers, "x-github-event");
        let announced = headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<usize>().ok());
        // Without a signature nothing can be authenticated, and a body over the limit is never
        // stored: both are refused before the body is kept. The body is drained (read and
        // dropped, bounded) so the client can read the answer.
        let Some(sig) = header(&headers, "x-hub-signature-256") else {
            count(event_label(event.as_deref()), "unauthorized");
            drain(req, DRAIN_LIMIT).await;
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "missing X-Hub-Signature-256 header",
            ));
        };
        if announced.is_some_and(|n| n > super::MAX_WEBHOOK_BYTES) {
            count(event_label(event.as_deref()), "too_large");
            drain(req, DRAIN_LIMIT).await;
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("payload larger than {} bytes", super::MAX_WEBHOOK_BYTES),
            ));
        }
        // The body is read before its signature can be checked: its memory is budgeted.
        let Some(_room) = state.bodies.reserve(announced, super::MAX_WEBHOOK_BYTES) else {
            count(event_label(event.as_deref()), "busy");
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many large deliveries are being read; try again",
            ));
        };
        let body = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                count(event_label(event.as_deref()), "too_large");
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("payload larger than {} bytes", super::MAX_WEBHOOK_BYTES),
                )
            } else {
                count(event_label(event.as_deref()), "bad_request");
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("could not read the body: {rejection}"),
                )
            }
        })?;
        if !signature::verify(&secrets, &sig, &body) {
            count(event_label(event.as_deref()), "unauthorized");
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "X-Hub-Signature-256 does not match the body under any configured webhook secret",
            ));
        }
        let Some(event) = event else {
            count("-", "bad_request");
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "missing X-GitHub-Event header",
            ));
        };
        let Some(delivery_id) = header(&headers, "x-github-delivery") else {
            count(event_label(Some(&event)), "bad_request");
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "missing X-GitHub-Delivery header",
            ));
        };
        // GitHub's ids are GUIDs (36 characters); anything long or odd is not one.
        if delivery_id.len() > 128
            || !delivery_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:/".contains(c))
        {
            count(event_label(Some(&event)), "bad_request");
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "X-GitHub-Delivery is not a delivery id (at most 128 letters, digits, - _ . : /)",
            ));
        }
        if event.len() > 64 {
            count("-", "bad_request");
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "X-GitHub-Event is not an event name",
            ));
        }
        Ok(VerifiedDelivery {
            event,
            delivery_id,
            body,
        })
    }
}

/// Most bytes read and dropped from a refused request, so its client sees the answer.
pub(super) const DRAIN_LIMIT: usize = 32 * 1024 * 1024;

/// How long a refused request's body is waited for.
pub(super) const DRAIN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Reads and drops up to `limit` bytes of a body (memory stays one frame), for at most
/// [`DRAIN_WAIT`]: a client sending its body can read the answer, and one that withholds it
/// is answered without waiting for the body's read timeout (the connection is then closed, as
/// its body was not read).
pub(super) async fn drain(req: Request, limit: usize) {
    use http_body_util::BodyExt as _;
    let mut body = req.into_body();
    let mut seen = 0usize;
    let _ = tokio::time::timeout(DRAIN_WAIT, async {
        while seen < limit {
            match body.frame().await {
                Some(Ok(f)) => seen += f.data_ref().map_or(0, |d| d.len()),
                _ => break,
            }
        }
    })
    .await;
}

pub async fn receive(State(state): State<AppState>, delivery: VerifiedDelivery) -> Response {
    let span = tracing::info_span!(
        "delivery",
        delivery = %delivery.delivery_id,
        event = %delivery.event,
        repository = tracing::field::Empty,
        pr = tracing::field::Empty,
    );
    accept(state, delivery).instrument(span).await
}

async fn accept(state: AppState, delivery: VerifiedDelivery) -> Response {
    let label = event_label(Some(&delivery.event));
    let envelope: Envelope = match serde_json::from_slice(&delivery.body) {
        Ok(e) => e,
        Err(err) => {
            count(label, "bad_request");
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("the body is not a JSON webhook payload: {err}"),
            )
            .into_response();
        }
    };
    if delivery.event == "ping" {
        count(label, "ping");
        tracing::info!("ping received");
        return answer(StatusCode::OK, &delivery.delivery_id, "pong");
    }
    let span = tracing::Span::current();
    if let Some(repo) = &envelope.repository {
        span.record("repository", repo.full_name.as_str());
    }
    if let Some(pr) = envelope.pull_request.as_ref().or(envelope.issue.as_ref()) {
        span.record("pr", pr.number);
    }
    let serial_key = match route(&delivery.event, &envelope) {
        Route::Ignore => {
            count(label, "ignored");
            tracing::debug!("event not handled; ignored");
            return answer(StatusCode::ACCEPTED, &delivery.delivery_id, "ignored");
        }
        Route::Handle { serial_key } => serial_key,
    };
    let new = NewDelivery {
        delivery_id: delivery.delivery_id.clone(),
        event: delivery.event.clone(),
        action: envelope.action,
        installation_id: envelope.installation.map(|i| i.id),
        repository: envelope.repository.map(|r| r.full_name),
        received_at_ms: state.clock.now_ms(),
        payload: StoredPayload::compress(&delivery.body),
        serial_key,
    };
    match state.enqueuer.enqueue(new).await {
        Ok(InsertOutcome::Queued) => {
            count(label, "queued");
            tracing::debug!("delivery stored and queued");
            answer(StatusCode::ACCEPTED, &delivery.delivery_id, "queued")
        }
        Ok(InsertOutcome::Duplicate) => {
            count(label, "duplicate");
            tracing::info!("delivery seen before; not queued again");
            answer(StatusCode::ACCEPTED, &delivery.delivery_id, "duplicate")
        }
        Err(err) => {
            count(label, "error");
            let status = match err {
                EnqueueError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
                EnqueueError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            ApiError::new(status, format!("delivery not stored: {err}")).into_response()
        }
    }
}

fn answer(status: StatusCode, delivery: &str, outcome: &str) -> Response {
    (
        status,
        Json(serde_json::json!({ "delivery": delivery, "status": outcome })),
    )
        .into_response()
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// Events named in metrics: the ones GitHub sends apps like this, anything else as `other`, so a
/// caller cannot grow the label set.
fn event_label(event: Option<&str>) -> &'static str {
    const KNOWN: &[&str] = &[
        "pull_request",
        "check_run",
        "check_suite",
        "issue_comment",
        "merge_group",
        "installation",
        "installation_repositories",
        "ping",
        "push",
        "pull_request_review",
        "pull_request_review_comment",
        "status",
        "workflow_run",
        "workflow_job",
    ];
    match event {
        None => "-",
        Some(e) => KNOWN.iter().find(|k| **k == e).copied().unwrap_or("other"),
    }
}

fn count(event: &'static str, outcome: &'static str) {
    metrics::counter!("repro_gate_webhooks_total", "event" => event, "outcome" => outcome)
        .increment(1);
}
