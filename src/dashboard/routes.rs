//! The dashboard's routes. Each answers 404 when the dashboard is off (no OAuth client id), and
//! 404 for a repository the visitor cannot read.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tower_http::set_header::SetResponseHeaderLayer;

use super::access::{find, readable, visitor};
use super::{Dashboard, PER_PAGE, data, pages, search, signin};
use crate::core::history::status::Status;
use crate::store::{TestQuery, TestSort};

/// What the dashboard's handlers reach: the dashboard, or `None` when it is off.
type On = Option<Arc<Dashboard>>;

/// The dashboard's routes (their state given), merged into the service's router.
pub fn router(dashboard: Option<Arc<Dashboard>>) -> Router {
    Router::new()
        .route("/dashboard", get(index))
        .route("/dashboard/", get(index))
        .route("/dashboard/login", get(login))
        .route("/dashboard/callback", get(callback))
        .route("/dashboard/logout", post(logout))
        .route("/dashboard/signed-out", get(signed_out))
        .route("/dashboard/style.css", get(style))
        .route("/dashboard/{owner}/{repo}", get(repo_page))
        .route("/dashboard/{owner}/{repo}/tests/{*test}", get(test_page))
        .route("/api/v1/repos/{owner}/{repo}/tests", get(repo_json))
        .route("/api/v1/repos/{owner}/{repo}/tests/{*test}", get(test_json))
        .layer(tower_http::compression::CompressionLayer::new().gzip(true))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .with_state(dashboard)
}

/// No scripts, no frames, styles and forms from here only.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; \
    frame-ancestors 'none'; base-uri 'none'";

/// An answer given instead of the page (boxed: a response is large).
type Instead = Box<Response>;

fn on(state: &On) -> Result<Arc<Dashboard>, Instead> {
    state.clone().ok_or_else(|| Box::new(pages::not_found()))
}

fn failed(e: anyhow::Error) -> Response {
    tracing::warn!(error = %format!("{e:#}"), "a dashboard page failed");
    pages::message(
        StatusCode::SERVICE_UNAVAILABLE,
        "Not available",
        "The dashboard could not read its data just now. Try again in a moment.",
    )
}

fn html(m: maud::Markup) -> Response {
    (
        [(header::CACHE_CONTROL, "private, no-store")],
        Html(m.into_string()),
    )
        .into_response()
}

/// Signed out: to sign-in, coming back here afterwards.
fn to_sign_in(path: &str) -> Response {
    let next = signin::safe_next(Some(path));
    let q = crate::github::encode_query(&next);
    Redirect::to(&format!("/dashboard/login?next={q}")).into_response()
}

async fn index(State(state): State<On>, headers: HeaderMap) -> Response {
    let d = match on(&state) {
        Ok(d) => d,
        Err(r) => return *r,
    };
    let v = match visitor(&d, &headers).await {
        Ok(Some(v)) => v,
        Ok(None) => return to_sign_in("/dashboard"),
        Err(e) => return failed(e),
    };
    let view = async {
        let repos = readable(&d, &v).await?;
        let mut out = Vec::new();
        for (r, inst) in repos.iter() {
            // The counts come from the default branch's file, read here too.
            data::sync_file(&d, r, *inst).await;
            out.push(data::summary(&d, r).await?);
        }
        // Problems first: the most broken, then flaky, then failed-once tests; then by name.
        out.sort_by(|(a, _), (b, _)| {
            (b.broken, b.flaky, b.failed_once)
                .cmp(&(a.broken, a.flaky, a.failed_once))
                .then_with(|| a.repository.cmp(&b.repository))
        });
        anyhow::Ok(data::IndexView {
            login: v.login.clone(),
            now_ms: d.clock.now_ms(),
            repos: out,
        })
    }
    .await;
    match view {
        Ok(view) => html(pages::index(&view)),
        Err(e) => failed(e),
    }
}

