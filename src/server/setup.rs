//! Setup mode: `GET /setup` explains what to configure and offers GitHub's App manifest flow
//! (for a user or an organisation, on github.com or the GitHub Enterprise host of
//! `GITHUB_API_URL`); `GET /setup/callback` exchanges the code for the App's id, key and
//! webhook secret and writes them to `.env` (mode 0600, never logged).

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::AppState;

/// What the setup flow needs.
#[derive(Debug)]
pub struct SetupConfig {
    pub api_url: String,
    pub env_file: PathBuf,
    /// `state` values handed out, checked on the callback (at most a few hundred kept).
    pub states: Mutex<HashSet<String>>,
}

impl SetupConfig {
    pub fn new(api_url: String, env_file: PathBuf) -> Self {
        SetupConfig {
            api_url,
            env_file,
            states: Mutex::new(HashSet::new()),
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
            "contents": "read", "metadata": "read", "actions": "read", "members": "read"
        },
        "default_events": ["pull_request", "check_run", "check_suite", "issue_comment", "merge_group"]
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

fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("http");
    format!("{proto}://{host}")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[derive(Deserialize)]
pub struct SetupQuery {
    org: Option<String>,
}

pub async fn page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<SetupQuery>,
) -> Html<String> {
    if state.webhook_secrets.is_some() {
        return Html("<!doctype html><html><body><h1>repro-gate</h1><p><strong>The GitHub App is configured.</strong> Nothing to do here.</p></body></html>".into());
    }
    let base = base_url(&headers);
    let web = web_url(&state.setup.api_url);
    let token: String = (0..24)
        .map(|_| format!("{:x}", rand::random::<u8>() % 16))
        .collect();
    {
        let mut states = state.setup.states.lock().unwrap_or_else(|e| e.into_inner());
        if states.len() > 500 {
            states.clear();
        }
        states.insert(token.clone());
    }
    let org = q
        .org
        .filter(|o| !o.is_empty() && o.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    let action = match &org {
        Some(o) => format!("{web}/organizations/{o}/settings/apps/new?state={token}"),
        None => format!("{web}/settings/apps/new?state={token}"),
    };
    let who = org
        .as_deref()
        .map(|o| format!("the organisation <code>{}</code>", escape(o)))
        .unwrap_or_else(|| "your account".into());
    let missing: String = state
        .missing_credentials
        .iter()
        .map(|m| format!("<li><code>{m}</code></li>"))
        .collect();
    Html(format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>repro-gate setup</title></head>
<body>
<h1>repro-gate setup</h1>
<p><strong>repro-gate is in setup mode.</strong> Webhooks answer 503 until these are set:</p>
<ul>{missing}</ul>
<h2>Register the GitHub App</h2>
<form action="{action}" method="post">
  <input type="hidden" name="manifest" value="{manifest}">
  <button type="submit">Register repro-gate on {who}</button>
</form>
<form action="/setup" method="get">
  <label>Or on an organisation: <input name="org" placeholder="my-org"></label>
  <button type="submit">Use this organisation</button>
</form>
<p>GitHub sends you back to <code>{base}/setup/callback</code>; the App's id, private key and
webhook secret are written to <code>{env}</code> (mode 0600). Restart <code>repro-gate serve</code>
afterwards and install the App on your repositories.</p>
<h2>Or by hand</h2>
<ol>
<li>Register a GitHub App with the webhook URL <code>{base}/api/github/webhooks</code> and a secret;
permissions Checks write, Pull requests write, Issues write, Contents read, Metadata read, Actions
read, Members read; events Pull request, Check run, Check suite, Issue comment, Merge group.</li>
<li>Set <code>GITHUB_APP_ID</code>, <code>GITHUB_APP_PRIVATE_KEY_PATH</code> (or
<code>GITHUB_APP_PRIVATE_KEY</code>) and <code>GITHUB_WEBHOOK_SECRET</code>, then restart.</li>
</ol>
</body></html>
"#,
        manifest = escape(&manifest(&base).to_string()),
        env = escape(&state.setup.env_file.display().to_string()),
    ))
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
}

pub async fn callback(State(state): State<AppState>, Query(q): Query<CallbackQuery>) -> Response {
    let fail = |status: StatusCode, msg: &str| {
        (
            status,
            Html(format!(
                "<!doctype html><html><body><h1>repro-gate setup</h1><p>{}</p></body></html>",
                escape(msg)
            )),
        )
            .into_response()
    };
    if state.webhook_secrets.is_some() {
        return fail(
            StatusCode::CONFLICT,
            "The App is already configured; the setup callback is closed.",
        );
    }
    let (Some(code), Some(token)) = (q.code, q.state) else {
        return fail(
            StatusCode::BAD_REQUEST,
            "The callback needs the `code` and `state` GitHub sends.",
        );
    };
    let known = state
        .setup
        .states
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&token);
    if !known {
        return fail(
            StatusCode::BAD_REQUEST,
            "Unknown `state`: start again from /setup.",
        );
    }
    let app = match crate::github::app_api::convert_manifest(&state.setup.api_url, &code).await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(error = %e, "manifest conversion failed");
            return fail(
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
    if let Err(e) = write_env(&state.setup.env_file, &values) {
        tracing::error!(error = %e, path = %state.setup.env_file.display(), "writing the App's credentials failed");
        return fail(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("Could not write {}: {e}", state.setup.env_file.display()),
        );
    }
    tracing::info!(app_id = app.id, slug = app.slug.as_deref().unwrap_or(""), path = %state.setup.env_file.display(), "GitHub App registered; credentials written");
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
        escape(&state.setup.env_file.display().to_string()),
        i = escape(&install),
    ))
    .into_response()
}

/// Replaces or appends `KEY=value` lines, writing the file with mode 0600 (a temp file renamed
/// into place, so a crash never leaves half a key).
pub fn write_env(path: &Path, values: &[(&str, String)]) -> std::io::Result<()> {
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines: Vec<String> = existing
        .lines()
        .filter(|l| {
            !values
                .iter()
                .any(|(k, _)| l.trim_start().starts_with(&format!("{k}=")))
        })
        .map(str::to_string)
        .collect();
    for (k, v) in values {
        lines.push(format!("{k}={v}"));
    }
    let tmp = path.with_extension("tmp");
    {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp)?;
        f.write_all((lines.join("\n") + "\n").as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
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
}
