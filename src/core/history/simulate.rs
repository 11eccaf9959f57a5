//! Why the tier rule has hysteresis: a simulation of one test with a true failure rate, 20 runs
//! a day for a year, recomputed nightly (each change taking effect at once), counting tier
//! changes under the history's rule (docs/history.md) (drop above the budget; climb only after a full window since the
//! last change at or below half the budget) and under a plain rule (the last window alone:
//! drop above the budget, climb as soon as it is within it). Deterministic: seeded.

use super::tiers::{TestHistory, decide};
use super::window::{Counted, Window};
use crate::core::reliability::{Policy, TestEntry};
use crate::core::tier::Tier;

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn entry(tier: Tier) -> TestEntry {
    TestEntry::new("t", tier)
}

/// One rule's state through the year.
struct Run {
    policy: Policy,
    tier: Tier,
    since_change: Option<u64>,
    /// Without hysteresis every night's window stands alone.
    hysteresis: bool,
    changes: u32,
}

impl Run {
    fn new(hysteresis: bool) -> Run {
        let mut policy = Policy::default();
        if !hysteresis {
            policy.recovery_budget = Some(policy.flake_budget);
        }
        Run {
            policy,
            tier: Tier::Trusted,
            since_change: None,
            hysteresis,
            changes: 0,
        }
    }

    fn nightly(&mut self, w: &Window) {
        let since = if self.hysteresis {
            self.since_change
        } else {
            Some(u64::MAX)
        };
        let d = decide(
            &self.policy,
            Some(&entry(self.tier)),
            &TestHistory {
                id: "t",
                window: w,
                since_change: since,
            },
        );
        if d.entry.tier != self.tier {
            self.changes += 1;
            self.tier = d.entry.tier;
            self.since_change = Some(0);
        }
    }
}

/// Tier changes in one simulated year: (with hysteresis, plain rule).
pub fn changes_per_year(rate: f64, seed: u64) -> (u32, u32) {
    let mut rng = Rng(seed);
    let mut w = Window::default();
    let (mut hyst, mut plain) = (Run::new(true), Run::new(false));
    for _day in 0..365 {
        for _ in 0..20 {
            let o = if rng.unit() < rate {
                Counted::Fail
            } else {
                Counted::Pass
            };
            w.push(o, "d");
            if let Some(s) = hyst.since_change.as_mut() {
                *s += 1;
            }
        }
        hyst.nightly(&w);
        plain.nightly(&w);
    }
    (hyst.changes, plain.changes)
}

/// The mean changes a year over `seeds` years, per rate: (rate, hysteresis, plain).
pub fn table(rates: &[f64], seeds: u64) -> Vec<(f64, f64, f64)> {
    rates
        .iter()
        .map(|&r| {
            let (mut h, mut p) = (0u64, 0u64);
            for s in 0..seeds {
                let (a, b) = changes_per_year(r, 0x5eed + s);
                h += u64::from(a);
                p += u64::from(b);
            }
            (r, h as f64 / seeds as f64, p as f64 / seeds as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(X > k) for X ~ Binomial(n, p), exact.
    fn tail_above(n: u64, p: f64, k: u64) -> f64 {
        let mut c = 1.0f64; // C(n, 0)
        let mut at_most = 0.0;
        for i in 0..=k {
            if i > 0 {
                c *= (n - i + 1) as f64 / i as f64;
            }
            at_most += c * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
        }
        1.0 - at_most
    }

    #[test]
    fn the_budgets_numbers_of_statistics_md() {
        // A test truly failing at 1 / 2 / 3 / 5 % exceeds the 2 %-of-200 budget (more than 4
        // failures) in 5 / 37 / 72 / 97 % of windows: the plain rule's flapping, in one line.
        for (p, share) in [(0.01, 0.05), (0.02, 0.37), (0.03, 0.72), (0.05, 0.97)] {
            let got = tail_above(200, p, 4);
            assert!((got - share).abs() < 0.01, "{p}: {got}");
        }
        // Zero failures in 200 bounds the true rate below about 1.5 %: (1 - 0.015)^200 < 5 %.
        assert!((1.0f64 - 0.015).powi(200) < 0.05);
        assert!((1.0f64 - 0.014).powi(200) > 0.05);
    }

    #[test]
    fn hysteresis_changes_tiers_far_less_often_near_the_budget() {
        let rows = table(&[0.01, 0.02, 0.03, 0.05], 20);
        eprintln!(
            "| true failure rate | tier changes a year, hysteresis | plain \"last window\" rule |"
        );
        eprintln!("|---|---|---|");
        for (r, h, p) in &rows {
            eprintln!("| {:.0} % | {h:.1} | {p:.1} |", r * 100.0);
        }
        // Near the budget the plain rule flips back and forth far more often.
        for (_, h, p) in &rows {
            assert!(h <= p, "{rows:?}");
        }
        let (_, h2, p2) = rows[1];
        assert!(h2 * 2.0 < p2, "{rows:?}");
    }
}
