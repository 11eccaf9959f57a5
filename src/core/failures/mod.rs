//! Failing tests found in CI output, as a streaming parser: lines (or XML events) go in one at
//! a time, and only failing tests are remembered, so memory does not grow with the log.
//!
//! One file per runner format. In `auto` mode every line goes to every line parser; the most
//! specific one that recognised the log wins where runners nest (nextest prints libtest's
//! output; `go test -json` carries `go test -v` text).

pub mod annotations;
mod cargo;
mod go;
mod jest;
mod jest_json;
mod junit;
mod pytest;
pub mod xml_guard;

use std::collections::HashSet;
use std::io::BufRead;

use serde::Serialize;

/// Runner output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Auto,
    Go,
    GoJson,
    Cargo,
    Nextest,
    Pytest,
    Jest,
    Junit,
}

/// A test that failed (or, with `flaky`, failed and then passed on a retry).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FailedTest {
    pub name: String,
    pub package: Option<String>,
}

impl FailedTest {
    /// `package::name`, or the name alone.
    pub fn id(&self) -> String {
        match &self.package {
            Some(p) => format!("{p}::{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// What a log held: its failing tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub failed: Vec<FailedTest>,
    /// Failed, then passed on a retry.
    pub flaky: Vec<FailedTest>,
}

/// One test's outcome in one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
    /// Failed, then passed on a retry inside the same run.
    Flaky,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip => "skip",
            Outcome::Flaky => "flaky",
        }
    }

    /// Two reports' outcomes of one test in one run: a pass and a failure are flaky; a skip
    /// gives way; otherwise the later one.
    pub fn combine(before: Outcome, after: Outcome) -> Outcome {
        match (before, after) {
            (Outcome::Fail, Outcome::Pass) | (Outcome::Pass, Outcome::Fail) => Outcome::Flaky,
            (Outcome::Skip, o) => o,
            (b, Outcome::Skip) => b,
            (Outcome::Flaky, _) | (_, Outcome::Flaky) => Outcome::Flaky,
            (_, o) => o,
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        match s {
            "pass" => Some(Outcome::Pass),
            "fail" => Some(Outcome::Fail),
            "skip" => Some(Outcome::Skip),
            "flaky" => Some(Outcome::Flaky),
            _ => None,
        }
    }
}

/// A test with its outcome, and how many times the run reported it passing and failing (a
/// `-count=20` rerun reports one test twenty times).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TestResult {
    #[serde(flatten)]
    pub test: FailedTest,
    pub outcome: Outcome,
    pub passes: u32,
    pub failures: u32,
    /// The first lines of its failure message (at most [`MESSAGE_CAP`] bytes), when the report
    /// gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How long it ran (every attempt of the report together), in milliseconds, when the
    /// report said (JUnit `time`, `go test -json`'s `Elapsed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// A duration in seconds as reports write it (`0.123`, `1,234.5`, `12s`) in milliseconds;
/// `None` for anything else (negative, not finite, more than a year).
pub(crate) fn seconds_ms(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches('s');
    if s.is_empty() || s.len() > 32 {
        return None;
    }
    let secs: f64 = s.replace(',', "").parse().ok()?;
    (secs.is_finite() && (0.0..=31_536_000.0).contains(&secs))
        .then(|| (secs * 1000.0).round() as u64)
}

/// Most bytes of a failure message kept.
pub const MESSAGE_CAP: usize = 2048;

/// `text` appended to `to` within [`MESSAGE_CAP`] bytes (cut at a character boundary), one
/// line apart. Linear in what is kept.
pub fn append_message(to: &mut String, text: &str) {
    let text = text.trim_end();
    if text.trim().is_empty() || to.len() >= MESSAGE_CAP {
        return;
    }
    if !to.is_empty() {
        to.push('\n');
    }
    push_capped(to, text);
}

/// As much of `piece` as fits in [`MESSAGE_CAP`] bytes, cut at a character boundary.
pub fn push_capped(to: &mut String, piece: &str) {
    let room = MESSAGE_CAP.saturating_sub(to.len());
    let mut end = piece.len().min(room);
    while !piece.is_char_boundary(end) {
        end -= 1;
    }
    to.push_str(&piece[..end]);
}

/// Every test a log or report showed with a result, in the order first seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub tests: Vec<TestResult>,
    /// Tests left out because the report named more than [`MAX_TESTS`].
    pub dropped: usize,
}

