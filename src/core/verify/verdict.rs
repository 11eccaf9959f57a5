//! The six verdicts (docs/verification.md#verdicts), from the two sides' runs of the claimed test.

use serde::Serialize;

use crate::core::rerun::verdict::Count;

/// What verification concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The merge base (with the PR's tests) fails every run, the head passes every run.
    Verified,
    /// The merge base never fails: the test does not reproduce the bug.
    DoesNotFail,
    /// The merge base fails some runs only: a forcing test or a seed fails every time.
    NotDeterministic,
    /// The head fails at least once: the change does not fix what the test shows.
    StillFails,
    /// A side ran the test 0 times, or its run could not be started.
    CouldNotRun,
    /// No verdict within `verify.timeout_minutes`.
    TimedOut,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Verified,
        Verdict::DoesNotFail,
        Verdict::NotDeterministic,
        Verdict::StillFails,
        Verdict::CouldNotRun,
        Verdict::TimedOut,
    ];

    /// The words a summary, the audit log and the metrics use.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::DoesNotFail => "does not fail without the change",
            Verdict::NotDeterministic => "not deterministic",
            Verdict::StillFails => "still fails with the change",
            Verdict::CouldNotRun => "could not run",
            Verdict::TimedOut => "timed out",
        }
    }

    /// The `verdict` label of `repro_gate_verifications_total`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::DoesNotFail => "does_not_fail",
            Verdict::NotDeterministic => "not_deterministic",
            Verdict::StillFails => "still_fails",
            Verdict::CouldNotRun => "could_not_run",
            Verdict::TimedOut => "timed_out",
        }
    }
}

/// One side of a verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideState {
    /// Dispatched (or about to be); its run has not completed. The run's link once it started.
    Waiting { run_url: Option<String> },
    /// GitHub refused to start it.
    NotStarted { reason: String },
    /// Its run completed: the claimed test's failures in its runs.
    Done {
        count: Count,
        run_url: Option<String>,
        detail: RunDetail,
    },
}

/// What a side's runs said beyond the count (core::runs): how the failures failed, and why
/// runs had no result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunDetail {
    /// `18 failed, 2 crashed (signal 6)`.
    pub how: Option<String>,
    /// Runs that never started, with the reason (naming the side): `could not run`.
    pub no_result: Option<String>,
}

impl SideState {
    pub fn run_url(&self) -> Option<&str> {
        match self {
            SideState::Waiting { run_url } | SideState::Done { run_url, .. } => run_url.as_deref(),
            SideState::NotStarted { .. } => None,
        }
    }
}

/// A verdict with the reason behind `could not run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub verdict: Verdict,
    pub reason: Option<String>,
}

impl Outcome {
    fn of(verdict: Verdict) -> Outcome {
        Outcome {
            verdict,
            reason: None,
        }
    }
}

