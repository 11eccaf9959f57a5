//! What the check run says about verification: while it runs, each verdict with what to do
//! next, a fork waiting for a writer, and how to turn verification on. Pinned by snapshots.

use std::fmt::Write as _;

use super::{SessionView, SideState, Status, Verdict};
use crate::core::config::VerifyMode;
use crate::core::markdown::{code, md};

/// The workflow file to copy, in repro-gate's repository.
pub const WORKFLOW_TEMPLATE: &str = "deploy/repro-gate-rerun.yml";

pub(super) fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

fn claim_line(s: &SessionView) -> String {
    let mut out = String::new();
    match &s.claim.test {
        Some(t) => {
            let _ = write!(out, "test {}", code(t));
        }
        None => out.push_str("the configured `verify.command`"),
    }
    if let Some(seed) = &s.claim.seed {
        let _ = write!(out, " with seed {}", code(seed));
    }
    out
}

pub(super) fn link(side: &SideState) -> String {
    match side.run_url() {
        Some(url) => {
            let id = url.rsplit('/').next().unwrap_or(url);
            format!("[run {}]({url})", md(id))
        }
        None => match side {
            SideState::NotStarted { .. } => "not started".into(),
            _ => "queued".into(),
        },
    }
}

fn result(side: &SideState) -> String {
    match side {
        SideState::Done { count, detail, .. } => match (&detail.no_result, &detail.how) {
            (Some(_), _) => "no result".into(),
            (None, Some(how)) => format!("fails {}/{} ({})", count.failures, count.runs, md(how)),
            (None, None) => format!("fails {}/{}", count.failures, count.runs),
        },
        SideState::Waiting { .. } => "running".into(),
        SideState::NotStarted { .. } => "—".into(),
    }
}

fn sides_table(s: &SessionView) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "| side | commit | runs | result | run |\n|---|---|---|---|---|"
    );
    let _ = writeln!(
        t,
        "| merge base with this PR's test files | `{}` | {} | {} | {} |",
        short(&s.base_sha),
        s.runs,
        result(&s.base),
        link(&s.base)
    );
    let _ = writeln!(
        t,
        "| head | `{}` | {} | {} | {} |",
        short(&s.head_sha),
        s.runs,
        result(&s.branch),
        link(&s.branch)
    );
    t
}

