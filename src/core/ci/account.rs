//! Whether a failed CI test command is accounted for by its failing tests
//! (docs/history.md#quarantine-that-holds-in-ci): every Go package, cargo test binary and pytest
//! session that failed must have failing tests, and nothing else beside them (a package `FAIL`
//! with no failing test, `TestMain` or a test ending the process, a race report outside the
//! tests, a test that started and never reported, a binary's exit status beyond its failed
//! tests, a runner that stopped early, a command status its runner does not give for failed
//! tests). The output is read line by line as it streams by ([`Scan`]): one pass, the memory
//! bounded whatever the log's size.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::core::failures::clean_line;
use crate::core::markdown::excerpt;

/// A test runner the output showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    Go,
    Cargo,
    Nextest,
    Pytest,
}

impl Runner {
    const ALL: [Runner; 4] = [Runner::Go, Runner::Cargo, Runner::Nextest, Runner::Pytest];

    pub fn name(self) -> &'static str {
        match self {
            Runner::Go => "go test",
            Runner::Cargo => "cargo test",
            Runner::Nextest => "cargo nextest",
            Runner::Pytest => "pytest",
        }
    }

    /// The status it exits with when tests failed and nothing else went wrong.
    pub fn failed_status(self) -> i32 {
        match self {
            Runner::Go | Runner::Pytest => 1,
            Runner::Cargo => 101,
            Runner::Nextest => 100,
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// Something a failed command's failing tests do not explain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Unexplained {
    /// The command's status is not the one its runner gives for failed tests (a second
    /// command's status in a script, a test process's own exit).
    Status {
        exit: i32,
        /// The runners the output showed (none: a test runner's usual 1 is expected).
        runners: Vec<&'static str>,
        expected: Vec<i32>,
    },
    /// A package or test binary that failed without a failing test of its own.
    NoFailingTest { unit: String },
    /// `Found N data race(s)`: a race outside any test (a test's own race fails that test).
    Race { unit: String, line: String },
    /// A test process's exit status beyond its failed tests (`exit status 3`, cargo's
    /// `(exit status: 3)`).
    ExitStatus { unit: String, status: i32 },
    /// Tests that started and never reported a result: the process ended under them.
    NeverReported {
        unit: String,
        tests: Vec<String>,
        count: usize,
    },
    /// pytest started and never printed its closing summary line.
    NoSummary,
    /// cargo stopped at this failing test binary (no `--no-fail-fast`): the binaries after it
    /// did not run.
    Stopped { unit: String },
    /// More failing units than are followed.
    TooMany { units: usize },
}

/// What the output showed, read to its end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Account {
    /// The runners seen, in [`Runner`] order.
    pub runners: Vec<Runner>,
    /// What each failing unit left unexplained, in the order seen.
    pub units: Vec<Unexplained>,
    /// `make: *** [...] Error N`: the statuses of failed recipes (make itself exits 2).
    pub make: Vec<i32>,
}

/// Everything a command that exited `exit` (not 0, not a signal) leaves unexplained beside its
/// failing tests.
pub fn unexplained(acc: &Account, exit: i32) -> Vec<Unexplained> {
    let mut out = Vec::new();
    let mut expected: Vec<i32> = acc.runners.iter().map(|r| r.failed_status()).collect();
    expected.dedup();
    if expected.is_empty() {
        expected.push(1);
    }
    // make reports a failed recipe's status and exits 2 itself.
    let through_make =
        exit == 2 && !acc.make.is_empty() && acc.make.iter().all(|n| expected.contains(n));
    if !expected.contains(&exit) && !through_make {
        out.push(Unexplained::Status {
            exit,
            runners: acc.runners.iter().map(|r| r.name()).collect(),
            expected,
        });
    }
    out.extend(acc.units.iter().cloned());
    out
}

/// Most unexplained units kept; past it they are counted.
const MAX_FOUND: usize = 100;
/// Most test names followed at once (started, not yet reported), over every package.
const MAX_RUNNING: usize = 20_000;
/// Longest test name followed.
const MAX_NAME: usize = 300;
/// Most `go test -json` packages followed at once.
const MAX_PACKAGES: usize = 5_000;

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("account patterns are valid"))
}

fn go_package_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^(FAIL|ok)\s+(\S+)\s+([\d.]+s\b|\(cached\)|\[[^\]]+\])",
    )
}

fn go_result() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*--- (FAIL|PASS|SKIP): (\S+)")
}

