//! `/dashboard/{owner}/{repo}/tests/{id}`, rendered from plain data (no IO): a test's status,
//! tier and why, its results over time, each failure with its run, commit, branch or PR and
//! message, and its reruns and verifications.

use maud::{Markup, html};

use super::charts::results_strip;
use super::data::TestView;
use super::pages::{layout, sessions, status_badge, ticket, tier_badge, when};
use crate::core::history::status::Marks;
use crate::core::history::window::Counted;
use crate::store::{DASHBOARD_WINDOW, FailureRow};

fn is_sha(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// One failure with its story: when, the run, the commit, the branch or PR, the message.
fn failure_item(v: &TestView, f: &FailureRow) -> Markup {
    let repo = &v.repository;
    let run_text = format!("run {} (attempt {})", f.run_id, f.attempt);
    html! {
        li class="failure" {
            div class="meta" {
                span class={"outcome " (f.outcome)} { (f.outcome) } " "
                (when(f.at_ms, v.now_ms)) " · "
                @match &f.run_url {
                    Some(u) if crate::core::markdown::is_web_link(u) => { a href=(u) { (run_text) } }
                    _ => { (run_text) }
                }
                " · commit "
                @if is_sha(&f.sha) {
                    a href={(v.web_url) "/" (repo) "/commit/" (f.sha)} { code { (f.sha.get(..10).unwrap_or(&f.sha)) } }
                } @else {
                    code { (f.sha) }
                }
                " · "
                @if let Some(pr) = f.pr {
                    a href={(v.web_url) "/" (repo) "/pull/" (pr)} { "PR #" (pr) }
                    @if !f.branch.is_empty() { " (" code { (f.branch) } ")" }
                } @else {
                    "branch " code { (f.branch) }
                }
            }
            @if let Some(m) = &f.message {
                pre class="message" { (m) }
            } @else {
                p { small { "The report gave no failure message." } }
            }
        }
    }
}

/// `/dashboard/{owner}/{repo}/tests/{id}`.
pub fn page(v: &TestView, login: &str) -> Markup {
    let t = &v.row;
    let outcomes: Vec<Counted> = t.window.last(DASHBOARD_WINDOW).collect();
    let marks = Marks::of(&t.window, DASHBOARD_WINDOW);
    // The failure that began its failing streak, when it is among those listed: the streak's
    // oldest counted failure.
    let since = (marks.tail_fails > 0)
        .then(|| {
            v.failures
                .iter()
                .filter(|f| f.class == "counted" && f.outcome == "fail")
                .nth(marks.tail_fails as usize - 1)
        })
        .flatten();
    layout(
        &t.test,
        Some(login),
        html! {
            nav class="crumbs" aria-label="Breadcrumb" { a href={"/dashboard/" (v.repository)} { (v.repository) } " / tests" }
            h1 { code { (t.test) } }
            p class="lede" {
                (status_badge(t.status)) " "
                (tier_badge(&t.tier)) @if !t.listed { " " small { "(the default tier: not listed in the file)" } }
                @if let Some(p) = &t.proposed_tier { " " small class="proposed" { "history proposes " (tier_badge(p)) } }
            }
            p class="why" { (v.why) }
            dl class="facts" {
                dt { "Pass rate" } dd { @if let Some(r) = t.pass_rate { (format!("{:.1}%", r * 100.0)) " of " (t.runs) " runs" } @else { "no counted run" } }
                dt { "Failures" } dd {
                    (t.failures) " in the window"
                    @if marks.flakes > 0 { ", " (marks.flakes) " of them flaky (failed, then passed, on one commit)" }
                    @if marks.tail_fails == 1 { "; its last run failed" } @else if marks.tail_fails > 1 { "; failing its last " (marks.tail_fails) " runs" } @if marks.tail_fails > 0 { @if let Some(f) = since { ", since " (when(f.at_ms, v.now_ms)) } }
                }
                dt { "First failure" } dd { (t.first_failure.as_deref().unwrap_or("none recorded")) }
                dt { "Last failure" } dd { (t.last_failure.as_deref().unwrap_or("none recorded")) }
                dt { "Owner" } dd { (t.owner.as_deref().unwrap_or("nobody named in the file")) }
                dt { "Ticket" } dd { @if let Some(x) = &t.ticket { (ticket(&v.web_url, &v.repository, x)) } @else { "none" } }
                @if let Some(n) = &t.note { dt { "Note" } dd { (n) } }
            }
            section aria-labelledby="results" {
                h2 id="results" { "Results over time" }
                (results_strip(&outcomes))
            }
            section aria-labelledby="failures" {
                h2 id="failures" { "Failures" }
                @if v.failures.is_empty() {
                    p { "No failure of this test is kept." }
                } @else {
                    p { small { (v.failures.len()) " newest of " (v.failures_kept) " kept, newest first." } }
                    ol class="failures" { @for f in &v.failures { (failure_item(v, f)) } }
                }
            }
            section aria-labelledby="sessions" {
                h2 id="sessions" { "Reruns and verifications" }
                (sessions(&v.repository, &v.web_url, &v.sessions, v.now_ms))
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard::pages::tests::{DAY, NOW, row, view};

    fn test_view() -> TestView {
        let mut r = row(
            "pool::Test<Beta>",
            "quarantined",
            &[false, true, false, true, true],
        );
        r.ticket = Some("#7".into());
        r.note = Some("Times out when <the pool> is cold".into());
        TestView {
            repository: "acme/pool".into(),
            web_url: "https://github.com".into(),
            now_ms: NOW,
            file_read_ms: Some(NOW - 60_000),
            why: "The history proposes probation: 3 failures.".into(),
            broken_after: 10,
            row: r,
            failures: vec![
                FailureRow {
                    run_id: "9102".into(),
                    attempt: 1,
                    outcome: "fail".into(),
                    class: "counted".into(),
                    sha: "0123456789abcdef0123456789abcdef01234567".into(),
                    branch: "main".into(),
                    pr: None,
                    run_url: Some("https://github.com/acme/pool/actions/runs/9102".into()),
                    at_ms: NOW - DAY,
                    message: Some("checkout deadline of 50ms exceeded\n<script>".into()),
                },
                FailureRow {
                    run_id: "9100".into(),
                    attempt: 2,
                    outcome: "flaky".into(),
                    class: "pull_request".into(),
                    sha: "not-a-sha".into(),
                    branch: "fix/pool".into(),
                    pr: Some(12),
                    run_url: Some("javascript:alert(1)".into()),
                    at_ms: NOW - 3 * DAY,
                    message: None,
                },
            ],
            failures_kept: 2,
            sessions: view().sessions,
        }
    }

    #[test]
    fn a_test_page_answers_when_where_what_and_who() {
        let html = page(&test_view(), "alice").into_string();
        for want in [
            "failing its last 2 runs",
            "run 9102 (attempt 1)",
            "href=\"https://github.com/acme/pool/actions/runs/9102\"",
            "href=\"https://github.com/acme/pool/commit/0123456789abcdef0123456789abcdef01234567\"",
            "href=\"https://github.com/acme/pool/pull/12\"",
            "checkout deadline of 50ms exceeded",
            "href=\"https://github.com/acme/pool/issues/7\"",
            "Times out when &lt;the pool&gt; is cold",
            "The history proposes probation",
        ] {
            assert!(html.contains(want), "{want}: {html}");
        }
        assert!(
            !html.contains("<script>") && !html.contains("<Beta>"),
            "escaped"
        );
        assert!(!html.contains("javascript:"), "only http(s) run links");
        insta::assert_snapshot!(html.replace('>', ">\n"));
    }
}
