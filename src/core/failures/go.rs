//! `go test -v` text (with package `FAIL` lines, subtests, panics and timeout dumps) and
//! `go test -json` event streams.
//!
//! `go test -v` prints a test's result line without its package; the package comes later, on
//! its `ok`/`FAIL` line, after the output of every other test of that package (parallel tests
//! report at the end). Results are held per package until that line names it, so a test name
//! shared by several packages is never attributed to the wrong one.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::{
    Budget, Collector, LineParser, MAX_ID_BYTES, MESSAGE_CAP, Outcome, SLOT, append_message,
};

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("go patterns are valid"))
}

fn result_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*--- (FAIL|PASS|SKIP): (\S+)")
}

fn package_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^(FAIL|ok)\s+([^\s]+)\s+(?:[\d.]+s|\(cached\)|\[[^\]]+\])",
    )
}

/// A test in the timeout's `running tests:` list (the duration may be cut off; a CI prefix
/// taken off the line may have taken its indentation).
fn running_test() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^\s*((?:Test|Fuzz|Example|Benchmark)\S*)(?: \([\dhms.µ]+\))?\s*$",
    )
}

fn dump_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*([\w./-]+)\.((?:Test|Fuzz)[A-Z0-9_]\w*)\(")
}

/// Tests started and not yet reported, in start order. What it holds is charged to the
/// report's [`Budget`]; a test past it (or named longer than [`MAX_ID_BYTES`]) is not followed.
struct Running {
    order: Vec<String>,
    open: HashSet<String>,
    budget: Budget,
    held: usize,
}

impl Running {
    const MAX: usize = 10_000;

    fn new(budget: Budget) -> Self {
        Running {
            order: Vec::new(),
            open: HashSet::new(),
            budget,
            held: 0,
        }
    }

    fn start(&mut self, name: &str) {
        if name.len() > MAX_ID_BYTES || self.open.len() >= Self::MAX || self.open.contains(name) {
            return;
        }
        let cost = 2 * (name.len() + SLOT);
        if !self.budget.take(cost) {
            return;
        }
        self.held += cost;
        self.open.insert(name.to_string());
        self.order.push(name.to_string());
    }

    fn end(&mut self, name: &str) {
        self.open.remove(name);
    }

    /// Still running, without running subtests of their own (the leaves say more).
    fn leaves(&self) -> Vec<&str> {
        let mut parents = HashSet::new();
        for t in self.open.iter() {
            for (i, _) in t.match_indices('/') {
                parents.insert(&t[..i]);
            }
        }
        self.order
            .iter()
            .filter(|t| self.open.contains(*t) && !parents.contains(t.as_str()))
            .map(String::as_str)
            .collect()
    }

    fn clear(&mut self) {
        self.order = Vec::new();
        self.open = HashSet::new();
        self.budget.give(std::mem::take(&mut self.held));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.budget.give(self.held);
    }
}

/// What each running test printed (`    x_test.go:12: …` lines): its failure message if it
/// fails. Bounded: [`Running::MAX`] tests at once, [`MESSAGE_CAP`] bytes each, all charged to
/// the report's [`Budget`].
struct Printed {
    by_test: HashMap<String, String>,
    budget: Budget,
    held: usize,
}

impl Printed {
    fn new(budget: Budget) -> Self {
        Printed {
            by_test: HashMap::new(),
            budget,
            held: 0,
        }
    }

    fn cost(key: &str) -> usize {
        key.len() + MESSAGE_CAP + SLOT
    }

    /// A line `test` printed, when it is one of its log lines.
    fn line(&mut self, test: &str, line: &str) {
        let t = line.trim_start();
        if t.is_empty()
            || t.starts_with("--- ")
            || t.starts_with("=== ")
            || !line.starts_with([' ', '\t'])
        {
            return;
        }
        if !self.by_test.contains_key(test) {
            if test.len() > 2 * MAX_ID_BYTES
                || self.by_test.len() >= Running::MAX
                || !self.budget.take(Self::cost(test))
            {
                return;
            }
            self.held += Self::cost(test);
        }
        let m = self.by_test.entry(test.to_string()).or_default();
        if m.len() < MESSAGE_CAP {
            append_message(m, t);
        }
    }

    fn take(&mut self, test: &str) -> Option<String> {
        let m = self.by_test.remove(test)?;
        self.held -= Self::cost(test);
        self.budget.give(Self::cost(test));
        Some(m)
    }
}