fn go_race() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^Found \d+ data race\(s\)")
}

fn cargo_running() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^\s*Running (?:(?:unittests|tests|benches)\s+)?\S*?(?:\s*\()?(?:[^\s)]*/)?([A-Za-z0-9_]+)-[0-9a-f]{8,}\)?\s*$",
    )
}

fn cargo_test_failed() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"(?:^|\s)test \S.* \.\.\. FAILED\s*$")
}

fn cargo_process() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"process didn't exit successfully: `(?:[^`]*/)?([A-Za-z0-9_]+?)(?:-[0-9a-f]{8,})?(?: [^`]*)?` \(exit (?:status|code): (-?\d+)\)",
    )
}

fn pytest_summary() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // `===== 1 failed, 2 passed in 0.12s =====`, `-q`: `1 failed, 2 passed in 0.01s`.
    re(
        &R,
        r"^=*\s*(?:(?:\d+ [a-z]+)(?:, \d+ [a-z]+)*|no tests ran) in [\d.]+s(?: \([^)]*\))?\s*=*$",
    )
}

fn make_error() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^g?make(?:\[\d+\])?: \*\*\* \[[^\]]*\] Error (\d+)")
}

/// A Go package's output between two package lines.
#[derive(Debug, Default)]
struct GoBlock {
    /// A test (or subtest) of it failed.
    failed: bool,
    /// Top-level tests started and not yet reported.
    running: HashSet<String>,
    race: Option<String>,
    /// `exit status N` (N ≠ 1: 1 is the testing package's own).
    exit: Option<i32>,
}

#[derive(Deserialize)]
struct GoEvent {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Package", default)]
    package: Option<String>,
    #[serde(rename = "Test", default)]
    test: Option<String>,
    #[serde(rename = "Output", default)]
    output: Option<String>,
}

/// A cargo test binary's output.
#[derive(Debug, Default)]
struct CargoBlock {
    unit: String,
    failed: usize,
    result_failed: bool,
    /// Its `test result:` line was read.
    done: bool,
}

#[derive(Debug, Default)]
struct Cargo {
    block: Option<CargoBlock>,
    /// After `error: test failed`, before its `process didn't exit successfully` line.
    after_error: bool,
    /// The binary cargo named failing, not yet settled.
    failing: Option<String>,
    /// The failing binary cargo stopped at, until another binary runs.
    stopped_at: Option<String>,
    /// `error: N targets failed:` (`--no-fail-fast`'s closing list).
    no_fail_fast: bool,
}

#[derive(Debug, Default)]
struct Pytest {
    started: bool,
    summary: bool,
}

/// The output, read line by line.
#[derive(Debug, Default)]
pub struct Scan {
    runners: u8,
    /// `go test` text: one package's block at a time (its name comes last).
    text: GoBlock,
    /// `go test -json`: by package, interleaved.
    json: HashMap<String, GoBlock>,
    running: usize,
    cargo: Cargo,
    pytest: Pytest,
    make: Vec<i32>,
    found: Vec<Unexplained>,
    over: usize,
}

impl Scan {
    /// Reads one line of the output (a CI's timestamp and colours are ignored).
    pub fn line(&mut self, raw: &str) {
        let cleaned = clean_line(raw);
        let l: &str = &cleaned;
        let t = l.trim();
        if t.is_empty() {
            return;
        }
        if t.starts_with('{') {
            self.json_line(t);
            return;
        }
        let mut block = std::mem::take(&mut self.text);
        if let Some((failed, pkg, rest)) = self.go_line(&mut block, l) {
            self.see(Runner::Go);
            if !rest.ends_with("failed]") {
                self.package_ended(&mut block, failed, pkg);
            }
            self.release(&mut block);
            block = GoBlock::default();
        }
        self.text = block;
        self.cargo_line(t);
        self.pytest_line(t);
        if t.starts_with("Starting ") && t.contains(" tests across ")
            || t.starts_with("Summary [") && t.contains(" tests run")
        {
            self.see(Runner::Nextest);
        }
        if let Some(m) = make_error().captures(t)
            && let Ok(n) = m[1].parse::<i32>()
            && self.make.len() < MAX_FOUND
        {
            self.make.push(n);
        }
    }

    /// Reads a whole text (tests, small outputs).
    pub fn of(text: &str) -> Scan {
        let mut s = Scan::default();
        for l in text.lines() {
            s.line(l);
        }
        s
    }

