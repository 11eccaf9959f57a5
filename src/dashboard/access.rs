//! Who the visitor is (the session cookie) and which repositories they may read: the App's
//! installations' repositories the user's own token can read, asked of GitHub and cached for
//! [`super::ACCESS_TTL`]. A repository not in that list does not exist, as far as a visitor
//! can tell (404).

use std::sync::Arc;

use axum::http::HeaderMap;
use axum_extra::extract::cookie::SignedCookieJar;
use secrecy::SecretString;

use super::Dashboard;
use super::signin::{SESSION_COOKIE, session_hash};

/// A signed-in visitor.
pub struct Visitor {
    pub login: String,
    token: SecretString,
    session: String,
}

/// The visitor of this request, if signed in.
pub async fn visitor(d: &Dashboard, headers: &HeaderMap) -> anyhow::Result<Option<Visitor>> {
    let jar = SignedCookieJar::from_headers(headers, d.key.clone());
    let Some(c) = jar.get(SESSION_COOKIE) else {
        return Ok(None);
    };
    let hash = session_hash(c.value());
    let Some(s) = d.store.dash_session(&hash, d.clock.now_ms()).await? else {
        return Ok(None);
    };
    // A token sealed under another secret (or stored before tokens were sealed) opens to
    // nothing: that visitor signs in again.
    let Some(token) = d.sealer.open(&s.token) else {
        d.store.delete_dash_session(&hash).await?;
        return Ok(None);
    };
    Ok(Some(Visitor {
        login: s.login,
        token,
        session: hash,
    }))
}

/// The repositories (full name, installation) the visitor can read.
pub async fn readable(d: &Dashboard, v: &Visitor) -> anyhow::Result<Arc<Vec<(String, i64)>>> {
    if let Some(r) = d.access.get(&v.session) {
        return Ok(r);
    }
    let repos = Arc::new(d.oauth.readable_repositories(&v.token).await?);
    d.access.insert(v.session.clone(), repos.clone());
    Ok(repos)
}

/// The installation of `owner/name` when the visitor can read it.
pub fn find(repos: &[(String, i64)], owner: &str, name: &str) -> Option<(String, i64)> {
    let want = format!("{owner}/{name}");
    repos
        .iter()
        .find(|(r, _)| r.eq_ignore_ascii_case(&want))
        .cloned()
}
