//! Setup mode: `GET /setup` explains what to configure and offers GitHub's App manifest flow
//! (for a user or an organisation, on github.com or the GitHub Enterprise host of
//! `GITHUB_API_URL`); `GET /setup/callback` exchanges the code for the App's id, key and
//! webhook secret and writes them to `.env` (mode 0600, never logged).
//!
//! Setup completes once: after credentials are written (or when they are configured), both
//! routes answer 410 until an operator removes them. The `state` of a flow is bound to the
//! browser that started it (an HttpOnly cookie) and expires after an hour. When the service can
//! be reached beyond this machine (a non-loopback listen address or `REPRO_GATE_PUBLIC_URL`),
//! `/setup` also needs the one-time token printed in the start-up log, so the first stranger to
//! find the page cannot register their own App in the operator's place.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use http::{HeaderMap, HeaderValue, StatusCode};
use secrecy::{ExposeSecret as _, SecretString};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::env_file;
use crate::random::random_token;

/// How long a started flow may take.
const STATE_TTL: Duration = Duration::from_secs(3600);
/// Most flows kept open at once.
const MAX_STATES: usize = 200;
const COOKIE: &str = "repro_gate_setup";

/// What the setup flow needs.
#[derive(Debug)]
pub struct SetupConfig {
    pub api_url: String,
    pub env_file: PathBuf,
    /// Where GitHub reaches this service (`REPRO_GATE_PUBLIC_URL`); else the request's host.
    pub public_url: Option<String>,
    /// Required as `?token=` by `/setup` when set.
    pub token: Option<SecretString>,
    /// `state` → (the browser's cookie value, when it stops being valid).
    states: Mutex<HashMap<String, (String, Instant)>>,
    /// A callback is converting a code now (one at a time).
    converting: AtomicBool,
    /// Credentials were written by this process.
    done: AtomicBool,
}

impl SetupConfig {
    pub fn new(
        api_url: String,
        env_file: PathBuf,
        public_url: Option<String>,
        token: Option<SecretString>,
    ) -> Self {
        SetupConfig {
            api_url,
            env_file,
            public_url: public_url.map(|u| u.trim_end_matches('/').to_string()),
            token,
            states: Mutex::new(HashMap::new()),
            converting: AtomicBool::new(false),
            done: AtomicBool::new(false),
        }
    }
}

/// The App manifest (the same as `deploy/app-manifest.json`, with this host's URLs).
pub fn manifest(base_url: &str) -> serde_json::Value {
    json!({
        "name": "repro-gate",
        "url": base_url,
        "hook_attributes": { "url": format!("{base_url}/api/github/webhooks"), "active": true },
        "redirect_url": format!("{base_url}/setup/callback"),
        "public": false,
        "default_permissions": {
            "checks": "write", "pull_requests": "write", "issues": "write",
            "contents": "write", "metadata": "read", "actions": "write", "members": "read"
        },
        "default_events": ["pull_request", "check_run", "check_suite", "issue_comment", "merge_group", "workflow_run"]
    })
}

/// The web host of an API URL: `https://api.github.com` → `https://github.com`,
/// `https://HOST/api/v3` → `https://HOST`; anything else keeps its origin.
pub fn web_url(api_url: &str) -> String {
    let api = api_url.trim_end_matches('/');
    if api == "https://api.github.com" {
        return "https://github.com".into();
    }
    api.strip_suffix("/api/v3").unwrap_or(api).to_string()
}

/// The URL GitHub should use: `REPRO_GATE_PUBLIC_URL`, else the request's host when it is a
/// plain host name or address (a hostile `Host` header never reaches the page).
fn base_url(config: &SetupConfig, headers: &HeaderMap) -> String {
    if let Some(u) = &config.public_url {
        return u.clone();
    }
    let host = headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| plain_host(h))
        .unwrap_or("localhost");
    let proto = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    format!("{proto}://{host}")
}

fn plain_host(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
}

/// True when GitHub cannot reach `url` (a loopback address or `localhost`).
pub fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.split_once(']').map(|(h, _)| h))
        .unwrap_or_else(|| host.rsplit_once(':').map_or(host, |(h, _)| h));
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page_of(status: StatusCode, msg: &str) -> Response {
    (
        status,
        Html(format!(
            "<!doctype html><html><body><h1>repro-gate setup</h1><p>{}</p></body></html>",
            escape(msg)
        )),
    )
        .into_response()
}

/// Setup is over: configured in this process, completed by it, or credentials on disk.
async fn completed(state: &AppState) -> bool {
    if state.webhook_secrets.is_some() || state.setup.done.load(Ordering::SeqCst) {
        return true;
    }
    let path = state.setup.env_file.clone();
    tokio::task::spawn_blocking(move || env_file::has_credentials(&path))
        .await
        .unwrap_or(true)
}

const CLOSED: &str = "Setup has completed: the GitHub App's credentials are configured. To register another App, remove GITHUB_APP_ID, the key and the webhook secret from the environment and .env, and restart.";

#[derive(Deserialize)]
pub struct SetupQuery {
    org: Option<String>,
    token: Option<String>,
}

