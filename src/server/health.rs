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

/// How old the job counts of a scrape may be: a scrape is unauthenticated, so it must not cost
/// a count over the jobs table each time.
const COUNTS_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(10);

/// Job counts, read from the database at most every [`COUNTS_MAX_AGE`] (one reader at a time).
async fn job_counts(state: &AppState) -> anyhow::Result<crate::store::JobCounts> {
    let mut cached = state.job_counts.lock().await;
    if let Some((at, c)) = *cached
        && at.elapsed() < COUNTS_MAX_AGE
    {
        return Ok(c);
    }
    let c = state.store.job_counts().await?;
    *cached = Some((std::time::Instant::now(), c));
    Ok(c)
}

/// Prometheus text. Job counts come from the database (every replica reports the shared
/// queue), cached briefly; they are written here rather than through the global recorder so
/// that each service instance reports its own database.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let mut text = state.metrics.render();
    match job_counts(&state).await {
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
