//! `.ci/test-reliability.yaml`: tiers, pass rates and owners of tests, and how a failing test
//! finds its entry. Hostile input (alias bombs, huge files, deep nesting) gets a clear error
//! with bounded work.

use serde::{Deserialize, Serialize};

use super::test_ids;
use super::tier::Tier;

/// Largest reliability file read.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Policy {
    pub window_runs: u32,
    pub flake_budget: f64,
    pub promote_after_window: bool,
    pub default_tier: Tier,
    /// Fewest runs in the window before a test's tier moves (docs/history.md).
    pub min_runs: u32,
    /// The rate a full window must stay at or below for a test to climb; half the budget when
    /// not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_budget: Option<f64>,
    /// A test failing this many of its last runs in a row is broken: a real failure.
    pub broken_after: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            window_runs: 200,
            flake_budget: 0.02,
            promote_after_window: true,
            default_tier: Tier::Probation,
            min_runs: 20,
            recovery_budget: None,
            broken_after: 10,
        }
    }
}

impl Policy {
    /// The recovery budget, half the flake budget by default.
    pub fn recovery(&self) -> f64 {
        self.recovery_budget.unwrap_or(self.flake_budget / 2.0)
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct TestEntry {
    pub id: String,
    pub tier: Tier,
    #[serde(default)]
    pub runs: Option<u64>,
    #[serde(default)]
    pub failures: Option<u64>,
    #[serde(default)]
    pub pass_rate: Option<f64>,
    #[serde(default)]
    pub first_flaky: Option<String>,
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(default)]
    pub ticket: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// A person fixed this tier: the generator keeps it.
    #[serde(default)]
    pub pin: Option<bool>,
    #[serde(default)]
    pub last_failure: Option<String>,
    #[serde(default)]
    pub broken: Option<bool>,
    /// Where its current failing period began on the tracked branches (the history writes it).
    #[serde(default)]
    pub onset: Option<FileOnset>,
}

/// A failing period's start as the reliability file keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct FileOnset {
    /// The last passing commit before it (none: failing since it first appeared).
    #[serde(default)]
    pub last_pass_sha: Option<String>,
    pub first_fail_sha: String,
    /// RFC 3339, UTC.
    pub at: String,
}