pub async fn page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<SetupQuery>,
) -> Response {
    if completed(&state).await {
        return page_of(StatusCode::GONE, CLOSED);
    }
    let setup = &state.setup;
    if let Some(expected) = &setup.token {
        let given = q.token.as_deref().unwrap_or("");
        if !constant_eq(given.as_bytes(), expected.expose_secret().as_bytes()) {
            return page_of(
                StatusCode::FORBIDDEN,
                "This service can be reached beyond this machine, so setup needs the one-time token printed in its start-up log: open the /setup?token=… link from that line.",
            );
        }
    }
    let base = base_url(setup, &headers);
    let web = web_url(&setup.api_url);
    let flow = random_token(32);
    let browser = random_token(32);
    {
        let mut states = setup.states.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        states.retain(|_, (_, until)| *until > now);
        if states.len() >= MAX_STATES {
            return page_of(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many setup flows are open; try again in a while.",
            );
        }
        states.insert(flow.clone(), (browser.clone(), now + STATE_TTL));
    }
    let org = q.org.filter(|o| {
        !o.is_empty() && o.len() <= 39 && o.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    let action = match &org {
        Some(o) => format!("{web}/organizations/{o}/settings/apps/new?state={flow}"),
        None => format!("{web}/settings/apps/new?state={flow}"),
    };
    let who = org
        .as_deref()
        .map(|o| format!("the organisation <code>{}</code>", escape(o)))
        .unwrap_or_else(|| "your account".into());
    let missing: String = state
        .missing_credentials
        .iter()
        .map(|m| format!("<li><code>{}</code></li>", escape(m)))
        .collect();
    let warning = if is_loopback_url(&base) {
        format!(
            "<p><strong>Warning:</strong> the webhook URL offered is <code>{}</code>, a loopback address GitHub cannot reach. Set <code>REPRO_GATE_PUBLIC_URL</code> to the address GitHub reaches this service at (a proxy or a tunnel), or change the webhook URL in the App's settings after registering.</p>",
            escape(&base)
        )
    } else {
        String::new()
    };
    let token_field = q
        .token
        .as_deref()
        .filter(|_| setup.token.is_some())
        .map(|t| {
            format!(
                "<input type=\"hidden\" name=\"token\" value=\"{}\">",
                escape(t)
            )
        })
        .unwrap_or_default();
    let body = format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>repro-gate setup</title></head>
<body>
<h1>repro-gate setup</h1>
<p><strong>repro-gate is in setup mode.</strong> Webhooks answer 503 until these are set:</p>
<ul>{missing}</ul>
{warning}
<h2>Register the GitHub App</h2>
<form action="{action}" method="post">
  <input type="hidden" name="manifest" value="{manifest}">
  <button type="submit">Register repro-gate on {who}</button>
</form>
<form action="/setup" method="get">
  {token_field}
  <label>Or on an organisation: <input name="org" placeholder="my-org"></label>
  <button type="submit">Use this organisation</button>
</form>
<p>GitHub sends this browser back to <code>{base_html}/setup/callback</code> within the hour; the
App's id, private key and webhook secret are written to <code>{env}</code> (mode 0600). Restart
<code>repro-gate serve</code> afterwards and install the App on your repositories. Setup completes
once: afterwards this page is closed.</p>
<h2>Or by hand</h2>
<ol>
<li>Register a GitHub App with the webhook URL <code>{base_html}/api/github/webhooks</code> and a
secret; permissions Checks write, Pull requests write, Issues write, Contents write, Metadata read,
Actions write, Members read; events Pull request, Check run, Check suite, Issue comment, Merge
group, Workflow run.</li>
<li>Set <code>GITHUB_APP_ID</code>, <code>GITHUB_APP_PRIVATE_KEY_PATH</code> (or
<code>GITHUB_APP_PRIVATE_KEY</code>) and <code>GITHUB_WEBHOOK_SECRET</code>, then restart.</li>
</ol>
</body></html>
"#,
        action = escape(&action),
        manifest = escape(&manifest(&base).to_string()),
        base_html = escape(&base),
        env = escape(&setup.env_file.display().to_string()),
    );
    let mut resp = Html(body).into_response();
    let cookie = format!(
        "{COOKIE}={browser}; Path=/setup; HttpOnly; SameSite=Lax; Max-Age={}",
        STATE_TTL.as_secs()
    );
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().insert(http::header::SET_COOKIE, v);
    }
    resp.headers_mut().insert(
        http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    resp
}

fn cookie_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == COOKIE).then(|| v.to_string())
        })
}

/// Compares without an early exit on the first difference.
fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq as _;
    a.ct_eq(b).into()
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
}