/// Most distinct tests remembered from one report (a bound on memory and work per run).
pub const MAX_TESTS: usize = 200_000;

/// Longest test id (`package::name`) accepted: longer is an error in a structured report and
/// skipped in a log.
pub const MAX_ID_BYTES: usize = 1_000;

/// Memory the results of one report may hold (tests, their names, their messages), shared by
/// every parser reading it; a test past it is dropped (and counted), a message past it is not
/// kept. Together with the line and event caps this keeps one report within 64 MiB.
pub const RESULTS_MEMORY: usize = 20 << 20;

/// What one remembered test costs beyond its names: the entry (with the slack of a growing
/// vector) and its slots in the indices.
const ENTRY_COST: usize = 2 * std::mem::size_of::<Entry>() + 3 * 16;

/// What a parser's remembered name costs beyond its bytes (the string, its slot in a table).
pub(super) const SLOT: usize = 64;

/// Bytes left of [`RESULTS_MEMORY`], shared by the collectors of one report.
#[derive(Clone, Debug)]
pub(super) struct Budget(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Default for Budget {
    fn default() -> Self {
        Budget(std::sync::Arc::new(RESULTS_MEMORY.into()))
    }
}

impl Budget {
    /// Takes `n` bytes; false (and nothing taken) when fewer are left.
    pub(super) fn take(&self, n: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }

    pub(super) fn give(&self, n: usize) {
        self.0.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
}

#[derive(Clone, Debug)]
struct Entry {
    test: FailedTest,
    passes: u32,
    fails: u32,
    skips: u32,
    /// Reported as failed-then-passed by the runner itself.
    retried: bool,
    /// What it holds of the budget.
    cost: usize,
    /// The first failure's message.
    message: Option<String>,
    /// Milliseconds its attempts took, when the report said.
    duration_ms: Option<u64>,
}

impl Entry {
    fn outcome(&self) -> Outcome {
        if self.fails > 0 && (self.passes > 0 || self.retried) {
            Outcome::Flaky
        } else if self.fails > 0 {
            Outcome::Fail
        } else if self.passes > 0 || self.retried {
            Outcome::Pass
        } else {
            Outcome::Skip
        }
    }
}

/// Positions in `entries`, found by hash without a copy of any name: by `(package, name)`, the
/// first entry of each name, and the first entry of each name that failed. Each lookup is one
/// probe whatever the number of packages a name appears in.
#[derive(Default)]
struct Index {
    hasher: hashbrown::DefaultHashBuilder,
    exact: hashbrown::HashTable<usize>,
    first: hashbrown::HashTable<usize>,
    failed: hashbrown::HashTable<usize>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("tests", &self.exact.len())
            .finish()
    }
}

impl Index {
    fn exact_hash(&self, package: Option<&str>, name: &str) -> u64 {
        use std::hash::BuildHasher as _;
        self.hasher.hash_one((package, name))
    }

    fn name_hash(&self, name: &str) -> u64 {
        use std::hash::BuildHasher as _;
        self.hasher.hash_one(name)
    }

    fn exact(&self, entries: &[Entry], package: Option<&str>, name: &str) -> Option<usize> {
        let h = self.exact_hash(package, name);
        self.exact
            .find(h, |&i| {
                entries[i].test.name == name && entries[i].test.package.as_deref() == package
            })
            .copied()
    }

    fn by_name(
        table: &hashbrown::HashTable<usize>,
        h: u64,
        entries: &[Entry],
        name: &str,
    ) -> Option<usize> {
        table.find(h, |&i| entries[i].test.name == name).copied()
    }

    fn insert_exact(&mut self, entries: &[Entry], i: usize) {
        let t = &entries[i].test;
        let h = self.exact_hash(t.package.as_deref(), &t.name);
        let hasher = &self.hasher;
        self.exact.insert_unique(h, i, |&j| {
            use std::hash::BuildHasher as _;
            hasher.hash_one((
                entries[j].test.package.as_deref(),
                entries[j].test.name.as_str(),
            ))
        });
    }

    fn remove_exact(&mut self, entries: &[Entry], i: usize) {
        let t = &entries[i].test;
        let h = self.exact_hash(t.package.as_deref(), &t.name);
        if let Ok(e) = self.exact.find_entry(h, |&j| j == i) {
            e.remove();
        }
    }

    /// Records `i` as the first of its name in `which` unless one is there already.
    fn insert_name(&mut self, entries: &[Entry], i: usize, failed: bool) {
        let name = entries[i].test.name.as_str();
        let h = self.name_hash(name);
        let hasher = &self.hasher;
        let table = if failed {
            &mut self.failed
        } else {
            &mut self.first
        };
        if Self::by_name(table, h, entries, name).is_none() {
            table.insert_unique(h, i, |&j| {
                use std::hash::BuildHasher as _;
                hasher.hash_one(entries[j].test.name.as_str())
            });
        }
    }
}

/// Collects results. By default only tests that failed at some point are kept, so memory
/// follows the failures, not the log; [`Collector::all`] keeps every test (for the history).
/// Every operation is a hash lookup: linear in the log. What it holds is bounded by
/// [`MAX_TESTS`] and [`RESULTS_MEMORY`].
#[derive(Debug, Default)]
pub struct Collector {
    entries: Vec<Entry>,
    index: Index,
    keep_all: bool,
    dropped: usize,
    /// Tests whose id is longer than [`MAX_ID_BYTES`].
    too_long: usize,
    budget: Budget,
}

impl Collector {
    /// A collector that keeps passing and skipped tests too.
    pub fn all() -> Self {
        Collector {
            keep_all: true,
            ..Collector::default()
        }
    }

    /// An empty collector of the same kind, sharing this one's budget.
    fn same_mode(&self) -> Self {
        Collector {
            keep_all: self.keep_all,
            budget: self.budget.clone(),
            ..Collector::default()
        }
    }

    /// The budget this collector charges, for a parser's own state (tests still running,
    /// what they printed, results held until their package is known).
    pub(super) fn budget(&self) -> Budget {
        self.budget.clone()
    }

    /// A test a parser could not hold for the collector (its own state out of budget).
    pub(super) fn count_dropped(&mut self) {
        self.dropped += 1;
    }

    /// How many tests were named with an id longer than [`MAX_ID_BYTES`].
    pub fn too_long(&self) -> usize {
        self.too_long
    }

    pub fn fail(&mut self, package: Option<&str>, name: &str) {
        if let Some(i) = self.entry(package, name, true) {
            self.entries[i].fails += 1;
            self.index.insert_name(&self.entries, i, true);
        }
    }

    /// A pass. Without `all`, a pass of a test that never failed is forgotten.
    pub fn pass(&mut self, package: Option<&str>, name: &str) {
        if let Some(i) = self.entry(package, name, self.keep_all) {
            self.entries[i].passes += 1;
        }
    }

    pub fn skip(&mut self, package: Option<&str>, name: &str) {
        if let Some(i) = self.entry(package, name, self.keep_all) {
            self.entries[i].skips += 1;
        }
    }

    /// Failed, then passed on a retry (JUnit `flakyFailure`, nextest `FLAKY`).
    pub fn flaky(&mut self, package: Option<&str>, name: &str) {
        if let Some(i) = self.entry(package, name, true) {
            let e = &mut self.entries[i];
            e.fails += 1;
            e.retried = true;
            self.index.insert_name(&self.entries, i, true);
        }
    }

    /// How long one attempt of a test took (added to its other attempts'). A test not kept
    /// (a pass without [`Collector::all`]) is not created for it.
    pub fn duration(&mut self, package: Option<&str>, name: &str, ms: u64) {
        if let Some(i) = self.entry(package, name, false) {
            let d = &mut self.entries[i].duration_ms;
            *d = Some(d.unwrap_or(0).saturating_add(ms));
        }
    }

    /// The failure message of a test that failed (the first one given is kept).
    pub fn message(&mut self, package: Option<&str>, name: &str, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        if let Some(i) = self.entry(package, name, false)
            && self.entries[i].fails > 0
            && self.entries[i].message.is_none()
        {
            let mut m = String::new();
            append_message(&mut m, text);
            self.keep_message(i, m);
        }
    }

    /// Keeps `m` as entry `i`'s message if the budget has room for it.
    fn keep_message(&mut self, i: usize, m: String) {
        if self.budget.take(m.len()) {
            self.entries[i].cost += m.len();
            self.entries[i].message = Some(m);
        }
    }

    /// Whether a failure of `name` (any package) was recorded.
    pub fn has_failure(&self, name: &str) -> bool {
        let name = name.trim();
        let h = self.index.name_hash(name);
        Index::by_name(&self.index.failed, h, &self.entries, name).is_some()
    }

    /// The entry of the test, created when `create`. A test known without its package is the
    /// same test once the package is known.
    fn entry(&mut self, package: Option<&str>, name: &str, create: bool) -> Option<usize> {
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        let package = package.map(str::trim).filter(|p| !p.is_empty());
        let entries = &self.entries;
        let found = self
            .index
            .exact(entries, package, name)
            .or_else(|| match package {
                Some(_) => self.index.exact(entries, None, name),
                None => {
                    let h = self.index.name_hash(name);
                    Index::by_name(&self.index.first, h, entries, name)
                }
            });
        if let Some(i) = found {
            if self.entries[i].test.package.is_none()
                && let Some(p) = package
            {
                self.index.remove_exact(&self.entries, i);
                self.entries[i].test.package = Some(p.to_string());
                self.index.insert_exact(&self.entries, i);
            }
            return Some(i);
        }
        if !create {
            return None;
        }
        let id_len = name.len() + package.map_or(0, |p| p.len() + 2);
        if id_len > MAX_ID_BYTES {
            self.too_long += 1;
            self.dropped += 1;
            return None;
        }
        let cost = ENTRY_COST + name.len() + package.map_or(0, str::len);
        if self.entries.len() >= MAX_TESTS || !self.budget.take(cost) {
            self.dropped += 1;
            return None;
        }
        let i = self.entries.len();
        self.entries.push(Entry {
            test: FailedTest {
                name: name.to_string(),
                package: package.map(str::to_string),
            },
            passes: 0,
            fails: 0,
            skips: 0,
            retried: false,
            cost,
            message: None,
            duration_ms: None,
        });
        self.index.insert_exact(&self.entries, i);
        self.index.insert_name(&self.entries, i, false);
        Some(i)
    }

    /// Adds everything `other` recorded. What `other` held of a shared budget is given back
    /// entry by entry as this one takes it over.
    pub fn absorb(&mut self, other: Collector) {
        self.dropped += other.dropped;
        self.too_long += other.too_long;
        let theirs = other.budget;
        for mut e in other.entries {
            theirs.give(e.cost);
            let pkg = e.test.package.as_deref();
            let create = e.fails > 0 || self.keep_all;
            if let Some(i) = self.entry(pkg, &e.test.name, create) {
                let mine = &mut self.entries[i];
                mine.passes += e.passes;
                mine.fails += e.fails;
                mine.skips += e.skips;
                mine.retried |= e.retried;
                if let Some(ms) = e.duration_ms {
                    mine.duration_ms = Some(mine.duration_ms.unwrap_or(0).saturating_add(ms));
                }
                if mine.fails > 0 {
                    self.index.insert_name(&self.entries, i, true);
                }
                if self.entries[i].message.is_none()
                    && let Some(m) = e.message.take()
                {
                    self.keep_message(i, m);
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The failing and flaky tests. Failed parents whose subtests (`Parent/child`) failed are
    /// left out: the leaves say more.
    pub fn finish(self) -> Report {
        let mut parents: HashSet<(Option<&str>, &str)> = HashSet::new();
        for e in self.entries.iter().filter(|e| e.fails > 0) {
            let name = e.test.name.as_str();
            for (i, _) in name.match_indices('/') {
                parents.insert((e.test.package.as_deref(), &name[..i]));
            }
        }
        let mut r = Report::default();
        for e in &self.entries {
            if parents.contains(&(e.test.package.as_deref(), e.test.name.as_str())) {
                continue;
            }
            match e.outcome() {
                Outcome::Fail => r.failed.push(e.test.clone()),
                Outcome::Flaky => r.flaky.push(e.test.clone()),
                Outcome::Pass | Outcome::Skip => {}
            }
        }
        r
    }

    /// Every test with its outcome.
    pub fn finish_results(self) -> Results {
        let Collector {
            entries,
            index,
            dropped,
            ..
        } = self;
        drop(index);
        let mut tests = Vec::with_capacity(entries.len());
        tests.extend(entries.into_iter().map(|e| TestResult {
            outcome: e.outcome(),
            passes: e.passes + u32::from(e.retried && e.passes == 0),
            failures: e.fails,
            message: e.message.filter(|_| e.fails > 0),
            duration_ms: e.duration_ms,
            test: e.test,
        }));
        Results { dropped, tests }
    }
}

/// A line parser.
trait LineParser {
    fn line(&mut self, line: &str);
    /// True once the parser has seen lines only its format produces.
    fn recognised(&self) -> bool;
    fn finish(self: Box<Self>) -> Collector;
}

fn ci_stamp() -> &'static regex::Regex {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(
            r"^(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?\]?|\[\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?\])[ \t]",
        )
        .expect("the timestamp pattern is valid")
    })
}

/// Strips ANSI escapes, carriage returns and the timestamp a CI puts on job-log lines.
pub fn clean_line(raw: &str) -> std::borrow::Cow<'_, str> {
    let mut s = raw.trim_end_matches(['\r', '\n']);
    // A CI's timestamp on every line: `2024-01-02T03:04:05.1234567Z ` (Actions),
    // `[2024-01-02 03:04:05.123] `, `2024-01-02 03:04:05,123+00:00 `, `[03:04:05] `. One
    // separator goes with it; the line's own indentation stays.
    if s.len() > 10
        && matches!(s.as_bytes()[0], b'0'..=b'9' | b'[')
        && let Some(m) = ci_stamp().find(s)
    {
        s = &s[m.end()..];
    }
    if !s.contains('\x1b') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters then one final byte in @..~
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Longest line read; the rest of a longer one is skipped unread into memory (a log line that
/// long holds no test result a runner prints).
pub const MAX_LINE: usize = 1 << 20;

/// One line into `buf` (its first `cap` bytes), the rest of it consumed and dropped. Answers
/// the bytes consumed (0 at the end).
fn read_line_capped<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(consumed);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        r.consume(take);
        consumed += take;
        if done {
            return Ok(consumed);
        }
    }
}

