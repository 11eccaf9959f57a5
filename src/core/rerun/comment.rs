//! A session's one comment on the PR: what was started, each side's count as it arrives, and
//! at the end the numbers, one verdict and what it asks of the reader (for `not this change`, a
//! ready quarantine ticket). Names from logs are shown as data, never as markup.

use std::fmt::Write as _;

use super::marker;
use super::stats::runs_to_see;
use super::verdict::{Assessed, Count, Verdict, assess};
use crate::core::markdown::{code, fenced, md, name};
use crate::core::tier::Standing;

/// How a session started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger<'a> {
    /// `/repro rerun` by this login.
    Command(&'a str),
    /// A failing check named the test, whose standing is in `rerun.auto`.
    Auto(Standing),
}

/// Where one side is.
#[derive(Clone, Debug, PartialEq)]
pub enum SideState<'a> {
    /// Dispatched; its run has not completed.
    Running,
    /// Its run completed: the count, the run's page, the seeds the runner printed.
    Done {
        count: Count,
        run_url: Option<&'a str>,
        seeds: &'a [String],
    },
    /// The dispatch was refused (the message says why).
    NotStarted(&'a str),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SideView<'a> {
    pub sha: &'a str,
    pub state: SideState<'a>,
}

/// Everything the comment shows.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionView<'a> {
    pub session: &'a str,
    pub test: &'a str,
    pub runs: u32,
    pub workflow: &'a str,
    pub trigger: Trigger<'a>,
    pub branch: SideView<'a>,
    pub base: SideView<'a>,
    /// The test's failures in the history's window (default branch and merge queue), if known.
    pub history: Option<Count>,
    /// The session ran out of time after this many minutes.
    pub timed_out_after: Option<u32>,
    /// The quarantine issue filed for the test (`rerun.tickets: issue`).
    pub ticket_issue: Option<u64>,
}

