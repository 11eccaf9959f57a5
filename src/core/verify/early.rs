//! A verdict's cost (docs/verification.md#a-verdicts-cost; `verify-local` uses it; the rerun
//! workflow stops each side on the same rule in shell), pure: the head's runs come first and
//! the base's after, the runs stop as soon as the verdict is settled, and a base run is bounded
//! by the test's own time on the head rather than by the configured limit alone.

use std::time::Duration;

use serde::Serialize;

use super::verdict::Verdict;
use crate::core::rerun::verdict::Count;

/// The least a base run is given, however fast the head's runs were.
pub const FLOOR: Duration = Duration::from_secs(30);

/// A base run is given this many times the head's slowest passing run.
pub const MULTIPLE: u32 = 3;

/// The verdict the runs so far settle before all are made: the head failing once is `still
/// fails with the change`; a base that has both passed and failed is `not deterministic`.
/// `None`: keep running.
pub fn settled(head: Count, base: Count) -> Option<Verdict> {
    if head.failures > 0 {
        return Some(Verdict::StillFails);
    }
    if base.failures > 0 && base.failures < base.runs {
        return Some(Verdict::NotDeterministic);
    }
    None
}

/// Which limit a base run has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Limit {
    /// `MULTIPLE` times the head's slowest passing run, or the floor when that is less.
    Head { seconds: u64, slowest_head_ms: u64 },
    /// The configured one-run limit (`rerun.run_timeout_seconds`, `--timeout`): no head run
    /// passed, or the test's own bound would be longer.
    Configured { seconds: u64 },
}

impl Limit {
    pub fn seconds(self) -> u64 {
        match self {
            Limit::Head { seconds, .. } | Limit::Configured { seconds } => seconds,
        }
    }

    /// What a summary says of it: `30 s (the floor; 3× the head's slowest passing run, 0.4 s, is less)`.
    pub fn describe(self) -> String {
        match self {
            Limit::Head {
                seconds,
                slowest_head_ms,
            } => {
                let slowest = slowest_head_ms as f64 / 1000.0;
                if u128::from(seconds) * 1000 > u128::from(slowest_head_ms) * u128::from(MULTIPLE) {
                    format!(
                        "{seconds} s (the floor: {MULTIPLE}× the head's slowest passing run, {slowest:.1} s, is less)"
                    )
                } else {
                    format!(
                        "{seconds} s ({MULTIPLE}× the head's slowest passing run, {slowest:.1} s)"
                    )
                }
            }
            Limit::Configured { seconds } => {
                format!("{seconds} s (the configured limit, rerun.run_timeout_seconds)")
            }
        }
    }
}

/// A base run's limit: the larger of [`FLOOR`] and [`MULTIPLE`] times the head's slowest
/// passing run, never more than the configured one.
pub fn base_limit(configured: Duration, slowest_head_pass: Option<Duration>) -> Limit {
    let configured_s = configured.as_secs().max(1);
    let Some(slowest) = slowest_head_pass else {
        return Limit::Configured {
            seconds: configured_s,
        };
    };
    let own = (slowest * MULTIPLE).max(FLOOR);
    // Whole seconds, rounded up: a run is never cut shorter than the bound.
    let own_s = own.as_secs() + u64::from(own.subsec_nanos() > 0);
    if own_s >= configured_s {
        Limit::Configured {
            seconds: configured_s,
        }
    } else {
        Limit::Head {
            seconds: own_s,
            slowest_head_ms: u64::try_from(slowest.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(failures: u32, runs: u32) -> Count {
        Count { failures, runs }
    }

    #[test]
    fn the_head_failing_once_settles_still_fails() {
        assert_eq!(settled(c(1, 1), c(0, 0)), Some(Verdict::StillFails));
        assert_eq!(settled(c(1, 7), c(0, 0)), Some(Verdict::StillFails));
        assert_eq!(settled(c(0, 20), c(0, 0)), None);
    }

    #[test]
    fn a_base_that_passed_and_failed_settles_not_deterministic() {
        assert_eq!(settled(c(0, 20), c(1, 2)), Some(Verdict::NotDeterministic));
        assert_eq!(settled(c(0, 20), c(1, 3)), Some(Verdict::NotDeterministic));
        // Every base run so far failed, or none did: not settled yet.
        assert_eq!(settled(c(0, 20), c(5, 5)), None);
        assert_eq!(settled(c(0, 20), c(0, 5)), None);
    }

    #[test]
    fn a_base_run_gets_a_multiple_of_the_heads_slowest_pass_above_a_floor() {
        let configured = Duration::from_secs(300);
        assert_eq!(
            base_limit(configured, Some(Duration::from_secs(40))),
            Limit::Head {
                seconds: 120,
                slowest_head_ms: 40_000
            }
        );
        assert_eq!(
            base_limit(configured, Some(Duration::from_millis(400))).seconds(),
            FLOOR.as_secs()
        );
        assert_eq!(
            base_limit(configured, Some(Duration::from_secs(200))),
            Limit::Configured { seconds: 300 }
        );
        assert_eq!(
            base_limit(configured, None),
            Limit::Configured { seconds: 300 }
        );
        assert!(
            base_limit(configured, Some(Duration::from_millis(400)))
                .describe()
                .contains("the floor")
        );
        assert!(
            base_limit(configured, None)
                .describe()
                .contains("configured")
        );
    }
}
