//! The pages, rendered from plain data (no IO): `/dashboard`, `/dashboard/{owner}/{repo}`,
//! short messages, and the parts every page shares (a test's page is `test_page.rs`). Links sort, filter and page; nothing needs JavaScript. Every value from a
//! repository or a log is escaped by the template.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::charts::{Series, failure_rate_chart, sparkline, stacked_bars};
use super::data::{IndexView, RepoView, SessionLine};
use super::when::{relative, rfc3339, utc};
use crate::core::history::status::Status;
use crate::store::{TestQuery, TestSort};

const TIERS: [&str; 3] = ["quarantined", "probation", "trusted"];

pub(super) fn when(ms: i64, now: i64) -> Markup {
    html! { time datetime=(rfc3339(ms)) title=(utc(ms)) { (relative(ms, now)) } }
}

pub(super) fn layout(title: &str, login: Option<&str>, body: Markup) -> Markup {
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

pub(super) fn tier_badge(tier: &str) -> Markup {
    html! { span class={"tier " (tier)} { (tier) } }
}

/// Tier counts, each a link to the repository's tests of that tier.
fn counts(c: &crate::store::RepoSummary) -> Markup {
    html! {
        span class="counts" {
            @for t in TIERS {
                a class={"tier " (t)} href={"/dashboard/" (c.repository) "?tier=" (t)} { (c.of_tier(t)) " " (t) } " "
            }
        }
    }
}

pub(super) fn status_badge(s: Status) -> Markup {
    html! { span class={"status " (s.as_str())} { (s.label()) } }
}

/// The page of one test.
pub fn test_href(repo: &str, test: &str) -> String {
    format!(
        "/dashboard/{repo}/tests/{}",
        crate::github::encode_query(test)
    )
}

/// A test id, linked to its page.
pub(super) fn test_link(repo: &str, test: &str) -> Markup {
    html! { a class="id" href=(test_href(repo, test)) title=(test) { code { (breakable(test)) } } }
}

/// An id that a narrow column breaks after its separators (`/`, `::`, `.`, `_`, `-`, `›`), not
/// mid-word: a `<wbr>` after each.
pub(super) fn breakable(id: &str) -> Markup {
    let mut parts: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in id.char_indices() {
        let next = i + c.len_utf8();
        let sep = matches!(c, '/' | '.' | '_' | '-' | '›' | '#')
            || (c == ':' && !id[next..].starts_with(':'));
        if sep && next < id.len() {
            parts.push(&id[start..next]);
            start = next;
        }
    }
    parts.push(&id[start..]);
    html! { @for (i, p) in parts.iter().enumerate() { @if i > 0 { wbr; } (p) } }
}

/// A ticket: a link when it is an http(s) URL or `#N` (an issue of the repository).
pub(super) fn ticket(web_url: &str, repo: &str, t: &str) -> Markup {
    let issue = t
        .strip_prefix('#')
        .filter(|n| !n.is_empty() && n.len() < 10 && n.bytes().all(|b| b.is_ascii_digit()));
    html! {
        @if crate::core::markdown::is_web_link(t) {
            a href=(t) rel="noreferrer" { (t) }
        } @else if let Some(n) = issue {
            a href={(web_url) "/" (repo) "/issues/" (n)} { (t) }
        } @else {
            (t)
        }
    }
}

/// The `q=` that gives back this query's text and owner (tier and status have their own
/// parameters).
pub fn query_text(q: &TestQuery) -> String {
    let mut parts = Vec::new();
    if !q.text.is_empty() {
        parts.push(q.text.clone());
    }
    if let Some(o) = &q.owner {
        parts.push(format!("owner:{o}"));
    }
    parts.join(" ")
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
                    thead { tr { th scope="col" { "Repository" } th scope="col" { "Tests by tier and status" } th scope="col" { "Tier changes merged, last 30 days" } } }
                    tbody {
                        @for (r, changes) in &v.repos {
                            tr {
                                th scope="row" { a href={"/dashboard/" (r.repository)} { (r.repository) } }
                                td data-label="Tests" { (counts(r)) br; (status_counts(r)) }
                                td data-label="Tier changes, 30 days" {
                                    @if changes.is_empty() { "none" } @else {
                                        ul class="changes" {
                                            @for c in changes {
                                                li { (test_link(&r.repository, &c.test)) " → " (tier_badge(&c.tier)) " " (when(c.at_ms, v.now_ms)) }
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

/// What a link to a page of tests changes: the tier, the status, the sort and the page (the
/// search stays).
#[derive(Clone, Copy, Debug)]
pub struct Link<'a> {
    pub tier: Option<&'a str>,
    pub status: Option<Status>,
    pub sort: TestSort,
    pub page: u32,
}

impl<'a> Link<'a> {
    /// The current page's settings.
    pub fn of(q: &'a TestQuery) -> Link<'a> {
        Link {
            tier: q.tier.as_deref(),
            status: q.status,
            sort: q.sort,
            page: q.page,
        }
    }
}

/// The link to a page of tests with these settings.
pub fn query_link(repo: &str, q: &TestQuery, l: Link<'_>) -> String {
    let mut out = vec![format!("sort={}", l.sort.as_str())];
    let text = query_text(q);
    if !text.is_empty() {
        out.push(format!("q={}", crate::github::encode_query(&text)));
    }
    if let Some(t) = l.tier {
        out.push(format!("tier={t}"));
    }
    if let Some(s) = l.status {
        out.push(format!("status={}", s.as_str()));
    }
    if l.page > 1 {
        out.push(format!("page={}", l.page));
    }
    if q.per_page != super::PER_PAGE {
        out.push(format!("per_page={}", q.per_page));
    }
    format!("/dashboard/{repo}?{}", out.join("&"))
}

/// Status counts, each a link to the repository's tests of that status.
fn status_counts(c: &crate::store::RepoSummary) -> Markup {
    html! {
        span class="counts" {
            @for s in Status::ALL {
                a class={"status " (s.as_str())} href={"/dashboard/" (c.repository) "?status=" (s.as_str())} { (c.of_status(s)) " " (s.label()) } " "
            }
        }
    }
}

fn week_label(ms: i64) -> String {
    utc(ms).get(5..10).unwrap_or("").to_string()
}

fn tests_table(v: &RepoView) -> Markup {
    let q: &TestQuery = &v.query;
    let here = Link::of(q);
    let pages = v.page.total.div_ceil(u64::from(q.per_page.max(1))).max(1);
    let link = |l: Link<'_>| query_link(&v.repository, q, l);
    let sort_link = |s: TestSort, label: &str| -> Markup {
        let current = q.sort == s;
        html! {
            a href=(link(Link { sort: s, page: 1, ..here })) aria-current=[current.then_some("true")] { (label) @if current { " ▾" } }
        }
    };
    let searched = !q.text.is_empty() || q.owner.is_some();
    html! {
        form class="search" method="get" action={"/dashboard/" (v.repository)} role="search" {
            label for="q" { "Find tests" }
            input id="q" name="q" type="search" value=(query_text(q)) placeholder="part of an id, owner:NAME, tier:NAME, status:NAME" maxlength="200";
            @if let Some(t) = &q.tier { input type="hidden" name="tier" value=(t); }
            @if let Some(s) = q.status { input type="hidden" name="status" value=(s.as_str()); }
            input type="hidden" name="sort" value=(q.sort.as_str());
            button type="submit" { "Search" }
            @if searched { " " a href=(query_link(&v.repository, &TestQuery { text: String::new(), owner: None, ..q.clone() }, Link { page: 1, ..here })) { "Clear" } }
            @if !q.unknown.is_empty() {
                p class="note" role="status" {
                    "Not understood, so ignored: "
                    @for (i, u) in q.unknown.iter().enumerate() { @if i > 0 { ", " } code { (u) } }
                    ". Terms are " code { "owner:NAME" } ", " code { "tier:trusted|probation|quarantined" } " and " code { "status:broken|flaky|failed_once|healthy" } "; other words are parts of the id, all of them (AND)."
                }
            }
        }
        nav class="filters" aria-label="Filter by status" {
            a href=(link(Link { status: None, page: 1, ..here })) aria-current=[q.status.is_none().then_some("true")] { "Any status" }
            @for s in Status::ALL {
                " "
                a href=(link(Link { status: Some(s), page: 1, ..here })) aria-current=[(q.status == Some(s)).then_some("true")] class={"status " (s.as_str())} { (s.label()) " (" (v.counts.of_status(s)) ")" }
            }
        }
        nav class="filters" aria-label="Filter by tier" {
            a href=(link(Link { tier: None, page: 1, ..here })) aria-current=[here.tier.is_none().then_some("true")] { "Any tier" }
            @for t in TIERS {
                " "
                a href=(link(Link { tier: Some(t), page: 1, ..here })) aria-current=[(here.tier == Some(t)).then_some("true")] class={"tier " (t)} { (t) }
            }
        }
        nav class="filters" aria-label="Sort" {
            "Sort: " (sort_link(TestSort::Status, "Problems first")) " " (sort_link(TestSort::Tier, "Tier")) " "
            (sort_link(TestSort::PassRate, "Pass rate")) " " (sort_link(TestSort::Runs, "Runs")) " " (sort_link(TestSort::Name, "Name"))
        }
        table class="tests" {
            caption {
                (v.page.total) " tests"
                @if searched { " matching " q { (query_text(q)) } }
                @if let Some(t) = &q.tier { " in " (t) }
                @if let Some(s) = q.status { ", " (s.label()) }
                ", page " (q.page) " of " (pages)
            }
            thead {
                tr {
                    th scope="col" { "Test" }
                    th scope="col" { "Status" }
                    th scope="col" { "Tier" }
                    th scope="col" class="num" { "Pass rate" }
                    th scope="col" class="num" { "Runs" }
                    th scope="col" { "Last runs" }
                    th scope="col" { "Owner" }
                    th scope="col" { "Ticket" }
                }
            }
            tbody {
                @for t in &v.page.tests {
                    tr {
                        th scope="row" class="id" { (test_link(&v.repository, &t.test)) }
                        td data-label="Status" { (status_badge(t.status)) }
                        td data-label="Tier" {
                            (tier_badge(&t.tier))
                            @if !t.listed { " " small { "(default)" } }
                            @if let Some(p) = &t.proposed_tier { " " small class="proposed" { "history proposes " (tier_badge(p)) } }
                        }
                        td class="num" data-label="Pass rate" { @if let Some(r) = t.pass_rate { (format!("{:.1}%", r * 100.0)) } @else { "–" } }
                        td class="num" data-label="Runs" { (t.runs) span class="unit" { " runs" } }
                        td data-label="Last runs" { (sparkline(&t.recent)) }
                        td data-label="Owner" { @if let Some(o) = &t.owner { span class="unit" { "owner " } (o) } }
                        td data-label="Ticket" { @if let Some(x) = &t.ticket { (ticket(&v.web_url, &v.repository, x)) } }
                    }
                }
            }
        }
        @if v.page.tests.is_empty() && (searched || q.status.is_some() || q.tier.is_some()) {
            p { "No test matches. " a href={"/dashboard/" (v.repository)} { "Show every test" } }
        }
        @if pages > 1 {
            nav class="pages" aria-label="Pages" {
                @if q.page > 1 { a href=(link(Link { page: q.page - 1, ..here })) rel="prev" { "← Previous" } " " }
                span { "Page " (q.page) " of " (pages) }
                @if u64::from(q.page) < pages { " " a href=(link(Link { page: q.page + 1, ..here })) rel="next" { "Next →" } }
            }
        }
    }
}

/// How to start recording results, for a repository with none.
fn empty_state(v: &RepoView) -> Markup {
    html! {
        section class="empty" aria-labelledby="start" {
            h2 id="start" { "No test results recorded yet" }
            p { "repro-gate builds each test's history from CI results. Any of these starts it:" }
            ol {
                li { "GitHub Actions: enable " code { "history" } " in " code { ".github/repro-gate.yml" } " and upload your JUnit, " code { "go test -json" } " or libtest reports as an artifact matching " code { "history.artifacts" } "; each completed run is read." }
                li { "Any CI: run your tests through " code { "repro-gate test -- <your test command>" } ", or post a report to " code { "POST /api/v1/results?repo=" (v.repository) "&sha=…&branch=…&run=…" } " with an upload token (" code { "repro-gate history token --repo " (v.repository) } ")." }
                li { "Past runs: " code { "repro-gate history import --repo " (v.repository) " --sha SHA --branch main --run ID --at 2026-11-02T09:30:00Z report.xml" } "." }
            }
            @if v.file_read_ms.is_none() {
                p { small { "No reliability file was found on the default branch either; the history will propose one." } }
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
                (status_counts(&v.counts))
                br;
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
            @if v.counts.tests() == 0 {
                (empty_state(v))
            } @else {
                section aria-labelledby="tests" {
                    h2 id="tests" { "Tests" }
                    (tests_table(v))
                }
            }
            @if !v.proposals.is_empty() {
                section aria-labelledby="proposals" {
                    h2 id="proposals" { "Proposed by the history, not merged" }
                    p { small { "Tiers the history proposes in the reliability pull request; the file's tiers stay until it is merged." } }
                    ul class="changes" {
                        @for c in &v.proposals {
                            li {
                                (test_link(&v.repository, &c.test)) " "
                                @if let Some(f) = &c.from { (tier_badge(f)) } " → " (tier_badge(&c.tier))
                                @if c.at_ms > 0 { " proposed " (when(c.at_ms, v.now_ms)) }
                            }
                        }
                    }
                }
            }
            @if v.counts.tests() > 0 {
                section aria-labelledby="trend" {
                    h2 id="trend" { "Failure rate" }
                    (failure_rate_chart("Failed and flaky results per day on the tracked branches, as a share of the day's reported results (outages left out)", &v.trend))
                }
            }
            div class="grid" {
                section aria-labelledby="changes" {
                    h2 id="changes" { "Tier changes merged" }
                    (changes)
                    details {
                        summary { "Recent tier changes" }
                        @if v.changes.is_empty() { p { "No tier change merged into the file in the last 12 weeks." } } @else {
                            ul class="changes" {
                                @for c in &v.changes {
                                    li { (test_link(&v.repository, &c.test)) " " @if let Some(f) = &c.from { (tier_badge(f)) } " → " (tier_badge(&c.tier)) " " (when(c.at_ms, v.now_ms)) }
                                }
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
                (sessions(&v.repository, &v.web_url, &v.sessions, v.now_ms))
            }
        },
    )
}

/// Reruns and verifications, newest first.
pub(super) fn sessions(repo: &str, web_url: &str, list: &[SessionLine], now: i64) -> Markup {
    html! {
        @if list.is_empty() { p { "None yet." } } @else {
            ul class="sessions" {
                @for s in list {
                    li {
                        a href={(web_url) "/" (repo) "/pull/" (s.pr)} { "#" (s.pr) } " "
                        (if s.purpose == "verify" { "verification" } else { "rerun" }) " of "
                        (test_link(repo, &s.test)) ": "
                        strong { (s.outcome) } " "
                        @for (side, text, url) in &s.sides {
                            @match url {
                                Some(u) if crate::core::markdown::is_web_link(u) => { a href=(u) { (side) ": " (text) } " " }
                                _ => { (side) ": " (text) " " }
                            }
                        }
                        small { "started " (when(s.created_ms, now)) }
                    }
                }
            }
        }
    }
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
pub(super) mod tests {
    use super::*;
    use crate::core::history::status::Marks;
    use crate::core::history::window::{Counted, Window};
    use crate::dashboard::data::ChangeWeek;
    use crate::store::{GateWeek, RepoSummary, TestPage, TestRow, TierChange};

    pub(crate) const NOW: i64 = 1_764_547_200_000; // 2025-12-01 00:00 UTC
    pub(crate) const DAY: i64 = 86_400_000;

    pub(crate) fn row(test: &str, tier: &str, recent: &[bool]) -> TestRow {
        let mut window = Window::default();
        for f in recent {
            window.push(if *f { Counted::Fail } else { Counted::Pass }, "2025-11-30");
        }
        let m = Marks::of(&window, 200);
        TestRow {
            id: test.into(),
            test: test.into(),
            tier: tier.into(),
            listed: tier != "probation",
            proposed_tier: (test.ends_with("Beta")).then(|| "probation".into()),
            status: m.status(10),
            runs: m.runs as i64,
            failures: m.failures as i64,
            flaky: 0,
            skipped: 0,
            pass_rate: Some(1.0 - m.failures as f64 / m.runs as f64),
            duration_p50_ms: None,
            duration_p95_ms: None,
            onset: None,
            owner: Some("platform".into()),
            ticket: (tier == "quarantined").then(|| "PLAT-2024".into()),
            note: None,
            pin: false,
            recent: window.last(50).collect(),
            updated_ms: NOW - DAY,
            first_failure: window.first_failure.clone(),
            last_failure: window.last_failure.clone(),
            window,
        }
    }

    pub(crate) fn view() -> RepoView {
        RepoView {
            repository: "acme/pool".into(),
            web_url: "https://github.com".into(),
            now_ms: NOW,
            query: TestQuery {
                sort: TestSort::Status,
                page: 1,
                per_page: 2,
                ..TestQuery::default()
            },
            default_tier: "probation".into(),
            file_read_ms: Some(NOW - 120_000),
            trend: super::super::charts::span(
                &[super::super::charts::Day {
                    day: 20_422,
                    results: 12,
                    failed: 2,
                    flaky: 1,
                    ..Default::default()
                }],
                20_422,
                30,
            ),
            counts: RepoSummary {
                repository: "acme/pool".into(),
                trusted: 1,
                probation: 1,
                quarantined: 1,
                flaky: 1,
                healthy: 2,
                ..RepoSummary::default()
            },
            page: TestPage {
                tests: vec![
                    row(
                        "pool::TestBeta",
                        "quarantined",
                        &[true, false, true, false, false],
                    ),
                    row("pool::Test<Gamma>&\"x\"", "probation", &[false; 5]),
                ],
                total: 3,
            },
            changes: vec![TierChange {
                repository: "acme/pool".into(),
                test: "pool::TestBeta".into(),
                from: Some("probation".into()),
                tier: "quarantined".into(),
                at_ms: NOW - 9 * DAY,
                commit_sha: None,
                pr: None,
                by_login: None,
            }],
            proposals: vec![TierChange {
                repository: "acme/pool".into(),
                test: "pool::TestAlpha".into(),
                from: Some("trusted".into()),
                tier: "probation".into(),
                at_ms: NOW - DAY,
                commit_sha: None,
                pr: None,
                by_login: None,
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
    fn paging_links_keep_the_filter_the_search_and_sort() {
        let mut v = view();
        v.query.text = "Be ta".into();
        v.query.status = Some(Status::Flaky);
        let html = repo(&v, "alice").into_string();
        assert!(
            html.contains(
                "href=\"/dashboard/acme/pool?sort=status&amp;q=Be%20ta&amp;status=flaky&amp;page=2&amp;per_page=2\""
            ),
            "next page: {html}"
        );
        assert!(
            html.contains(
                "href=\"/dashboard/acme/pool?sort=status&amp;q=Be%20ta&amp;tier=quarantined&amp;status=flaky&amp;per_page=2\""
            ),
            "tier filter"
        );
        assert!(
            html.contains(
                "href=\"/dashboard/acme/pool?sort=pass_rate&amp;q=Be%20ta&amp;status=flaky&amp;per_page=2\""
            ),
            "sort"
        );
        assert!(
            html.contains("value=\"Be ta\""),
            "the search box shows the query"
        );
        assert!(html.contains("Page 1 of 2"));
    }

    #[test]
    fn every_id_links_to_its_page_encoded() {
        let html = repo(&view(), "alice").into_string();
        for id in ["pool::TestBeta", "pool::TestAlpha", "pool::TestLostWakeup"] {
            let href = format!("href=\"{}\"", test_href("acme/pool", id));
            assert!(html.contains(&href), "{id}: {href}");
        }
        assert!(
            html.contains("/dashboard/acme/pool/tests/pool%3A%3ATest%3CGamma%3E%26%22x%22"),
            "an id is one encoded path segment"
        );
    }

    #[test]
    fn ids_break_after_their_separators_never_mid_word() {
        let b = |id: &str| breakable(id).into_string();
        assert_eq!(
            b("services/pool::TestAcquire"),
            "services/<wbr>pool::<wbr>TestAcquire"
        );
        assert_eq!(
            b("tests/test_api.py::TestX::test_y"),
            "tests/<wbr>test_<wbr>api.<wbr>py::<wbr>TestX::<wbr>test_<wbr>y"
        );
        assert_eq!(b("a<b>"), "a&lt;b&gt;", "escaped");
        assert_eq!(b("x/"), "x/", "nothing after the last separator");
        assert_eq!(b(""), "");
    }

    #[test]
    fn proposals_are_apart_from_merged_changes() {
        let html = repo(&view(), "alice").into_string();
        let proposals = html
            .find("Proposed by the history, not merged")
            .expect("a section");
        let merged = html.find("Tier changes merged").expect("a section");
        let alpha = html.find("pool::TestAlpha").expect("the proposal");
        assert!(
            proposals < alpha && alpha < merged,
            "the proposal is listed as one"
        );
    }

    #[test]
    fn tickets_link_when_they_are_links_or_issue_numbers() {
        let t = |x: &str| ticket("https://github.com", "acme/pool", x).into_string();
        assert_eq!(
            t("#12"),
            "<a href=\"https://github.com/acme/pool/issues/12\">#12</a>"
        );
        assert!(
            t("https://jira.example/PLAT-1").starts_with("<a href=\"https://jira.example/PLAT-1\"")
        );
        assert_eq!(t("PLAT-2024"), "PLAT-2024");
        assert_eq!(t("javascript:alert(1)"), "javascript:alert(1)");
        assert_eq!(t("#12abc"), "#12abc");
    }

    #[test]
    fn an_empty_repository_says_how_to_start() {
        let mut v = view();
        v.counts = RepoSummary::default();
        v.page.tests.clear();
        v.page.total = 0;
        let html = repo(&v, "alice").into_string();
        assert!(html.contains("No test results recorded yet"));
        assert!(html.contains("history import --repo acme/pool"));
        assert!(html.contains("POST /api/v1/results?repo=acme/pool"));
        assert!(!html.contains("<table class=\"tests\""), "no empty table");
    }
}
