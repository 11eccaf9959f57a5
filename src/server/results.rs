//! `POST /api/v1/results`: test results of a CI run from any CI, with an upload token of the
//! repository (docs/service.md#http-metrics-and-logs). The token is checked before the body is read; the body is streamed through
//! the parser (inflated when gzip), capped, and the run recorded once per run id and attempt.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, Request, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use http_body_util::BodyExt as _;
use serde_json::json;

use super::{ApiError, AppState};
use crate::github::read_blocking;
use crate::github::types::RepoName;
use crate::history::{self, ReportFormat, RunInfo, tokens};
use crate::store::Recorded;

/// Largest upload (as sent, compressed or not).
pub const MAX_UPLOAD_BYTES: usize = 100 * 1024 * 1024;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, message)
}

fn count(outcome: &'static str) {
    metrics::counter!("repro_gate_uploads_total", "outcome" => outcome).increment(1);
}

/// A query value: present, not blank, not huge.
fn field<'a>(q: &'a HashMap<String, String>, key: &str) -> Result<&'a str, ApiError> {
    match q.get(key).map(|v| v.trim()) {
        Some(v) if !v.is_empty() && v.len() <= 255 => Ok(v),
        Some(v) if !v.is_empty() => Err(bad(format!("`{key}` is longer than 255 characters"))),
        _ => Err(bad(format!(
            "`{key}` is required: ?repo=O/R&sha=SHA&branch=B&run=ID&attempt=N[&format=…]"
        ))),
    }
}

pub async fn upload(
    State(state): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
    req: Request,
) -> Response {
    match accept(state, q, req).await {
        Ok(r) => r,
        Err(e) => {
            count(match e.status {
                StatusCode::UNAUTHORIZED => "unauthorized",
                StatusCode::PAYLOAD_TOO_LARGE => "too_large",
                StatusCode::BAD_REQUEST => "bad_request",
                _ => "error",
            });
            e.into_response()
        }
    }
}

async fn accept(
    state: AppState,
    q: HashMap<String, String>,
    req: Request,
) -> Result<Response, ApiError> {
    let repo = field(&q, "repo")?;
    let Some(repo) = RepoName::parse(repo) else {
        return Err(bad(format!("`repo` {repo:?} is not owner/name")));
    };
    let repo = repo.to_string();
    let headers = req.headers().clone();
    let token = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(tokens::from_header);
    let Some(token) = token else {
        super::webhook::drain(req, super::webhook::DRAIN_LIMIT).await;
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "an upload token is required: Authorization: Bearer <token> (repro-gate history token --repo O/R)",
        ));
    };
    let row = state
        .store
        .token(&tokens::hash(token))
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("{e:#}")))?;
    if row.as_ref().map(|r| r.repository.as_str()) != Some(repo.as_str()) {
        super::webhook::drain(req, super::webhook::DRAIN_LIMIT).await;
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            format!("the token is not a live upload token of {repo}"),
        ));
    }
    let sha = field(&q, "sha")?.to_string();
    let branch = field(&q, "branch")?.to_string();
    let run = field(&q, "run")?.to_string();
    let attempt = match q.get("attempt").map(|a| a.trim()) {
        None | Some("") => 1,
        Some(a) => a
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=10_000).contains(n))
            .ok_or_else(|| bad(format!("`attempt` {a:?} is not a number from 1")))?,
    };
    let format = match q.get("format").map(|f| f.trim()) {
        None | Some("") => ReportFormat::Auto,
        Some(f) => ReportFormat::parse(f).ok_or_else(|| {
            bad(format!(
                "`format` {f:?} is not one of auto, junit, go-json, libtest-json, go, cargo, nextest, pytest, jest"
            ))
        })?,
    };
    let gzipped = match headers
        .get(http::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
    {
        None => false,
        Some(e) if e.is_empty() || e == "identity" => false,
        Some(e) if e == "gzip" || e == "x-gzip" => true,
        Some(e) => {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Encoding {e:?} is not supported (gzip or none)"),
            ));
        }
    };
    let announced = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if announced.is_some_and(|n| n > MAX_UPLOAD_BYTES) {
        super::webhook::drain(req, super::webhook::DRAIN_LIMIT).await;
        return Err(too_large());
    }

    let results = parse_streamed(req, gzipped, format).await?;
    if results.is_empty() {
        return Err(bad("the report holds no test result"));
    }
    let info = RunInfo {
        repository: repo.clone(),
        run_id: run.clone(),
        attempt,
        sha,
        branch,
        source: "upload",
        installation_id: None,
        default_branch: None,
        branches: history::default_branches(),
        url: q
            .get("url")
            .filter(|u| crate::core::markdown::is_web_link(u))
            .cloned(),
        pr: q
            .get("pr")
            .and_then(|p| p.trim().parse::<i64>().ok())
            .filter(|p| *p > 0),
    };
    let recorded = history::record(&state.store, &info, &results, state.clock.now_ms())
        .await
        .map_err(|e| {
            tracing::warn!(repo = %repo, error = %format!("{e:#}"), "an upload could not be recorded");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the results could not be stored; try again",
            )
        })?;
    let status = match recorded {
        Recorded::New(_) => "recorded",
        Recorded::Duplicate => "duplicate",
    };
    count(status);
    tracing::info!(repo = %repo, run = %run, attempt, results = results.len(), status, "results uploaded");
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({ "run": run, "attempt": attempt, "results": results.len(), "status": status })),
    )
        .into_response())
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the report is larger than {} MiB", MAX_UPLOAD_BYTES >> 20),
    )
}

/// Streams the body through the parser on a blocking thread.
async fn parse_streamed(
    req: Request,
    gzipped: bool,
    format: ReportFormat,
) -> Result<history::RunResults, ApiError> {
    let (tx, parser) = read_blocking(move |chunks| {
        history::bounded::read_upload(chunks, gzipped, format).map(|r| {
            let mut results = history::RunResults::default();
            results.add(r);
            results
        })
    });
    let mut body = req.into_body();
    let mut seen = 0usize;
    let mut over = false;
    let mut broken = None;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => {
                let Ok(data) = f.into_data() else { continue };
                seen += data.len();
                if seen > MAX_UPLOAD_BYTES {
                    over = true;
                    break;
                }
                // The parser stopped early (a bad report): the rest is not needed.
                if tx.send(data).await.is_err() {
                    break;
                }
            }
            Err(e) => {
                broken = Some(e.to_string());
                break;
            }
        }
    }
    drop(tx);
    let parsed = parser
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    if over {
        return Err(too_large());
    }
    if let Some(e) = broken {
        return Err(bad(format!("the body could not be read: {e}")));
    }
    parsed.map_err(|e| {
        bad(if gzipped {
            format!("the gzip report could not be read: {e}")
        } else {
            format!("the report could not be read: {e}")
        })
    })
}