impl Drop for Printed {
    fn drop(&mut self) {
        self.budget.give(self.held);
    }
}

/// `go test -v` output.
pub struct Text {
    c: Collector,
    /// Results not yet attributed to a package, in order.
    pending: Vec<(String, Outcome)>,
    /// Positions in `pending` of its failures, by name, without a copy of any name (without
    /// `all`, only the passes of these matter).
    pending_failed: hashbrown::HashTable<usize>,
    hasher: hashbrown::DefaultHashBuilder,
    /// What `pending` holds of the report's budget.
    pending_held: usize,
    /// A test failed since the last package line (held, or named by a timeout's dump).
    any_failed: bool,
    seen: bool,
    in_timeout: bool,
    in_running_list: bool,
    /// This timeout's panic listed its running tests (Go 1.14+).
    saw_list: bool,
    running: Running,
    /// The test whose output lines follow (`=== RUN`, `=== CONT`, or a `--- FAIL` line, after
    /// which older Go prints the log).
    speaking: Option<String>,
    printed: Printed,
}

impl Text {
    pub fn new(c: Collector) -> Self {
        let budget = c.budget();
        Text {
            c,
            pending: Vec::new(),
            pending_failed: hashbrown::HashTable::new(),
            hasher: Default::default(),
            pending_held: 0,
            any_failed: false,
            seen: false,
            in_timeout: false,
            in_running_list: false,
            saw_list: false,
            running: Running::new(budget.clone()),
            speaking: None,
            printed: Printed::new(budget),
        }
    }

    /// Holds a result until its package's line names the package. What is held is charged to
    /// the report's budget: past it, a result is dropped.
    fn hold(&mut self, name: &str, outcome: Outcome) {
        if name.len() > MAX_ID_BYTES {
            // Not an id: the collector counts it, and it is never held.
            if outcome == Outcome::Fail {
                self.c.fail(None, name);
            }
            return;
        }
        use std::hash::BuildHasher as _;
        let h = self.hasher.hash_one(name);
        let pending = &self.pending;
        let failed_before = self
            .pending_failed
            .find(h, |&i| pending[i].0 == name)
            .is_some();
        if outcome != Outcome::Fail && !self.c.keep_all && !failed_before {
            // Only failures are kept: a pass matters only after a failure (a flake).
            return;
        }
        let cost = name.len() + SLOT;
        if self.pending.len() >= super::MAX_TESTS || !self.c.budget().take(cost) {
            self.c.count_dropped();
            return;
        }
        self.pending_held += cost;
        let i = self.pending.len();
        self.pending.push((name.to_string(), outcome));
        if outcome == Outcome::Fail {
            self.any_failed = true;
            if !failed_before {
                let (pending, hasher) = (&self.pending, &self.hasher);
                self.pending_failed
                    .insert_unique(h, i, |&j| hasher.hash_one(pending[j].0.as_str()));
            }
        }
    }

    /// Attributes the held results to `pkg` (`None` when the log ended without its line).
    fn flush(&mut self, pkg: Option<&str>) {
        self.pending_failed = hashbrown::HashTable::new();
        self.any_failed = false;
        self.c.budget().give(std::mem::take(&mut self.pending_held));
        for (name, outcome) in std::mem::take(&mut self.pending) {
            match outcome {
                Outcome::Fail => {
                    self.c.fail(pkg, &name);
                    if let Some(m) = self.printed.take(&name) {
                        self.c.message(pkg, &name, &m);
                    }
                }
                Outcome::Pass => self.c.pass(pkg, &name),
                Outcome::Skip => self.c.skip(pkg, &name),
                Outcome::Flaky => self.c.flaky(pkg, &name),
            }
        }
    }
}