async fn login(
    State(state): State<On>,
    headers: HeaderMap,
    q: Query<signin::LoginQuery>,
) -> Response {
    match on(&state) {
        Ok(d) => signin::login(&d, &headers, q).await,
        Err(r) => *r,
    }
}

async fn callback(
    State(state): State<On>,
    headers: HeaderMap,
    Query(q): Query<signin::CallbackQuery>,
) -> Response {
    match on(&state) {
        Ok(d) => signin::callback(&d, &headers, q).await,
        Err(r) => *r,
    }
}

async fn logout(State(state): State<On>, headers: HeaderMap) -> Response {
    match on(&state) {
        Ok(d) => signin::logout(&d, &headers).await,
        Err(r) => *r,
    }
}

async fn signed_out(State(state): State<On>) -> Response {
    match on(&state) {
        Ok(_) => html(pages::signed_out()),
        Err(r) => *r,
    }
}

async fn style(State(state): State<On>) -> Response {
    if let Err(r) = on(&state) {
        return *r;
    }
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        pages::STYLE.0,
    )
        .into_response()
}

/// `?q=&tier=&status=&sort=&page=&per_page=` (unknown values fall back to the defaults; a
/// `tier` or `status` parameter wins over the query's term).
#[derive(Debug, Default, Deserialize)]
pub struct PageParams {
    q: Option<String>,
    tier: Option<String>,
    status: Option<String>,
    sort: Option<String>,
    page: Option<String>,
    per_page: Option<String>,
}

impl PageParams {
    pub fn query(&self, max_per_page: u32) -> TestQuery {
        let search = search::parse(self.q.as_deref().unwrap_or(""));
        let tier = self
            .tier
            .as_deref()
            .filter(|t| ["trusted", "probation", "quarantined"].contains(t))
            .map(str::to_string)
            .or(search.tier);
        let status = self
            .status
            .as_deref()
            .and_then(Status::parse)
            .or(search.status);
        let sort = self
            .sort
            .as_deref()
            .and_then(|s| TestSort::ALL.into_iter().find(|x| x.as_str() == s))
            .unwrap_or_default();
        let page = self
            .page
            .as_deref()
            .and_then(|p| p.parse::<u32>().ok())
            .filter(|p| *p >= 1 && *p <= 1_000_000)
            .unwrap_or(1);
        let per_page = self
            .per_page
            .as_deref()
            .and_then(|p| p.parse::<u32>().ok())
            .map(|p| p.clamp(1, max_per_page))
            .unwrap_or(PER_PAGE);
        TestQuery {
            tier,
            status,
            text: search.text,
            owner: search.owner,
            sort,
            unknown: search.unknown,
            page,
            per_page,
        }
    }
}

/// The visitor and the repository's installation, or the answer to give instead. A page
/// (`uri` given) sends a visitor who is not signed in to sign in, back to that exact path and
/// query afterwards; the JSON answers 404.
async fn reader(
    state: &On,
    headers: &HeaderMap,
    owner: &str,
    name: &str,
    uri: Option<&Uri>,
) -> Result<(Arc<Dashboard>, String, String, i64), Instead> {
    let d = on(state)?;
    let html_page = uri.is_some();
    let v = match visitor(&d, headers).await {
        Ok(Some(v)) => v,
        Ok(None) if html_page => {
            let back = uri
                .and_then(|u| u.path_and_query())
                .map(|pq| pq.as_str().to_string())
                .unwrap_or_else(|| format!("/dashboard/{owner}/{name}"));
            return Err(Box::new(to_sign_in(&back)));
        }
        Ok(None) => return Err(Box::new(json_not_found())),
        Err(e) => return Err(Box::new(failed(e))),
    };
    let repos = readable(&d, &v).await.map_err(|e| Box::new(failed(e)))?;
    match find(&repos, owner, name) {
        Some((repo, inst)) => Ok((d, v.login, repo, inst)),
        None if html_page => Err(Box::new(pages::not_found())),
        None => Err(Box::new(json_not_found())),
    }
}

fn json_not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(serde_json::json!({"error": "not found"})),
    )
        .into_response()
}

