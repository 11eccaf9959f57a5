//! `GET /setup`: what to configure before the service can act as a GitHub App.

use axum::extract::State;
use axum::response::Html;

use super::AppState;

pub async fn page(State(state): State<AppState>) -> Html<String> {
    let status = if state.webhook_secrets.is_some() {
        "<p><strong>The GitHub App is configured.</strong> Nothing to do here.</p>".to_string()
    } else {
        let missing: String = state
            .missing_credentials
            .iter()
            .map(|m| format!("<li><code>{m}</code></li>"))
            .collect();
        format!(
            "<p><strong>repro-gate is in setup mode.</strong> Webhooks answer 503 until these are set:</p>\
             <ul>{missing}</ul>"
        )
    };
    Html(format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>repro-gate setup</title></head>
<body>
<h1>repro-gate setup</h1>
{status}
<ol>
<li>Register a GitHub App (Settings → Developer settings → GitHub Apps → New) with the webhook URL
<code>https://&lt;your host&gt;/api/github/webhooks</code> and a webhook secret.</li>
<li>Permissions: Checks write, Pull requests write, Issues write, Contents read, Metadata read,
Actions read, Members read. Events: Pull request, Check run, Check suite, Issue comment,
Merge group, Installation, Installation repositories.</li>
<li>Set <code>GITHUB_APP_ID</code>, <code>GITHUB_APP_PRIVATE_KEY_PATH</code> (or
<code>GITHUB_APP_PRIVATE_KEY</code>) and <code>GITHUB_WEBHOOK_SECRET</code> in the environment or
in <code>.env</code>, then restart <code>repro-gate serve</code>.</li>
</ol>
</body></html>
"#
    ))
}