pub(super) fn laid_over(s: &SessionView) -> String {
    if s.tests.is_empty() {
        return "No test file of this PR is laid over the merge base (it changes none).".into();
    }
    let shown: Vec<String> = s.tests.iter().take(10).map(|p| code(p)).collect();
    let more = s.tests.len().saturating_sub(shown.len());
    format!(
        "Laid over the merge base from the head: {}{}.",
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

fn failures(side: &SideState) -> (u32, u32) {
    match side {
        SideState::Done { count, .. } => (count.failures, count.runs),
        _ => (0, 0),
    }
}

/// What the author does after each verdict.
fn what_to_do(verdict: Verdict, s: &SessionView, reason: Option<&str>, timeout: u32) -> String {
    match verdict {
        Verdict::Verified => "The claimed test fails every run on the merge base with this PR's test files and passes every run on the head: the reproduction is real and this change fixes it. Nothing more to do.".into(),
        Verdict::DoesNotFail => "The test passes on the merge base with your test files, so it does not reproduce the bug. Make it force the bad ordering (a hook, a barrier, a sync point, a controlled scheduler) so that it fails every run without the fix, or give the seed that fails. Then push or edit the description: verification runs again.".into(),
        Verdict::NotDeterministic => {
            let (k, n) = failures(&s.base);
            format!("The test fails {k}/{n} runs on the merge base: it waits for the bad timing instead of forcing it. A forcing test or a seed fails every run; make the test force the ordering (or pin the seed that drives it), then push.")
        }
        Verdict::StillFails => {
            let (k, n) = failures(&s.branch);
            format!("The test fails {k}/{n} runs on the head: this change does not fix what the test shows. Read the head's failing runs (linked above) before changing more code; a single green rerun would not have shown this.")
        }
        Verdict::CouldNotRun => format!(
            "{}. Open the run's log (linked above): the test id must be one the runner takes (`pkg/path::TestName` for Go, `path::test` for cargo, `tests/test_x.py::test_y` for pytest), the PR's test files must build on the merge base without the rest of the change, and the workflow must upload its report. Fix it and push, or a writer can comment `/repro verify` to start again.",
            reason.map(md).unwrap_or_else(|| "A side ran the test 0 times".into())
        ),
        Verdict::TimedOut => format!(
            "The runs did not complete within {timeout} minutes (`verify.timeout_minutes`). Look at the runs (linked above) and the runner queue; a writer's `/repro verify` starts the verification again."
        ),
    }
}

/// The section a session adds to the check's summary: running, or its verdict.
pub fn session_section(s: &SessionView, mode: VerifyMode, timeout_minutes: u32) -> String {
    let mut out = String::new();
    match s.outcome() {
        None => {
            let _ = writeln!(out, "### Verifying the reproduction\n");
            let _ = writeln!(
                out,
                "repro-gate is running {} {} times on the merge base `{}` (with this PR's test files) and on the head `{}`. It must fail every run on the merge base and pass every run on the head.{}\n",
                claim_line(s),
                s.runs,
                short(&s.base_sha),
                short(&s.head_sha),
                if mode == VerifyMode::Advisory {
                    " (`verify.mode: advisory`: the description decides the check; the result is added here.)"
                } else {
                    " The check completes when both runs are in."
                }
            );
            out.push_str(&sides_table(s));
            let _ = writeln!(out, "\n{}", laid_over(s));
        }
        Some(o) => {
            let _ = writeln!(out, "### Verification: {}\n", o.verdict.as_str());
            let _ = writeln!(
                out,
                "Ran {} {} times on each side.\n",
                claim_line(s),
                s.runs
            );
            out.push_str(&sides_table(s));
            let _ = writeln!(out, "\n{}\n", laid_over(s));
            let _ = writeln!(
                out,
                "{}",
                what_to_do(o.verdict, s, o.reason.as_deref(), timeout_minutes)
            );
            if mode == VerifyMode::Advisory && o.verdict != Verdict::Verified {
                let _ = writeln!(
                    out,
                    "\n`verify.mode: advisory`: this verdict does not change the check's conclusion."
                );
            }
        }
    }
    if let Some(by) = &s.requested_by {
        let _ = writeln!(out, "\nStarted by @{by}'s `/repro verify`.");
    }
    out
}

/// The verification section of a check summary, if any, for a claim's statuses (the find
/// round's are `find_summary::section`, the one entry point).
pub fn section(
    status: &Status,
    mode: VerifyMode,
    workflow: &str,
    timeout_minutes: u32,
) -> Option<String> {
    let mut out = String::new();
    match status {
        Status::Inapplicable => return None,
        Status::NotInstalled { workflow } => {
            let _ = writeln!(
                out,
                "### Verification is off\n\nThe reproduction above was read, not run. To have repro-gate run it (it must fail on the merge base with this PR's test files and pass on the head), add the rerun workflow `.github/workflows/{}` to the default branch: copy `{WORKFLOW_TEMPLATE}` from repro-gate. Set `verify.mode: off` in `.github/repro-gate.yml` to keep the text-only gate without this note.",
                md(workflow)
            );
        }
        Status::Outdated { workflow, missing } => {
            let names: Vec<String> = missing.iter().map(|m| code(m)).collect();
            let _ = writeln!(
                out,
                "### Verification is off\n\nThe rerun workflow `.github/workflows/{}` on the default branch does not take the inputs {} that verification needs, so the reproduction above was read, not run. Update it from `{WORKFLOW_TEMPLATE}` in repro-gate.",
                md(workflow),
                names.join(", ")
            );
        }
        Status::AwaitingWriter { claim } => {
            let what = claim
                .test
                .as_deref()
                .map(|t| format!("the test {}", code(t)))
                .unwrap_or_else(|| "the configured `verify.command`".into());
            let _ = writeln!(
                out,
                "### Verification waits for a writer\n\nThis PR's code comes from a fork, and code from a fork never runs on this repository's runners without a person. A writer (write, maintain or admin permission) can comment `/repro verify` to run {what} on the merge base and on the head.{}",
                if mode == VerifyMode::Advisory {
                    " Meanwhile the description decides the check (`verify.mode: advisory`)."
                } else {
                    " Until then the check needs that action."
                }
            );
        }
        Status::Unrunnable { claim, reason } => {
            let _ = writeln!(
                out,
                "### Verification: could not run\n\nNothing was dispatched: {reason}. The claim was {}{}. Name the test as the runner takes it and give the seed as digits or letters, then edit the description.",
                claim
                    .test
                    .as_deref()
                    .map(|t| format!("test {}", code(t)))
                    .unwrap_or_else(|| "a seed alone".into()),
                claim
                    .seed
                    .as_deref()
                    .map(|s| format!(" with seed {}", code(s)))
                    .unwrap_or_default(),
            );
        }
        Status::ToStart { claim, tests } => {
            let view = SessionView {
                id: String::new(),
                claim: claim.clone(),
                head_sha: String::new(),
                base_sha: String::new(),
                runs: 0,
                tests: tests.clone(),
                branch: SideState::Waiting { run_url: None },
                base: SideState::Waiting { run_url: None },
                timed_out: false,
                requested_by: None,
            };
            let _ = writeln!(
                out,
                "### Verifying the reproduction\n\nStarting the runs of {} with `.github/workflows/{}`.",
                claim_line(&view),
                md(workflow)
            );
        }
        Status::Session(s) => out.push_str(&session_section(s, mode, timeout_minutes)),
        // The find round's sections are find_summary's (which falls back to this one).
        Status::NoFindMode { .. }
        | Status::ToFind { .. }
        | Status::Finding(_)
        | Status::FindAwaitingWriter { .. } => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evidence::EvidenceKind;
    use crate::core::rerun::verdict::Count;
    use crate::core::verify::Claim;

    fn view(base: SideState, head: SideState, timed_out: bool) -> SessionView {
        SessionView {
            id: "vf-0a1b2c3d4e5f".into(),
            claim: Claim {
                kind: EvidenceKind::Interleaving,
                test: Some("services/pool::TestCheckoutWakeupOrdering".into()),
                seed: None,
            },
            head_sha: "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".into(),
            base_sha: "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb".into(),
            runs: 20,
            tests: vec!["services/pool/wakeup_test.go".into()],
            branch: head,
            base,
            timed_out,
            requested_by: None,
        }
    }

    fn done(f: u32, id: u64) -> SideState {
        SideState::Done {
            count: Count {
                failures: f,
                runs: 20,
            },
            run_url: Some(format!("https://github.com/acme/pool/actions/runs/{id}")),
            detail: Default::default(),
        }
    }

    fn waiting(id: Option<u64>) -> SideState {
        SideState::Waiting {
            run_url: id.map(|id| format!("https://github.com/acme/pool/actions/runs/{id}")),
        }
    }

    fn text(s: &SessionView) -> String {
        session_section(s, VerifyMode::Required, 60)
    }

    #[test]
    fn each_summary_names_its_verdict_and_no_other() {
        let cases = [
            (view(done(20, 1), done(0, 2), false), Verdict::Verified),
            (view(done(0, 1), done(0, 2), false), Verdict::DoesNotFail),
            (
                view(done(13, 1), done(0, 2), false),
                Verdict::NotDeterministic,
            ),
            (view(done(20, 1), done(2, 2), false), Verdict::StillFails),
            (
                view(
                    SideState::Done {
                        count: Count {
                            failures: 0,
                            runs: 0,
                        },
                        run_url: None,
                        detail: Default::default(),
                    },
                    done(0, 2),
                    false,
                ),
                Verdict::CouldNotRun,
            ),
            (view(waiting(Some(1)), done(0, 2), true), Verdict::TimedOut),
        ];
        for (v, verdict) in cases {
            let t = text(&v);
            assert!(t.contains(verdict.as_str()), "{verdict:?}: {t}");
            for other in Verdict::ALL {
                if other != verdict && !(verdict.as_str().contains(other.as_str())) {
                    assert!(
                        !t.contains(other.as_str()),
                        "{verdict:?} also says {other:?}: {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn verified() {
        insta::assert_snapshot!(text(&view(done(20, 101), done(0, 102), false)));
    }

    #[test]
    fn does_not_fail_without_the_change() {
        insta::assert_snapshot!(text(&view(done(0, 101), done(0, 102), false)));
    }

    #[test]
    fn not_deterministic() {
        insta::assert_snapshot!(text(&view(done(13, 101), done(0, 102), false)));
    }

    #[test]
    fn still_fails_with_the_change() {
        insta::assert_snapshot!(text(&view(done(20, 101), done(2, 102), false)));
    }

    #[test]
    fn could_not_run() {
        let none = SideState::Done {
            count: Count {
                failures: 0,
                runs: 0,
            },
            run_url: Some("https://github.com/acme/pool/actions/runs/101".into()),
            detail: Default::default(),
        };
        insta::assert_snapshot!(text(&view(none, done(0, 102), false)));
    }

    #[test]
    fn timed_out() {
        insta::assert_snapshot!(text(&view(waiting(Some(101)), done(0, 102), true)));
    }

    #[test]
    fn running_with_one_run_started() {
        let mut v = view(waiting(Some(101)), waiting(None), false);
        v.claim.seed = Some("7311".into());
        insta::assert_snapshot!(text(&v));
    }

    #[test]
    fn the_other_states() {
        let claim = view(waiting(None), waiting(None), false).claim;
        let mut all = String::new();
        for (st, mode) in [
            (
                Status::NotInstalled {
                    workflow: "repro-gate-rerun.yml".into(),
                },
                VerifyMode::Required,
            ),
            (
                Status::Outdated {
                    workflow: "repro-gate-rerun.yml".into(),
                    missing: vec!["tests_from".into(), "tests".into()],
                },
                VerifyMode::Required,
            ),
            (
                Status::AwaitingWriter {
                    claim: claim.clone(),
                },
                VerifyMode::Required,
            ),
            (
                Status::AwaitingWriter {
                    claim: claim.clone(),
                },
                VerifyMode::Advisory,
            ),
            (
                Status::Unrunnable {
                    claim: Claim {
                        seed: Some("$(id)".into()),
                        ..claim.clone()
                    },
                    reason: "the seed holds `$`: a seed is letters, digits and `_`".into(),
                },
                VerifyMode::Required,
            ),
        ] {
            all.push_str(&section(&st, mode, "repro-gate-rerun.yml", 60).unwrap());
            all.push_str("\n---\n");
        }
        assert_eq!(
            section(&Status::Inapplicable, VerifyMode::Required, "x.yml", 60),
            None
        );
        insta::assert_snapshot!(all);
    }
}
