//! What the check run says about the search among the PR's tests
//! (docs/verification.md#found-in-the-prs-tests): the find round running, the candidates being
//! verified, the one found and verified, or the round's table when there is no candidate; and
//! an older workflow that cannot run the round. Pinned by snapshots.

use std::fmt::Write as _;

use super::discover::{self, Found};
use super::find::{self, FindView};
use super::summary::{WORKFLOW_TEMPLATE, laid_over, link, session_section, short};
use super::{SessionView, SideState, Status, Verdict};
use crate::core::config::VerifyMode;
use crate::core::markdown::{code, md};

/// The title of the check while the search runs, or once it found a reproduction.
pub fn title(status: &Status) -> Option<&'static str> {
    let Status::Finding(f) = status else {
        return matches!(status, Status::ToFind { .. })
            .then_some("Looking for a reproduction among the PR's tests");
    };
    match f.outcome() {
        Some(o) if o.verdict == Verdict::Verified => {
            Some("Reproduction found in the PR's tests and verified")
        }
        Some(_) => None,
        None if f.found.is_none() => Some("Looking for a reproduction among the PR's tests"),
        None => Some("Verifying the reproduction found in the PR's tests"),
    }
}

fn round_runs(s: &SessionView) -> String {
    format!(
        "| side | commit | run |\n|---|---|---|\n| merge base with this PR's test files | `{}` | {} |\n| head | `{}` | {} |\n",
        short(&s.base_sha),
        link(&s.base),
        short(&s.head_sha),
        link(&s.branch)
    )
}

fn round_table(found: &[Found]) -> String {
    if found.is_empty() {
        return "The runs reported no test of these files.\n".into();
    }
    discover::table(found)
}

fn advisory(mode: VerifyMode, verdict: Verdict) -> &'static str {
    if mode == VerifyMode::Advisory && verdict != Verdict::Verified {
        "\n`verify.mode: advisory`: this verdict does not change the check's conclusion.\n"
    } else {
        ""
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn what_to_do(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::CouldNotRun => {
            "Open the run's log (linked above). A reproduction must build on the merge base without the rest of the change: a test of a new API cannot fail without it. Write a test that forces the bad ordering with what the merge base has (a hook, a barrier, a sync point), or name the reproduction in the description (`seed` with its test, or a forcing test), then push."
        }
        _ => {
            "Write a test that forces the bad ordering (a hook, a barrier, a sync point, a controlled scheduler) so that it fails every run on the merge base and passes on the head, or name the reproduction in the description (a `seed` with its test, or a forcing test), then push."
        }
    }
}

