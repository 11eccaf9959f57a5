//! The history's shell (docs/history.md): results in (Actions runs, uploads, `history import`), the file out
//! (`history build`, the nightly publish). The decisions are in `core::history`.

pub mod bounded;
pub mod publish;
pub mod reports;
pub mod rerun_report;
pub mod sources;
pub mod tokens;

use std::collections::HashMap;
use std::io::BufRead;

use anyhow::Context as _;

use crate::core::failures::{self, Format, Outcome, Results};
use crate::core::history::file::{Built, Proposals, build};
use crate::core::history::record::{Branches, classify_run};
use crate::core::history::tiers::TestHistory;
use crate::core::reliability::ReliabilityFile;
use crate::core::tier::Tier;
use crate::store::{NewRun, Recorded, Store};

/// Most distinct tests read from one run (a bound on the work one report can ask for).
pub const MAX_TESTS_PER_RUN: usize = 200_000;

/// The branches that count when no config is at hand (the contract's defaults, and `master`
/// for repositories whose default branch is called that).
pub fn default_branches() -> Vec<String> {
    vec![
        "main".into(),
        "master".into(),
        "gh-readonly-queue/**".into(),
    ]
}

/// Formats a report may be given in (`--format`, `?format=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReportFormat {
    Auto,
    Junit,
    GoJson,
    LibtestJson,
    Go,
    Cargo,
    Nextest,
    Pytest,
    Jest,
}

impl ReportFormat {
    pub fn parser(self) -> Format {
        match self {
            ReportFormat::Auto => Format::Auto,
            ReportFormat::Junit => Format::Junit,
            ReportFormat::GoJson => Format::GoJson,
            ReportFormat::LibtestJson | ReportFormat::Cargo => Format::Cargo,
            ReportFormat::Go => Format::Go,
            ReportFormat::Nextest => Format::Nextest,
            ReportFormat::Pytest => Format::Pytest,
            ReportFormat::Jest => Format::Jest,
        }
    }

    pub fn parse(s: &str) -> Option<ReportFormat> {
        <ReportFormat as clap::ValueEnum>::from_str(s, true).ok()
    }
}

/// Every test of one report.
pub fn read_report<R: BufRead>(reader: R, format: ReportFormat) -> std::io::Result<Results> {
    failures::parse_results(reader, format.parser())
}

/// One run's results, from one or several reports: one outcome per test (a failure and a pass
/// of one test are flaky; a skip gives way) and the failure messages the reports gave. Bounded:
/// at most [`MAX_TESTS_PER_RUN`] tests and [`RUN_MESSAGE_BYTES`] of messages.
#[derive(Clone, Debug, Default)]
pub struct RunResults {
    pub results: Vec<(String, Outcome)>,
    /// Test id → the first lines of its failure message.
    pub messages: HashMap<String, String>,
    /// Test id → milliseconds it took, when a report said (several reports: added up).
    pub durations: HashMap<String, u64>,
    message_bytes: usize,
    /// Positions in `results` by id, without a copy of any id.
    seen: hashbrown::HashTable<usize>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// Most bytes of failure messages kept from one run.
pub const RUN_MESSAGE_BYTES: usize = 4 << 20;

impl PartialEq for RunResults {
    fn eq(&self, other: &Self) -> bool {
        self.results == other.results && self.messages == other.messages
    }
}

impl Eq for RunResults {}

impl RunResults {
    /// Adds one report's results (at most [`MAX_TESTS_PER_RUN`] tests in all).
    pub fn add(&mut self, results: Results) {
        for r in results.tests {
            let id = r.test.id();
            if self.put(&id, r.outcome) {
                if let Some(ms) = r.duration_ms {
                    self.duration(&id, ms);
                }
                if let Some(m) = r.message {
                    self.message(id, m);
                }
            }
        }
    }

    /// Adds another run's results (several artifacts of one run).
    pub fn merge(&mut self, other: RunResults) {
        let mut messages = other.messages;
        let durations = other.durations;
        for (id, outcome) in other.results {
            if self.put(&id, outcome) {
                if let Some(&ms) = durations.get(&id) {
                    self.duration(&id, ms);
                }
                if let Some(m) = messages.remove(&id) {
                    self.message(id, m);
                }
            }
        }
    }

    /// Adds a test's time (its entry exists: at most one per test of the run).
    fn duration(&mut self, id: &str, ms: u64) {
        match self.durations.get_mut(id) {
            Some(d) => *d = d.saturating_add(ms),
            None => {
                self.durations.insert(id.to_string(), ms);
            }
        }
    }

    /// Keeps the first message of a test, within [`RUN_MESSAGE_BYTES`].
    fn message(&mut self, id: String, m: String) {
        if self.message_bytes + m.len() + id.len() > RUN_MESSAGE_BYTES
            || self.messages.contains_key(&id)
        {
            return;
        }
        self.message_bytes += m.len() + id.len();
        self.messages.insert(id, m);
    }

    /// One test's outcome, combined with an earlier one of the run; false when the run holds
    /// too many tests already.
    fn put(&mut self, id: &str, outcome: Outcome) -> bool {
        use std::hash::BuildHasher as _;
        let h = self.hasher.hash_one(id);
        let results = &self.results;
        if let Some(&i) = self.seen.find(h, |&i| results[i].0 == id) {
            self.results[i].1 = Outcome::combine(self.results[i].1, outcome);
            return true;
        }
        if self.results.len() >= MAX_TESTS_PER_RUN {
            return false;
        }
        let i = self.results.len();
        self.results.push((id.to_string(), outcome));
        let (results, hasher) = (&self.results, &self.hasher);
        self.seen
            .insert_unique(h, i, |&j| hasher.hash_one(results[j].0.as_str()));
        true
    }

