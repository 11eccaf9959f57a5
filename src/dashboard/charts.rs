//! Inline SVG charts written here (no plotting crate): a test's sparkline, tier changes per
//! week and the gate's outcomes per week. Each has a text alternative (`role="img"` with an
//! `aria-label`, and a `<title>`); the pages also give each chart's numbers as a table.

use maud::{Markup, html};

/// One bar per run, oldest on the left: tall red for a failure, short green for a pass.
pub fn sparkline(recent: &[bool]) -> Markup {
    let n = recent.len();
    let fails = recent.iter().filter(|f| **f).count();
    let label = if n == 0 {
        "no runs recorded".to_string()
    } else {
        format!("last {n} runs: {fails} failed")
    };
    let w = (n.max(1) * 3) as u32;
    html! {
        svg class="spark" role="img" aria-label=(label) width=(w) height="16" viewBox={"0 0 " (w) " 16"} {
            title { (label) }
            @for (i, failed) in recent.iter().enumerate() {
                @if *failed {
                    rect class="fail" x=(i * 3) y="0" width="2" height="16" {}
                } @else {
                    rect class="pass" x=(i * 3) y="10" width="2" height="6" {}
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
    let width = bars as u64 * (bw + gap);
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
        let x = i as u64 * (bw + gap);
        let mut y = h;
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
            svg role="img" aria-label=(summary) viewBox={"0 0 " (width) " " (h + 20)} preserveAspectRatio="xMinYMin meet" {
                title { (summary) }
                @for (x, y, bh, class, tip) in &rects {
                    rect class=(class) x=(x) y=(y) width=(bw) height=(bh) {
                        title { (tip) }
                    }
                }
                @for (i, label) in labels.iter().enumerate() {
                    @if i % 2 == 0 {
                        text x=(i as u64 * (bw + gap)) y=(h + 14) class="axis" { (label) }
                    }
                }
                line x1="0" y1=(h) x2=(width) y2=(h) class="base" {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparkline_draws_each_run_and_says_what_it_shows() {
        let s = sparkline(&[false, true, false]).into_string();
        assert_eq!(s.matches("<rect").count(), 3);
        assert_eq!(s.matches("class=\"fail\"").count(), 1);
        assert!(s.contains("aria-label=\"last 3 runs: 1 failed\""), "{s}");
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
    }
}
