//! The verdict of a finished session (docs/rerun.md), from the two counts.

use serde::Serialize;

use super::stats::{fisher_one_sided, wilson};

/// The significance level of "this change makes it fail".
pub const ALPHA: f64 = 0.05;

/// Failures in runs of the one test on one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub failures: u32,
    pub runs: u32,
}

impl Count {
    pub fn rate(self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            f64::from(self.failures) / f64::from(self.runs)
        }
    }
}

/// What a session concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The base fails too, and the branch not significantly more: a flake the change did not
    /// bring. Quarantine it; do not change code for it.
    NotThisChange,
    /// The branch fails significantly more often than the base: investigate the change.
    ThisChangeMakesItFail,
    /// Every run failed on both sides: a real failure, not a flake.
    BrokenOnBoth,
    /// Nothing failed on either side: not reproducible at this number of runs.
    NoFailure,
    /// The branch failed a few times, the base never, too few to tell apart at this n.
    Inconclusive,
    /// A side reported no result for the test (the workflow ran something else, or nothing).
    NoResults,
}

impl Verdict {
    /// The verdict in words (`rerun-local`'s JSON, the dashboard).
    pub fn phrase(self) -> &'static str {
        match self {
            Verdict::NotThisChange => "not this change",
            Verdict::ThisChangeMakesItFail => "this change makes it fail",
            Verdict::BrokenOnBoth => "broken on both",
            Verdict::NoFailure => "no failure in n runs on either side",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoResults => "no results",
        }
    }
}

/// A verdict with its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Assessed {
    pub verdict: Verdict,
    /// One-sided Fisher exact p that the branch fails more than the base.
    pub p: f64,
    pub branch_interval: (f64, f64),
    pub base_interval: (f64, f64),
}

pub fn assess(branch: Count, base: Count) -> Assessed {
    let p = fisher_one_sided(branch.failures, branch.runs, base.failures, base.runs);
    let verdict = if branch.runs == 0 || base.runs == 0 {
        Verdict::NoResults
    } else if branch.failures >= branch.runs && base.failures >= base.runs {
        Verdict::BrokenOnBoth
    } else if branch.failures == 0 && base.failures == 0 {
        Verdict::NoFailure
    } else if p < ALPHA {
        Verdict::ThisChangeMakesItFail
    } else if base.failures > 0 {
        Verdict::NotThisChange
    } else {
        Verdict::Inconclusive
    };
    Assessed {
        verdict,
        p,
        branch_interval: wilson(branch.failures, branch.runs),
        base_interval: wilson(base.failures, base.runs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(failures: u32, runs: u32) -> Count {
        Count { failures, runs }
    }

    #[test]
    fn each_verdict_from_its_counts() {
        assert_eq!(assess(c(3, 20), c(3, 20)).verdict, Verdict::NotThisChange);
        assert_eq!(
            assess(c(8, 20), c(0, 20)).verdict,
            Verdict::ThisChangeMakesItFail
        );
        assert_eq!(assess(c(20, 20), c(20, 20)).verdict, Verdict::BrokenOnBoth);
        assert_eq!(assess(c(0, 20), c(0, 20)).verdict, Verdict::NoFailure);
        assert_eq!(assess(c(2, 20), c(0, 20)).verdict, Verdict::Inconclusive);
        assert_eq!(assess(c(0, 20), c(0, 0)).verdict, Verdict::NoResults);
        // The base fails and the branch does not: the flake is older than the change.
        assert_eq!(assess(c(0, 20), c(4, 20)).verdict, Verdict::NotThisChange);
        // Broken by the change: every branch run fails, no base run does.
        assert_eq!(
            assess(c(20, 20), c(0, 20)).verdict,
            Verdict::ThisChangeMakesItFail
        );
        // The boundary in docs/rerun.md#statistics: 5/20 vs 0/20 is significant, 4/20 is not.
        assert_eq!(
            assess(c(5, 20), c(0, 20)).verdict,
            Verdict::ThisChangeMakesItFail
        );
        assert_eq!(assess(c(4, 20), c(0, 20)).verdict, Verdict::Inconclusive);
        assert_eq!(
            assess(c(9, 20), c(3, 20)).verdict,
            Verdict::ThisChangeMakesItFail
        );
        assert_eq!(assess(c(8, 20), c(3, 20)).verdict, Verdict::NotThisChange);
    }

    #[test]
    fn the_numbers_come_with_it() {
        let a = assess(c(3, 20), c(3, 20));
        assert!((a.p - 0.6693).abs() < 0.0001);
        assert!((a.branch_interval.1 - 0.3604).abs() < 0.0001);
        assert_eq!(a.branch_interval, a.base_interval);
    }
}