impl LineParser for Text {
    fn line(&mut self, line: &str) {
        if let Some(t) = &self.speaking
            && !self.in_timeout
            && line.starts_with([' ', '\t'])
            && !line.trim_start().starts_with("--- ")
        {
            self.printed.line(t, line);
            return;
        }
        // Cheap prefilter: most lines of a log are none of these.
        if !(self.in_timeout
            || line.contains("--- ")
            || line.starts_with("=== ")
            || line.starts_with("FAIL")
            || line.starts_with("ok")
            || line.starts_with("panic: "))
        {
            return;
        }
        if let Some(m) = result_line().captures(line) {
            self.seen = true;
            let name = m[2].to_string();
            self.running.end(&name);
            let outcome = match &m[1] {
                "FAIL" => Outcome::Fail,
                "PASS" => Outcome::Pass,
                _ => Outcome::Skip,
            };
            if outcome == Outcome::Fail {
                self.speaking = Some(name.clone());
            } else {
                self.printed.take(&name);
                self.speaking = None;
            }
            self.hold(&name, outcome);
            return;
        }
        if let Some(name) = line.strip_prefix("=== RUN") {
            self.seen = true;
            let name = name.trim();
            if !name.is_empty() {
                self.running.start(name);
                self.speaking = Some(name.to_string());
            }
            return;
        }
        if let Some(name) = line
            .strip_prefix("=== CONT")
            .or_else(|| line.strip_prefix("=== NAME"))
        {
            let name = name.trim();
            self.speaking = (!name.is_empty()).then(|| name.to_string());
            return;
        }
        if let Some(m) = package_line().captures(line) {
            let pkg = m[2].to_string();
            if &m[1] == "FAIL" && !self.any_failed {
                // The package failed and no test of it reported a failure: the binary died
                // (a panic, a timeout without its list) while these ran, so they take the blame.
                // When some test did report, the others still running are neither passed nor
                // failed.
                let mut leaves: Vec<String> = self
                    .running
                    .leaves()
                    .into_iter()
                    .map(String::from)
                    .collect();
                // A timeout of an older Go names no test: the panic belongs to the test that
                // started last and never finished; the others it cut off have no result.
                if self.in_timeout && !self.saw_list {
                    leaves = leaves.pop().into_iter().collect();
                }
                for t in leaves {
                    self.hold(&t, Outcome::Fail);
                }
            }
            self.running.clear();
            self.speaking = None;
            self.flush(Some(&pkg));
            self.printed = Printed::new(self.c.budget());
            self.in_timeout = false;
            self.in_running_list = false;
            self.saw_list = false;
            return;
        }
        if line.starts_with("panic: test timed out") {
            self.speaking = None;
            self.in_timeout = true;
            self.seen = true;
            return;
        }
        if self.in_timeout {
            if line.trim_start().starts_with("running tests:") {
                self.in_running_list = true;
                self.saw_list = true;
                return;
            }
            if self.in_running_list {
                if let Some(m) = running_test().captures(line) {
                    let name = m[1].to_string();
                    self.running.end(&name);
                    self.hold(&name, Outcome::Fail);
                    return;
                }
                self.in_running_list = false;
            }
            // Older Go has no list: with no `=== RUN` to go by, the test functions in the
            // goroutine dump name them.
            if !self.saw_list
                && self.running.open.is_empty()
                && let Some(m) = dump_frame().captures(line)
            {
                self.any_failed = true;
                self.c.fail(Some(&m[1]), &m[2]);
            }
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(mut self: Box<Self>) -> Collector {
        self.flush(None);
        self.c
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "Action")]
    action: &'a str,
    #[serde(rename = "Package", default)]
    package: Option<&'a str>,
    #[serde(rename = "Test", default)]
    test: Option<&'a str>,
    #[serde(rename = "Output", default, borrow)]
    output: Option<std::borrow::Cow<'a, str>>,
    /// Seconds the test took, on its pass, fail or skip event.
    #[serde(rename = "Elapsed", default)]
    elapsed: Option<f64>,
}

/// `go test -json` (test2json) events, one per line; other lines are ignored.
pub struct Json {
    c: Collector,
    /// Per package: tests started and not finished, and whether one of its tests failed.
    packages: HashMap<String, (Running, bool)>,
    seen: bool,
    /// Packages whose output is in a timeout's `running tests:` list now.
    in_running_list: HashSet<String>,
    /// (package, test) the timeout named: failed, whatever event follows (test2json may still
    /// report a pass for a test that printed its result as the alarm went off). Charged to the
    /// report's budget for as long as the report is read.
    timed_out: HashSet<(String, String)>,
    /// What running tests printed, keyed `package\0test`.
    printed: Printed,
}

impl Json {
    /// Packages in a timeout's list at once (go test runs a few packages at a time).
    const MAX_LISTING: usize = 64;

    pub fn new(c: Collector) -> Self {
        let printed = Printed::new(c.budget());
        Json {
            c,
            packages: HashMap::new(),
            seen: false,
            in_running_list: HashSet::new(),
            timed_out: HashSet::new(),
            printed,
        }
    }

