//! A test's status beside its tier (docs/dashboard.md): what a person fixing tests asks first. Read from four
//! numbers kept beside each window, so that a page of 50,000 tests counts and sorts by status
//! in SQL ([`STATUS_RANK_SQL`] is this same rule).

use super::window::{Counted, Window};

/// The four statuses, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Fails each of its last `broken_after` runs: a real failure, not a flake.
    Broken,
    /// Failed and passed on one commit (a flaky result), or failed more than once in its
    /// window while passing in between.
    Flaky,
    /// One failure in its window.
    FailedOnce,
    Healthy,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Broken,
        Status::Flaky,
        Status::FailedOnce,
        Status::Healthy,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Broken => "broken",
            Status::Flaky => "flaky",
            Status::FailedOnce => "failed_once",
            Status::Healthy => "healthy",
        }
    }

    /// As people read it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Broken => "broken",
            Status::Flaky => "flaky",
            Status::FailedOnce => "failed once",
            Status::Healthy => "healthy",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL
            .into_iter()
            .find(|x| x.as_str() == s || x.label() == s)
    }

    /// The position in [`Status::ALL`] (the SQL's rank).
    pub fn rank(self) -> i64 {
        self as i64
    }

    pub fn from_rank(r: i64) -> Status {
        match r {
            0 => Status::Broken,
            1 => Status::Flaky,
            2 => Status::FailedOnce,
            _ => Status::Healthy,
        }
    }
}

/// What the status is read from, over a test's last `n` outcomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub runs: u64,
    pub failures: u64,
    /// Flaky results (failed, then passed, on one commit).
    pub flakes: u64,
    /// Plain failures it ends with.
    pub tail_fails: u64,
}

impl Marks {
    pub fn of(w: &Window, n: usize) -> Marks {
        let mut m = Marks::default();
        for o in w.last(n) {
            m.runs += 1;
            match o {
                Counted::Pass => m.tail_fails = 0,
                Counted::Fail => {
                    m.failures += 1;
                    m.tail_fails += 1;
                }
                Counted::Flaky => {
                    m.failures += 1;
                    m.flakes += 1;
                    m.tail_fails = 0;
                }
            }
        }
        m
    }

    /// The status, with the file's `policy.broken_after`. A test that failed every result
    /// since it first appeared is broken from its second (`broken_after` counts from the
    /// first result).
    pub fn status(&self, broken_after: u64) -> Status {
        if broken_after > 0
            && (self.tail_fails >= broken_after
                || (self.tail_fails >= 2 && self.tail_fails == self.runs))
        {
            Status::Broken
        } else if self.flakes > 0 || self.failures >= 2 {
            Status::Flaky
        } else if self.failures == 1 {
            Status::FailedOnce
        } else {
            Status::Healthy
        }
    }
}

/// [`Marks::status`]'s rank in SQL over `history_tests` as `t`, with `broken_after` bound as
/// `$B` (replaced by the caller with its parameter number). Missing counts read as 0; a
/// BIGINT on both backends.
pub const STATUS_RANK_SQL: &str = "CAST(CASE WHEN $B > 0 AND COALESCE(t.tail_fails, 0) >= $B THEN 0 \
    WHEN $B > 0 AND COALESCE(t.tail_fails, 0) >= 2 AND t.tail_fails = t.runs THEN 0 \
    WHEN COALESCE(t.flakes, 0) > 0 OR COALESCE(t.failures, 0) >= 2 THEN 1 \
    WHEN COALESCE(t.failures, 0) = 1 THEN 2 ELSE 3 END AS BIGINT)";

#[cfg(test)]
mod tests {
    use super::*;

    fn window(outcomes: &[Counted]) -> Window {
        let mut w = Window::default();
        for o in outcomes {
            w.push(*o, "2026-12-01");
        }
        w
    }

    use Counted::{Fail as F, Flaky as K, Pass as P};

    #[test]
    fn each_status_from_its_window() {
        let cases: &[(&[Counted], Status)] = &[
            (&[], Status::Healthy),
            (&[P, P, P], Status::Healthy),
            (&[P, F, P], Status::FailedOnce),
            (&[P, K, P], Status::Flaky),
            (&[F, P, F, P], Status::Flaky),
            (&[P, F, F, F], Status::Broken),
            (&[F, F, K], Status::Flaky),
        ];
        for (outcomes, want) in cases {
            let m = Marks::of(&window(outcomes), 200);
            assert_eq!(m.status(3), *want, "{outcomes:?}");
        }
    }

    #[test]
    fn a_failing_streak_is_broken_only_from_broken_after() {
        let w = window(&[P, F, F]);
        assert_eq!(Marks::of(&w, 200).status(3), Status::Flaky);
        assert_eq!(Marks::of(&w, 200).status(2), Status::Broken);
        assert_eq!(
            Marks::of(&w, 200).status(0),
            Status::Flaky,
            "0 turns broken off"
        );
    }

    #[test]
    fn a_test_failing_every_result_since_it_appeared_is_broken_from_its_second() {
        assert_eq!(Marks::of(&window(&[F]), 200).status(10), Status::FailedOnce);
        assert_eq!(Marks::of(&window(&[F, F]), 200).status(10), Status::Broken);
        assert_eq!(
            Marks::of(&window(&[P, F, F]), 200).status(10),
            Status::Flaky
        );
        assert_eq!(
            Marks::of(&window(&[K, F]), 200).status(10),
            Status::Flaky,
            "a flaky result passed"
        );
        assert_eq!(
            Marks::of(&window(&[F, F]), 200).status(0),
            Status::Flaky,
            "0 turns broken off"
        );
    }

    #[test]
    fn only_the_last_n_outcomes_count() {
        let w = window(&[F, P, P, P]);
        assert_eq!(Marks::of(&w, 3).status(10), Status::Healthy);
        assert_eq!(Marks::of(&w, 4).status(10), Status::FailedOnce);
    }

    #[test]
    fn names_and_ranks_round_trip() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
            assert_eq!(Status::parse(s.label()), Some(s));
            assert_eq!(Status::from_rank(s.rank()), s);
        }
        assert_eq!(Status::parse("fine"), None);
    }
}