async fn repo_page(
    State(state): State<On>,
    headers: HeaderMap,
    uri: Uri,
    Path((owner, name)): Path<(String, String)>,
    Query(p): Query<PageParams>,
) -> Response {
    let (d, login, repo, inst) = match reader(&state, &headers, &owner, &name, Some(&uri)).await {
        Ok(x) => x,
        Err(r) => return *r,
    };
    match data::repo_view(&d, &repo, inst, p.query(PER_PAGE)).await {
        Ok(view) => html(pages::repo(&view, &login)),
        Err(e) => failed(e),
    }
}

async fn repo_json(
    State(state): State<On>,
    headers: HeaderMap,
    Path((owner, name)): Path<(String, String)>,
    Query(p): Query<PageParams>,
) -> Response {
    let (d, _, repo, inst) = match reader(&state, &headers, &owner, &name, None).await {
        Ok(x) => x,
        Err(r) => return *r,
    };
    let q = p.query(1000);
    match data::repo_view(&d, &repo, inst, q.clone()).await {
        Ok(v) => (
            [(header::CACHE_CONTROL, "private, no-store")],
            axum::Json(serde_json::json!({
                "repository": v.repository,
                "default_tier": v.default_tier,
                "page": q.page,
                "per_page": q.per_page,
                "sort": q.sort.as_str(),
                "tier": q.tier,
                "status": q.status,
                "q": pages::query_text(&q),
                "not_understood": q.unknown,
                "total": v.page.total,
                "counts": v.counts,
                "tests": v.page.tests,
                "tier_changes": v.changes,
                "proposals": v.proposals,
                "pull_request": v.pull_request.map(|(n, at)| serde_json::json!({"number": n, "at": super::when::rfc3339(at)})),
                "sessions": v.sessions,
                "gate_weeks": v.gate_weeks,
            })),
        )
            .into_response(),
        Err(e) => failed(e),
    }
}

async fn test_page(
    State(state): State<On>,
    headers: HeaderMap,
    uri: Uri,
    Path((owner, name, test)): Path<(String, String, String)>,
) -> Response {
    let (d, login, repo, inst) = match reader(&state, &headers, &owner, &name, Some(&uri)).await {
        Ok(x) => x,
        Err(r) => return *r,
    };
    match data::test_view(&d, &repo, inst, &test).await {
        Ok(Some(view)) => html(super::test_page::page(&view, &login)),
        Ok(None) => pages::message(
            StatusCode::NOT_FOUND,
            "No such test",
            "No result of this test has been recorded in this repository.",
        ),
        Err(e) => failed(e),
    }
}

/// A test's page as JSON: the list's fields for it, plus its reasons, failures and sessions.
async fn test_json(
    State(state): State<On>,
    headers: HeaderMap,
    Path((owner, name, test)): Path<(String, String, String)>,
) -> Response {
    let (d, _, repo, inst) = match reader(&state, &headers, &owner, &name, None).await {
        Ok(x) => x,
        Err(r) => return *r,
    };
    match data::test_view(&d, &repo, inst, &test).await {
        Ok(Some(v)) => {
            // The list's fields for the test at the top, then what only its page has.
            let mut out = match serde_json::to_value(&v.row) {
                Ok(serde_json::Value::Object(m)) => m,
                _ => serde_json::Map::new(),
            };
            let extra = serde_json::json!({
                "repository": v.repository,
                "why": v.why,
                "reasons": v.reasons,
                "reasons_of": v.reasons_of,
                "tier_set": v.tier_set,
                "failures_listed": v.failures,
                "failures_kept": v.failures_kept,
                "sessions": v.sessions,
            });
            if let serde_json::Value::Object(m) = extra {
                out.extend(m);
            }
            (
                [(header::CACHE_CONTROL, "private, no-store")],
                axum::Json(serde_json::Value::Object(out)),
            )
                .into_response()
        }
        Ok(None) => json_not_found(),
        Err(e) => failed(e),
    }
}
