//! Since when a test fails (docs/dashboard.md, "Onset"): where its current failing period began on
//! the tracked branches, kept one result at a time in a few bytes per test. Pure.
//!
//! The rule is a change point over the test's results in commit order: each place where a
//! failure follows a pass (or the test's first result is a failure) is a candidate start. A
//! candidate after which more than half the results failed is a failing period; of those, the
//! start is the one where the failure rate changes most (the rate after it less the rate before
//! it; the earliest on a tie). A test failing every run since commit `c` starts at `c`; a pass
//! in the middle of a broken period does not end it; a run of passes that brings the failures
//! to half or fewer does; one old flaky failure before a run of passes is not where it began.
//! The last passing commit before the start and the first failing one bound it (a compare
//! link).

use std::collections::VecDeque;

/// Candidate starts kept (the oldest goes first when a new one comes).
pub const MAX_STARTS: usize = 8;

/// Longest commit id kept (a SHA-256 object id is 64 hex digits; longer is cut).
pub const MAX_SHA: usize = 64;

/// A candidate start of a failing period.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Start {
    /// The last passing commit before it (none: the test failed from its first result).
    pub last_pass_sha: Option<String>,
    pub first_fail_sha: String,
    /// When the first failing result was recorded (Unix ms).
    pub at_ms: i64,
    /// Results and failures counted before it.
    pub results_before: u64,
    pub failures_before: u64,
}

/// What the history keeps of a test for its onset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tracker {
    /// The commit of its latest passing result.
    pub last_pass_sha: Option<String>,
    /// Results and failures counted so far.
    pub results: u64,
    pub failures: u64,
    /// Whether its latest result failed.
    pub failing: bool,
    /// Oldest first, at most [`MAX_STARTS`].
    pub starts: VecDeque<Start>,
}

/// The answer: where the current failing period began.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Onset {
    pub last_pass_sha: Option<String>,
    pub first_fail_sha: String,
    /// Unix ms of the first failing result.
    #[serde(skip)]
    pub at_ms: i64,
    /// Results since it began, and how many of them failed.
    pub results: u64,
    pub failures: u64,
}

fn cut(sha: &str) -> String {
    let mut end = sha.len().min(MAX_SHA);
    while !sha.is_char_boundary(end) {
        end -= 1;
    }
    sha[..end].to_string()
}

impl Tracker {
    /// Adds one counted result of commit `sha` recorded at `at_ms`.
    pub fn push(&mut self, failed: bool, sha: &str, at_ms: i64) {
        if failed && !self.failing {
            if self.starts.len() == MAX_STARTS {
                self.starts.pop_front();
            }
            self.starts.push_back(Start {
                last_pass_sha: self.last_pass_sha.clone(),
                first_fail_sha: cut(sha),
                at_ms,
                results_before: self.results,
                failures_before: self.failures,
            });
        }
        if !failed {
            self.last_pass_sha = Some(cut(sha));
        }
        self.failing = failed;
        self.results += 1;
        self.failures += u64::from(failed);
    }

    /// The current failing period's start, if the test is in one.
    pub fn onset(&self) -> Option<Onset> {
        let mut best: Option<(f64, &Start, u64, u64)> = None;
        for s in &self.starts {
            let results = self.results.saturating_sub(s.results_before);
            let failures = self.failures.saturating_sub(s.failures_before);
            if results == 0 || failures * 2 <= results {
                continue;
            }
            let before = if s.results_before == 0 {
                0.0
            } else {
                s.failures_before as f64 / s.results_before as f64
            };
            let score = failures as f64 / results as f64 - before;
            if best.is_none_or(|(b, ..)| score > b) {
                best = Some((score, s, results, failures));
            }
        }
        best.map(|(_, s, results, failures)| Onset {
            last_pass_sha: s.last_pass_sha.clone(),
            first_fail_sha: s.first_fail_sha.clone(),
            at_ms: s.at_ms,
            results,
            failures,
        })
    }

    pub fn is_empty(&self) -> bool {
        *self == Tracker::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(results: &str) -> Tracker {
        let mut t = Tracker::default();
        for (i, c) in results.chars().enumerate() {
            t.push(c == 'F', &format!("c{i}"), i as i64 * 1000);
        }
        t
    }

    #[test]
    fn a_test_failing_every_run_since_a_commit_began_there() {
        let o = run("PPPPPFFFFF").onset().expect("failing since c5");
        assert_eq!(o.last_pass_sha.as_deref(), Some("c4"));
        assert_eq!(o.first_fail_sha, "c5");
        assert_eq!(o.at_ms, 5000);
        assert_eq!((o.results, o.failures), (5, 5));
    }

    #[test]
    fn a_pass_inside_a_broken_period_does_not_end_it() {
        let o = run("PPPFFPFFFF").onset().expect("still failing");
        assert_eq!(o.first_fail_sha, "c3");
        assert_eq!(o.last_pass_sha.as_deref(), Some("c2"));
    }

    #[test]
    fn passes_that_bring_the_failures_to_half_end_the_period() {
        assert_eq!(run("PPFFPPPP").onset(), None);
        assert_eq!(run("PPPPPPPP").onset(), None);
        assert_eq!(run("").onset(), None);
        assert_eq!(
            run("PFP").onset(),
            None,
            "one failure in two results is not most"
        );
    }

    #[test]
    fn a_test_failing_from_its_first_result_has_no_last_pass() {
        let o = run("FF").onset().expect("failing since it appeared");
        assert_eq!(o.last_pass_sha, None);
        assert_eq!(o.first_fail_sha, "c0");
    }

    #[test]
    fn the_earliest_start_after_which_most_failed_wins() {
        // Flaky once long ago, then failing since c6.
        let o = run("PFPPPPFFFF").onset().expect("failing");
        assert_eq!(o.first_fail_sha, "c6");
        // A start whose tail is mostly failures even with passes in between.
        let o = run("PPFPFFFF").onset().expect("failing");
        assert_eq!(o.first_fail_sha, "c2");
    }

    #[test]
    fn the_starts_kept_are_bounded_and_long_ids_cut() {
        let t = run(&"PF".repeat(100));
        assert_eq!(t.starts.len(), MAX_STARTS);
        let mut t = Tracker::default();
        t.push(true, &"é".repeat(100), 1);
        assert!(t.starts[0].first_fail_sha.len() <= MAX_SHA);
    }
}