    fn see(&mut self, r: Runner) {
        self.runners |= r.bit();
    }

    fn found(&mut self, u: Unexplained) {
        if self.found.len() < MAX_FOUND {
            self.found.push(u);
        } else {
            self.over += 1;
        }
    }

    fn release(&mut self, block: &mut GoBlock) {
        self.running = self.running.saturating_sub(block.running.len());
        block.running.clear();
    }

    /// One line of a Go package's output; at its package line, `(failed, package, rest)`.
    fn go_line<'l>(&mut self, block: &mut GoBlock, l: &'l str) -> Option<(bool, &'l str, &'l str)> {
        let t = l.trim();
        if let Some(name) = t.strip_prefix("=== RUN") {
            let name = name.trim();
            if !name.is_empty()
                && !name.contains('/')
                && name.len() <= MAX_NAME
                && self.running < MAX_RUNNING
                && block.running.insert(name.to_string())
            {
                self.running += 1;
            }
            return None;
        }
        if t.starts_with("--- ") {
            if let Some(m) = go_result().captures(t) {
                let name = m.get(2).map_or("", |g| g.as_str());
                if !name.contains('/') && block.running.remove(name) {
                    self.running -= 1;
                }
                if &m[1] == "FAIL" {
                    block.failed = true;
                }
            }
            return None;
        }
        if go_race().is_match(t) {
            block.race.get_or_insert_with(|| excerpt(t));
            return None;
        }
        if let Some(n) = t.strip_prefix("exit status ") {
            if let Ok(n) = n.trim().parse::<i32>()
                && n != 1
            {
                block.exit.get_or_insert(n);
            }
            return None;
        }
        if !(t.starts_with("FAIL") || t.starts_with("ok")) {
            return None;
        }
        let m = go_package_line().captures(t)?;
        let (pkg, rest) = (m.get(2)?.as_str(), m.get(3)?.as_str());
        Some((&m[1] == "FAIL", pkg, rest))
    }

    /// A Go package's line: what its block leaves unexplained.
    fn package_ended(&mut self, block: &mut GoBlock, failed: bool, pkg: &str) {
        let unit = excerpt(pkg);
        if let Some(line) = block.race.take() {
            self.found(Unexplained::Race {
                unit: unit.clone(),
                line,
            });
        }
        if !failed {
            return;
        }
        if !block.failed {
            self.found(Unexplained::NoFailingTest { unit: unit.clone() });
        }
        if let Some(status) = block.exit {
            self.found(Unexplained::ExitStatus {
                unit: unit.clone(),
                status,
            });
        }
        if !block.running.is_empty() {
            let mut tests: Vec<String> = block.running.iter().cloned().collect();
            tests.sort();
            let count = tests.len();
            tests.truncate(3);
            self.found(Unexplained::NeverReported { unit, tests, count });
        }
    }

    fn json_line(&mut self, t: &str) {
        if t.contains("\"type\"") && t.contains("\"suite\"") {
            // libtest's JSON (`cargo test -- --format json`).
            self.see(Runner::Cargo);
            return;
        }
        if !t.contains("\"Action\"") {
            return;
        }
        let Ok(e) = serde_json::from_str::<GoEvent>(t) else {
            return;
        };
        let Some(pkg) = e.package else { return };
        self.see(Runner::Go);
        if !self.json.contains_key(&pkg) && self.json.len() >= MAX_PACKAGES {
            return;
        }
        let mut block = self.json.remove(&pkg).unwrap_or_default();
        match (e.action.as_str(), e.test.is_some()) {
            ("output", _) => {
                if let Some(o) = e.output {
                    for l in o.lines() {
                        // The package line comes as output too: its event ends the block.
                        let _ = self.go_line(&mut block, l);
                    }
                }
            }
            ("fail", false) | ("pass", false) => {
                let failed = e.action == "fail";
                self.package_ended(&mut block, failed, &pkg);
                self.release(&mut block);
                return;
            }
            ("fail", true) => block.failed = true,
            _ => {}
        }
        self.json.insert(pkg, block);
    }

    fn cargo_line(&mut self, t: &str) {
        if let Some(m) = cargo_running().captures(t) {
            self.cargo_binary(m[1].to_string());
            return;
        }
        if let Some(name) = t.strip_prefix("Doc-tests ") {
            self.cargo_binary(format!("Doc-tests {}", excerpt(name.trim())));
            return;
        }
        if t.starts_with("test result: ") {
            self.see(Runner::Cargo);
            if let Some(b) = self.cargo.block.as_mut() {
                b.done = true;
                b.result_failed |= t.starts_with("test result: FAILED");
            }
            return;
        }
        // `cargo test -q` names no binary: libtest's `running N tests` starts the next one.
        if t.starts_with("running ")
            && (t.ends_with(" tests") || t.ends_with(" test"))
            && self.cargo.block.as_ref().is_none_or(|b| b.done)
        {
            self.settle_cargo();
            self.cargo.block = Some(CargoBlock {
                unit: "a test binary".into(),
                ..CargoBlock::default()
            });
            return;
        }
        if t.contains(" ... FAILED") && cargo_test_failed().is_match(t) {
            if let Some(b) = self.cargo.block.as_mut() {
                b.failed += 1;
            }
            return;
        }
        if t.starts_with("error: test failed, to rerun pass")
            || t.starts_with("error: doctest failed, to rerun pass")
        {
            self.see(Runner::Cargo);
            self.settle_cargo();
            let doc = t.starts_with("error: doctest");
            let unit = self
                .cargo
                .block
                .as_ref()
                .map(|b| b.unit.clone())
                .unwrap_or_else(|| if doc { "doc-tests" } else { "a test binary" }.into());
            self.cargo.stopped_at = Some(unit.clone());
            self.cargo.failing = Some(unit);
            self.cargo.after_error = !doc;
            return;
        }
        if self.cargo.after_error
            && let Some(m) = cargo_process().captures(t)
        {
            self.cargo.after_error = false;
            let unit = self
                .cargo
                .failing
                .clone()
                .unwrap_or_else(|| m[1].to_string());
            if let Ok(status) = m[2].parse::<i32>()
                && status != Runner::Cargo.failed_status()
            {
                self.found(Unexplained::ExitStatus { unit, status });
            }
            return;
        }
        if t.starts_with("error: ")
            && (t.ends_with(" targets failed:") || t.ends_with(" target failed:"))
        {
            self.see(Runner::Cargo);
            self.cargo.no_fail_fast = true;
        }
    }

    /// The binary cargo named failing, once its output is read (its results come on stdout,
    /// cargo's error on stderr: they are settled when the next binary starts, or at the end).
    fn settle_cargo(&mut self) {
        let Some(unit) = self.cargo.failing.take() else {
            return;
        };
        let failed = self
            .cargo
            .block
            .as_ref()
            .is_some_and(|b| b.failed > 0 || b.result_failed);
        if !failed {
            self.found(Unexplained::NoFailingTest { unit });
        }
    }

    fn cargo_binary(&mut self, unit: String) {
        self.see(Runner::Cargo);
        self.settle_cargo();
        // Another binary ran after a failing one: cargo did not stop there.
        self.cargo.stopped_at = None;
        self.cargo.after_error = false;
        self.cargo.block = Some(CargoBlock {
            unit,
            ..CargoBlock::default()
        });
    }

    fn pytest_line(&mut self, t: &str) {
        if !(t.starts_with('=')
            || t.as_bytes().first().is_some_and(u8::is_ascii_digit)
            || t.starts_with("no tests ran"))
        {
            return;
        }
        if t.starts_with('=') && t.contains(" test session starts ") {
            self.see(Runner::Pytest);
            self.pytest = Pytest {
                started: true,
                summary: false,
            };
        } else if t.starts_with('=') && t.contains(" short test summary info ") {
            self.see(Runner::Pytest);
        } else if t.contains(" in ") && pytest_summary().is_match(t) {
            self.see(Runner::Pytest);
            self.pytest.summary = true;
        }
    }

    /// The account of everything read.
    pub fn finish(mut self) -> Account {
        self.settle_cargo();
        if self.pytest.started && !self.pytest.summary {
            self.found(Unexplained::NoSummary);
        }
        if let Some(unit) = self.cargo.stopped_at.take()
            && !self.cargo.no_fail_fast
        {
            self.found(Unexplained::Stopped { unit });
        }
        if self.over > 0 {
            self.found.push(Unexplained::TooMany { units: self.over });
        }
        Account {
            runners: Runner::ALL
                .into_iter()
                .filter(|r| self.runners & r.bit() != 0)
                .collect(),
            units: self.found,
            make: self.make,
        }
    }
}
