//! A verdict's cost (docs/verification.md#a-verdicts-cost; `verify-local` uses it; the rerun
//! workflow stops each side on the same rule in shell), pure: the head's runs come first and
//! the base's after, the runs stop as soon as the verdict is settled, and a base run is bounded
//! by the test's own time on the head rather than by the configured limit alone. The floor is
//! spent once: after a base run hung at its limit, the later ones get twice the head's slowest
//! passing run, so a hung base costs at most about twice the head's time plus one floor.

use std::time::Duration;

use serde::Serialize;

use super::verdict::Verdict;
use crate::core::rerun::verdict::Count;

/// The least a base run is given, however fast the head's runs were.
pub const FLOOR: Duration = Duration::from_secs(30);

/// A base run is given this many times the head's slowest passing run.
pub const MULTIPLE: u32 = 3;

/// Once a base run has hung at its limit, each later one is given this many times the head's
/// slowest passing run (no floor: the first hang spent it).
pub const AFTER_HANG_MULTIPLE: u32 = 2;

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
    /// A later base run once one hung at the first limit: `AFTER_HANG_MULTIPLE` times the
    /// head's slowest passing run, at least one second.
    AfterHang { seconds: u64, slowest_head_ms: u64 },
    /// The configured one-run limit (`rerun.run_timeout_seconds`, `--timeout`): no head run
    /// passed, or the test's own bound would be longer.
    Configured { seconds: u64 },
}

impl Limit {
    pub fn seconds(self) -> u64 {
        match self {
            Limit::Head { seconds, .. }
            | Limit::AfterHang { seconds, .. }
            | Limit::Configured { seconds } => seconds,
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
            Limit::AfterHang {
                seconds,
                slowest_head_ms,
            } => {
                let slowest = slowest_head_ms as f64 / 1000.0;
                format!(
                    "{seconds} s once a run hung ({AFTER_HANG_MULTIPLE}× the head's slowest passing run, {slowest:.1} s)"
                )
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

/// The limit of the base runs after one hung at `first`: twice the head's slowest passing run
/// when that is shorter than `first`; else `first` again (with no head time to go by, the
/// limit stays).
pub fn after_hang(first: Limit, slowest_head_pass: Option<Duration>) -> Limit {
    let Some(slowest) = slowest_head_pass else {
        return first;
    };
    let slowest_head_ms = u64::try_from(slowest.as_millis()).unwrap_or(u64::MAX);
    let own_ms = slowest_head_ms.saturating_mul(u64::from(AFTER_HANG_MULTIPLE));
    // Whole seconds, rounded up, at least one.
    let own_s = own_ms.div_ceil(1000).max(1);
    if own_s >= first.seconds() {
        first
    } else {
        Limit::AfterHang {
            seconds: own_s,
            slowest_head_ms,
        }
    }
}

/// Whether a run ended by its limit (a hang): what makes [`after_hang`] apply to the runs after it.
pub fn hung(outcome: &crate::core::runs::Outcome) -> bool {
    matches!(
        outcome,
        crate::core::runs::Outcome::Failed {
            failure: crate::core::runs::Failure::Hung(_)
        }
    )
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
    fn after_a_hang_the_floor_is_spent_and_later_runs_get_twice_the_head() {
        let configured = Duration::from_secs(300);
        let ms = Duration::from_millis;
        // A fast head (1.6 s): the first base run has the floor, the later ones 4 s (3.2, up).
        let first = base_limit(configured, Some(ms(1600)));
        assert_eq!(first.seconds(), 30);
        let later = after_hang(first, Some(ms(1600)));
        assert_eq!(
            later,
            Limit::AfterHang {
                seconds: 4,
                slowest_head_ms: 1600
            }
        );
        assert!(
            later.describe().contains("once a run hung"),
            "{}",
            later.describe()
        );
        // Never below one second.
        let fast = Some(ms(5));
        assert_eq!(after_hang(base_limit(configured, fast), fast).seconds(), 1);
        // A slow head (40 s, first limit 120 s): later runs 80 s.
        let slow = Some(Duration::from_secs(40));
        assert_eq!(after_hang(base_limit(configured, slow), slow).seconds(), 80);
        // A configured limit under the floor (20 s) still shortens once the head's time is known.
        let short = Duration::from_secs(20);
        let first = base_limit(short, Some(ms(2000)));
        assert_eq!(first, Limit::Configured { seconds: 20 });
        assert_eq!(after_hang(first, Some(ms(2000))).seconds(), 4);
        // No head time: the limit stays; nor is it ever lengthened.
        assert_eq!(
            after_hang(Limit::Configured { seconds: 300 }, None),
            Limit::Configured { seconds: 300 }
        );
        let tight = Limit::Configured { seconds: 3 };
        assert_eq!(after_hang(tight, Some(Duration::from_secs(4))), tight);
    }

    #[test]
    fn a_hung_base_costs_at_most_twice_the_head_plus_one_floor() {
        // 20 runs a side, head runs of 0.5 to 3 s, every base run hung at its limit.
        for head_ms in [500u64, 1600, 3000, 9000, 15_000] {
            let runs = 20u64;
            let head_total_ms = head_ms * runs;
            let first = base_limit(
                Duration::from_secs(300),
                Some(Duration::from_millis(head_ms)),
            );
            let later = after_hang(first, Some(Duration::from_millis(head_ms)));
            let base_total_ms = (first.seconds() + later.seconds() * (runs - 1)) * 1000;
            let bound_ms = 2 * head_total_ms + FLOOR.as_millis() as u64 + runs * 1000;
            assert!(
                base_total_ms <= bound_ms,
                "head {head_ms} ms: base {base_total_ms} ms over {bound_ms} ms"
            );
        }
    }

    #[test]
    fn only_a_run_ended_by_its_limit_is_a_hang() {
        use crate::core::runs::{Failure, Outcome};
        assert!(hung(&Outcome::Failed {
            failure: Failure::Hung(30)
        }));
        assert!(!hung(&Outcome::Failed {
            failure: Failure::Failed
        }));
        assert!(!hung(&Outcome::Passed));
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
