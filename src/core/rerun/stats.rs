//! The numbers behind a verdict (docs/rerun.md#statistics): Wilson score intervals, the
//! one-sided Fisher exact test, and how many runs would see a flake.

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959963984540054;

/// The Wilson score 95 % interval of `k` failures in `n` runs; `(0, 1)` when `n` is 0.
pub fn wilson(k: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (f64::from(k.min(n)), f64::from(n));
    let p = k / n;
    let z2 = Z95 * Z95;
    let d = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / d;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// ln(n!) for n up to the sizes here (exact sums: a few hundred terms).
fn ln_factorial(n: u32) -> f64 {
    (2..=n).map(|i| f64::from(i).ln()).sum()
}

fn ln_choose(n: u32, k: u32) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// The one-sided Fisher exact p-value that the branch fails more often than the base: the
/// probability, with the margins fixed, of at least `k1` of all `k1 + k2` failures falling among
/// the branch's `n1` runs. 1 when there is nothing to compare.
pub fn fisher_one_sided(k1: u32, n1: u32, k2: u32, n2: u32) -> f64 {
    let (k1, k2) = (k1.min(n1), k2.min(n2));
    let (k, n) = (k1 + k2, n1 + n2);
    if n == 0 || k == 0 {
        return 1.0;
    }
    let total = ln_choose(n, n1);
    let hi = k.min(n1);
    let p: f64 = (k1..=hi)
        .filter(|&x| k - x <= n2)
        .map(|x| (ln_choose(k, x) + ln_choose(n - k, n1 - x) - total).exp())
        .sum();
    p.clamp(0.0, 1.0)
}

/// The fewest runs that see at least one failure of a test failing at `rate`, with 95 %
/// probability: the smallest n with 1 − (1 − rate)ⁿ ≥ 0.95. `None` for a rate of 0 (no number
/// of runs is enough) or not a rate.
pub fn runs_to_see(rate: f64) -> Option<u64> {
    if !(rate > 0.0 && rate <= 1.0) {
        return None;
    }
    if rate >= 0.95 {
        return Some(1);
    }
    let n = (0.05f64.ln() / (1.0 - rate).ln()).ceil();
    // Guard the float edge: n must really reach 95 %.
    let mut n = n.max(1.0) as u64;
    while 1.0 - (1.0 - rate).powf(n as f64) < 0.95 {
        n += 1;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn fisher_matches_the_exact_values() {
        // The figures in docs/rerun.md#statistics: 3/20 vs 3/20 → 0.67; 8/20 vs 0/20 → 0.0016.
        let p = fisher_one_sided(3, 20, 3, 20);
        assert!(close(p, 0.669_290, 0.000_001), "{p}");
        let p = fisher_one_sided(8, 20, 0, 20);
        assert!(close(p, 0.001_638, 0.000_001), "{p}");
        // Exact by hand: 1/1 vs 0/1: C(1,1)C(1,0)/C(2,1) = 1/2.
        assert!(close(fisher_one_sided(1, 1, 0, 1), 0.5, 1e-12));
        // The branch better than the base: nowhere near significant.
        assert!(fisher_one_sided(0, 20, 8, 20) > 0.99);
        // Nothing failed, or nothing ran: nothing to say.
        assert_eq!(fisher_one_sided(0, 20, 0, 20), 1.0);
        assert_eq!(fisher_one_sided(0, 0, 0, 0), 1.0);
        // Broken on both: every failure has to fall somewhere.
        assert!(close(fisher_one_sided(20, 20, 20, 20), 1.0, 1e-9));
        // 100 runs a side stay finite.
        let p = fisher_one_sided(60, 100, 40, 100);
        assert!(p > 0.0 && p < 0.01, "{p}");
    }

    #[test]
    fn the_smallest_significant_branch_counts_of_statistics_md() {
        // base k → the fewest branch failures (of 20) significant at one-sided 0.05.
        for (base, least) in [(0, 5), (1, 6), (2, 8), (3, 9)] {
            assert!(
                fisher_one_sided(least, 20, base, 20) < 0.05,
                "{least}/20 vs {base}/20"
            );
            assert!(
                fisher_one_sided(least - 1, 20, base, 20) >= 0.05,
                "{}/20 vs {base}/20",
                least - 1
            );
        }
    }

    #[test]
    fn fisher_agrees_with_a_direct_sum_of_binomials() {
        fn c(n: u64, k: u64) -> f64 {
            (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
        }
        for (k1, n1, k2, n2) in [(3, 20, 3, 20), (5, 20, 1, 20), (2, 10, 7, 30), (9, 9, 0, 4)] {
            let (k, n) = (k1 + k2, n1 + n2);
            let direct: f64 = (k1..=k.min(n1))
                .map(|x| c(k, x) * c(n - k, n1 - x))
                .sum::<f64>()
                / c(n, n1);
            let p = fisher_one_sided(k1 as u32, n1 as u32, k2 as u32, n2 as u32);
            assert!(
                close(p, direct, 1e-9),
                "{k1}/{n1} vs {k2}/{n2}: {p} != {direct}"
            );
        }
    }

    #[test]
    fn wilson_matches_the_exact_values() {
        let (lo, hi) = wilson(3, 20);
        assert!(close(lo, 0.0524, 0.0001), "{lo}");
        assert!(close(hi, 0.3604, 0.0001), "{hi}");
        let (lo, hi) = wilson(0, 20);
        assert_eq!(lo, 0.0);
        assert!(close(hi, 0.1611, 0.0001), "{hi}");
        let (lo, hi) = wilson(20, 20);
        assert!(close(lo, 0.8389, 0.0001), "{lo}");
        assert!(close(hi, 1.0, 1e-12));
        let (lo, hi) = wilson(8, 20);
        assert!(
            close(lo, 0.2188, 0.0001) && close(hi, 0.6134, 0.0001),
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn runs_needed_to_see_a_flake() {
        // 1 − 0.99^299 = 0.9505 ≥ 0.95 > 1 − 0.99^298.
        assert_eq!(runs_to_see(0.01), Some(299));
        assert_eq!(runs_to_see(0.05), Some(59));
        assert_eq!(runs_to_see(0.15), Some(19));
        assert_eq!(runs_to_see(0.5), Some(5));
        assert_eq!(runs_to_see(1.0), Some(1));
        // docs/rerun.md#statistics: a 1-in-7 flake shows in 20 runs; a 2 % flake needs about 149.
        assert_eq!(runs_to_see(1.0 / 7.0), Some(20));
        assert_eq!(runs_to_see(0.02), Some(149));
        assert_eq!(runs_to_see(0.0), None);
        assert_eq!(runs_to_see(f64::NAN), None);
    }
}
