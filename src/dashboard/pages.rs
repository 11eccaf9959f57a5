//! The pages, rendered from plain data (no IO): `/dashboard`, `/dashboard/{owner}/{repo}` and
//! short messages. Links sort, filter and page; nothing needs JavaScript. Every value from a
//! repository or a log is escaped by the template.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::charts::{Series, sparkline, stacked_bars};
use super::data::{IndexView, RepoView};
use super::when::{relative, rfc3339, utc};
use crate::store::{TestQuery, TestSort};

const TIERS: [&str; 3] = ["quarantined", "probation", "trusted"];

fn when(ms: i64, now: i64) -> Markup {
    html! { time datetime=(rfc3339(ms)) title=(utc(ms)) { (relative(ms, now)) } }
}

fn layout(title: &str, login: Option<&str>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · repro-gate" }
                link rel="stylesheet" href="/dashboard/style.css";
            }
            body {
                header class="top" {
                    a href="/dashboard" class="brand" { "repro-gate" }
                    @if let Some(l) = login {
                        form method="post" action="/dashboard/logout" class="who" {
                            span { "Signed in as " strong { (l) } }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// A short page with a status (sign-in problems, not found).
pub fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let page = layout(
        title,
        None,
        html! {
            h1 { (title) }
            p { (text) }
            p { a href="/dashboard" { "Back to the dashboard" } }
        },
    );
    (status, Html(page.into_string())).into_response()
}

/// The 404 for anything a visitor may not see (it does not confirm the repository exists).
pub fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no such page, or you cannot read it.",
    )
}

fn tier_badge(tier: &str) -> Markup {
    html! { span class={"tier " (tier)} { (tier) } }
}

fn counts(c: &crate::store::RepoSummary) -> Markup {
    html! {
        span class="counts" {
            span class="tier quarantined" { (c.quarantined) " quarantined" }
            " "
            span class="tier probation" { (c.probation) " probation" }
            " "
            span class="tier trusted" { (c.trusted) " trusted" }
        }
    }
}

/// `/dashboard`.
pub fn index(v: &IndexView) -> Markup {
    layout(
        "Repositories",
        Some(&v.login),
        html! {
            h1 { "Repositories" }
            @if v.repos.is_empty() {
                p { "None of the repositories you can read has the App installed, or none has recorded test results yet." }
            } @else {
                div class="scroll" { table class="repos" {
                    caption { "Repositories you can read, with their tests by tier" }
                    thead { tr { th scope="col" { "Repository" } th scope="col" { "Tests by tier" } th scope="col" { "Tier changes, last 30 days" } } }
                    tbody {
                        @for (r, changes) in &v.repos {
                            tr {
                                th scope="row" { a href={"/dashboard/" (r.repository)} { (r.repository) } }
                                td { (counts(r)) }
                                td {
                                    @if changes.is_empty() { "none" } @else {
                                        ul class="changes" {
                                            @for c in changes {
                                                li { code { (c.test) } " → " (tier_badge(&c.tier)) " " (when(c.at_ms, v.now_ms)) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                } }
            }
        },
    )
}

/// The link to a page of tests with these settings.
pub fn query_link(
    repo: &str,
    q: &TestQuery,
    tier: Option<&str>,
    sort: TestSort,
    page: u32,
) -> String {
    let per_page = q.per_page;
    let mut q = vec![format!("sort={}", sort.as_str())];
    if let Some(t) = tier {
        q.push(format!("tier={t}"));
    }
    if page > 1 {
        q.push(format!("page={page}"));
    }
    if per_page != super::PER_PAGE {
        q.push(format!("per_page={per_page}"));
    }
    format!("/dashboard/{repo}?{}", q.join("&"))
}

fn week_label(ms: i64) -> String {
    utc(ms).get(5..10).unwrap_or("").to_string()
}

fn tests_table(v: &RepoView) -> Markup {
    let q: &TestQuery = &v.query;
    let tier = q.tier.as_deref();
    let pages = v.page.total.div_ceil(u64::from(q.per_page.max(1))).max(1);
    let sort_link = |s: TestSort, label: &str| -> Markup {
        let current = q.sort == s;
        html! {
            a href=(query_link(&v.repository, q, tier, s, 1)) aria-current=[current.then_some("true")] { (label) @if current { " ▾" } }
        }
    };
    html! {
        nav class="filters" aria-label="Filter by tier" {
            a href=(query_link(&v.repository, q, None, q.sort, 1)) aria-current=[tier.is_none().then_some("true")] { "All" }
            @for t in TIERS {
                " "
                a href=(query_link(&v.repository, q, Some(t), q.sort, 1)) aria-current=[(tier == Some(t)).then_some("true")] class={"tier " (t)} { (t) }
            }
        }
        div class="scroll" {
            table class="tests" {
                caption { (v.page.total) " tests" @if let Some(t) = tier { " in " (t) } ", page " (q.page) " of " (pages) }
                thead {
                    tr {
                        th scope="col" { (sort_link(TestSort::Name, "Test")) }
                        th scope="col" { (sort_link(TestSort::Tier, "Tier")) }
                        th scope="col" class="num" { (sort_link(TestSort::PassRate, "Pass rate")) }
                        th scope="col" class="num" { (sort_link(TestSort::Runs, "Runs")) }
                        th scope="col" { "Last runs" }
                        th scope="col" { "Owner" }
                        th scope="col" { "Ticket" }
                    }
                }
                tbody {
                    @for t in &v.page.tests {
                        tr {
                            th scope="row" class="id" { code { (t.test) } }
                            td {
                                (tier_badge(&t.tier))
                                @if !t.listed { " " small { "(default)" } }
                                @if let Some(p) = &t.proposed_tier { " " small class="proposed" { "history proposes " (tier_badge(p)) } }
                            }
                            td class="num" { @if let Some(r) = t.pass_rate { (format!("{:.1}%", r * 100.0)) } @else { "–" } }
                            td class="num" { (t.runs) }
                            td { (sparkline(&t.recent)) }
                            td { (t.owner.as_deref().unwrap_or("")) }
                            td { (t.ticket.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        }
        @if pages > 1 {
            nav class="pages" aria-label="Pages" {
                @if q.page > 1 { a href=(query_link(&v.repository, q, tier, q.sort, q.page - 1)) rel="prev" { "← Previous" } " " }
                span { "Page " (q.page) " of " (pages) }
                @if u64::from(q.page) < pages { " " a href=(query_link(&v.repository, q, tier, q.sort, q.page + 1)) rel="next" { "Next →" } }
            }
        }
    }
}

/// `/dashboard/{owner}/{repo}`.
pub fn repo(v: &RepoView, login: &str) -> Markup {
    let labels: Vec<String> = v.gate_weeks.iter().map(|w| week_label(w.week_ms)).collect();
    let gate = stacked_bars(
        "Gate outcomes per week",
        &labels,
        &[
            Series {
                name: "evidence found",
                class: "evidence",
                values: v.gate_weeks.iter().map(|w| w.evidence).collect(),
            },
            Series {
                name: "verified",
                class: "verified",
                values: v.gate_weeks.iter().map(|w| w.verified).collect(),
            },
            Series {
                name: "overridden",
                class: "overridden",
                values: v.gate_weeks.iter().map(|w| w.overridden).collect(),
            },
            Series {
                name: "exempted",
                class: "exempted",
                values: v.gate_weeks.iter().map(|w| w.exempted).collect(),
            },
            Series {
                name: "blocked",
                class: "blocked",
                values: v.gate_weeks.iter().map(|w| w.blocked).collect(),
            },
        ],
    );
    let clabels: Vec<String> = v
        .change_weeks
        .iter()
        .map(|w| week_label(w.week_ms))
        .collect();
    let changes = stacked_bars(
        "Tier changes per week",
        &clabels,
        &[
            Series {
                name: "to quarantined",
                class: "quarantined",
                values: v.change_weeks.iter().map(|w| w.quarantined).collect(),
            },
            Series {
                name: "to probation",
                class: "probation",
                values: v.change_weeks.iter().map(|w| w.probation).collect(),
            },
            Series {
                name: "to trusted",
                class: "trusted",
                values: v.change_weeks.iter().map(|w| w.trusted).collect(),
            },
        ],
    );
    layout(
        &v.repository,
        Some(login),
        html! {
            h1 { (v.repository) }
            p class="lede" {
                (counts(&v.counts))
                br;
                small {
                    "Tiers from the default branch's reliability file"
                    @if let Some(r) = v.file_read_ms { ", read " (when(r, v.now_ms)) } @else { " (not read yet: every test shows the default tier, " (v.default_tier) ")" }
                    "."
                }
            }
            @if let Some((n, at)) = v.pull_request {
                p class="pull" {
                    "Reliability pull request: "
                    a href={(v.web_url) "/" (v.repository) "/pull/" (n)} { "#" (n) }
                    " (last opened or updated " (when(at, v.now_ms)) ")"
                }
            }
            section aria-labelledby="tests" {
                h2 id="tests" { "Tests" }
                (tests_table(v))
            }
            div class="grid" {
                section aria-labelledby="changes" {
                    h2 id="changes" { "Tier changes" }
                    (changes)
                    details {
                        summary { "Recent tier changes" }
                        @if v.changes.is_empty() { p { "No tier change in the last 12 weeks." } } @else {
                            table {
                                thead { tr { th scope="col" { "Test" } th scope="col" { "To" } th scope="col" { "When" } } }
                                tbody { @for c in &v.changes { tr { td { code { (c.test) } } td { (tier_badge(&c.tier)) } td { (when(c.at_ms, v.now_ms)) } } } }
                            }
                        }
                    }
                }
                section aria-labelledby="gate" {
                    h2 id="gate" { "Gate outcomes" }
                    (gate)
                    details {
                        summary { "Numbers per week" }
                        div class="scroll" { table {
                            thead { tr { th scope="col" { "Week of" } th scope="col" class="num" { "Evidence" } th scope="col" class="num" { "Verified" } th scope="col" class="num" { "Overridden" } th scope="col" class="num" { "Exempted" } th scope="col" class="num" { "Blocked" } } }
                            tbody { @for w in &v.gate_weeks { tr { td { (utc(w.week_ms).get(0..10).unwrap_or("")) } td class="num" { (w.evidence) } td class="num" { (w.verified) } td class="num" { (w.overridden) } td class="num" { (w.exempted) } td class="num" { (w.blocked) } } } }
                        } }
                    }
                }
            }
            section aria-labelledby="sessions" {
                h2 id="sessions" { "Recent reruns and verifications" }
                @if v.sessions.is_empty() { p { "None yet." } } @else {
                    div class="scroll" {
                        table {
                            thead { tr { th scope="col" { "PR" } th scope="col" { "Kind" } th scope="col" { "Test" } th scope="col" { "Outcome" } th scope="col" { "Sides" } th scope="col" { "Started" } } }
                            tbody {
                                @for s in &v.sessions {
                                    tr {
                                        td { a href={(v.web_url) "/" (v.repository) "/pull/" (s.pr)} { "#" (s.pr) } }
                                        td { (if s.purpose == "verify" { "verification" } else { "rerun" }) }
                                        td class="id" { code { (s.test) } }
                                        td { (s.outcome) }
                                        td {
                                            @for (side, text, url) in &s.sides {
                                                @match url {
                                                    Some(u) if u.starts_with("https://") || u.starts_with("http://") => { a href=(u) { (side) ": " (text) } " " }
                                                    _ => { (side) ": " (text) " " }
                                                }
                                            }
                                        }
                                        td { (when(s.created_ms, v.now_ms)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// After signing out.
pub fn signed_out() -> Markup {
    layout(
        "Signed out",
        None,
        html! {
            h1 { "Signed out" }
            p { a href="/dashboard" { "Sign in again" } }
        },
    )
}

/// The one stylesheet.
pub const STYLE: PreEscaped<&str> = PreEscaped(include_str!("style.css"));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard::data::{ChangeWeek, SessionLine};
    use crate::store::{GateWeek, RepoSummary, TestPage, TestRow, TierChange};

    const NOW: i64 = 1_764_547_200_000; // 2025-12-01 00:00 UTC
    const DAY: i64 = 86_400_000;

    fn row(test: &str, tier: &str, runs: i64, failures: i64, recent: &[bool]) -> TestRow {
        TestRow {
            test: test.into(),
            tier: tier.into(),
            listed: tier != "probation",
            proposed_tier: (test.ends_with("Beta")).then(|| "probation".into()),
            runs,
            failures,
            pass_rate: Some(1.0 - failures as f64 / runs as f64),
            owner: Some("platform".into()),
            ticket: (tier == "quarantined").then(|| "PLAT-2024".into()),
            recent: recent.to_vec(),
            updated_ms: NOW - DAY,
        }
    }

    fn view() -> RepoView {
        RepoView {
            repository: "acme/pool".into(),
            web_url: "https://github.com".into(),
            now_ms: NOW,
            query: TestQuery {
                tier: None,
                sort: TestSort::Tier,
                page: 1,
                per_page: 2,
            },
            default_tier: "probation".into(),
            file_read_ms: Some(NOW - 120_000),
            counts: RepoSummary {
                repository: "acme/pool".into(),
                trusted: 1,
                probation: 1,
                quarantined: 1,
            },
            page: TestPage {
                tests: vec![
                    row(
                        "pool::TestBeta",
                        "quarantined",
                        5,
                        2,
                        &[true, false, true, false, false],
                    ),
                    row("pool::Test<Gamma>&\"x\"", "probation", 5, 0, &[false; 5]),
                ],
                total: 3,
            },
            changes: vec![TierChange {
                repository: "acme/pool".into(),
                test: "pool::TestBeta".into(),
                tier: "quarantined".into(),
                at_ms: NOW - 9 * DAY,
            }],
            change_weeks: vec![
                ChangeWeek {
                    week_ms: NOW - 14 * DAY,
                    ..Default::default()
                },
                ChangeWeek {
                    week_ms: NOW - 7 * DAY,
                    quarantined: 1,
                    ..Default::default()
                },
            ],
            pull_request: Some((42, NOW - DAY)),
            sessions: vec![SessionLine {
                purpose: "verify".into(),
                pr: 7,
                test: "pool::TestLostWakeup".into(),
                outcome: "verified".into(),
                created_ms: NOW - 3_600_000,
                sides: vec![
                    (
                        "branch".into(),
                        "0/20 failed".into(),
                        Some("https://github.com/acme/pool/actions/runs/1".into()),
                    ),
                    (
                        "base".into(),
                        "20/20 failed".into(),
                        Some("javascript:alert(1)".into()),
                    ),
                ],
            }],
            gate_weeks: vec![
                GateWeek {
                    week_ms: NOW - 7 * DAY,
                    evidence: 1,
                    verified: 2,
                    ..Default::default()
                },
                GateWeek {
                    week_ms: NOW,
                    overridden: 1,
                    blocked: 1,
                    ..Default::default()
                },
            ],
        }
    }

    #[test]
    fn the_repository_page_for_a_fixed_history() {
        let html = repo(&view(), "alice").into_string();
        assert!(!html.contains("<Gamma>"), "names are escaped");
        assert!(
            !html.contains("javascript:"),
            "only http(s) run links become links"
        );
        insta::assert_snapshot!(html.replace('>', ">\n"));
    }

    #[test]
    fn the_index_for_a_fixed_history() {
        let v = IndexView {
            login: "alice".into(),
            now_ms: NOW,
            repos: vec![(view().counts, view().changes)],
        };
        insta::assert_snapshot!(index(&v).into_string().replace('>', ">\n"));
    }

    #[test]
    fn paging_links_keep_the_filter_and_sort() {
        let v = view();
        let html = repo(&v, "alice").into_string();
        assert!(
            html.contains("href=\"/dashboard/acme/pool?sort=tier&amp;page=2&amp;per_page=2\""),
            "next page"
        );
        assert!(
            html.contains(
                "href=\"/dashboard/acme/pool?sort=tier&amp;tier=quarantined&amp;per_page=2\""
            ),
            "filter"
        );
        assert!(
            html.contains("href=\"/dashboard/acme/pool?sort=pass_rate&amp;per_page=2\""),
            "sort"
        );
        assert!(html.contains("Page 1 of 2"));
    }
}
