//! Retry delays: exponential with jitter.

use std::time::Duration;

/// Delay before the attempt after `attempt` (1-based): `base * 2^(attempt-1)`, capped at `cap`,
/// then jittered into `[d/2, d]` by `unit` (a number in `[0, 1)`), so retries of jobs that failed
/// together spread out but still grow.
pub fn retry_delay(attempt: u32, base: Duration, cap: Duration, unit: f64) -> Duration {
    let exp = attempt.saturating_sub(1).min(32);
    let full = base.saturating_mul(1u32 << exp.min(31)).min(cap);
    let unit = if unit.is_finite() {
        unit.clamp(0.0, 1.0)
    } else {
        0.0
    };
    full.mul_f64(0.5 + unit / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_secs(2);
    const CAP: Duration = Duration::from_secs(600);

    #[test]
    fn doubles_per_attempt_within_the_jitter_band() {
        for attempt in 1..=6u32 {
            let full = BASE * 2u32.pow(attempt - 1);
            assert_eq!(retry_delay(attempt, BASE, CAP, 0.0), full / 2);
            assert_eq!(retry_delay(attempt, BASE, CAP, 1.0), full);
            let mid = retry_delay(attempt, BASE, CAP, 0.5);
            assert!(mid > full / 2 && mid < full);
        }
    }

    #[test]
    fn never_exceeds_the_cap_even_for_huge_attempts() {
        assert_eq!(retry_delay(1000, BASE, CAP, 1.0), CAP);
        assert_eq!(retry_delay(u32::MAX, BASE, CAP, 0.0), CAP / 2);
    }

    #[test]
    fn odd_jitter_values_are_clamped() {
        assert_eq!(retry_delay(1, BASE, CAP, f64::NAN), BASE / 2);
        assert_eq!(retry_delay(1, BASE, CAP, 7.0), BASE);
    }
}
