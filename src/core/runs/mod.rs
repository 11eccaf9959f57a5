//! One run of one test, as a concurrency test fails it (docs/verification.md#a-run): from what
//! the runner printed, how its process ended and whether the time limit ended it, the run is a
//! pass, a failure (failed, crashed, hung, exited before its result) or no result (the test
//! never started: a build error, no such test, a name several binaries share). The same rules
//! read the rerun workflow's reports, `rerun-local`/`verify-local` and the MCP tools.

mod capture;
pub mod report;
mod start;
mod tally;

use serde::Serialize;

use crate::core::failures::{Format, TestResult, results_str};
use crate::core::markdown::excerpt;
use crate::core::test_ids::{Selection, matches};

pub use capture::Capture;
pub use start::{Family, started};
pub use tally::Tally;

/// How a run's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "how", content = "value")]
pub enum Ended {
    /// It exited with this status.
    Exited(i32),
    /// A signal killed it (not the time limit's).
    Signalled(i32),
    /// The time limit (this many seconds) ended it.
    TimedOut(u64),
}

impl Ended {
    /// From a shell's `$?` (128 + N for a signal), with whether the time limit ended it.
    pub fn from_shell(status: i32, timed_out: Option<u64>) -> Ended {
        match timed_out {
            Some(s) => Ended::TimedOut(s),
            None if status > 128 && status < 128 + 65 => Ended::Signalled(status - 128),
            None => Ended::Exited(status),
        }
    }
}

/// Why a started test's run is a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// The runner reported it failed (an assertion, a panic it caught).
    Failed,
    /// Its process died by this signal before its result was printed (abort, segfault).
    Crashed(i32),
    /// The time limit of this many seconds ended it: a deadlock reproduces as a hang.
    Hung(u64),
    /// Its process exited with this status before its result was printed.
    ExitedEarly(i32),
}

impl Failure {
    /// `failed`, `crashed (signal 6)`, `hung (300 s)`, `exited 2 before its result`.
    pub fn describe(self) -> String {
        match self {
            Failure::Failed => "failed".into(),
            Failure::Crashed(n) => format!("crashed (signal {n})"),
            Failure::Hung(s) => format!("hung ({s} s)"),
            Failure::ExitedEarly(n) => format!("exited {n} before its result"),
        }
    }
}

/// Why a run holds no result of the test: it never started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "why", content = "detail")]
pub enum NoResult {
    /// The build (or the test file's import) failed; the first error line.
    Build(String),
    /// No test has that name.
    NotFound,
    /// The name matches tests in several binaries or packages: these.
    Ambiguous(Vec<String>),
    /// Nothing the runner printed names the test; the first error line, if any.
    NoReport(Option<String>),
}

