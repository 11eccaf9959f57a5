//! A test's recent history as a compact summary, updated one result at a time: the last
//! [`KEEP`] counted outcomes (two bits each), how many were ever counted, and the days of its
//! first and last failure. Computing tiers never rescans stored results: memory and work are
//! flat in the number of results recorded.

use serde::{Deserialize, Serialize};

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
}

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
        out
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
        Some(Window {
            recent,
            total,
            first_failure,
            last_failure,
        })
    }
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
    fn damaged_bytes_are_an_empty_window() {
        assert_eq!(Window::decode(&[1, 2, 3]), Window::default());
        assert_eq!(
            Window::decode(&[0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]),
            Window::default()
        );
    }
}
