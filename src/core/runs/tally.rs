//! One side's runs added up: failures among the runs that reported the test, how they failed,
//! and the runs with no result (with the first one's reason).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Failure, NoResult, Outcome};
use crate::core::rerun::verdict::Count;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub failures: u32,
    pub runs: u32,
    /// Runs that hold no result of the test (it never started).
    pub no_result: u32,
    /// How the failures failed: `failed`, `crashed (signal 6)`, `hung (300 s)`, with counts.
    #[serde(skip)]
    pub how: BTreeMap<Failure, u32>,
    /// The first run's reason for having no result.
    pub first_no_result: Option<NoResult>,
}

impl Tally {
    pub fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Passed => self.runs += 1,
            Outcome::Failed { failure } => {
                self.runs += 1;
                self.failures += 1;
                *self.how.entry(*failure).or_default() += 1;
            }
            Outcome::NoResult { no_result } => {
                self.no_result += 1;
                if self.first_no_result.is_none() {
                    self.first_no_result = Some(no_result.clone());
                }
            }
        }
    }

    pub fn count(&self) -> Count {
        Count {
            failures: self.failures,
            runs: self.runs,
        }
    }

    /// `18 failed, 2 crashed (signal 6)`; `None` without failures.
    pub fn failures_described(&self) -> Option<String> {
        (!self.how.is_empty()).then(|| {
            self.how
                .iter()
                .map(|(f, n)| format!("{n} {}", f.describe()))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// Why the side counts as not run (`could not run`): a run that never started makes the
    /// side's count untrustworthy, whatever the other runs did.
    pub fn no_result_reason(&self, side: &str) -> Option<String> {
        self.first_no_result.as_ref().map(|n| {
            let r = n.reason(side);
            if self.no_result > 1 {
                format!(
                    "{r} ({} of {} runs)",
                    self.no_result,
                    self.no_result + self.runs
                )
            } else {
                r
            }
        })
    }
}