impl NoResult {
    /// The reason, naming the side (`the merge base`, `the head`).
    pub fn reason(&self, side: &str) -> String {
        match self {
            NoResult::Build(line) => {
                format!("the test file does not build on {side}: {}", excerpt(line))
            }
            NoResult::NotFound => format!("no test has that name on {side}"),
            NoResult::Ambiguous(ids) => format!(
                "ambiguous on {side}: the name matches {} (name one of them)",
                ids.iter()
                    .map(|i| excerpt(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            NoResult::NoReport(Some(line)) => format!(
                "the run on {side} printed no result of the test: {}",
                excerpt(line)
            ),
            NoResult::NoReport(None) => format!("the run on {side} printed no result of the test"),
        }
    }
}

/// One run's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    Passed,
    Failed { failure: Failure },
    NoResult { no_result: NoResult },
}

impl Outcome {
    /// `Some(true)` a failure, `Some(false)` a pass, `None` no result.
    pub fn failed(&self) -> Option<bool> {
        match self {
            Outcome::Passed => Some(false),
            Outcome::Failed { .. } => Some(true),
            Outcome::NoResult { .. } => None,
        }
    }

    fn failure(f: Failure) -> Outcome {
        Outcome::Failed { failure: f }
    }

    fn none(n: NoResult) -> Outcome {
        Outcome::NoResult { no_result: n }
    }
}

/// The run of `test` (the id as the claim or command gave it), selected as `sel` (what the
/// runner was told), judged from its output and how it ended.
pub fn judge(family: Family, sel: &Selection, test: &str, output: &str, ended: Ended) -> Outcome {
    let name = sel.name.as_str();
    if family == Family::Command {
        return match ended {
            Ended::Exited(0) => Outcome::Passed,
            Ended::Exited(n) => Outcome::failure(if n > 128 && n < 128 + 65 {
                Failure::Crashed(n - 128)
            } else {
                Failure::Failed
            }),
            Ended::Signalled(n) => Outcome::failure(Failure::Crashed(n)),
            Ended::TimedOut(s) => Outcome::failure(Failure::Hung(s)),
        };
    }
    let format = match family {
        Family::Go => Format::Auto,
        Family::Cargo => Format::Cargo,
        Family::Nextest => Format::Nextest,
        Family::Pytest => Format::Pytest,
        Family::Jest | Family::Command => Format::Auto,
    };
    let results = results_str(output, format);
    let mut ids: Vec<String> = Vec::new();
    let (mut failures, mut passes) = (0u32, 0u32);
    // The id itself, when the output has it, is that one test; else every id that names it.
    let exact = results.tests.iter().any(|r| r.test.id() == test);
    // jest prints a test by its title alone (`✕ wakes a waiter`); the run selected it by its
    // describe blocks and title (`-t`), so a result of that title is it (the others skipped).
    let title = |n: &str| n.rsplit('\u{203a}').next().unwrap_or(n).trim().to_string();
    let jest_title = |r: &TestResult| family == Family::Jest && title(&r.test.name) == title(name);
    for r in results.tests.iter() {
        let id = r.test.id();
        if !(if exact {
            id == test
        } else {
            matches(sel, test, r) || jest_title(r)
        }) {
            continue;
        }
        if !ids.contains(&id) {
            ids.push(id);
        }
        failures += r.failures;
        passes += r.passes;
    }
    if ids.len() > 1 {
        return Outcome::none(NoResult::Ambiguous(ids));
    }
    if failures > 0 {
        // A crash or a hang the runner reported as the test's failure (cargo: the test binary
        // died by a signal; go: its own -timeout panicked).
        return Outcome::failure(match (ended, crash_signal(output)) {
            (Ended::TimedOut(s), _) => Failure::Hung(s),
            _ if output.contains("panic: test timed out after") => {
                Failure::Hung(go_timeout(output).unwrap_or(0))
            }
            (_, Some(sig)) => Failure::Crashed(sig),
            _ => Failure::Failed,
        });
    }
    if passes > 0 {
        return Outcome::Passed;
    }
    let build = build_error(family, output);
    let began = started(family, name, output);
    match ended {
        Ended::TimedOut(s) if build.is_none() => Outcome::failure(Failure::Hung(s)),
        Ended::Signalled(n) if build.is_none() && began != Some(false) => {
            Outcome::failure(Failure::Crashed(n))
        }
        Ended::Exited(code) if code != 0 && began == Some(true) => {
            Outcome::failure(match crash_signal(output) {
                Some(sig) => Failure::Crashed(sig),
                None => Failure::ExitedEarly(code),
            })
        }
        _ => Outcome::none(if let Some(line) = build {
            NoResult::Build(line)
        } else if not_found(family, output) {
            NoResult::NotFound
        } else {
            NoResult::NoReport(first_error_line(output))
        }),
    }
}

/// The seconds of go test's `panic: test timed out after 5m0s` (hours, minutes, seconds).
fn go_timeout(output: &str) -> Option<u64> {
    let rest = output.split("panic: test timed out after ").nth(1)?;
    let word = rest.split_whitespace().next()?;
    let (mut total, mut n) = (0f64, String::new());
    for c in word.chars() {
        match c {
            '0'..='9' | '.' => n.push(c),
            'h' | 'm' | 's' => {
                let v: f64 = n.parse().ok()?;
                total += v * match c {
                    'h' => 3600.0,
                    'm' => 60.0,
                    _ => 1.0,
                };
                n.clear();
            }
            _ => return None,
        }
    }
    Some(total.round() as u64)
}

/// cargo's `process didn't exit successfully: ... (signal: 6, SIGABRT: process abort signal)`.
fn crash_signal(output: &str) -> Option<i32> {
    for line in output.lines() {
        if let Some(i) = line.find("(signal: ") {
            let digits: String = line[i + 9..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

/// The first error line of a build that failed, when the output shows one.
fn build_error(family: Family, output: &str) -> Option<String> {
    let failed = family != Family::Command
        && output
            .lines()
            .map(str::trim)
            .any(crate::core::ci::signs::build_failure_line);
    failed.then(|| first_error_line(output).unwrap_or_else(|| "the build failed".into()))
}

/// Whether the runner said it found no test of that name.
fn not_found(family: Family, output: &str) -> bool {
    output.lines().map(str::trim).any(|l| match family {
        Family::Cargo => l == "running 0 tests",
        Family::Nextest => l.contains("0 tests run") || l.contains("no tests to run"),
        Family::Go => l.contains("no tests to run") || l.ends_with("[no test files]"),
        Family::Pytest => {
            l.starts_with("ERROR: not found:")
                || l.contains("no tests ran")
                || l.contains("collected 0 items")
        }
        Family::Jest => l.starts_with("No tests found"),
        Family::Command => false,
    })
}

/// The first line that reads as an error (`error[E0599]: …`, `E   ImportError: …`,
/// `./x.go:3:2: undefined: y`), else the last non-empty line.
pub fn first_error_line(output: &str) -> Option<String> {
    let is_error = |l: &str| {
        let lower = l.to_ascii_lowercase();
        lower.starts_with("error")
            || l.starts_with("E ")
            || lower.contains("error:")
            || (l.contains(".go:") && l.contains(": "))
    };
    // jest's file that does not load: its reason is the line after the heading.
    let mut lines = output.lines().map(str::trim);
    if lines.any(|l| l.ends_with("Test suite failed to run"))
        && let Some(reason) = lines.find(|l| !l.is_empty())
    {
        return Some(excerpt(reason));
    }
    output
        .lines()
        .map(str::trim)
        .find(|l| is_error(l) && !l.starts_with("error: test failed"))
        .or_else(|| output.lines().map(str::trim).rfind(|l| !l.is_empty()))
        .map(excerpt)
}

#[cfg(test)]
mod tests;