/// The verdict once both sides are in (or a side could not start, or time ran out); `None`
/// while it is still coming. The base is read first: a test that does not fail without the
/// change proves nothing, whatever the head did. `runs` is what each side was asked for: a
/// side may stop once its verdict is settled (docs/verification.md#a-verdicts-cost), so fewer
/// runs can say `still fails` or `not deterministic`, never `verified`.
pub fn assess(branch: &SideState, base: &SideState, timed_out: bool, runs: u32) -> Option<Outcome> {
    for (name, side) in [("merge base", base), ("head", branch)] {
        if let SideState::NotStarted { reason } = side {
            return Some(Outcome {
                verdict: Verdict::CouldNotRun,
                reason: Some(format!("the {name} run could not be started: {reason}")),
            });
        }
    }
    let (b, h) = match (base, branch) {
        (
            SideState::Done {
                count: b,
                detail: db,
                ..
            },
            SideState::Done {
                count: h,
                detail: dh,
                ..
            },
        ) => {
            // A run that never started (a build error, no such test, an ambiguous name)
            // makes a side's count mean nothing.
            if let Some(r) = db.no_result.as_ref().or(dh.no_result.as_ref()) {
                return Some(Outcome {
                    verdict: Verdict::CouldNotRun,
                    reason: Some(r.clone()),
                });
            }
            (*b, *h)
        }
        _ if timed_out => return Some(Outcome::of(Verdict::TimedOut)),
        _ => return None,
    };
    for (name, c) in [("merge base", b), ("head", h)] {
        if c.runs == 0 {
            return Some(Outcome {
                verdict: Verdict::CouldNotRun,
                reason: Some(format!(
                    "the {name} run's report holds no run of the test (not found, a build error, or no report uploaded)"
                )),
            });
        }
    }
    if b.failures == 0 {
        return Some(Outcome::of(Verdict::DoesNotFail));
    }
    if b.failures < b.runs {
        return Some(Outcome::of(Verdict::NotDeterministic));
    }
    if h.failures > 0 {
        return Some(Outcome::of(Verdict::StillFails));
    }
    // A run that did not report is not a pass, nor a failure of the base.
    for (name, c) in [("merge base", b), ("head", h)] {
        if c.runs < runs {
            return Some(Outcome {
                verdict: Verdict::CouldNotRun,
                reason: Some(format!(
                    "the {name} run's report holds {} of the {runs} runs asked of the test; a run that did not report is not a pass",
                    c.runs
                )),
            });
        }
    }
    Some(Outcome::of(Verdict::Verified))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(failures: u32, runs: u32) -> SideState {
        SideState::Done {
            count: Count { failures, runs },
            run_url: None,
            detail: Default::default(),
        }
    }

    fn waiting() -> SideState {
        SideState::Waiting { run_url: None }
    }

    fn verdict(head: SideState, base: SideState) -> Option<Verdict> {
        let runs = [&head, &base]
            .iter()
            .filter_map(|s| match s {
                SideState::Done { count, .. } => Some(count.runs),
                _ => None,
            })
            .max()
            .unwrap_or(1);
        assess(&head, &base, false, runs).map(|o| o.verdict)
    }

    #[test]
    fn base_fails_every_run_and_head_passes_every_run_is_verified() {
        assert_eq!(verdict(done(0, 20), done(20, 20)), Some(Verdict::Verified));
        assert_eq!(verdict(done(0, 1), done(1, 1)), Some(Verdict::Verified));
    }

    #[test]
    fn a_base_that_never_fails_does_not_reproduce_whatever_the_head_did() {
        assert_eq!(
            verdict(done(0, 20), done(0, 20)),
            Some(Verdict::DoesNotFail)
        );
        assert_eq!(
            verdict(done(20, 20), done(0, 20)),
            Some(Verdict::DoesNotFail)
        );
        assert_eq!(
            verdict(done(3, 20), done(0, 20)),
            Some(Verdict::DoesNotFail)
        );
    }

    #[test]
    fn a_base_that_fails_some_runs_is_not_deterministic() {
        assert_eq!(
            verdict(done(0, 20), done(13, 20)),
            Some(Verdict::NotDeterministic)
        );
        assert_eq!(
            verdict(done(0, 20), done(19, 20)),
            Some(Verdict::NotDeterministic)
        );
        assert_eq!(
            verdict(done(0, 20), done(1, 20)),
            Some(Verdict::NotDeterministic)
        );
        assert_eq!(
            verdict(done(5, 20), done(13, 20)),
            Some(Verdict::NotDeterministic)
        );
    }

    #[test]
    fn a_head_failing_once_still_fails() {
        assert_eq!(
            verdict(done(2, 20), done(20, 20)),
            Some(Verdict::StillFails)
        );
        assert_eq!(
            verdict(done(20, 20), done(20, 20)),
            Some(Verdict::StillFails)
        );
        assert_eq!(
            verdict(done(1, 20), done(20, 20)),
            Some(Verdict::StillFails)
        );
    }

    #[test]
    fn no_run_of_the_test_on_a_side_could_not_run_and_says_which() {
        let o = assess(&done(0, 20), &done(0, 0), false, 20).unwrap();
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert!(o.reason.unwrap().contains("merge base"));
        let o = assess(&done(0, 0), &done(20, 20), false, 20).unwrap();
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert!(o.reason.unwrap().contains("head"));
        let refused = SideState::NotStarted {
            reason: "422 Unexpected inputs provided".into(),
        };
        let o = assess(&waiting(), &refused, false, 20).unwrap();
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert!(o.reason.unwrap().contains("422"));
    }

    #[test]
    fn a_side_that_never_completed_waits_then_times_out() {
        assert_eq!(verdict(done(0, 20), waiting()), None);
        assert_eq!(verdict(waiting(), done(20, 20)), None);
        assert_eq!(verdict(waiting(), waiting()), None);
        assert_eq!(
            assess(&done(0, 20), &waiting(), true, 20).map(|o| o.verdict),
            Some(Verdict::TimedOut)
        );
        // Both sides in before the timeout job ran: the counts decide.
        assert_eq!(
            assess(&done(0, 20), &done(20, 20), true, 20).map(|o| o.verdict),
            Some(Verdict::Verified)
        );
    }

    #[test]
    fn a_side_that_stopped_early_settles_only_what_its_runs_settle() {
        let asked = |head, base| assess(&head, &base, false, 20).map(|o| o.verdict);
        // The head stopped at its first failure; the base stopped once it passed and failed.
        assert_eq!(asked(done(1, 1), done(20, 20)), Some(Verdict::StillFails));
        assert_eq!(
            asked(done(0, 20), done(1, 2)),
            Some(Verdict::NotDeterministic)
        );
        assert_eq!(asked(done(0, 20), done(0, 3)), Some(Verdict::DoesNotFail));
        // Too few runs on either side is never verified.
        for (head, base) in [(done(0, 1), done(20, 20)), (done(0, 20), done(19, 19))] {
            let o = assess(&head, &base, false, 20).unwrap();
            assert_eq!(o.verdict, Verdict::CouldNotRun);
            assert!(o.reason.unwrap().contains("of the 20 runs asked"));
        }
        // More results than runs (a test id shared by its cases) is no shortfall.
        assert_eq!(asked(done(0, 40), done(40, 40)), Some(Verdict::Verified));
    }

    #[test]
    fn every_verdict_has_its_own_words() {
        for v in Verdict::ALL {
            for w in Verdict::ALL {
                if v != w {
                    assert!(!v.as_str().contains(w.as_str()), "{v:?} {w:?}");
                }
            }
        }
    }
}