fn short(sha: &str) -> &str {
    sha.get(..10).unwrap_or(sha)
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// A p-value as people read it: two decimals, four below 0.01, scientific below 0.0001.
pub fn p_text(p: f64) -> String {
    if p >= 0.01 {
        format!("{p:.2}")
    } else if p >= 0.0001 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}

fn link(text: &str, url: Option<&str>) -> String {
    match url
        .filter(|u| u.starts_with("https://") || u.starts_with("http://") || u.starts_with('#'))
    {
        Some(u) => format!("[{text}](<{}>)", u.replace(['<', '>', ' '], "")),
        None => text.to_string(),
    }
}

fn done(s: &SideView<'_>) -> Option<Count> {
    match s.state {
        SideState::Done { count, .. } => Some(count),
        _ => None,
    }
}

/// The verdict, when both sides are in.
pub fn outcome(view: &SessionView<'_>) -> Option<Assessed> {
    Some(assess(done(&view.branch)?, done(&view.base)?))
}

/// The verdict in one sentence (the phrase first).
pub fn sentence(a: &Assessed, branch: Count, base: Count, history: Option<Count>) -> String {
    match a.verdict {
        Verdict::NotThisChange => format!(
            "**Not this change**: the merge base fails too ({}/{} there, {}/{} on the branch; p = {} is no evidence that the branch fails more; nor is it proof that the rates are equal: see how wide the intervals are). Quarantine the test with the ticket below; do not change production code to make it pass.",
            base.failures,
            base.runs,
            branch.failures,
            branch.runs,
            p_text(a.p)
        ),
        Verdict::ThisChangeMakesItFail => format!(
            "**This change makes it fail**: {}/{} on the branch against {}/{} on the merge base (one-sided p = {} < 0.05). Investigate the change; the test is telling the truth.",
            branch.failures,
            branch.runs,
            base.failures,
            base.runs,
            p_text(a.p)
        ),
        Verdict::BrokenOnBoth => format!(
            "**Broken on both** sides: {}/{} and {}/{}. A real, deterministic failure, not a flake: it fails without this change too, so fix the test or what it covers on the default branch.",
            branch.failures, branch.runs, base.failures, base.runs
        ),
        Verdict::NoFailure => {
            let n = if branch.runs == base.runs {
                format!("{} runs on either side", branch.runs)
            } else {
                format!(
                    "{} runs on the branch or {} on the merge base",
                    branch.runs, base.runs
                )
            };
            let need = match history.filter(|h| h.runs > 0 && h.failures > 0) {
                Some(h) => match runs_to_see(h.rate()) {
                    Some(k) => format!(
                        " At the history's rate ({}/{} = {}), {k} runs per side would see a failure with 95 % probability.",
                        h.failures,
                        h.runs,
                        pct(h.rate())
                    ),
                    None => String::new(),
                },
                None => " The history has no failure of it to size a larger rerun by; 20 runs see a 1-in-7 flake with 95 % probability, a 2 % flake needs about 149.".to_string(),
            };
            format!(
                "**No failure in {n}**: it cannot be reproduced at this number of runs.{need}"
            )
        }
        Verdict::Inconclusive => format!(
            "**Inconclusive**: {}/{} on the branch and none of {} on the merge base (p = {}): too few failures to tell this change from chance. Rerun with more runs (`/repro rerun <test> 100`) before changing code.",
            branch.failures,
            branch.runs,
            base.runs,
            p_text(a.p)
        ),
        Verdict::NoResults => "**No result**: a side's run reported no result for this test (check the workflow's test selection and its report artifact).".to_string(),
    }
}

fn side_row(label: &str, s: &SideView<'_>, out: &mut String) {
    let (count, interval, run) = match &s.state {
        SideState::Running => ("running…".to_string(), String::new(), String::new()),
        SideState::NotStarted(why) => (
            format!("not started: {}", md(why)),
            String::new(),
            String::new(),
        ),
        SideState::Done { count, run_url, .. } => {
            let (lo, hi) = super::stats::wilson(count.failures, count.runs);
            (
                format!("{}/{} ({})", count.failures, count.runs, pct(count.rate())),
                if count.runs > 0 {
                    format!("{} – {}", pct(lo), pct(hi))
                } else {
                    String::new()
                },
                link("run", *run_url),
            )
        }
    };
    let _ = writeln!(
        out,
        "| {label} | {} | {count} | {interval} | {run} |",
        code(short(s.sha))
    );
}

/// The comment's body.
pub fn render(v: &SessionView<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", marker(v.session));
    let _ = writeln!(s, "### repro-gate rerun of {}\n", name(v.test));
    match v.trigger {
        Trigger::Command(login) => {
            // A GitHub login is letters, digits and dashes: a mention; anything else is data.
            let who = if !login.is_empty()
                && login.len() <= 39
                && login.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                format!("@{login}")
            } else {
                md(login)
            };
            let _ = write!(s, "Asked for by {who} with `/repro rerun`. ");
        }
        Trigger::Auto(standing) => {
            let _ = write!(
                s,
                "Started by itself: the test is {} and failed on this PR. ",
                match standing {
                    Standing::Unlisted => "not listed in the reliability file",
                    Standing::Probation => "on probation",
                    Standing::Trusted => "trusted",
                    Standing::Quarantined => "quarantined",
                }
            );
        }
    }
    let _ = writeln!(
        s,
        "The test runs alone {} times on this PR's head and {} times on its merge base ({}, session {}).\n",
        v.runs,
        v.runs,
        code(v.workflow),
        code(v.session)
    );
    let _ = writeln!(
        s,
        "| side | commit | failures | Wilson 95 % interval | run |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    side_row("branch (head)", &v.branch, &mut s);
    side_row("merge base", &v.base, &mut s);
    s.push('\n');
    let (Some(branch), Some(base)) = (done(&v.branch), done(&v.base)) else {
        match v.timed_out_after {
            Some(m) => {
                let _ = writeln!(
                    s,
                    "**Timed out**: the runs did not all complete within {m} minutes (`rerun.timeout_minutes`). Nothing can be concluded; ask again with `/repro rerun` once the workflow runs."
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "Waiting for both runs. Until this comment gives its verdict, do not change code because of this test's failure."
                );
            }
        }
        return s;
    };
    let a = assess(branch, base);
    let _ = writeln!(
        s,
        "One-sided Fisher exact test that the branch fails more often than the merge base: p = {}.\n",
        p_text(a.p)
    );
    let _ = writeln!(s, "{}", sentence(&a, branch, base, v.history));
    if a.verdict == Verdict::NotThisChange {
        match v.ticket_issue {
            Some(n) => {
                let _ = writeln!(s, "\nQuarantine ticket, filed as #{n}:\n");
            }
            None => {
                let _ = writeln!(s, "\nQuarantine ticket, ready to file:\n");
            }
        }
        let _ = writeln!(s, "{}", fenced("text", &ticket(v, &a, branch, base)));
    }
    s
}

fn seeds_of<'a>(s: &'a SideView<'a>) -> &'a [String] {
    match &s.state {
        SideState::Done { seeds, .. } => seeds,
        _ => &[],
    }
}

fn url_of<'a>(s: &SideView<'a>) -> &'a str {
    match &s.state {
        SideState::Done {
            run_url: Some(u), ..
        } => u,
        _ => "(no link)",
    }
}

