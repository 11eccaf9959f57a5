//! `history build --reports DIR`: the file computed from a folder of reports laid out
//! `DIR/<run>/<files>`, each run with a `run.json` (`sha`, `branch`, `attempt`, `time`), without a
//! database. Runs are applied in time order (then by folder name).

use std::path::Path;

use anyhow::Context as _;

use super::{ReportFormat, RunResults, day_of, default_branches, read_report};
use crate::core::history::file::{Built, Proposals, build};
use crate::core::history::record::{Branches, Ledger, classify_run};
use crate::core::history::tiers::TestHistory;
use crate::core::reliability::ReliabilityFile;

#[derive(Debug, Default, serde::Deserialize)]
struct RunJson {
    #[serde(default)]
    sha: Option<String>,
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    attempt: Option<i64>,
    /// RFC 3339 or Unix seconds.
    #[serde(default)]
    time: Option<serde_json::Value>,
}

fn time_ms(v: &Option<serde_json::Value>) -> Option<i64> {
    match v.as_ref()? {
        serde_json::Value::String(s) => chrono::DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| t.timestamp_millis()),
        serde_json::Value::Number(n) => n.as_f64().map(|s| (s * 1000.0) as i64),
        _ => None,
    }
}

/// Most runs read from a folder.
const MAX_RUNS: usize = 100_000;

pub fn build_from_reports(dir: &Path, existing: &ReliabilityFile) -> anyhow::Result<Built> {
    let mut runs = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            runs.push(entry.path());
        }
        if runs.len() >= MAX_RUNS {
            break;
        }
    }
    let mut dated = Vec::new();
    for run in runs {
        let meta: RunJson = match std::fs::read_to_string(run.join("run.json")) {
            Ok(t) => serde_json::from_str(&t)
                .with_context(|| format!("{}/run.json is not JSON", run.display()))?,
            Err(_) => RunJson::default(),
        };
        dated.push((time_ms(&meta.time).unwrap_or(0), run, meta));
    }
    dated.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let branches = Branches::new(&default_branches());
    let mut ledger = Ledger::default();
    let mut seen_runs = std::collections::HashSet::new();
    for (at, run, meta) in dated {
        let name = run
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !seen_runs.insert((name.clone(), meta.attempt.unwrap_or(1))) {
            continue;
        }
        let mut results = RunResults::default();
        let mut files: Vec<_> = std::fs::read_dir(&run)?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()) && e.file_name() != "run.json")
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            let file =
                std::fs::File::open(&f).with_context(|| format!("opening {}", f.display()))?;
            match read_report(std::io::BufReader::new(file), ReportFormat::Auto) {
                Ok(r) => results.add(r),
                Err(e) => tracing::warn!(file = %f.display(), error = %e, "not a report; skipped"),
            }
        }
        let branch = meta.branch.unwrap_or_else(|| "main".into());
        let class = classify_run(
            results.results.iter().map(|(_, o)| *o),
            branches.counts(&branch, None),
        );
        let sha = meta.sha.unwrap_or_else(|| name.clone());
        ledger.apply(
            class,
            &sha,
            &results.results,
            &day_of(at),
            at,
            &results.durations,
        );
    }
    let histories = ledger.windows.iter().map(|(id, w)| TestHistory {
        id,
        window: w,
        since_change: None,
    });
    Ok(build(existing, histories, &Proposals::new()))
}
