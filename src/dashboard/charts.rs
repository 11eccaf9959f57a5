//! Inline SVG charts written here (no plotting crate): a test's sparkline, tier changes per
//! week and the gate's outcomes per week. Each has a text alternative (`role="img"` with an
//! `aria-label`, and a `<title>`); the pages also give each chart's numbers as a table.

use maud::{Markup, html};

use crate::core::history::window::Counted;

/// One bar per run, oldest on the left: tall red for a failure, amber for a failure that passed on
/// a retry (flaky), short green for a pass.
pub fn sparkline(recent: &[Counted]) -> Markup {
    let n = recent.len();
    let fails = recent.iter().filter(|o| **o == Counted::Fail).count();
    let flaky = recent.iter().filter(|o| **o == Counted::Flaky).count();
    let label = if n == 0 {
        "no runs recorded".to_string()
    } else if flaky == 0 {
        format!("last {n} runs: {fails} failed")
    } else {
        format!("last {n} runs: {fails} failed, {flaky} flaky (failed, then passed on a retry)")
    };
    let w = (n.max(1) * 3) as u32;
    html! {
        svg class="spark" role="img" aria-label=(label) width=(w) height="16" viewBox={"0 0 " (w) " 16"} {
            title { (label) }
            @for (i, o) in recent.iter().enumerate() {
                @match o {
                    Counted::Fail => { rect class="fail" x=(i * 3) y="0" width="2" height="16" {} }
                    Counted::Flaky => { rect class="flaky" x=(i * 3) y="5" width="2" height="11" {} }
                    Counted::Pass => { rect class="pass" x=(i * 3) y="10" width="2" height="6" {} }
                }
            }
        }
    }
}

/// A series of a stacked bar chart: its name, its CSS class and a value per bar.
pub struct Series<'a> {
    pub name: &'a str,
    pub class: &'a str,
    pub values: Vec<u64>,
}

