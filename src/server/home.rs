//! `GET /`: what this service is and where to go next (setup, the dashboard, health, the docs),
//! so a first-time visitor does not have to find `/setup` in the log.

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

use super::AppState;

pub async fn page(State(state): State<AppState>) -> Response {
    let configured = state.webhook_secrets.is_some();
    let html = render(configured, state.dashboard_on);
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(html),
    )
        .into_response()
}

/// The page, from whether the App's credentials and the dashboard's sign-in are configured.
fn render(configured: bool, dashboard: bool) -> String {
    let status = if configured {
        "<p>The GitHub App is configured: webhooks are accepted at <code>/api/github/webhooks</code>.</p>"
    } else {
        "<p><strong>Not configured yet.</strong> This service runs in setup mode: webhooks answer 503 until the App's id, private key and webhook secret are set. <a href=\"/setup\">Open the setup page</a> to register the App on GitHub (it writes them to <code>.env</code>), or set them by hand and restart.</p>"
    };
    let dashboard = if dashboard {
        "<li><a href=\"/dashboard\">Dashboard</a>: each repository's tests, tiers, flakiness and history (sign in with GitHub).</li>"
    } else {
        "<li>Dashboard: off. Set <code>GITHUB_CLIENT_ID</code> and <code>GITHUB_CLIENT_SECRET</code> (the App's OAuth client) to turn it on at <code>/dashboard</code>.</li>"
    };
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>repro-gate</title></head>\
<body style=\"font-family: system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5\">\
<h1>repro-gate</h1>\
<p><strong>No deterministic reproduction, no concurrency PR.</strong> A GitHub App that labels pull requests touching concurrency code, blocks them with a required check run until a reproduction exists and runs it, tells people and agents when a failing check is a quarantined test, and keeps <code>.ci/test-reliability.yaml</code> true from CI history.</p>\
{status}<ul>{dashboard}\
<li><a href=\"/healthz\">/healthz</a> (alive) and <a href=\"/readyz\">/readyz</a> (ready for webhooks); <a href=\"/metrics\">/metrics</a> for Prometheus.</li>\
<li>Documentation: <code>README.md</code> and <code>docs/</code> in the source of this service (configuration, the rule, verification, the dashboard).</li>\
</ul></body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn the_page_points_to_setup_until_configured_and_to_the_dashboard_when_it_is_on() {
        let fresh = render(false, false);
        assert!(fresh.contains("href=\"/setup\""), "{fresh}");
        assert!(fresh.contains("GITHUB_CLIENT_ID"), "{fresh}");
        assert!(fresh.contains("/healthz"));
        let running = render(true, true);
        assert!(!running.contains("href=\"/setup\""), "{running}");
        assert!(running.contains("href=\"/dashboard\""), "{running}");
    }
}
