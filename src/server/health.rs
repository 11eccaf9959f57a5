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

/// Prometheus text. Job gauges are read from the database at scrape time, so every replica
/// reports the shared queue.
pub async fn metrics(State(state): State<AppState>) -> Response {
    match state.store.job_counts().await {
        Ok(c) => {
            for (name, n) in [
                ("queued", c.queued),
                ("running", c.running),
                ("done", c.done),
                ("dead", c.dead),
            ] {
                metrics::gauge!("repro_gate_jobs", "state" => name).set(n as f64);
            }
        }
        Err(err) => tracing::warn!(error = %format!("{err:#}"), "job counts unavailable for /metrics"),
    }
    (
        StatusCode::OK,
        [(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}