fn found_section(f: &FindView, mode: VerifyMode, timeout_minutes: u32) -> String {
    let mut out = String::new();
    let s = &f.session;
    let Some(found) = &f.found else {
        match f.outcome() {
            Some(o) => {
                let _ = writeln!(
                    out,
                    "### Verification: {}\n\nThe search for a reproduction among the PR's tests stopped before its find round completed: {}.\n",
                    o.verdict.as_str(),
                    o.reason.as_deref().map(md).unwrap_or_else(|| format!(
                        "its runs did not complete within {timeout_minutes} minutes (`verify.timeout_minutes`); a writer's `/repro verify` starts again"
                    ))
                );
                out.push_str(&round_runs(s));
                let _ = write!(out, "{}", advisory(mode, o.verdict));
            }
            None => {
                let _ = writeln!(
                    out,
                    "### Looking for a reproduction among the PR's tests\n\nThe description names no reproduction to run, so repro-gate runs every test of the test files this PR adds or changes once on the merge base `{}` (with this PR's test files) and once on the head `{}`. The tests that fail on the merge base and pass on the head are then verified as a claim is.\n",
                    short(&s.base_sha),
                    short(&s.head_sha)
                );
                out.push_str(&round_runs(s));
                let _ = writeln!(out, "\n{}", laid_over(s));
            }
        }
        return out;
    };
    if let Some(v) = f.verified() {
        let test = v.claim.test.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "### Reproduction found in the PR's tests and verified\n\nThe description names no reproduction; repro-gate found it among the PR's own tests: {} failed on the merge base and passed on the head in the find round, then fails {}/{} runs on the merge base and passes {}/{} on the head.\n",
            code(test),
            v.runs,
            v.runs,
            v.runs,
            v.runs
        );
        out.push_str(&session_section(v, mode, timeout_minutes));
        let _ = writeln!(out, "\n#### The find round\n");
        out.push_str(&round_runs(s));
        out.push('\n');
        out.push_str(&round_table(found));
        return out;
    }
    match f.outcome() {
        None => {
            let names: Vec<String> = f
                .candidates
                .iter()
                .filter_map(|c| c.claim.test.as_deref().map(code))
                .collect();
            let _ = writeln!(
                out,
                "### Verifying the reproduction found in the PR's tests\n\nThe find round found {} that failed on the merge base and passed on the head: {}. Each is verified now; the first verified one passes the check.\n",
                if names.len() == 1 {
                    "one test".to_string()
                } else {
                    format!("{} tests", names.len())
                },
                names.join(", ")
            );
            out.push_str(&round_runs(s));
            out.push('\n');
            out.push_str(&round_table(found));
            for c in find::shown(f) {
                out.push('\n');
                out.push_str(&session_section(c, mode, timeout_minutes));
            }
        }
        Some(o) if f.candidates.is_empty() => {
            let _ = writeln!(
                out,
                "### Verification: {}\n\nThe description names no reproduction, so repro-gate ran the PR's tests once on each side.{}\n",
                o.verdict.as_str(),
                o.reason
                    .as_deref()
                    .map(|r| format!(" {}", capitalized(&md(r))))
                    .unwrap_or_default()
            );
            out.push_str(&round_runs(s));
            out.push('\n');
            out.push_str(&round_table(found));
            let _ = writeln!(out, "\n{}", what_to_do(o.verdict));
            let _ = write!(out, "{}", advisory(mode, o.verdict));
        }
        Some(o) => {
            let _ = writeln!(
                out,
                "### Verification: {}\n\nThe find round found {} candidate(s) among the PR's tests; none verified. Each one's verification:\n",
                o.verdict.as_str(),
                f.candidates.len()
            );
            out.push_str(&round_runs(s));
            out.push('\n');
            out.push_str(&round_table(found));
            for c in find::shown(f) {
                out.push('\n');
                out.push_str(&session_section(c, mode, timeout_minutes));
            }
        }
    }
    out
}

/// Most files a waiting search names (the rest are counted).
const MAX_NAMED_FILES: usize = 10;