impl TestEntry {
    /// An entry with only its id and tier.
    pub fn new(id: impl Into<String>, tier: Tier) -> Self {
        TestEntry {
            id: id.into(),
            tier,
            runs: None,
            failures: None,
            pass_rate: None,
            first_flaky: None,
            owner: None,
            ticket: None,
            note: None,
            pin: None,
            last_failure: None,
            broken: None,
            onset: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct ReliabilityFile {
    #[serde(default)]
    pub policy: Policy,
    #[serde(default)]
    pub tests: Vec<TestEntry>,
}

/// Why a reliability file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}", match (.line, .column) { (Some(l), Some(c)) => format!("line {l}, column {c}: {message}"), (Some(l), None) => format!("line {l}: {message}"), _ => message.clone() })]
pub struct ReliabilityError {
    pub message: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

fn err(message: impl Into<String>) -> ReliabilityError {
    ReliabilityError {
        message: message.into(),
        line: None,
        column: None,
    }
}

/// Parses and validates a reliability file.
pub fn parse(text: &str) -> Result<ReliabilityFile, ReliabilityError> {
    if text.len() > MAX_BYTES {
        return Err(err(format!(
            "the file is {} bytes; the limit is {MAX_BYTES}",
            text.len()
        )));
    }
    let mut budget = serde_saphyr::budget::Budget::default();
    budget.max_depth = 16;
    budget.max_nodes = 2_000_000;
    budget.max_aliases = 1_000;
    budget.max_anchors = 1_000;
    let mut options = serde_saphyr::options::Options::default();
    options.budget = Some(budget);
    let file: ReliabilityFile = if text.trim().is_empty() {
        ReliabilityFile::default()
    } else {
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let loc = e.location();
            ReliabilityError {
                message: without_position(e.to_string().lines().next().unwrap_or("invalid YAML"))
                    .to_string(),
                line: loc.map(|l| l.line()),
                column: loc.map(|l| l.column()),
            }
        })?
    };
    validate(&file)?;
    Ok(file)
}

/// The parser's message without its own `error: line N column M:` prefix: the error names the
/// position once, from its fields.
fn without_position(message: &str) -> &str {
    let m = message.trim_start();
    let m = m.strip_prefix("error:").map(str::trim_start).unwrap_or(m);
    let Some(rest) = m.strip_prefix("line ") else {
        return m;
    };
    let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n = digits(rest);
    if n == 0 {
        return m;
    }
    let after = rest[n..].trim_start_matches(',').trim_start();
    let Some(col) = after.strip_prefix("column ") else {
        return m;
    };
    let c = digits(col);
    if c == 0 {
        return m;
    }
    col[c..].trim_start_matches(':').trim_start()
}

fn validate(file: &ReliabilityFile) -> Result<(), ReliabilityError> {
    let p = &file.policy;
    if !(0.0..=1.0).contains(&p.flake_budget) {
        return Err(err("policy.flake_budget must be between 0 and 1"));
    }
    if p.recovery_budget.is_some_and(|r| !(0.0..=1.0).contains(&r)) {
        return Err(err("policy.recovery_budget must be between 0 and 1"));
    }
    if p.window_runs == 0 || p.window_runs > 1000 {
        return Err(err("policy.window_runs must be between 1 and 1000"));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, t) in file.tests.iter().enumerate() {
        let at = format!("tests[{i}] ({})", t.id);
        if t.id.trim().is_empty() {
            return Err(err(format!("tests[{i}]: id is empty")));
        }
        if let Some(r) = t.pass_rate
            && !(0.0..=1.0).contains(&r)
        {
            return Err(err(format!("{at}: pass_rate {r} is not between 0 and 1")));
        }
        if let (Some(runs), Some(f)) = (t.runs, t.failures)
            && f > runs
        {
            return Err(err(format!("{at}: failures ({f}) exceed runs ({runs})")));
        }
        if !seen.insert(t.id.as_str()) {
            return Err(err(format!("{at}: listed twice")));
        }
    }
    Ok(())
}

/// True when `suffix` is `path` or ends it on a `/`, `.` or `::` boundary.
fn path_suffix(path: &str, suffix: &str) -> bool {
    let path = path.trim_end_matches('/');
    let suffix = suffix.trim_end_matches('/');
    if path == suffix {
        return true;
    }
    path.strip_suffix(suffix)
        .is_some_and(|rest| rest.ends_with('/') || rest.ends_with('.') || rest.ends_with("::"))
}

impl ReliabilityFile {
    /// The entry of a failing test: names equal and the entry's package a path-suffix of the
    /// failing test's package; a subtest (`TestX/case`) falls back to its parent.
    pub fn find(&self, package: Option<&str>, name: &str) -> Option<&TestEntry> {
        self.find_exact(package, name)
            .or_else(|| {
                // The same test named in another of its forms (`tests/bounded.rs::x` for
                // `bounded::x`, `PoolTest#m` for `com.acme.PoolTest.m`).
                let id = match package {
                    Some(p) => format!("{p}::{name}"),
                    None => name.to_string(),
                };
                self.tests.iter().find(|t| test_ids::same_test(&t.id, &id))
            })
            .or_else(|| {
                let mut parent = name;
                while let Some((p, _)) = parent.rsplit_once('/') {
                    if let Some(e) = self.find_exact(package, p) {
                        return Some(e);
                    }
                    parent = p;
                }
                None
            })
    }

    fn find_exact(&self, package: Option<&str>, name: &str) -> Option<&TestEntry> {
        self.tests.iter().find(|t| {
            let (id_pkg, id_name) = test_ids::split_id(&t.id);
            match (id_pkg, package) {
                (Some(ip), Some(fp)) => {
                    (id_name == name && path_suffix(fp, ip))
                        // Rust and pytest ids: `crate::module::test` against package `crate`
                        // and name `module::test`, or the whole id as the name.
                        || format!("{fp}::{name}") == t.id
                }
                (None, _) => id_name == name,
                (Some(_), None) => id_name == name || t.id == name,
            }
        })
    }

    /// The tier of a failing test: its entry's, else the policy's default.
    pub fn tier_of(&self, package: Option<&str>, name: &str) -> Tier {
        self.find(package, name)
            .map(|e| e.tier)
            .unwrap_or(self.policy.default_tier)
    }
}

/// A summary for `repro-gate reliability`.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub valid: bool,
    pub tests: usize,
    pub tiers: std::collections::BTreeMap<String, usize>,
    pub over_budget: Vec<String>,
    pub policy: Policy,
}

pub fn summarize(file: &ReliabilityFile) -> Summary {
    let mut tiers = std::collections::BTreeMap::new();
    for t in Tier::ALL {
        tiers.insert(t.as_str().to_string(), 0);
    }
    let mut over_budget = Vec::new();
    for t in &file.tests {
        *tiers.entry(t.tier.as_str().to_string()).or_insert(0) += 1;
        let rate = match (t.runs, t.failures) {
            (Some(r), Some(f)) if r > 0 => Some(f as f64 / r as f64),
            _ => t.pass_rate.map(|p| 1.0 - p),
        };
        if rate.is_some_and(|r| r > file.policy.flake_budget) && t.tier == Tier::Trusted {
            over_budget.push(t.id.clone());
        }
    }
    Summary {
        valid: true,
        tests: file.tests.len(),
        tiers,
        over_budget,
        policy: file.policy.clone(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_invalid_files_error_names_its_position_once() {
        let e = super::parse("tests:\n  - id: [unclosed\n").unwrap_err();
        let shown = e.to_string();
        assert!(e.line.is_some(), "{shown}");
        assert_eq!(shown.matches("line").count(), 1, "{shown}");
        assert!(!shown.contains("error:"), "{shown}");
        assert_eq!(
            super::without_position("error: line 1 column 24: did not find expected key"),
            "did not find expected key"
        );
        assert_eq!(super::without_position("line of sight"), "line of sight");
    }

    use super::*;

    const EXAMPLE: &str = "policy:\n  window_runs: 200\n  flake_budget: 0.02\n  promote_after_window: true\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    runs: 200\n    failures: 29\n    pass_rate: 0.855\n    first_flaky: 2026-05-14\n    owner: platform\n    ticket: PLAT-1182\n    note: Checkout deadline too tight.\n    extra_field: ignored\n  - id: services/pool/unit::TestAcquireReleaseOrdering\n    tier: trusted\n";

    #[test]
    fn the_example_parses_and_unknown_fields_are_ignored() {
        let f = parse(EXAMPLE).unwrap();
        assert_eq!(f.tests.len(), 2);
        assert_eq!(f.tests[0].owner.as_deref(), Some("platform"));
        assert_eq!(f.tests[0].first_flaky.as_deref(), Some("2026-05-14"));
    }

    #[test]
    fn a_missing_policy_takes_the_defaults() {
        let f = parse("tests:\n  - id: a::TestB\n    tier: trusted\n").unwrap();
        assert_eq!(f.policy, Policy::default());
    }

    #[test]
    fn wrong_types_and_tiers_are_errors() {
        assert!(parse("tests:\n  - id: a::B\n    tier: trusted\n    runs: many\n").is_err());
        assert!(parse("tests:\n  - id: a::B\n    tier: flaky\n").is_err());
        assert!(
            parse("tests:\n  - id: a::B\n    tier: trusted\n    runs: 2\n    failures: 3\n")
                .is_err()
        );
        assert!(parse("tests: 3\n").is_err());
    }

    #[test]
    fn suffix_matching_and_subtests() {
        let f = parse(EXAMPLE).unwrap();
        let e = f.find(
            Some("example.com/acme/services/pool/integration"),
            "TestPoolCheckoutUnderLoad",
        );
        assert_eq!(e.map(|e| e.tier), Some(Tier::Quarantined));
        let e = f.find(
            Some("example.com/acme/services/pool/integration"),
            "TestPoolCheckoutUnderLoad/case_1",
        );
        assert_eq!(e.map(|e| e.tier), Some(Tier::Quarantined));
        // `xservices/pool/integration` is not a path suffix match.
        assert!(
            f.find(
                Some("example.com/xservices/pool/integration"),
                "TestPoolCheckoutUnderLoad"
            )
            .is_none()
        );
        assert!(
            f.find(
                Some("example.com/acme/services/pool/integration"),
                "TestOther"
            )
            .is_none()
        );
        assert_eq!(f.tier_of(Some("x"), "TestOther"), Tier::Probation);
    }

    #[test]
    fn hostile_yaml_is_refused() {
        let bomb = "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\ntests: []\n";
        assert!(parse(bomb).is_err());
        let deep = format!("tests: {}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse(&deep).is_err());
        let huge = format!("tests: []\n#{}", "x".repeat(MAX_BYTES));
        let e = parse(&huge).unwrap_err();
        assert!(e.message.contains("limit"), "{e}");
    }
}
