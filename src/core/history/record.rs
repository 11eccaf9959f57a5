//! Which results of a run count in the windows (docs/history.md): runs on the branches of `history.branches`
//! (the default branch and the merge queue) count, except an outage (more than 80 % of at least
//! 20 tests failing); on other branches (pull requests) only flakiness counts: a test that
//! fails and passes on one commit SHA is one flaky result.

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::window::Counted;
use crate::core::failures::Outcome;

/// How a run counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunClass {
    /// Its results go into the windows.
    Counted,
    /// Most tests failed at once (an outage): left out.
    Outage,
    /// A pull request's run: only same-SHA flakiness counts.
    PullRequest,
}

impl RunClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RunClass::Counted => "counted",
            RunClass::Outage => "outage",
            RunClass::PullRequest => "pull_request",
        }
    }
}

/// Branch patterns (`main`, `gh-readonly-queue/**`) compiled once; `main` also stands for the
/// repository's default branch when that is known and named otherwise.
pub struct Branches {
    set: GlobSet,
    names_main: bool,
}

impl Branches {
    pub fn new(patterns: &[String]) -> Branches {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            if let Ok(g) = Glob::new(p) {
                b.add(g);
            }
        }
        Branches {
            set: b.build().unwrap_or_else(|_| GlobSet::empty()),
            names_main: patterns.iter().any(|p| p == "main"),
        }
    }

    /// Whether runs on `branch` count, `default_branch` when known.
    pub fn counts(&self, branch: &str, default_branch: Option<&str>) -> bool {
        let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        self.set.is_match(branch) || (self.names_main && Some(branch) == default_branch)
    }
}

/// The class of a run with these outcomes on a branch that counts or not.
pub fn classify_run(outcomes: impl IntoIterator<Item = Outcome>, counted_branch: bool) -> RunClass {
    if !counted_branch {
        return RunClass::PullRequest;
    }
    let (mut considered, mut failing) = (0usize, 0usize);
    for o in outcomes {
        considered += usize::from(o != Outcome::Skip);
        failing += usize::from(o == Outcome::Fail);
    }
    if considered >= 20 && failing * 5 > considered * 4 {
        RunClass::Outage
    } else {
        RunClass::Counted
    }
}

/// A result as it enters a window (skips are not runs).
pub fn counted(outcome: Outcome) -> Option<Counted> {
    match outcome {
        Outcome::Pass => Some(Counted::Pass),
        Outcome::Fail => Some(Counted::Fail),
        Outcome::Flaky => Some(Counted::Flaky),
        Outcome::Skip => None,
    }
}

/// What a pull request's commit has shown of one test so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShaOutcomes {
    pub failed: bool,
    pub passed: bool,
    /// Its flaky result was counted already.
    pub counted: bool,
}