/// The failing tests of a log or report from `reader`.
pub fn parse<R: BufRead>(reader: R, format: Format) -> std::io::Result<Report> {
    Ok(collect(reader, format, Collector::default())?.finish())
}

/// Every test of a log or report from `reader`, with its outcome.
pub fn parse_results<R: BufRead>(reader: R, format: Format) -> std::io::Result<Results> {
    Ok(collect(reader, format, Collector::all())?.finish_results())
}

fn collect<R: BufRead>(
    mut reader: R,
    format: Format,
    collector: Collector,
) -> std::io::Result<Collector> {
    let format = if format == Format::Auto {
        sniff(&mut reader)?
    } else {
        format
    };
    match format {
        Format::Junit => return structured(junit::parse(reader, collector)?),
        Format::Jest => {
            // `jest --json` is one JSON document; the human output is lines.
            let head = reader.fill_buf()?;
            if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
                return structured(jest_json::parse_json(reader, collector)?);
            }
        }
        _ => {}
    }
    let fresh = || collector.same_mode();
    let mut parsers: Vec<(Format, Box<dyn LineParser>)> = match format {
        Format::Go => vec![(Format::Go, Box::new(go::Text::new(fresh())))],
        Format::GoJson => vec![(Format::GoJson, Box::new(go::Json::new(fresh())))],
        Format::Cargo => vec![(Format::Cargo, Box::new(cargo::Libtest::new(fresh())))],
        Format::Nextest => vec![(Format::Nextest, Box::new(cargo::Nextest::new(fresh())))],
        Format::Pytest => vec![(Format::Pytest, Box::new(pytest::Pytest::new(fresh())))],
        Format::Jest => vec![(Format::Jest, Box::new(jest::Text::new(fresh())))],
        _ => vec![
            (Format::GoJson, Box::new(go::Json::new(fresh()))),
            (Format::Nextest, Box::new(cargo::Nextest::new(fresh()))),
            (Format::Go, Box::new(go::Text::new(fresh()))),
            (Format::Cargo, Box::new(cargo::Libtest::new(fresh()))),
            (Format::Pytest, Box::new(pytest::Pytest::new(fresh()))),
            (Format::Jest, Box::new(jest::Text::new(fresh()))),
        ],
    };
    let mut buf = Vec::with_capacity(1024);
    loop {
        buf.clear();
        if read_line_capped(&mut reader, &mut buf, MAX_LINE)? == 0 {
            break;
        }
        let raw = String::from_utf8_lossy(&buf);
        let line = clean_line(&raw);
        for (_, p) in parsers.iter_mut() {
            p.line(&line);
        }
    }
    // Nested formats: a recognised outer runner hides the inner one's lines.
    let recognised: Vec<Format> = parsers
        .iter()
        .filter(|(_, p)| p.recognised())
        .map(|(f, _)| *f)
        .collect();
    let mut merged = collector;
    for (f, p) in parsers {
        let hidden = (f == Format::Cargo && recognised.contains(&Format::Nextest))
            || (f == Format::Go && recognised.contains(&Format::GoJson));
        if !hidden {
            let c = p.finish();
            // `go test -json` is a structured report: a name it gives is the test's id.
            let c = if f == Format::GoJson {
                structured(c)?
            } else {
                c
            };
            merged.absorb(c);
        }
    }
    Ok(merged)
}

