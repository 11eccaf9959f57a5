//! A test's recent history as a compact summary, updated one result at a time: the last
//! [`KEEP`] counted outcomes (two bits each), how many were ever counted, and the days of its
//! first and last failure. Computing tiers never rescans stored results: memory and work are
//! flat in the number of results recorded.

use serde::{Deserialize, Serialize};

use super::onset::{MAX_STARTS, Start, Tracker};

/// Outcomes kept per test (more than any window a policy may ask for).
pub const KEEP: usize = 1000;

/// A counted outcome (skips are not runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Counted {
    Pass,
    Fail,
    /// Failed, then passed on a retry: a failure for the budget, not for `broken`.
    Flaky,
}

impl Counted {
    fn bits(self) -> u8 {
        match self {
            Counted::Pass => 0,
            Counted::Fail => 1,
            Counted::Flaky => 2,
        }
    }

    fn from_bits(b: u8) -> Counted {
        match b & 3 {
            1 => Counted::Fail,
            2 => Counted::Flaky,
            _ => Counted::Pass,
        }
    }

    pub fn failed(self) -> bool {
        !matches!(self, Counted::Pass)
    }
}

/// One test's summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Oldest first, at most [`KEEP`].
    recent: std::collections::VecDeque<Counted>,
    /// Outcomes ever counted.
    pub total: u64,
    /// `YYYY-MM-DD` of the first and the last failure seen.
    pub first_failure: Option<String>,
    pub last_failure: Option<String>,
    /// Runs that skipped it (not results: never in `recent` nor `total`).
    pub skips: u64,
    /// Milliseconds of its last [`DURATIONS_KEPT`] results that carried one, oldest first.
    durations: std::collections::VecDeque<u32>,
    /// Where its current failing period began.
    pub onset: Tracker,
    /// Its results per day, oldest first, the last [`DAYS_KEPT`] days that had any.
    pub days: std::collections::VecDeque<DayCount>,
}

/// Days of results kept per test (the trend charts).
pub const DAYS_KEPT: usize = 60;