/// Adds a pull-request run's result to what its SHA showed; answers the flaky result to count,
/// once per test and SHA.
pub fn pr_result(seen: &mut ShaOutcomes, outcome: Outcome) -> Option<Counted> {
    match outcome {
        Outcome::Fail => seen.failed = true,
        Outcome::Pass => seen.passed = true,
        Outcome::Flaky => {
            seen.failed = true;
            seen.passed = true;
        }
        Outcome::Skip => {}
    }
    if seen.failed && seen.passed && !seen.counted {
        seen.counted = true;
        Some(Counted::Flaky)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::failures::{FailedTest, TestResult};

    fn results(pass: usize, fail: usize, skip: usize) -> Vec<TestResult> {
        let r = |i: usize, outcome| TestResult {
            message: None,
            duration_ms: None,
            test: FailedTest {
                name: format!("T{i}"),
                package: None,
            },
            outcome,
            passes: 0,
            failures: 0,
        };
        (0..pass)
            .map(|i| r(i, Outcome::Pass))
            .chain((0..fail).map(|i| r(1000 + i, Outcome::Fail)))
            .chain((0..skip).map(|i| r(2000 + i, Outcome::Skip)))
            .collect()
    }

    #[test]
    fn outages_are_more_than_80_percent_of_at_least_20_tests_failing() {
        assert_eq!(
            classify_run(results(0, 25, 0).iter().map(|r| r.outcome), true),
            RunClass::Outage
        );
        assert_eq!(
            classify_run(results(4, 16, 0).iter().map(|r| r.outcome), true),
            RunClass::Counted,
            "exactly 80 %"
        );
        assert_eq!(
            classify_run(results(3, 17, 0).iter().map(|r| r.outcome), true),
            RunClass::Outage
        );
        assert_eq!(
            classify_run(results(0, 19, 0).iter().map(|r| r.outcome), true),
            RunClass::Counted,
            "too few tests"
        );
        assert_eq!(
            classify_run(results(0, 19, 30).iter().map(|r| r.outcome), true),
            RunClass::Counted,
            "skips are not runs"
        );
        assert_eq!(
            classify_run(results(0, 25, 0).iter().map(|r| r.outcome), false),
            RunClass::PullRequest
        );
    }

    #[test]
    fn default_branch_and_merge_queue_count() {
        let b = Branches::new(&["main".into(), "gh-readonly-queue/**".into()]);
        assert!(b.counts("main", None));
        assert!(b.counts("refs/heads/gh-readonly-queue/main/pr-7-abc", None));
        assert!(b.counts("trunk", Some("trunk")));
        assert!(!b.counts("feature/x", Some("main")));
    }

    #[test]
    fn a_pr_sha_that_fails_then_passes_counts_one_flaky_result() {
        let mut seen = ShaOutcomes::default();
        assert_eq!(
            pr_result(&mut seen, Outcome::Fail),
            None,
            "a plain PR failure does not count"
        );
        assert_eq!(pr_result(&mut seen, Outcome::Pass), Some(Counted::Flaky));
        assert_eq!(
            pr_result(&mut seen, Outcome::Pass),
            None,
            "once per test and SHA"
        );
        let mut other = ShaOutcomes::default();
        assert_eq!(pr_result(&mut other, Outcome::Flaky), Some(Counted::Flaky));
    }
}

/// Windows and pull-request SHA outcomes held in memory: the one place a run's results are
/// applied (the store loads the rows a run touches into it, applies, and writes them back; an
/// offline build of a folder of reports keeps everything in it).
#[derive(Debug, Default)]
pub struct Ledger {
    pub windows: std::collections::HashMap<String, super::window::Window>,
    /// (sha, test) → what that commit showed.
    pub pr: std::collections::HashMap<(String, String), ShaOutcomes>,
}

impl Ledger {
    /// Applies a run's results (of commit `sha`, recorded at `at_ms` on `day`, with the
    /// durations its reports gave by test id); answers the tests whose windows moved. A skip
    /// on a tracked branch is counted as a skip (never a result).
    pub fn apply<'a>(
        &mut self,
        class: RunClass,
        sha: &str,
        results: &'a [(String, Outcome)],
        day: &str,
        at_ms: i64,
        durations: &std::collections::HashMap<String, u64>,
    ) -> Vec<&'a str> {
        let mut moved = Vec::new();
        for (test, outcome) in results {
            match class {
                RunClass::Outage => {}
                RunClass::Counted => {
                    let w = self.windows.entry(test.clone()).or_default();
                    match counted(*outcome) {
                        Some(c) => w.push_run(c, day, sha, at_ms, durations.get(test).copied()),
                        None => w.skip(),
                    }
                    moved.push(test.as_str());
                }
                RunClass::PullRequest => {
                    let seen = self.pr.entry((sha.to_string(), test.clone())).or_default();
                    if let Some(c) = pr_result(seen, *outcome) {
                        self.windows.entry(test.clone()).or_default().push(c, day);
                        moved.push(test.as_str());
                    }
                }
            }
        }
        moved
    }
}