/// Stacked bars, one per label (a week), with a legend.
pub fn stacked_bars(title: &str, labels: &[String], series: &[Series<'_>]) -> Markup {
    let bars = labels.len().max(1);
    let totals: Vec<u64> = (0..labels.len())
        .map(|i| {
            series
                .iter()
                .map(|s| s.values.get(i).copied().unwrap_or(0))
                .sum()
        })
        .collect();
    let max = totals.iter().copied().max().unwrap_or(0).max(1);
    let all: u64 = totals.iter().sum();
    let (bw, gap, h) = (24u64, 8u64, 120u64);
    // Room on the left for the value axis, on top for each bar's total.
    let (left, top) = (30u64, 16u64);
    let width = left + bars as u64 * (bw + gap);
    let summary = format!(
        "{title}: {all} in {} weeks ({})",
        labels.len(),
        series
            .iter()
            .map(|s| format!("{} {}", s.values.iter().sum::<u64>(), s.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Each bar's segments, bottom up: (x, y, height, class, tooltip).
    let mut rects = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        let x = left + i as u64 * (bw + gap);
        let mut y = top + h;
        for s in series {
            let v = s.values.get(i).copied().unwrap_or(0);
            if v > 0 {
                let bh = (v * h / max).max(2);
                y = y.saturating_sub(bh);
                rects.push((x, y, bh, s.class, format!("{label}: {v} {}", s.name)));
            }
        }
    }
    html! {
        figure class="chart" {
            svg role="img" aria-label=(summary) viewBox={"0 0 " (width) " " (top + h + 34)} preserveAspectRatio="xMinYMin meet" {
                title { (summary) }
                text x=(left - 4) y=(top + 4) class="axis" text-anchor="end" { (max) }
                text x=(left - 4) y=(top + h) class="axis" text-anchor="end" { "0" }
                line x1=(left) y1=(top) x2=(left) y2=(top + h) class="base" {}
                @for (x, y, bh, class, tip) in &rects {
                    rect class=(class) x=(x) y=(y) width=(bw) height=(bh) {
                        title { (tip) }
                    }
                }
                @for (i, total) in totals.iter().enumerate() {
                    @if *total > 0 {
                        text x=(left + i as u64 * (bw + gap) + bw / 2) y=(top + h - (total * h / max).max(2) - 3) class="value" text-anchor="middle" { (total) }
                    }
                }
                @for (i, label) in labels.iter().enumerate() {
                    // Every other week, upright: "11-02".
                    @if i % 2 == 0 {
                        text x=(left + i as u64 * (bw + gap) + bw / 2) y=(top + h + 18) class="axis" text-anchor="middle" { (label) }
                    }
                }
                line x1=(left) y1=(top + h) x2=(width) y2=(top + h) class="base" {}
            }
            figcaption {
                ul class="legend" {
                    @for s in series {
                        li { span class={"swatch " (s.class)} {} (s.name) }
                    }
                }
            }
        }
    }
}

/// A test's results in its window, oldest on the left: red for a failure, amber for a flaky
/// result (failed, then passed), green for a pass, with the counts as its text.
pub fn results_strip(outcomes: &[Counted]) -> Markup {
    let n = outcomes.len();
    let fails = outcomes.iter().filter(|o| **o == Counted::Fail).count();
    let flaky = outcomes.iter().filter(|o| **o == Counted::Flaky).count();
    let label = if n == 0 {
        "no runs recorded".to_string()
    } else {
        format!(
            "last {n} runs, oldest first: {} passed, {fails} failed, {flaky} flaky",
            n - fails - flaky
        )
    };
    // Drawn at its own size (6 px a run), never stretched: a short history stays short.
    let (bw, h) = (6usize, 40usize);
    let width = (n.max(1) * bw) as u64;
    html! {
        figure class="chart strip" {
            svg role="img" aria-label=(label) width=(width) height=(h) viewBox={"0 0 " (width) " " (h)} preserveAspectRatio="xMinYMin meet" {
                title { (label) }
                @for (i, o) in outcomes.iter().enumerate() {
                    @match o {
                        Counted::Fail => { rect class="fail" x=(i * bw) y="0" width=(bw - 2) height=(h) {} }
                        Counted::Flaky => { rect class="flaky" x=(i * bw) y=(h / 3) width=(bw - 2) height=(h - h / 3) {} }
                        Counted::Pass => { rect class="pass" x=(i * bw) y=(h - h / 4) width=(bw - 2) height=(h / 4) {} }
                    }
                }
            }
            figcaption { @if n > 0 { "← oldest · newest → " } (label) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparkline_draws_each_run_and_says_what_it_shows() {
        let s = sparkline(&[Counted::Pass, Counted::Fail, Counted::Pass]).into_string();
        assert_eq!(s.matches("<rect").count(), 3);
        assert_eq!(s.matches("class=\"fail\"").count(), 1);
        assert!(s.contains("aria-label=\"last 3 runs: 1 failed\""), "{s}");
        // A failure that passed on a retry is one flaky result, never also a failure.
        let s = sparkline(&[Counted::Flaky, Counted::Pass]).into_string();
        assert_eq!(s.matches("class=\"fail\"").count(), 0);
        assert_eq!(s.matches("class=\"flaky\"").count(), 1);
        assert!(s.contains("0 failed, 1 flaky"), "{s}");
        assert!(sparkline(&[]).into_string().contains("no runs recorded"));
    }

    #[test]
    fn stacked_bars_stack_and_total_their_series() {
        let labels = vec!["11-02".to_string(), "11-09".to_string()];
        let s = stacked_bars(
            "Gate outcomes",
            &labels,
            &[
                Series {
                    name: "verified",
                    class: "verified",
                    values: vec![2, 0],
                },
                Series {
                    name: "overridden",
                    class: "overridden",
                    values: vec![1, 3],
                },
            ],
        )
        .into_string();
        assert!(
            s.contains("Gate outcomes: 6 in 2 weeks (2 verified, 4 overridden)"),
            "{s}"
        );
        assert_eq!(s.matches("<rect").count(), 3, "no bar for a zero");
        assert!(
            s.contains(">3</text>"),
            "the axis shows the largest total: {s}"
        );
    }

    #[test]
    fn a_results_strip_tells_flaky_from_failed() {
        let s = results_strip(&[Counted::Pass, Counted::Fail, Counted::Flaky, Counted::Pass])
            .into_string();
        assert!(
            s.contains("last 4 runs, oldest first: 2 passed, 1 failed, 1 flaky"),
            "{s}"
        );
        assert_eq!(s.matches("class=\"flaky\"").count(), 1);
        assert!(s.contains("← oldest · newest →"));
        assert!(
            results_strip(&[])
                .into_string()
                .contains("no runs recorded")
        );
    }
}
