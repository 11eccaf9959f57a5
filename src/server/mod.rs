//! The HTTP shell: routes, the verified-webhook extractor, health, metrics and the setup page.

pub mod budget;
mod env_file;
mod error;
mod health;
mod home;
pub mod listen;
pub mod results;
pub mod setup;
pub mod signature;
mod webhook;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use metrics_exporter_prometheus::PrometheusHandle;
use secrecy::SecretString;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::trace::TraceLayer;

pub use error::ApiError;
pub use setup::SetupConfig;

use crate::clock::Clock;
use crate::queue::Enqueuer;
use crate::store::Store;

pub use crate::core::delivery::MAX_WEBHOOK_BYTES;

/// How long a request body may take to arrive.
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// How long any request may take in all.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(90);

/// What every request handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub enqueuer: Enqueuer,
    pub clock: Arc<dyn Clock>,
    pub metrics: PrometheusHandle,
    /// `None` in setup mode: webhooks answer 503.
    pub webhook_secrets: Option<Arc<Vec<SecretString>>>,
    pub missing_credentials: Arc<Vec<&'static str>>,
    pub setup: Arc<SetupConfig>,
    /// Memory for request bodies not yet authenticated.
    pub bodies: Arc<budget::BodyBudget>,
    /// The last job counts read for `/metrics`, and when.
    pub job_counts: Arc<tokio::sync::Mutex<Option<(std::time::Instant, crate::store::JobCounts)>>>,
    /// The dashboard's sign-in is configured (its routes answer).
    pub dashboard_on: bool,
}

/// Builds the router: the service's own routes and `pages` (the dashboard's, with their own
/// state), all under the same limits, timeouts and tracing.
pub fn router(state: AppState, pages: Router) -> Router {
    Router::new()
        .route(
            "/api/github/webhooks",
            post(webhook::receive).layer(DefaultBodyLimit::max(MAX_WEBHOOK_BYTES)),
        )
        .route(
            "/api/v1/results",
            post(results::upload).layer(DefaultBodyLimit::disable()),
        )
        .route("/", get(home::page))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/setup", get(setup::page))
        .route("/setup/callback", get(setup::callback))
        .with_state(state)
        .merge(pages)
        .layer(CatchPanicLayer::new())
        // A body that trickles in is cut off; so is a request that takes too long in all.
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(BODY_READ_TIMEOUT))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            http::StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        // Rejections (401, 503 in setup mode) are expected traffic, counted in metrics and
        // logged by the handlers: tower-http's default ERROR line per 5xx would be noise. The
        // span names the path only: query strings carry codes and tokens.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &http::Request<axum::body::Body>| {
                    tracing::debug_span!("request", method = %req.method(), path = %req.uri().path())
                })
                .on_failure(
                    tower_http::trace::DefaultOnFailure::new().level(tracing::Level::DEBUG),
                ),
        )
        .layer(SetSensitiveRequestHeadersLayer::new([
            http::header::AUTHORIZATION,
            http::HeaderName::from_static("x-hub-signature-256"),
            http::HeaderName::from_static("x-hub-signature"),
        ]))
}
