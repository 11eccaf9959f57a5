//! Signing in with GitHub (the App's OAuth web flow) and out. The `state` sent to GitHub is a
//! random nonce also kept in a signed, short-lived cookie of this browser: a callback whose
//! state is not this browser's own (forged, or another visitor's) signs nobody in. The user's
//! token stays in the database; the browser holds only a random session id.

use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, SameSite, SignedCookieJar};
use secrecy::ExposeSecret as _;
use serde::Deserialize;
use sha2::Digest as _;
use subtle::ConstantTimeEq as _;

use super::Dashboard;
use super::pages;
use crate::random::random_token;
use crate::store::DashSession;

pub const STATE_COOKIE: &str = "rg_oauth_state";
pub const SESSION_COOKIE: &str = "rg_session";
/// How long a sign-in may take between leaving for GitHub and coming back.
const STATE_TTL_MS: i64 = 10 * 60 * 1000;

/// The stored form of a session id.
pub fn session_hash(id: &str) -> String {
    hex::encode(sha2::Sha256::digest(id.as_bytes()))
}

/// Where to go after signing in: a dashboard path only (never another site).
pub fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if n.starts_with("/dashboard")
                && !n.starts_with("//")
                && n.len() <= 512
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/_.-~?=&%+:".contains(c)) =>
        {
            n.to_string()
        }
        _ => "/dashboard".to_string(),
    }
}

/// From the public URL, never the request's `Host` (a visitor's browser could be made to
/// send a code to another host otherwise).
fn callback_url(d: &Dashboard) -> String {
    format!("{}/dashboard/callback", d.public_url)
}

/// Whether a state-changing request comes from another site: its `Origin` is not this
/// service's, or the browser says `Sec-Fetch-Site: cross-site`. A request with neither (not a
/// browser's form) is same-site as far as this can tell; the cookie is SameSite=Lax as well.
pub fn cross_origin(d: &Dashboard, headers: &HeaderMap) -> bool {
    let header = |h: &str| headers.get(h).and_then(|v| v.to_str().ok());
    if let Some(o) = header("origin") {
        return !o.trim_end_matches('/').eq_ignore_ascii_case(d.origin());
    }
    matches!(header("sec-fetch-site"), Some("cross-site"))
}

fn cookie<'a>(
    d: &Dashboard,
    name: &'a str,
    value: String,
    path: &'a str,
    max_age_s: i64,
) -> Cookie<'a> {
    Cookie::build((name, value))
        .path(path)
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(d.secure())
        .max_age(time::Duration::seconds(max_age_s))
        .build()
}

#[derive(Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
}