pub async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Response {
    if completed(&state).await {
        return page_of(StatusCode::GONE, CLOSED);
    }
    let setup = &state.setup;
    let (Some(code), Some(flow)) = (q.code, q.state) else {
        return page_of(
            StatusCode::BAD_REQUEST,
            "The callback needs the `code` and `state` GitHub sends.",
        );
    };
    let browser = cookie_of(&headers);
    let known = {
        let mut states = setup.states.lock().unwrap_or_else(|e| e.into_inner());
        match states.get(&flow) {
            Some((expected, until))
                if *until > Instant::now()
                    && browser
                        .as_deref()
                        .is_some_and(|b| constant_eq(b.as_bytes(), expected.as_bytes())) =>
            {
                states.remove(&flow);
                true
            }
            _ => false,
        }
    };
    if !known {
        return page_of(
            StatusCode::BAD_REQUEST,
            "This setup flow is unknown, expired, or was started in another browser: start again from /setup in this browser.",
        );
    }
    if setup
        .converting
        .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        return page_of(
            StatusCode::CONFLICT,
            "Another setup callback is being handled; reload this page in a moment.",
        );
    }
    let answer = convert_and_write(&state, &code).await;
    setup.converting.store(false, Ordering::SeqCst);
    answer
}

async fn convert_and_write(state: &AppState, code: &str) -> Response {
    let setup = &state.setup;
    let app = match crate::github::app_api::convert_manifest(&setup.api_url, code).await {
        Ok(a) => a,
        Err(e) => {
            // The code is a credential (it converts into the App's key): never logged.
            tracing::warn!(error = %e, "manifest conversion failed");
            return page_of(
                StatusCode::BAD_GATEWAY,
                &format!("GitHub did not convert the registration: {e}"),
            );
        }
    };
    let mut values = vec![
        ("GITHUB_APP_ID", app.id.to_string()),
        (
            "GITHUB_APP_PRIVATE_KEY",
            format!("\"{}\"", app.pem.trim().replace('\n', "\\n")),
        ),
    ];
    if let Some(s) = &app.webhook_secret {
        values.push(("GITHUB_WEBHOOK_SECRET", s.clone()));
    }
    if let (Some(id), Some(secret)) = (&app.client_id, &app.client_secret) {
        values.push(("GITHUB_CLIENT_ID", id.clone()));
        values.push(("GITHUB_CLIENT_SECRET", secret.clone()));
    }
    let path = setup.env_file.clone();
    let written = tokio::task::spawn_blocking(move || env_file::write(&path, &values))
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(|r| r);
    if let Err(e) = written {
        tracing::error!(error = %e, path = %setup.env_file.display(), "writing the App's credentials failed");
        return page_of(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("Could not write {}: {e}", setup.env_file.display()),
        );
    }
    setup.done.store(true, Ordering::SeqCst);
    tracing::info!(app_id = app.id, slug = app.slug.as_deref().unwrap_or(""), path = %setup.env_file.display(), "GitHub App registered; credentials written; setup is now closed");
    let install = app
        .html_url
        .as_deref()
        .map(|u| format!("{u}/installations/new"))
        .unwrap_or_default();
    Html(format!(
        "<!doctype html><html><body><h1>repro-gate is registered</h1><p>App id {} was written to <code>{}</code> with its private key and webhook secret.</p>\
         <ol><li>Restart <code>repro-gate serve</code> so it reads them.</li><li>Install the App on your repositories: <a href=\"{i}\">{i}</a></li>\
         <li>Make <code>repro-gate</code> a required check in branch protection or a ruleset.</li></ol></body></html>",
        app.id,
        escape(&setup.env_file.display().to_string()),
        i = escape(&install),
    ))
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_hosts_from_api_urls() {
        assert_eq!(web_url("https://api.github.com"), "https://github.com");
        assert_eq!(
            web_url("https://ghe.acme.io/api/v3/"),
            "https://ghe.acme.io"
        );
        assert_eq!(web_url("http://127.0.0.1:9"), "http://127.0.0.1:9");
    }

    #[test]
    fn the_manifest_matches_the_deploy_template() {
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../deploy/app-manifest.json")).unwrap();
        let m = manifest("https://x");
        assert_eq!(m["default_permissions"], file["default_permissions"]);
        assert_eq!(m["default_events"], file["default_events"]);
    }

    #[test]
    fn loopback_urls_are_recognised() {
        for u in [
            "http://127.0.0.1:3000",
            "http://localhost",
            "http://[::1]:80/x",
            "http://0.0.0.0:3000",
        ] {
            assert!(is_loopback_url(u), "{u}");
        }
        for u in [
            "https://gate.acme.io",
            "http://10.0.0.5:3000",
            "https://abc.ngrok.app",
        ] {
            assert!(!is_loopback_url(u), "{u}");
        }
    }

    #[test]
    fn a_hostile_host_header_never_becomes_the_base_url() {
        let config = SetupConfig::new("https://api.github.com".into(), ".env".into(), None, None);
        let mut h = HeaderMap::new();
        h.insert(
            http::header::HOST,
            HeaderValue::from_static("evil.example\"><script>x</script>"),
        );
        assert_eq!(base_url(&config, &h), "http://localhost");
        h.insert(
            http::header::HOST,
            HeaderValue::from_static("gate.acme.io:8443"),
        );
        assert_eq!(base_url(&config, &h), "http://gate.acme.io:8443");
        let public = SetupConfig::new(
            "https://api.github.com".into(),
            ".env".into(),
            Some("https://gate.acme.io/".into()),
            None,
        );
        assert_eq!(base_url(&public, &h), "https://gate.acme.io");
    }
}