/// One day's results of a test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DayCount {
    /// Days since 1970-01-01 (UTC).
    pub day: i32,
    pub results: u32,
    /// Failed results (a flaky one is `flaky`, not this).
    pub failed: u32,
    pub flaky: u32,
    /// Results with a duration, and their total in ms.
    pub timed: u32,
    pub ms_total: u64,
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` (or of an RFC 3339 time's date); `None` otherwise.
pub fn day_number(day: &str) -> Option<i32> {
    let d = chrono::NaiveDate::parse_from_str(day.get(..10)?, "%Y-%m-%d").ok()?;
    i32::try_from((d - chrono::NaiveDate::default()).num_days()).ok()
}

/// Durations kept per test (for p50 and p95).
pub const DURATIONS_KEPT: usize = 100;

/// The trailer's tag after the days (older summaries end at the days).
const TRAILER: u8 = 0xA1;

impl Window {
    /// Adds one result of a run on `day` (`YYYY-MM-DD`).
    pub fn push(&mut self, outcome: Counted, day: &str) {
        if self.recent.len() == KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back(outcome);
        self.total += 1;
        if outcome.failed() {
            if self.first_failure.is_none() {
                self.first_failure = Some(day.to_string());
            }
            self.last_failure = Some(day.to_string());
        }
    }

    /// Adds one result of a tracked branch's run: its commit, when, and how long it took.
    pub fn push_run(
        &mut self,
        outcome: Counted,
        day: &str,
        sha: &str,
        at_ms: i64,
        duration_ms: Option<u64>,
    ) {
        self.push(outcome, day);
        self.onset.push(outcome.failed(), sha, at_ms);
        if let Some(n) = day_number(day) {
            if self.days.back().is_none_or(|d| d.day < n) {
                if self.days.len() == DAYS_KEPT {
                    self.days.pop_front();
                }
                self.days.push_back(DayCount {
                    day: n,
                    ..DayCount::default()
                });
            }
            // A backfill older than the newest day kept goes to its own day when kept.
            if let Some(d) = self.days.iter_mut().rev().find(|d| d.day == n) {
                d.results += 1;
                d.failed += u32::from(outcome == Counted::Fail);
                d.flaky += u32::from(outcome == Counted::Flaky);
                if let Some(ms) = duration_ms {
                    d.timed += 1;
                    d.ms_total = d.ms_total.saturating_add(ms);
                }
            }
        }
        if let Some(ms) = duration_ms {
            if self.durations.len() == DURATIONS_KEPT {
                self.durations.pop_front();
            }
            self.durations
                .push_back(u32::try_from(ms).unwrap_or(u32::MAX));
        }
    }

    /// A run that skipped it.
    pub fn skip(&mut self) {
        self.skips += 1;
    }

    /// The `p`-th percentile (0-100, nearest rank) of its kept durations, in ms.
    pub fn duration_percentile(&self, p: u32) -> Option<u64> {
        if self.durations.is_empty() {
            return None;
        }
        let mut d: Vec<u32> = self.durations.iter().copied().collect();
        d.sort_unstable();
        let rank = (u64::from(p.min(100)) * d.len() as u64)
            .div_ceil(100)
            .max(1);
        d.get(rank as usize - 1).map(|&ms| u64::from(ms))
    }

    /// The last `n` outcomes, oldest first.
    pub fn last(&self, n: usize) -> impl Iterator<Item = Counted> + '_ {
        let skip = self.recent.len().saturating_sub(n);
        self.recent.iter().skip(skip).copied()
    }

    pub fn len(&self) -> usize {
        self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// (runs, failures) over the last `n` outcomes.
    pub fn counts(&self, n: usize) -> (u64, u64) {
        let mut runs = 0;
        let mut fails = 0;
        for o in self.last(n) {
            runs += 1;
            fails += u64::from(o.failed());
        }
        (runs, fails)
    }

    /// True when each of the last `n` outcomes is a plain failure (`n` > 0).
    pub fn failing_last(&self, n: usize) -> bool {
        n > 0 && self.recent.len() >= n && self.last(n).all(|o| o == Counted::Fail)
    }

    /// The compact form stored in the database.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.recent.len().div_ceil(4) + 24);
        out.extend_from_slice(&(self.recent.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.total.to_le_bytes());
        for chunk in self.recent.iter().collect::<Vec<_>>().chunks(4) {
            let mut b = 0u8;
            for (i, o) in chunk.iter().enumerate() {
                b |= o.bits() << (2 * i);
            }
            out.push(b);
        }
        for day in [&self.first_failure, &self.last_failure] {
            let d = day.as_deref().unwrap_or("");
            out.push(d.len().min(32) as u8);
            out.extend_from_slice(&d.as_bytes()[..d.len().min(32)]);
        }
        if self.skips > 0
            || !self.durations.is_empty()
            || !self.onset.is_empty()
            || !self.days.is_empty()
        {
            self.encode_trailer(&mut out);
        }
        out
    }

    /// Skips, durations and the onset's state, after the days.
    fn encode_trailer(&self, out: &mut Vec<u8>) {
        fn text(out: &mut Vec<u8>, s: Option<&str>) {
            match s {
                None => out.push(0xFF),
                Some(s) => {
                    let n = s.len().min(super::onset::MAX_SHA);
                    out.push(n as u8);
                    out.extend_from_slice(&s.as_bytes()[..n]);
                }
            }
        }
        out.push(TRAILER);
        out.extend_from_slice(&self.skips.to_le_bytes());
        out.extend_from_slice(&(self.durations.len() as u16).to_le_bytes());
        for d in &self.durations {
            out.extend_from_slice(&d.to_le_bytes());
        }
        let o = &self.onset;
        text(out, o.last_pass_sha.as_deref());
        out.extend_from_slice(&o.results.to_le_bytes());
        out.extend_from_slice(&o.failures.to_le_bytes());
        out.push(u8::from(o.failing));
        out.push(o.starts.len() as u8);
        for s in &o.starts {
            text(out, s.last_pass_sha.as_deref());
            text(out, Some(&s.first_fail_sha));
            out.extend_from_slice(&s.at_ms.to_le_bytes());
            out.extend_from_slice(&s.results_before.to_le_bytes());
            out.extend_from_slice(&s.failures_before.to_le_bytes());
        }
        out.push(self.days.len() as u8);
        for d in &self.days {
            out.extend_from_slice(&d.day.to_le_bytes());
            for n in [d.results, d.failed, d.flaky, d.timed] {
                out.extend_from_slice(&n.to_le_bytes());
            }
            out.extend_from_slice(&d.ms_total.to_le_bytes());
        }
    }

    /// Reads the trailer; `None` when damaged (the window keeps its outcomes then).
    #[allow(clippy::type_complexity)]
    fn decode_trailer(
        bytes: &[u8],
    ) -> Option<(
        u64,
        std::collections::VecDeque<u32>,
        Tracker,
        std::collections::VecDeque<DayCount>,
    )> {
        struct Reader<'a>(&'a [u8], usize);
        impl Reader<'_> {
            fn take(&mut self, n: usize) -> Option<&[u8]> {
                let b = self.0.get(self.1..self.1.checked_add(n)?)?;
                self.1 += n;
                Some(b)
            }
            fn u8(&mut self) -> Option<u8> {
                self.take(1).map(|b| b[0])
            }
            fn u64(&mut self) -> Option<u64> {
                Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
            }
            fn u32(&mut self) -> Option<u32> {
                Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
            }
            fn text(&mut self) -> Option<Option<String>> {
                let n = self.u8()?;
                if n == 0xFF {
                    return Some(None);
                }
                let b = self.take(usize::from(n))?;
                Some(Some(std::str::from_utf8(b).ok()?.to_string()))
            }
        }
        let mut r = Reader(bytes, 0);
        if r.u8()? != TRAILER {
            return None;
        }
        let skips = r.u64()?;
        let n = usize::from(u16::from_le_bytes(r.take(2)?.try_into().ok()?));
        if n > DURATIONS_KEPT {
            return None;
        }
        let mut durations = std::collections::VecDeque::with_capacity(n);
        for _ in 0..n {
            durations.push_back(u32::from_le_bytes(r.take(4)?.try_into().ok()?));
        }
        let last_pass_sha = r.text()?;
        let results = r.u64()?;
        let failures = r.u64()?;
        let failing = r.u8()? != 0;
        let k = usize::from(r.u8()?);
        if k > MAX_STARTS {
            return None;
        }
        let mut starts = std::collections::VecDeque::with_capacity(k);
        for _ in 0..k {
            let last_pass_sha = r.text()?;
            let first_fail_sha = r.text()??;
            let at_ms = r.u64()? as i64;
            starts.push_back(Start {
                last_pass_sha,
                first_fail_sha,
                at_ms,
                results_before: r.u64()?,
                failures_before: r.u64()?,
            });
        }
        let onset = Tracker {
            last_pass_sha,
            results,
            failures,
            failing,
            starts,
        };
        let k = usize::from(r.u8()?);
        if k > DAYS_KEPT {
            return None;
        }
        let mut days = std::collections::VecDeque::with_capacity(k);
        for _ in 0..k {
            days.push_back(DayCount {
                day: r.u32()? as i32,
                results: r.u32()?,
                failed: r.u32()?,
                flaky: r.u32()?,
                timed: r.u32()?,
                ms_total: r.u64()?,
            });
        }
        Some((skips, durations, onset, days))
    }

    /// Reads the compact form; damaged bytes give an empty summary, never a panic.
    pub fn decode(bytes: &[u8]) -> Window {
        Self::try_decode(bytes).unwrap_or_default()
    }

    fn try_decode(bytes: &[u8]) -> Option<Window> {
        let len = u16::from_le_bytes(bytes.get(..2)?.try_into().ok()?) as usize;
        if len > KEEP {
            return None;
        }
        let total = u64::from_le_bytes(bytes.get(2..10)?.try_into().ok()?);
        let packed = bytes.get(10..10 + len.div_ceil(4))?;
        let mut recent = std::collections::VecDeque::with_capacity(len);
        for i in 0..len {
            recent.push_back(Counted::from_bits(packed[i / 4] >> (2 * (i % 4))));
        }
        let mut at = 10 + len.div_ceil(4);
        let mut day = || -> Option<Option<String>> {
            let n = *bytes.get(at)? as usize;
            let s = std::str::from_utf8(bytes.get(at + 1..at + 1 + n)?).ok()?;
            at += 1 + n;
            Some((!s.is_empty()).then(|| s.to_string()))
        };
        let first_failure = day()?;
        let last_failure = day()?;
        let (skips, durations, onset, days) = bytes
            .get(at..)
            .filter(|rest| !rest.is_empty())
            .and_then(Self::decode_trailer)
            .unwrap_or_default();
        Some(Window {
            recent,
            total,
            first_failure,
            last_failure,
            skips,
            durations,
            onset,
            days,
        })
    }
}

/// A window of `results` tracked-branch results, failing from result `from` on: commit `i` is
/// `i` as 40 hex digits, recorded at `t0_ms + i * step_ms`, taking `i + ms0` ms when `ms0` is given.
#[cfg(test)]
pub(crate) fn failing_from(
    results: u64,
    from: u64,
    t0_ms: i64,
    step_ms: i64,
    ms0: Option<u64>,
) -> Window {
    let mut w = Window::default();
    for i in 0..results {
        let o = if i >= from {
            Counted::Fail
        } else {
            Counted::Pass
        };
        let at = t0_ms + i as i64 * step_ms;
        w.push_run(
            o,
            "2026-11-30",
            &format!("{i:040x}"),
            at,
            ms0.map(|m| m + i),
        );
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_round_trips_through_its_compact_form() {
        let mut w = Window::default();
        for i in 0..1203 {
            let o = match i % 7 {
                3 => Counted::Fail,
                5 => Counted::Flaky,
                _ => Counted::Pass,
            };
            w.push(o, if i < 600 { "2026-11-01" } else { "2026-11-30" });
        }
        assert_eq!(w.len(), KEEP);
        assert_eq!(w.total, 1203);
        let back = Window::decode(&w.encode());
        assert_eq!(back, w);
        assert_eq!(back.first_failure.as_deref(), Some("2026-11-01"));
        assert_eq!(back.last_failure.as_deref(), Some("2026-11-30"));
        assert!(
            w.encode().len() < 300,
            "compact: {} bytes",
            w.encode().len()
        );
    }

    #[test]
    fn counts_and_broken_runs_look_at_the_newest_outcomes() {
        let mut w = Window::default();
        for _ in 0..5 {
            w.push(Counted::Pass, "d");
        }
        for _ in 0..3 {
            w.push(Counted::Fail, "d");
        }
        assert_eq!(w.counts(4), (4, 3));
        assert_eq!(w.counts(100), (8, 3));
        assert!(w.failing_last(3) && !w.failing_last(4));
        w.push(Counted::Flaky, "d");
        assert!(!w.failing_last(1), "a flaky result passed in the end");
    }

    #[test]
    fn skips_durations_and_the_onset_round_trip_and_an_older_summary_still_reads() {
        let mut w = failing_from(250, 240, 0, 1, Some(100));
        for _ in 0..250 {
            w.skip();
        }
        let back = Window::decode(&w.encode());
        assert_eq!(back, w);
        assert_eq!(back.skips, 250);
        assert_eq!(back.durations.len(), DURATIONS_KEPT);
        let onset = back.onset.onset().expect("failing since the 240th");
        assert_eq!(back.days.len(), 1);
        assert_eq!(
            (
                back.days[0].results,
                back.days[0].failed,
                back.days[0].timed
            ),
            (250, 10, 250)
        );
        assert_eq!(onset.first_fail_sha, format!("{:040x}", 240));
        // A summary written before the trailer existed: the same outcomes, no extras.
        let mut old = Window::default();
        old.push(Counted::Fail, "2026-11-30");
        let bytes = old.encode();
        assert_eq!(Window::decode(&bytes), old);
        // A damaged trailer loses the extras, never the outcomes.
        let mut bytes = w.encode();
        let cut = bytes.len() - 5;
        bytes.truncate(cut);
        let partial = Window::decode(&bytes);
        assert_eq!(partial.total, 250);
        assert_eq!((partial.skips, partial.onset.is_empty()), (0, true));
    }

    #[test]
    fn results_are_counted_per_day_for_the_last_days() {
        let mut w = Window::default();
        for d in 1..=70u32 {
            let day = (chrono::NaiveDate::default() + chrono::Days::new(u64::from(d)))
                .format("%Y-%m-%d")
                .to_string();
            w.push_run(Counted::Pass, &day, "s", 0, Some(10));
            w.push_run(
                if d % 2 == 0 {
                    Counted::Fail
                } else {
                    Counted::Flaky
                },
                &day,
                "s",
                0,
                None,
            );
        }
        assert_eq!(w.days.len(), DAYS_KEPT);
        let last = w.days.back().copied().unwrap();
        assert_eq!(
            (
                last.day,
                last.results,
                last.failed,
                last.flaky,
                last.timed,
                last.ms_total
            ),
            (70, 2, 1, 0, 1, 10)
        );
        assert_eq!(Window::decode(&w.encode()).days, w.days);
        assert_eq!(day_number("1970-01-02"), Some(1));
        assert_eq!(day_number("2026-12-07T10:00:00Z"), day_number("2026-12-07"));
        assert_eq!(day_number("not a day"), None);
    }

    #[test]
    fn duration_percentiles_are_nearest_rank_of_what_was_kept() {
        let mut w = Window::default();
        assert_eq!(w.duration_percentile(50), None);
        for (i, ms) in [190, 100, 180, 110, 170, 120, 160, 130, 150, 140]
            .into_iter()
            .enumerate()
        {
            w.push_run(Counted::Pass, "d", "s", i as i64, Some(ms));
        }
        assert_eq!(w.duration_percentile(50), Some(140));
        assert_eq!(w.duration_percentile(95), Some(190));
        assert_eq!(w.duration_percentile(0), Some(100));
        w.push_run(Counted::Pass, "d", "s", 11, None);
        assert_eq!(
            w.duration_percentile(100),
            Some(190),
            "a result without a time adds none"
        );
    }

    #[test]
    fn damaged_bytes_are_an_empty_window() {
        assert_eq!(Window::decode(&[1, 2, 3]), Window::default());
        assert_eq!(
            Window::decode(&[0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]),
            Window::default()
        );
    }
}