/// `GET /dashboard/login`: to GitHub's authorize page, with a fresh state.
pub async fn login(d: &Dashboard, headers: &HeaderMap, Query(q): Query<LoginQuery>) -> Response {
    let nonce = random_token(32);
    let expires = d.clock.now_ms() + STATE_TTL_MS;
    let next = safe_next(q.next.as_deref());
    let value = format!("{nonce}~{expires}~{}", hex::encode(next.as_bytes()));
    let jar = SignedCookieJar::from_headers(headers, d.key.clone()).add(cookie(
        d,
        STATE_COOKIE,
        value,
        "/dashboard",
        STATE_TTL_MS / 1000,
    ));
    let to = d.oauth.authorize_url(&callback_url(d), &nonce);
    (jar, Redirect::to(&to)).into_response()
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// The state cookie's nonce and next path, when it is this browser's, unexpired and equal to
/// the state GitHub sent back.
fn check_state(d: &Dashboard, jar: &SignedCookieJar, state: &str) -> Option<String> {
    let c = jar.get(STATE_COOKIE)?;
    let mut parts = c.value().splitn(3, '~');
    let (nonce, expires, next) = (parts.next()?, parts.next()?, parts.next()?);
    let expires: i64 = expires.parse().ok()?;
    if expires < d.clock.now_ms() || state.is_empty() {
        return None;
    }
    if !bool::from(nonce.as_bytes().ct_eq(state.as_bytes())) {
        return None;
    }
    let next = String::from_utf8(hex::decode(next).ok()?).ok()?;
    Some(safe_next(Some(&next)))
}

/// `GET /dashboard/callback`: GitHub's answer; signs the visitor in.
pub async fn callback(d: &Dashboard, headers: &HeaderMap, q: CallbackQuery) -> Response {
    let jar = SignedCookieJar::from_headers(headers, d.key.clone());
    let Some(next) = q.state.as_deref().and_then(|s| check_state(d, &jar, s)) else {
        tracing::info!("dashboard sign-in refused: the state is not this browser's");
        return pages::message(
            StatusCode::BAD_REQUEST,
            "Sign-in not completed",
            "This sign-in was not started in this browser, or it took too long. Start again from the dashboard.",
        );
    };
    let jar = jar.remove(Cookie::build(STATE_COOKIE).path("/dashboard"));
    let code = match (q.code.as_deref(), q.error.as_deref()) {
        (Some(c), None) if !c.is_empty() && c.len() <= 256 => c.to_string(),
        _ => {
            return (
                jar,
                pages::message(
                    StatusCode::BAD_REQUEST,
                    "Sign-in not completed",
                    "GitHub did not approve the sign-in.",
                ),
            )
                .into_response();
        }
    };
    let token = match d.oauth.exchange(&code, &callback_url(d)).await {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "dashboard sign-in: the code exchange failed");
            return (
                jar,
                pages::message(
                    StatusCode::BAD_GATEWAY,
                    "Sign-in failed",
                    "GitHub did not accept the sign-in code. Try again.",
                ),
            )
                .into_response();
        }
    };
    let login = match d.oauth.login(&token.token).await {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(error = %e, "dashboard sign-in: GET /user failed");
            return (
                jar,
                pages::message(
                    StatusCode::BAD_GATEWAY,
                    "Sign-in failed",
                    "GitHub did not say who signed in. Try again.",
                ),
            )
                .into_response();
        }
    };
    let now = d.clock.now_ms();
    let ttl = token
        .expires_in
        .map(|s| (s as i64).saturating_mul(1000))
        .unwrap_or(super::SESSION_TTL_MS)
        .min(super::SESSION_TTL_MS);
    let id = random_token(64);
    let session = DashSession {
        login: login.clone(),
        token: d.sealer.seal(token.token.expose_secret()),
    };
    if let Err(e) = d
        .store
        .insert_dash_session(&session_hash(&id), &session, now, now + ttl)
        .await
    {
        tracing::error!(error = %e, "dashboard sign-in: storing the session failed");
        return pages::message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Sign-in failed",
            "The session could not be stored. Try again.",
        );
    }
    tracing::info!(%login, "signed in to the dashboard");
    let jar = jar.add(cookie(d, SESSION_COOKIE, id, "/", ttl / 1000));
    (jar, Redirect::to(&next)).into_response()
}

/// `POST /dashboard/logout`: forgets the session here and revokes its token at GitHub. A
/// POST from another site is refused (403): nobody can sign a visitor out from elsewhere.
pub async fn logout(d: &Dashboard, headers: &HeaderMap) -> Response {
    if cross_origin(d, headers) {
        tracing::info!("dashboard sign-out refused: a cross-origin POST");
        return pages::message(
            StatusCode::FORBIDDEN,
            "Not signed out",
            "Sign out from the dashboard's own page.",
        );
    }
    let jar = SignedCookieJar::from_headers(headers, d.key.clone());
    if let Some(c) = jar.get(SESSION_COOKIE) {
        let h = session_hash(c.value());
        d.access.invalidate(&h);
        let token = match d.store.dash_session(&h, d.clock.now_ms()).await {
            Ok(s) => s.and_then(|s| d.sealer.open(&s.token)),
            Err(e) => {
                tracing::warn!(error = %e, "dashboard sign-out: reading the session failed");
                None
            }
        };
        if let Err(e) = d.store.delete_dash_session(&h).await {
            tracing::warn!(error = %e, "dashboard sign-out: deleting the session failed");
        }
        if let Some(t) = token
            && let Err(e) = d.oauth.revoke(&t).await
        {
            // Signed out here either way; the token expires at GitHub on its own.
            tracing::warn!(error = %e, "dashboard sign-out: revoking the token at GitHub failed");
        }
    }
    let jar = jar.remove(Cookie::build(SESSION_COOKIE).path("/"));
    (jar, Redirect::to("/dashboard/signed-out")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dashboard_paths_are_followed_after_sign_in() {
        assert_eq!(
            safe_next(Some("/dashboard/acme/pool?tier=quarantined")),
            "/dashboard/acme/pool?tier=quarantined"
        );
        for bad in [
            "https://evil.example",
            "//evil.example",
            "/setup",
            "/dashboard\"><script>",
            "/dashboard/\\evil",
        ] {
            assert_eq!(safe_next(Some(bad)), "/dashboard", "{bad}");
        }
        assert_eq!(safe_next(None), "/dashboard");
    }
}
