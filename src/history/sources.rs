//! Where a run's results come from: its Actions artifacts whose names match
//! `history.artifacts` (zips of JUnit XML, go test -json, libtest JSON, runner output), else its
//! jobs' logs. Every download is streamed with a size cap: an artifact to a temporary file (a
//! zip is read from its end), a log straight through the parser; each zip entry is read with a
//! cap too (a zip bomb stops at it).

use std::io::BufReader;

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::{MAX_TESTS_PER_RUN, ReportFormat, RunResults, read_report};
use crate::github::types::RepoName;
use crate::github::{GitHub, GitHubError, read_blocking};

/// Largest artifact zip downloaded.
pub const ARTIFACT_CAP: usize = 512 * 1024 * 1024;
pub const MAX_ARTIFACTS: usize = 20;
pub const MAX_JOBS: usize = 50;
/// Largest job log read.
pub const LOG_CAP: usize = 64 * 1024 * 1024;

/// Artifact name globs.
pub fn artifact_globs(patterns: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        if let Ok(g) = Glob::new(p) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// A run's unexpired artifacts whose names match (the first few).
async fn matching_artifacts(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    run: u64,
    patterns: &GlobSet,
) -> Result<Vec<crate::github::actions_api::Artifact>, GitHubError> {
    Ok(gh
        .run_artifacts(inst, repo, run)
        .await?
        .into_iter()
        .filter(|a| !a.expired && patterns.is_match(&a.name))
        .take(MAX_ARTIFACTS)
        .collect())
}

/// What a run's results were read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Artifacts(Vec<String>),
    Logs(usize),
    Nothing,
}

/// Every test of a run, from its matching artifacts, else its jobs' logs.
pub async fn run_results(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    run: u64,
    patterns: &GlobSet,
) -> Result<(RunResults, Source), GitHubError> {
    let artifacts = matching_artifacts(gh, inst, repo, run, patterns).await?;
    let mut results = RunResults::default();
    if !artifacts.is_empty() {
        let mut names = Vec::new();
        for a in artifacts {
            let read = |f: std::fs::File| {
                let mut run = RunResults::default();
                super::bounded::read_zip(f, &mut run).map(|()| run)
            };
            match read_artifact(gh, inst, repo, a.id, read).await? {
                Ok(run) => {
                    results.merge(run);
                    names.push(a.name);
                }
                Err(e) => {
                    tracing::warn!(artifact = %a.name, error = %e, "an artifact could not be read as a zip of reports")
                }
            }
        }
        return Ok((results, Source::Artifacts(names)));
    }
    let jobs = gh.run_jobs(inst, repo, run).await?;
    let mut read = 0;
    for job in jobs.into_iter().take(MAX_JOBS) {
        match log_results(gh, inst, repo, job.id).await {
            Ok(r) => {
                results.add(r);
                read += 1;
            }
            Err(e) => tracing::warn!(job = job.id, error = %e, "a job log could not be read"),
        }
        if results.len() >= MAX_TESTS_PER_RUN {
            break;
        }
    }
    let source = if read == 0 {
        Source::Nothing
    } else {
        Source::Logs(read)
    };
    Ok((results, source))
}

/// A rerun run's report for the session's `test`: each run judged (a report of this version's
/// workflow), or the results of an earlier report, with the seeds the runs printed; from its
/// jobs' logs when it has no matching artifact.
pub async fn rerun_results(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    run: u64,
    patterns: &GlobSet,
    test: &str,
) -> Result<super::rerun_report::RerunRead, GitHubError> {
    let artifacts = matching_artifacts(gh, inst, repo, run, patterns).await?;
    let mut out = super::rerun_report::RerunRead::default();
    if artifacts.is_empty() {
        for job in gh
            .run_jobs(inst, repo, run)
            .await?
            .into_iter()
            .take(MAX_JOBS)
        {
            match log_results(gh, inst, repo, job.id).await {
                Ok(r) => out.tests.extend(r.tests),
                Err(e) => {
                    tracing::warn!(job = job.id, error = %e, "a rerun job log could not be read")
                }
            }
        }
        return Ok(out);
    }
    for a in artifacts {
        let test = test.to_string();
        let read = move |f: std::fs::File| {
            super::rerun_report::read(f, &test, super::bounded::INFLATED_CAP)
        };
        match read_artifact(gh, inst, repo, a.id, read).await? {
            Ok(r) => {
                out.tests.extend(r.tests);
                for seed in r.seeds {
                    if !out.seeds.contains(&seed) && out.seeds.len() < 20 {
                        out.seeds.push(seed);
                    }
                }
                if out.tally.is_none() {
                    out.tally = r.tally;
                }
            }
            Err(e) => {
                tracing::warn!(artifact = %a.name, error = %e, "a rerun artifact could not be read")
            }
        }
    }
    Ok(out)
}

/// Streams one job log through the results parser (on a blocking thread).
async fn log_results(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    job: u64,
) -> Result<crate::core::failures::Results, GitHubError> {
    let (tx, parser) = read_blocking(|log| {
        // Bounded by the download's cap; the deadline frees this thread whatever the log holds.
        let deadline = std::time::Instant::now() + super::bounded::REPORT_DEADLINE;
        let log = super::bounded::Bounded::new(log, u64::MAX, deadline);
        read_report(BufReader::new(log), ReportFormat::Auto).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "a job log could not be read whole");
            Default::default()
        })
    });
    let cut = gh.job_log(inst, repo, job, LOG_CAP, &tx).await;
    drop(tx);
    let results = parser.await.map_err(joined("job log"))?;
    if cut?.0 {
        tracing::warn!(
            job,
            cap_mib = LOG_CAP >> 20,
            "a job log was longer than the cap; the rest was not read"
        );
    }
    Ok(results)
}

/// Downloads an artifact's zip (capped) and reads it with `read` on a blocking thread. The
/// outer error is GitHub's; the inner one says why the zip could not be read.
async fn read_artifact<T: Send + 'static>(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    artifact: u64,
    read: impl FnOnce(std::fs::File) -> Result<T, String> + Send + 'static,
) -> Result<Result<T, String>, GitHubError> {
    let zip = download_to_temp(gh, inst, repo, artifact).await?;
    tokio::task::spawn_blocking(move || read(zip))
        .await
        .map_err(joined("artifact"))
}

/// A blocking task that did not finish (it panicked or was cancelled), as an error on `what`.
fn joined(what: &'static str) -> impl Fn(tokio::task::JoinError) -> GitHubError {
    move |e| GitHubError::Decode {
        path: what.into(),
        message: e.to_string(),
    }
}

/// Downloads an artifact's zip to a temporary file (capped).
async fn download_to_temp(
    gh: &GitHub,
    inst: i64,
    repo: &RepoName,
    artifact: u64,
) -> Result<std::fs::File, GitHubError> {
    let io = |e: std::io::Error| GitHubError::Decode {
        path: "artifact".into(),
        message: e.to_string(),
    };
    let (tx, writer) = read_blocking(|mut zip| -> std::io::Result<std::fs::File> {
        let mut f = tempfile::tempfile()?;
        std::io::copy(&mut zip, &mut f)?;
        Ok(f)
    });
    let cut = gh
        .download_artifact(inst, repo, artifact, ARTIFACT_CAP, &tx)
        .await;
    drop(tx);
    let file = writer.await.map_err(joined("artifact"))?.map_err(io)?;
    if cut?.0 {
        return Err(GitHubError::Decode {
            path: "artifact".into(),
            message: format!("the artifact is larger than {} MiB", ARTIFACT_CAP >> 20),
        });
    }
    Ok(file)
}
