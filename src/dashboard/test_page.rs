//! `/dashboard/{owner}/{repo}/tests/{id}`, rendered from plain data (no IO): a test's status,
//! tier and why, its results over time, each failure with its run, commit, branch or PR and
//! message, and its reruns and verifications.

use maud::{Markup, html};

use super::charts::{duration_chart, failure_rate_chart, results_strip};
use super::data::TestView;
use super::pages::{layout, sessions, status_badge, ticket, tier_badge, when};
use crate::core::history::status::Marks;
use crate::core::history::window::Counted;
use crate::store::{DASHBOARD_WINDOW, FailureRow};

fn is_sha(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A commit: a link when it is a SHA.
fn commit(v: &TestView, sha: &str) -> Markup {
    html! {
        @if is_sha(sha) {
            a href={(v.web_url) "/" (v.repository) "/commit/" (sha)} { code { (sha.get(..10).unwrap_or(sha)) } }
        } @else {
            code { (sha) }
        }
    }
}

/// A run: a link when its page is an http(s) URL.
fn run_ref(id: &str, url: Option<&str>) -> Markup {
    html! {
        @match url {
            Some(u) if crate::core::markdown::is_web_link(u) => { a href=(u) { "run " (id) } }
            _ => { "run " (id) }
        }
    }
}

/// Milliseconds as people read them.
fn ms_text(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
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
    let days = super::data::test_days(&t.window, v.now_ms);
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
                @if let Some(c) = &v.tier_set {
                    " " small class="since" {
                        (c.tier) " since " (when(c.at_ms, v.now_ms))
                        @if let Some(f) = &c.from { " (was " (f) ")" }
                        @if let Some(pr) = c.pr {
                            ", set by " a href={(v.web_url) "/" (v.repository) "/pull/" (pr)} { "PR #" (pr) }
                        } @else if let Some(sha) = &c.commit_sha {
                            ", set by commit " (commit(v, sha))
                        } @else {
                            ", seen when the file changed"
                        }
                        @if let Some(by) = &c.by_login { " by @" (by) }
                    }
                }
            }
            p class="why" { (v.why) }
            dl class="facts" {
                dt { "Pass rate" } dd { @if let Some(r) = t.pass_rate { (format!("{:.1}%", r * 100.0)) " passed on the first try, of " (t.runs) " runs (the rate the tiers use)" } @else { "no counted run" } }
                dt { "Failures" } dd {
                    (t.failures) " failed"
                    @if t.flaky > 0 { ", " (t.flaky) " flaky (failed, then passed on a retry)" }
                    " in the window"
                    @if marks.tail_fails == 1 { "; its last run failed" } @else if marks.tail_fails > 1 { "; failing its last " (marks.tail_fails) " runs" } @if marks.tail_fails > 0 { @if let Some(f) = since { ", since " (when(f.at_ms, v.now_ms)) } }
                }
                @if t.skipped > 0 { dt { "Skipped" } dd { "in " (t.skipped) " runs" @if t.runs == 0 { " (every run: it never ran)" } } }
                @if let (Some(p50), Some(p95)) = (t.duration_p50_ms, t.duration_p95_ms) {
                    dt { "Duration" } dd { "p50 " (ms_text(p50)) ", p95 " (ms_text(p95)) " (its recent timed runs)" }
                }
                dt { "First failure" } dd { (t.first_failure.as_deref().unwrap_or("none recorded")) }
                dt { "Last failure" } dd { (t.last_failure.as_deref().unwrap_or("none recorded")) }
                dt { "Owner" } dd { (t.owner.as_deref().unwrap_or("nobody named in the file")) }
                dt { "Ticket" } dd { @if let Some(x) = &t.ticket { (ticket(&v.web_url, &v.repository, x)) } @else { "none" } }
                @if let Some(n) = &t.note { dt { "Note" } dd { (n) } }
            }
            @if let Some(o) = &t.onset {
                section aria-labelledby="onset" {
                    h2 id="onset" { "Since when" }
                    p {
                        "Failing since " (when(o.at_ms, v.now_ms)) ": " (o.failures) " of its " (o.results) " results since then failed. "
                        "First failing commit " (commit(v, &o.first_fail_sha))
                        @if let Some(lp) = &o.last_pass_sha {
                            ", last passing commit before it " (commit(v, lp))
                            @if is_sha(lp) && is_sha(&o.first_fail_sha) {
                                " (" a href={(v.web_url) "/" (v.repository) "/compare/" (lp) "..." (o.first_fail_sha)} { "what changed between them" } ")"
                            }
                        } @else {
                            "; it has not passed since it first appeared"
                        }
                        "."
                    }
                }
            }
            section aria-labelledby="results" {
                h2 id="results" { "Results over time" }
                (results_strip(&outcomes))
                (failure_rate_chart("Failed and flaky results per day on the tracked branches", &days))
                @if days.iter().any(|d| d.timed > 0) {
                    (duration_chart("Mean duration per day, from the reports' timings", &days))
                }
            }
            section aria-labelledby="reasons" {
                h2 id="reasons" { "Failures by reason" }
                @if v.reasons.is_empty() {
                    p { "No failure of this test is kept." }
                } @else {
                    p { small {
                        @if v.reasons.len() == 1 { "One reason" } @else { (v.reasons.len()) " different reasons" }
                        " in its " (v.reasons_of) " newest failures; numbers, addresses, durations, temporary paths and ids masked."
                    } }
                    table class="reasons" {
                        thead { tr { th scope="col" { "Reason" } th scope="col" class="num" { "Failures" } th scope="col" { "First" } th scope="col" { "Last" } } }
                        tbody {
                            @for r in &v.reasons {
                                tr {
                                    td data-label="Reason" { pre class="message" { (r.reason) } details { summary { "Example" } pre class="message" { (r.example) } } }
                                    td class="num" data-label="Failures" { (r.count) }
                                    td data-label="First" { (run_ref(&r.first_run, r.first_run_url.as_deref())) " " (when(r.first_ms, v.now_ms)) }
                                    td data-label="Last" { (run_ref(&r.last_run, r.last_run_url.as_deref())) " " (when(r.last_ms, v.now_ms)) }
                                }
                            }
                        }
                    }
                }
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
        r.onset = Some(crate::store::OnsetRow {
            last_pass_sha: Some("1111111111111111111111111111111111111111".into()),
            first_fail_sha: "2222222222222222222222222222222222222222".into(),
            at: "2025-11-28T00:00:00Z".into(),
            at_ms: NOW - 3 * DAY,
            results: 3,
            failures: 2,
        });
        let mut v = TestView {
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
            reasons: Vec::new(),
            reasons_of: 2,
            tier_set: Some(crate::store::TierChange {
                repository: "acme/pool".into(),
                test: "pool::Test<Beta>".into(),
                from: Some("probation".into()),
                tier: "quarantined".into(),
                at_ms: NOW - 5 * DAY,
                commit_sha: Some("3333333333333333333333333333333333333333".into()),
                pr: Some(311),
                by_login: Some("carol".into()),
            }),
            sessions: view().sessions,
        };
        v.reasons = crate::core::history::reasons::group(v.failures.iter().map(|f| {
            crate::core::history::reasons::Failure {
                run_id: &f.run_id,
                run_url: f.run_url.as_deref(),
                at_ms: f.at_ms,
                message: f.message.as_deref(),
            }
        }));
        v
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
            "2 different reasons",
            "quarantined since",
            "(was probation), set by",
            "href=\"https://github.com/acme/pool/pull/311\"",
            " by @carol",
            "checkout deadline of &lt;duration&gt; exceeded",
            "Failing since",
            "href=\"https://github.com/acme/pool/compare/1111111111111111111111111111111111111111...2222222222222222222222222222222222222222\"",
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