/// The search's section of a check summary (`NoFindMode`, `ToFind`, `Finding`,
/// `FindAwaitingWriter`).
pub fn section(
    status: &Status,
    mode: VerifyMode,
    workflow: &str,
    timeout_minutes: u32,
) -> Option<String> {
    match status {
        Status::NoFindMode { workflow } => Some(format!(
            "### Verification is off for this PR\n\nThe description names no reproduction to run, and the rerun workflow `.github/workflows/{}` on the default branch is an older copy that cannot look for one among the PR's tests (it runs one named test only), so the PR was judged on its text. Update it from `{WORKFLOW_TEMPLATE}` in repro-gate to have the gate find and verify the reproduction among the PR's own tests.\n",
            md(workflow)
        )),
        Status::ToFind { tests, .. } => {
            let view = SessionView {
                id: String::new(),
                claim: find::claim_for(""),
                head_sha: String::new(),
                base_sha: String::new(),
                runs: 1,
                tests: tests.clone(),
                branch: SideState::Waiting { run_url: None },
                base: SideState::Waiting { run_url: None },
                timed_out: false,
                requested_by: None,
            };
            Some(format!(
                "### Looking for a reproduction among the PR's tests\n\nStarting the find round with `.github/workflows/{}`. {}\n",
                md(workflow),
                laid_over(&view)
            ))
        }
        Status::Finding(f) => Some(found_section(f, mode, timeout_minutes)),
        Status::FindAwaitingWriter { tests, sources } => {
            let mut files: Vec<String> = tests.iter().chain(sources).map(|f| code(f)).collect();
            let more = files.len().saturating_sub(MAX_NAMED_FILES);
            files.truncate(MAX_NAMED_FILES);
            let mut named = files.join(", ");
            if more > 0 {
                let _ = write!(named, " and {more} more");
            }
            Some(format!(
                "### The search for a reproduction waits for a writer\n\nThe description names no reproduction to run, and this PR's code comes from a fork: code from a fork never runs on this repository's runners without a person. A writer (write, maintain or admin permission) can comment `/repro verify` to run the tests of {named} once on the merge base and on the head with `.github/workflows/{}`; those that fail on the base and pass on the head are then verified as a claim is.{}\n",
                md(workflow),
                if mode == VerifyMode::Advisory {
                    " Meanwhile the description decides the check (`verify.mode: advisory`)."
                } else {
                    " Until then the check needs that action."
                }
            ))
        }
        _ => super::summary::section(status, mode, workflow, timeout_minutes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::verify::discover::Seen;
    use crate::core::verify::find::tests::session;

    fn found(test: &str, base: Seen, head: Seen) -> Found {
        Found {
            test: test.into(),
            base,
            head,
            changed: true,
            base_reason: None,
            head_reason: None,
        }
    }

    fn text(f: FindView) -> String {
        section(
            &Status::Finding(Box::new(f)),
            VerifyMode::Required,
            "repro-gate-rerun.yml",
            60,
        )
        .unwrap_or_default()
    }

    #[test]
    fn a_fork_s_search_waits_for_a_writer() {
        let tests: Vec<String> = (0..12).map(|i| format!("pool/t{i}_test.go")).collect();
        let status = Status::FindAwaitingWriter {
            tests,
            sources: vec!["src/`lib`.rs".into()],
        };
        let text = |mode| section(&status, mode, "repro-gate-rerun.yml", 60).unwrap_or_default();
        assert_eq!(title(&status), None);
        insta::assert_snapshot!(text(VerifyMode::Required));
        assert!(text(VerifyMode::Advisory).contains("Meanwhile the description decides"));
    }

    #[test]
    fn the_find_round_running() {
        let f = FindView::new(session(None, None), None, 3);
        assert_eq!(
            title(&Status::Finding(Box::new(f.clone()))),
            Some("Looking for a reproduction among the PR's tests")
        );
        insta::assert_snapshot!(text(f));
    }

    #[test]
    fn found_and_verified() {
        let mut f = FindView::new(
            session(Some((1, 2)), Some((0, 2))),
            Some(vec![
                found("services/pool::TestWake", Seen::Failed, Seen::Passed),
                found("services/pool::TestIdle", Seen::Passed, Seen::Passed),
            ]),
            3,
        );
        let mut v = session(Some((20, 20)), Some((0, 20)));
        v.runs = 20;
        v.claim = find::claim_for("services/pool::TestWake");
        f.candidates[0].session = Some(v);
        let t = text(f);
        assert!(t.contains("found in the PR's tests"));
        assert!(!t.contains("does not fail") && !t.contains("could not run"));
        insta::assert_snapshot!(t);
    }

    #[test]
    fn no_candidate_names_each_test_and_says_none_fails_on_the_merge_base() {
        let f = FindView::new(
            session(Some((0, 2)), Some((0, 2))),
            Some(vec![
                found("services/pool::TestWake", Seen::Passed, Seen::Passed),
                found("services/pool::TestIdle", Seen::Passed, Seen::Passed),
            ]),
            3,
        );
        insta::assert_snapshot!(text(f));
    }

    #[test]
    fn a_base_that_does_not_build_could_not_run() {
        let mut broken = found("services/pool::TestWake", Seen::DidNotBuild, Seen::Passed);
        broken.base_reason = Some("services/pool/wake_test.go:17:4: p.beforeWait undefined".into());
        let f = FindView::new(session(Some((1, 1)), Some((0, 1))), Some(vec![broken]), 3);
        let t = text(f);
        assert!(t.contains("could not run") && t.contains("p.beforeWait undefined"));
        assert!(t.contains("/runs/901"));
        insta::assert_snapshot!(t);
    }

    #[test]
    fn an_older_workflow_leaves_the_text_only_gate() {
        insta::assert_snapshot!(
            section(
                &Status::NoFindMode {
                    workflow: "repro-gate-rerun.yml".into()
                },
                VerifyMode::Required,
                "repro-gate-rerun.yml",
                60
            )
            .unwrap_or_default()
        );
    }
}