/// The ticket text for `not this change`: plain text for a code block.
pub fn ticket(v: &SessionView<'_>, a: &Assessed, branch: Count, base: Count) -> String {
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Quarantine {}: flaky without this change",
        one_line(v.test)
    );
    let _ = writeln!(t);
    let _ = writeln!(t, "Test: {}", one_line(v.test));
    let _ = writeln!(
        t,
        "Branch ({}): {}/{} failed ({}), run {}",
        short(v.branch.sha),
        branch.failures,
        branch.runs,
        pct(branch.rate()),
        one_line(url_of(&v.branch))
    );
    let _ = writeln!(
        t,
        "Merge base ({}): {}/{} failed ({}), run {}",
        short(v.base.sha),
        base.failures,
        base.runs,
        pct(base.rate()),
        one_line(url_of(&v.base))
    );
    let _ = writeln!(
        t,
        "One-sided Fisher exact p (branch worse than base): {}",
        p_text(a.p)
    );
    match v.history.filter(|h| h.runs > 0) {
        Some(h) => {
            let _ = writeln!(
                t,
                "History (default branch and merge queue): {}/{} failed ({})",
                h.failures,
                h.runs,
                pct(h.rate())
            );
        }
        None => {
            let _ = writeln!(t, "History: no recorded runs of this test");
        }
    }
    let mut seeds: Vec<&str> = seeds_of(&v.branch)
        .iter()
        .chain(seeds_of(&v.base))
        .map(String::as_str)
        .collect();
    seeds.dedup();
    if seeds.is_empty() {
        let _ = writeln!(t, "Seeds printed by the runner: none");
    } else {
        let _ = writeln!(t, "Seeds printed by the runner: {}", seeds.join(", "));
    }
    let _ = writeln!(
        t,
        "Proposed: tier quarantined in .ci/test-reliability.yaml with this ticket; fix the test's nondeterminism, then let the history promote it."
    );
    let _ = write!(t, "repro-gate session: {}", v.session);
    t
}

/// The line the reliability comment adds under a failing test that has a session.
/// Said of a failing test on a PR from a fork, instead of starting its rerun by itself.
pub const FORK_NOTE: &str = "Not rerun by itself: this PR comes from a fork, and code from a fork never runs on this repository's runners without a person. A writer's `/repro rerun <test>` runs the retry protocol for it.";