    pub fn len(&self) -> usize {
        self.results.len()
    }

    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }
}

impl From<Vec<(String, Outcome)>> for RunResults {
    fn from(results: Vec<(String, Outcome)>) -> Self {
        let mut out = RunResults::default();
        for (id, outcome) in results {
            out.put(&id, outcome);
        }
        out
    }
}

/// The run a set of results belongs to.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub repository: String,
    pub run_id: String,
    pub attempt: i64,
    pub sha: String,
    pub branch: String,
    pub source: &'static str,
    pub installation_id: Option<i64>,
    /// The repository's default branch, when known.
    pub default_branch: Option<String>,
    /// `history.branches`.
    pub branches: Vec<String>,
    /// The run's page, when it has one.
    pub url: Option<String>,
    /// The pull request the run is for, when known.
    pub pr: Option<i64>,
}

/// `YYYY-MM-DD` of a Unix ms time.
pub fn day_of(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "1970-01-01".into())
}

/// Records one run (once per run id and attempt), at `now_ms` (a backfill: when it ran).
pub async fn record(
    store: &Store,
    run: &RunInfo,
    results: &RunResults,
    now_ms: i64,
) -> anyhow::Result<Recorded> {
    let messages = &results.messages;
    let durations = &results.durations;
    let results = results.results.as_slice();
    let branches = Branches::new(&run.branches);
    let counts = branches.counts(&run.branch, run.default_branch.as_deref());
    let class = classify_run(results.iter().map(|(_, o)| *o), counts);
    let day = day_of(now_ms);
    store
        .record_run(
            &NewRun {
                repository: &run.repository,
                run_id: &run.run_id,
                attempt: run.attempt,
                sha: &run.sha,
                branch: &run.branch,
                class,
                source: run.source,
                installation_id: run.installation_id,
                now_ms,
                day: &day,
                url: run.url.as_deref(),
                pr: run.pr,
            },
            results,
            messages,
            durations,
        )
        .await
        .with_context(|| format!("recording run {} of {}", run.run_id, run.repository))
}

/// The reliability file computed from a repository's recorded history.
pub async fn build_from_store(
    store: &Store,
    repo: &str,
    existing: &ReliabilityFile,
) -> anyhow::Result<Built> {
    let windows = store.windows(repo).await?;
    let proposals: Proposals = store
        .proposed_changes(repo)
        .await?
        .into_iter()
        .filter_map(|(id, (tier, at))| Some((id, (Tier::named(&tier)?, at))))
        .collect();
    let histories = windows.iter().map(|(id, w)| TestHistory {
        id,
        window: w,
        since_change: None,
    });
    Ok(build(existing, histories, &proposals))
}

/// Remembers the tier changes of a published file, with each test's run count then.
pub async fn remember_changes(store: &Store, repo: &str, built: &Built) -> anyhow::Result<()> {
    let rows: Vec<(String, String, u64)> = built
        .changes
        .iter()
        .map(|c| (c.id.clone(), c.to.as_str().to_string(), c.runs_seen))
        .collect();
    store.propose_changes(repo, &rows).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(tests: &[(&str, Outcome, Option<&str>)]) -> Results {
        Results {
            tests: tests
                .iter()
                .map(
                    |(name, outcome, message)| crate::core::failures::TestResult {
                        test: crate::core::failures::FailedTest {
                            name: name.to_string(),
                            package: Some("p".into()),
                        },
                        outcome: *outcome,
                        passes: 0,
                        failures: 0,
                        message: message.map(str::to_string),
                        duration_ms: None,
                    },
                )
                .collect(),
            dropped: 0,
        }
    }

    #[test]
    fn merged_artifacts_combine_a_tests_outcomes_and_keep_its_first_message() {
        let mut a = RunResults::default();
        a.add(results(&[
            ("TestA", Outcome::Fail, Some("first")),
            ("TestB", Outcome::Pass, None),
        ]));
        let mut b = RunResults::default();
        b.add(results(&[
            ("TestA", Outcome::Pass, Some("second")),
            ("TestC", Outcome::Fail, None),
        ]));
        a.merge(b);
        assert_eq!(
            a.results,
            [
                (
                    "p::TestA".to_string(),
                    Outcome::combine(Outcome::Fail, Outcome::Pass)
                ),
                ("p::TestB".to_string(), Outcome::Pass),
                ("p::TestC".to_string(), Outcome::Fail),
            ]
        );
        assert_eq!(
            a.messages.get("p::TestA").map(String::as_str),
            Some("first")
        );
    }

    #[test]
    fn a_runs_messages_stop_at_their_cap_and_its_tests_at_theirs() {
        let mut run = RunResults::default();
        let big = "m".repeat(RUN_MESSAGE_BYTES / 3);
        let named: Vec<String> = (0..5).map(|i| format!("TestM{i}")).collect();
        let tests: Vec<(&str, Outcome, Option<&str>)> = named
            .iter()
            .map(|n| (n.as_str(), Outcome::Fail, Some(big.as_str())))
            .collect();
        run.add(results(&tests));
        assert_eq!(run.len(), 5);
        assert_eq!(run.messages.len(), 2);

        let many: Vec<(String, Outcome)> = (0..MAX_TESTS_PER_RUN + 10)
            .map(|i| (format!("p::T{i}"), Outcome::Pass))
            .collect();
        assert_eq!(RunResults::from(many).len(), MAX_TESTS_PER_RUN);
    }
}
