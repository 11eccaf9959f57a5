//! Liveness, readiness and the Prometheus scrape.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::{ApiError, AppState};

pub async fn healthz() -> impl IntoResponse {
    (StatusCode::OK, "ok")
}

/// Ready when the database answers and the App is configured.
pub async fn readyz(State(state): State<AppState>) -> Response {
    if let Err(err) = state.store.ping().await {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("database unavailable: {err:#}"),
        )
        .into_response();
    }
    if state.webhook_secrets.is_none() {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "setup mode: missing {}",
                state.missing_credentials.join(", ")
            ),
        )
        .into_response();
    }
    (StatusCode::OK, "ready").into_response()
}

/// Prometheus text. Job counts are read from the database at scrape time, so every replica
/// reports the shared queue; they are written here rather than through the global recorder so
/// that each service instance reports its own database.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let mut text = state.metrics.render();
    match state.store.job_counts().await {
        Ok(c) => {
            text.push_str("# HELP repro_gate_jobs Jobs in the queue, by state\n# TYPE repro_gate_jobs gauge\n");
            for (name, n) in [
                ("queued", c.queued),
                ("running", c.running),
                ("done", c.done),
                ("dead", c.dead),
            ] {
                text.push_str(&format!("repro_gate_jobs{{state=\"{name}\"}} {n}\n"));
            }
        }
        Err(err) => {
            tracing::warn!(error = %format!("{err:#}"), "job counts unavailable for /metrics")
        }
    }
    (
        StatusCode::OK,
        [(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        text,
    )
        .into_response()
}