pub fn pointer(session_url: Option<&str>, session: &str) -> String {
    format!(
        "{}: wait for its verdict; do not change code for this test until it says `this change makes it fail`.",
        link(&format!("Rerun session {}", code(session)), session_url)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "1111111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const BASE: &str = "2222222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const TEST: &str = "services/billing/integration::TestInvoiceRetryIdempotent";

    fn view<'a>(
        branch: SideState<'a>,
        base: SideState<'a>,
        history: Option<Count>,
    ) -> SessionView<'a> {
        SessionView {
            session: "rr-0123456789ab",
            test: TEST,
            runs: 20,
            workflow: "repro-gate-rerun.yml",
            trigger: Trigger::Command("alice"),
            branch: SideView {
                sha: HEAD,
                state: branch,
            },
            base: SideView {
                sha: BASE,
                state: base,
            },
            history,
            timed_out_after: None,
            ticket_issue: None,
        }
    }

    fn done<'a>(failures: u32, url: &'a str, seeds: &'a [String]) -> SideState<'a> {
        SideState::Done {
            count: Count { failures, runs: 20 },
            run_url: Some(url),
            seeds,
        }
    }

    const VERDICT_PHRASES: [&str; 4] = [
        "not this change",
        "this change makes it fail",
        "broken on both",
        "no failure in",
    ];

    fn only_verdict(body: &str, phrase: &str) {
        let lower = body.to_lowercase();
        for p in VERDICT_PHRASES {
            assert_eq!(lower.contains(p), p == phrase, "{p:?} in:\n{body}");
        }
    }

    #[test]
    fn started() {
        let body = render(&view(SideState::Running, SideState::Running, None));
        assert!(body.starts_with("<!-- repro-gate:rerun:rr-0123456789ab -->"));
        for p in VERDICT_PHRASES {
            assert!(!body.to_lowercase().contains(p), "{p}");
        }
        insta::assert_snapshot!(body);
    }

    #[test]
    fn one_side_in() {
        let seeds = vec![];
        let body = render(&view(
            done(3, "https://github.com/o/r/actions/runs/1", &seeds),
            SideState::Running,
            None,
        ));
        assert!(body.contains("3/20"));
        insta::assert_snapshot!(body);
    }

    #[test]
    fn not_this_change_with_its_ticket() {
        let seeds = vec!["7311".to_string()];
        let body = render(&view(
            done(3, "https://github.com/o/r/actions/runs/1", &seeds),
            done(3, "https://github.com/o/r/actions/runs/2", &[]),
            Some(Count {
                failures: 7,
                runs: 200,
            }),
        ));
        only_verdict(&body, "not this change");
        assert!(body.matches("3/20").count() >= 2);
        assert!(body.contains("p = 0.67"));
        assert!(body.contains("36.0 %"));
        assert!(
            body.contains("Quarantine services/billing/integration::TestInvoiceRetryIdempotent")
        );
        assert!(body.contains("7311"));
        insta::assert_snapshot!(body);
    }

    #[test]
    fn this_change_makes_it_fail() {
        let body = render(&view(
            done(8, "https://github.com/o/r/actions/runs/1", &[]),
            done(0, "https://github.com/o/r/actions/runs/2", &[]),
            None,
        ));
        only_verdict(&body, "this change makes it fail");
        assert!(body.contains("0.0016"));
        insta::assert_snapshot!(body);
    }

    #[test]
    fn broken_on_both() {
        let body = render(&view(
            done(20, "https://github.com/o/r/actions/runs/1", &[]),
            done(20, "https://github.com/o/r/actions/runs/2", &[]),
            None,
        ));
        only_verdict(&body, "broken on both");
        insta::assert_snapshot!(body);
    }

    #[test]
    fn no_failure_with_the_runs_the_history_rate_needs() {
        let body = render(&view(
            done(0, "https://github.com/o/r/actions/runs/1", &[]),
            done(0, "https://github.com/o/r/actions/runs/2", &[]),
            Some(Count {
                failures: 2,
                runs: 200,
            }),
        ));
        only_verdict(&body, "no failure in");
        assert!(body.contains("No failure in 20 runs on either side"));
        assert!(body.contains("299 runs per side"), "{body}");
        insta::assert_snapshot!(body);
    }

    #[test]
    fn inconclusive_and_timed_out() {
        let body = render(&view(
            done(2, "https://github.com/o/r/actions/runs/1", &[]),
            done(0, "https://github.com/o/r/actions/runs/2", &[]),
            None,
        ));
        for p in VERDICT_PHRASES {
            assert!(!body.to_lowercase().contains(p), "{p}");
        }
        insta::assert_snapshot!("inconclusive", body);
        let mut v = view(
            done(2, "https://github.com/o/r/actions/runs/1", &[]),
            SideState::Running,
            None,
        );
        v.timed_out_after = Some(60);
        let body = render(&v);
        assert!(body.contains("within 60 minutes"));
        insta::assert_snapshot!("timed_out", body);
    }

    #[test]
    fn hostile_names_stay_data() {
        let mut v = view(SideState::Running, SideState::Running, None);
        v.test = "pkg::TestX`; touch /tmp/pwned; echo `<!-- x -->";
        v.trigger = Trigger::Command("mallory<b>");
        let body = render(&v);
        assert!(!body.contains("<b>"));
        assert_eq!(body.matches("<!--").count(), 1, "only the marker:\n{body}");
    }
}