    /// A timeout's dump, read from the output events: the tests its list names failed.
    fn output(&mut self, pkg: &str, text: &str) {
        if text.starts_with("panic: test timed out") {
            self.in_running_list.remove(pkg);
            return;
        }
        if text.trim_start().starts_with("running tests:") {
            if pkg.len() <= MAX_ID_BYTES && self.in_running_list.len() < Self::MAX_LISTING {
                self.in_running_list.insert(pkg.to_string());
            }
            return;
        }
        if !self.in_running_list.contains(pkg) {
            return;
        }
        match running_test().captures(text.trim_end_matches('\n')) {
            Some(m) if self.timed_out.len() < Running::MAX => {
                let name = &m[1];
                if let Some(p) = self.package(pkg) {
                    p.0.end(name);
                    p.1 = true;
                }
                self.c.fail(Some(pkg), name);
                let key = (pkg.to_string(), name.to_string());
                if !self.timed_out.contains(&key)
                    && self.c.budget().take(key.0.len() + key.1.len() + SLOT)
                {
                    self.timed_out.insert(key);
                }
            }
            _ => {
                self.in_running_list.remove(pkg);
            }
        }
    }

    /// The package's state, made on first sight; `None` when the report's budget (or the
    /// cap on packages followed at once) has no room for another.
    fn package(&mut self, pkg: &str) -> Option<&mut (Running, bool)> {
        if !self.packages.contains_key(pkg) {
            if pkg.len() > MAX_ID_BYTES
                || self.packages.len() >= Running::MAX
                || !self.c.budget().take(pkg.len() + SLOT)
            {
                return None;
            }
            let running = Running::new(self.c.budget());
            self.packages.insert(pkg.to_string(), (running, false));
        }
        self.packages.get_mut(pkg)
    }

    /// Forgets a package that ended, giving back what it held.
    fn end_package(&mut self, pkg: &str) -> Option<(Running, bool)> {
        let p = self.packages.remove(pkg)?;
        self.c.budget().give(pkg.len() + SLOT);
        Some(p)
    }
}

impl LineParser for Json {
    fn line(&mut self, line: &str) {
        let t = line.trim_start();
        if !t.starts_with('{') || !t.contains("\"Action\"") {
            return;
        }
        let Ok(e) = serde_json::from_str::<Event>(t) else {
            return;
        };
        self.seen = true;
        let pkg = e.package.unwrap_or("");
        let ms = e
            .elapsed
            .filter(|s| s.is_finite() && (0.0..=31_536_000.0).contains(s))
            .map(|s| (s * 1000.0).round() as u64);
        match (e.action, e.test) {
            ("output", test) => {
                if let Some(text) = e.output.as_deref() {
                    if let Some(t) = test {
                        self.printed
                            .line(&format!("{pkg}\0{t}"), text.trim_end_matches('\n'));
                    }
                    self.output(pkg, text);
                }
            }
            ("run", Some(test)) => {
                if let Some(p) = self.package(pkg) {
                    p.0.start(test);
                }
            }
            ("fail", Some(test)) => {
                if let Some(p) = self.package(pkg) {
                    p.0.end(test);
                    p.1 = true;
                }
                self.c.fail(Some(pkg), test);
                if let Some(ms) = ms {
                    self.c.duration(Some(pkg), test, ms);
                }
                if let Some(m) = self.printed.take(&format!("{pkg}\0{test}")) {
                    self.c.message(Some(pkg), test, &m);
                }
            }
            ("pass", Some(test)) => {
                self.printed.take(&format!("{pkg}\0{test}"));
                if let Some(p) = self.packages.get_mut(pkg) {
                    p.0.end(test);
                }
                if !self
                    .timed_out
                    .contains(&(pkg.to_string(), test.to_string()))
                {
                    self.c.pass(Some(pkg), test);
                    if let Some(ms) = ms {
                        self.c.duration(Some(pkg), test, ms);
                    }
                }
            }
            ("skip", Some(test)) => {
                if let Some(p) = self.packages.get_mut(pkg) {
                    p.0.end(test);
                }
                self.c.skip(Some(pkg), test);
            }
            ("fail", None) => {
                // The package failed with tests still running and none of its tests reported
                // a failure: the binary died under them (a panic, a timeout), so they failed.
                if let Some((running, failed)) = self.end_package(pkg)
                    && !failed
                {
                    for t in running.leaves() {
                        self.c.fail(Some(pkg), t);
                    }
                }
            }
            ("pass" | "skip", None) => {
                self.end_package(pkg);
            }
            _ => {}
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(self: Box<Self>) -> Collector {
        self.c
    }
}
