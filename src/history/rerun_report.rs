//! A rerun run's report artifact (the workflow's `repro-gate-report/` zipped), read for one
//! session's test. The workflow of this version writes one folder per run (its output and how
//! it ended) and each run is judged by core::runs, the same rules `verify-local` uses; a report
//! of an earlier workflow (or of another runner setup: JUnit, go test -json) is read as test
//! results and counted. Every entry is read with a cap, and the whole zip within one budget.

use std::collections::BTreeMap;
use std::io::{BufReader, Read as _};

use crate::core::failures::TestResult;
use crate::core::runs::{
    self, Capture, Ended, Family, NoResult, Outcome, Tally, first_error_line, judge,
};

use super::{ReportFormat, read_report};

/// Largest small file (status, selection) read.
const SMALL: u64 = 4096;
/// Most runs of one session side read.
const MAX_RUNS: usize = 100;
/// Largest entry read (the rest of a run's output is cut, keeping its start and end).
pub const ENTRY_CAP: u64 = 64 * 1024 * 1024;

/// What a rerun zip says about the session's test.
#[derive(Debug, Default)]
pub struct RerunRead {
    /// Each run judged (a report of this version); `None` for an earlier report's results.
    pub tally: Option<Tally>,
    /// Test results (an earlier report's, counted by the caller).
    pub tests: Vec<TestResult>,
    /// Seeds the runs printed.
    pub seeds: Vec<String>,
}

fn read_small<R: std::io::Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> Option<String> {
    let entry = zip.by_name(name).ok()?;
    let mut bytes = Vec::new();
    entry.take(SMALL).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn add_seeds(seeds: &mut Vec<String>, text: &str) {
    for s in crate::core::rerun::seeds_in(text, 20) {
        if !seeds.contains(&s) && seeds.len() < 20 {
            seeds.push(s);
        }
    }
}

/// Reads a rerun zip for `test`, within `budget` inflated bytes.
pub fn read<R: std::io::Read + std::io::Seek>(
    file: R,
    test: &str,
    budget: u64,
) -> Result<RerunRead, String> {
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip: {e}"))?;
    let names: Vec<String> = (0..zip.len().min(super::bounded::MAX_ENTRIES))
        .filter_map(|i| zip.name_for_index(i).map(str::to_string))
        .collect();
    // Entries sit at the top or under one folder (`repro-gate-report/runs/1/status`).
    let key = |n: &str| -> String {
        match n.find("runs/") {
            Some(i) => n[i..].to_string(),
            None => n.rsplit('/').next().unwrap_or(n).to_string(),
        }
    };
    let by_key: BTreeMap<String, String> = names.iter().map(|n| (key(n), n.clone())).collect();
    let mut runs: BTreeMap<u32, String> = BTreeMap::new();
    for k in by_key.keys() {
        if let Some(n) = k
            .strip_prefix("runs/")
            .and_then(|r| r.strip_suffix("/status"))
            .and_then(|n| n.parse::<u32>().ok())
        {
            runs.insert(n, k.clone());
        }
    }
    let runner = by_key
        .get("runner")
        .and_then(|n| read_small(&mut zip, n))
        .and_then(|t| Family::parse(&t));
    let build_failed = by_key
        .get("build.status")
        .and_then(|n| read_small(&mut zip, n))
        .is_some_and(|s| s.trim() != "0");
    let Some(family) = runner.filter(|_| !runs.is_empty() || build_failed) else {
        return read_results(&mut zip, &names, budget);
    };
    let sel = runs::report::selection(
        &by_key
            .get("selection")
            .and_then(|n| read_small(&mut zip, n))
            .unwrap_or_default(),
        test,
    );
    let mut out = RerunRead {
        tally: Some(Tally::default()),
        ..RerunRead::default()
    };
    let mut budget = budget;
    let tally = out.tally.get_or_insert_with(Tally::default);
    if build_failed {
        let text = by_key
            .get("build.txt")
            .map(|n| text_of(&mut zip, n, &mut budget))
            .unwrap_or_default();
        tally.add(&Outcome::NoResult {
            no_result: NoResult::Build(
                first_error_line(&text).unwrap_or_else(|| "the build failed".into()),
            ),
        });
        return Ok(out);
    }
    for (n, status_key) in runs.iter().take(MAX_RUNS) {
        let ended = by_key
            .get(status_key)
            .and_then(|s| read_small(&mut zip, s))
            .and_then(|s| runs::report::ended(&s))
            .unwrap_or(Ended::Exited(-1));
        let output = by_key
            .get(&format!("runs/{n}/output.txt"))
            .map(|o| text_of(&mut zip, o, &mut budget))
            .unwrap_or_default();
        add_seeds(&mut out.seeds, &output);
        tally.add(&judge(family, &sel, test, &output, ended));
    }
    Ok(out)
}

/// An entry's text within the budget (its start and end when it is longer than kept).
fn text_of<R: std::io::Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
    budget: &mut u64,
) -> String {
    let Ok(entry) = zip.by_name(name) else {
        return String::new();
    };
    let mut capture = Capture::default();
    let mut limited = entry.take((*budget).min(ENTRY_CAP));
    let mut buf = vec![0u8; 64 << 10];
    while let Ok(n) = limited.read(&mut buf) {
        if n == 0 {
            break;
        }
        *budget = budget.saturating_sub(n as u64);
        capture.push(&buf[..n]);
    }
    capture.text()
}

/// An earlier report: every test result of every entry, with the seeds they print.
fn read_results<R: std::io::Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    names: &[String],
    budget: u64,
) -> Result<RerunRead, String> {
    let mut out = RerunRead::default();
    let mut budget = budget;
    for name in names {
        let Ok(entry) = zip.by_name(name) else {
            continue;
        };
        if entry.is_dir() || budget == 0 {
            continue;
        }
        let mut bytes = Vec::new();
        let read = entry.take(budget.min(ENTRY_CAP)).read_to_end(&mut bytes);
        budget = budget.saturating_sub(bytes.len() as u64);
        if read.is_err() {
            continue;
        }
        add_seeds(&mut out.seeds, &String::from_utf8_lossy(&bytes));
        if let Ok(r) = read_report(BufReader::new(bytes.as_slice()), ReportFormat::Auto) {
            out.tests.extend(r.tests);
        }
    }
    Ok(out)
}
