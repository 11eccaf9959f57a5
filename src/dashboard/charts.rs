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

/// One day of a trend: its date and counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Day {
    /// Days since 1970-01-01 (UTC).
    pub day: i32,
    pub results: u64,
    pub failed: u64,
    pub flaky: u64,
    /// Results with a duration, and their total in ms.
    pub timed: u64,
    pub ms_total: u64,
}

fn date_of(day: i32) -> String {
    (chrono::NaiveDate::default() + chrono::TimeDelta::days(i64::from(day)))
        .format("%Y-%m-%d")
        .to_string()
}

/// The `span` days ending on `last_day`, each with what `days` has for it (zero otherwise): the
/// time axis is true, a day without runs is a gap.
pub fn span(days: &[Day], last_day: i32, n: i32) -> Vec<Day> {
    let by: std::collections::HashMap<i32, Day> = days.iter().map(|d| (d.day, *d)).collect();
    (last_day - n + 1..=last_day)
        .map(|d| {
            by.get(&d).copied().unwrap_or(Day {
                day: d,
                ..Day::default()
            })
        })
        .collect()
}

/// A bar's segments, bottom up: (CSS class, value, tooltip).
type Segments = Vec<(&'static str, f64, String)>;

/// Bars over days with a labelled value axis (`y_title`, 0 and the top value) and a dated time
/// axis (first, middle and last day, UTC). Each bar's segments stack: (class, value, tooltip).
fn day_bars(
    title: &str,
    y_title: &str,
    days: &[Day],
    segments: &dyn Fn(&Day) -> Segments,
    top_label: &dyn Fn(f64) -> String,
    legend: &[(&str, &str)],
    summary: String,
) -> Markup {
    let n = days.len().max(1) as u64;
    // Sized so that 30 days drawn at about 40rem keep the axis text at its own size.
    let (bw, gap, h, left, top, bottom) = (14u64, 4u64, 120u64, 48u64, 12u64, 36u64);
    let width = left + n * (bw + gap) + 24;
    let stacks: Vec<Segments> = days.iter().map(segments).collect();
    let max = stacks
        .iter()
        .map(|s| s.iter().map(|x| x.1).sum::<f64>())
        .fold(0.0f64, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    let mut rects = Vec::new();
    for (i, st) in stacks.iter().enumerate() {
        let x = left + i as u64 * (bw + gap);
        let mut y = (top + h) as f64;
        for (class, v, tip) in st {
            if *v > 0.0 {
                let bh = (v / max * h as f64).max(1.5);
                y -= bh;
                rects.push((x, y, bh, *class, tip.clone()));
            }
        }
    }
    let ticks: Vec<usize> = if days.len() > 2 {
        vec![0, days.len() / 2, days.len() - 1]
    } else {
        (0..days.len()).collect()
    };
    html! {
        figure class="chart trend" {
            svg role="img" aria-label=(summary) viewBox={"0 0 " (width) " " (top + h + bottom)} preserveAspectRatio="xMinYMin meet" {
                title { (summary) }
                text x="10" y=(top + h / 2) class="axis" text-anchor="middle" transform={"rotate(-90 10 " (top + h / 2) ")"} { (y_title) }
                text x=(left - 4) y=(top + 4) class="axis" text-anchor="end" { (top_label(max)) }
                text x=(left - 4) y=(top + h) class="axis" text-anchor="end" { (top_label(0.0)) }
                line x1=(left) y1=(top) x2=(left) y2=(top + h) class="base" {}
                @for (x, y, bh, class, tip) in &rects {
                    rect class=(class) x=(x) y=(format!("{y:.1}")) width=(bw) height=(format!("{bh:.1}")) { title { (tip) } }
                }
                line x1=(left) y1=(top + h) x2=(width) y2=(top + h) class="base" {}
                @for i in &ticks {
                    text x=(left + *i as u64 * (bw + gap) + bw / 2) y=(top + h + 14) class="axis" text-anchor="middle" { (date_of(days[*i].day).get(5..).unwrap_or("")) }
                }
                text x=(left + n * (bw + gap) / 2) y=(top + h + 30) class="axis" text-anchor="middle" { "day (UTC), " (days.first().map(|d| date_of(d.day)).unwrap_or_default()) " to " (days.last().map(|d| date_of(d.day)).unwrap_or_default()) }
            }
            figcaption {
                (title)
                ul class="legend" { @for (class, name) in legend { li { span class={"swatch " (class)} {} (name) } } }
            }
        }
    }
}

/// Failure rate per day: failed and flaky results as a share of the day's results.
pub fn failure_rate_chart(title: &str, days: &[Day]) -> Markup {
    let (res, failed, flaky) = days.iter().fold((0, 0, 0), |(r, f, k), d| {
        (r + d.results, f + d.failed, k + d.flaky)
    });
    let summary = format!(
        "{title}: {failed} failed and {flaky} flaky of {res} results over {} days",
        days.len()
    );
    let seg = |d: &Day| -> Segments {
        if d.results == 0 {
            return Vec::new();
        }
        let pct = |n: u64| n as f64 * 100.0 / d.results as f64;
        let date = date_of(d.day);
        vec![
            (
                "fail",
                pct(d.failed),
                format!(
                    "{date}: {} of {} failed ({:.1} %)",
                    d.failed,
                    d.results,
                    pct(d.failed)
                ),
            ),
            (
                "flaky",
                pct(d.flaky),
                format!(
                    "{date}: {} of {} flaky ({:.1} %)",
                    d.flaky,
                    d.results,
                    pct(d.flaky)
                ),
            ),
        ]
    };
    day_bars(
        title,
        "failure rate",
        days,
        &seg,
        &|v| {
            if v > 0.0 && v < 10.0 {
                format!("{v:.1} %")
            } else {
                format!("{v:.0} %")
            }
        },
        &[("fail", "failed"), ("flaky", "flaky (passed on a retry)")],
        summary,
    )
}

/// Mean duration per day of the results that carried one.
pub fn duration_chart(title: &str, days: &[Day]) -> Markup {
    let timed: u64 = days.iter().map(|d| d.timed).sum();
    let summary = format!(
        "{title}: mean per day of {timed} timed results over {} days",
        days.len()
    );
    let seg = |d: &Day| -> Segments {
        if d.timed == 0 {
            return Vec::new();
        }
        let mean = d.ms_total as f64 / d.timed as f64;
        vec![(
            "time",
            mean,
            format!(
                "{}: mean {mean:.0} ms of {} results",
                date_of(d.day),
                d.timed
            ),
        )]
    };
    day_bars(
        title,
        "mean ms",
        days,
        &seg,
        &|v| format!("{v:.0} ms"),
        &[("time", "mean duration")],
        summary,
    )
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
    fn a_failure_rate_chart_has_dated_and_labelled_axes_and_gaps_for_days_without_runs() {
        let days = span(
            &[
                Day {
                    day: 20_000,
                    results: 10,
                    failed: 2,
                    flaky: 1,
                    ..Day::default()
                },
                Day {
                    day: 20_002,
                    results: 4,
                    failed: 0,
                    flaky: 0,
                    ..Day::default()
                },
            ],
            20_002,
            3,
        );
        assert_eq!(days.len(), 3);
        assert_eq!(days[1].results, 0, "a day without runs is a gap");
        let s = failure_rate_chart("Failure rate per day", &days).into_string();
        assert!(
            s.contains("failure rate"),
            "the value axis is labelled: {s}"
        );
        assert!(s.contains("day (UTC), 2024-10-04 to 2024-10-06"), "{s}");
        assert!(s.contains("2024-10-04: 2 of 10 failed (20.0 %)"), "{s}");
        assert!(
            s.contains("2 failed and 1 flaky of 14 results over 3 days"),
            "{s}"
        );
        assert!(
            s.contains(">30 %<"),
            "the top of the axis is the highest day: {s}"
        );
        let d = duration_chart(
            "Duration",
            &[Day {
                day: 1,
                timed: 2,
                ms_total: 300,
                ..Day::default()
            }],
        )
        .into_string();
        assert!(d.contains("mean 150 ms of 2 results"), "{d}");
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