/// A structured report's collector, or an error when it named a test whose id is too long to
/// be one (a log line that long is only skipped).
fn structured(c: Collector) -> std::io::Result<Collector> {
    if c.too_long > 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the report names {} test(s) with an id longer than {MAX_ID_BYTES} bytes",
                c.too_long
            ),
        ));
    }
    Ok(c)
}

/// XML or `jest --json` by their first bytes; everything else is lines for every parser.
fn sniff<R: BufRead>(reader: &mut R) -> std::io::Result<Format> {
    let head = reader.fill_buf()?;
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("<?xml") || t.starts_with("<testsuite") {
        return Ok(Format::Junit);
    }
    if t.starts_with('{') && (t.contains("\"testResults\"") || t.contains("\"numFailedTests\"")) {
        return Ok(Format::Jest);
    }
    Ok(Format::Auto)
}

/// The failing tests of text held in memory.
pub fn parse_str(text: &str, format: Format) -> Report {
    parse(std::io::Cursor::new(text.as_bytes()), format).unwrap_or_default()
}

/// Every test of text held in memory.
pub fn results_str(text: &str, format: Format) -> Results {
    parse_results(std::io::Cursor::new(text.as_bytes()), format).unwrap_or_default()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fixture_tests;

#[cfg(test)]
mod fixture_results;
