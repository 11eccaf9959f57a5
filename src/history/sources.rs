//! Where a run's results come from: its Actions artifacts whose names match
//! `history.artifacts` (zips of JUnit XML, go test -json, libtest JSON, runner output), else its
//! jobs' logs. Every download is streamed with a size cap: an artifact to a temporary file (a
//! zip is read from its end), a log straight through the parser; each zip entry is read with a
//! cap too (a zip bomb stops at it).

use std::io::{BufReader, Read as _};

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::{MAX_TESTS_PER_RUN, ReportFormat, RunResults, read_report};
use crate::github::types::RepoName;
use crate::github::{GitHub, GitHubError, read_blocking};

/// Largest artifact zip downloaded.
pub const ARTIFACT_CAP: usize = 512 * 1024 * 1024;
/// Most bytes read out of one run's zip entries in all.
pub const UNZIPPED_CAP: u64 = 1024 * 1024 * 1024;
/// Most entries read from one zip, and most artifacts or jobs read from one run.
pub const MAX_ENTRIES: usize = 2_000;
pub const MAX_ARTIFACTS: usize = 20;
pub const MAX_JOBS: usize = 50;
/// Largest job log read.
pub const LOG_CAP: usize = 128 * 1024 * 1024;

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
            match read_artifact(gh, inst, repo, a.id, read_zip).await? {
                Ok(per_file) => {
                    for r in per_file {
                        results.add(r);
                    }
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
        let read = move |f: std::fs::File| super::rerun_report::read(f, &test, UNZIPPED_CAP);
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
        read_report(BufReader::new(log), ReportFormat::Auto).unwrap_or_default()
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

/// Every report inside a zip, at most [`UNZIPPED_CAP`] inflated bytes in all.
pub fn read_zip<R: std::io::Read + std::io::Seek>(
    file: R,
) -> Result<Vec<crate::core::failures::Results>, String> {
    read_zip_capped(file, UNZIPPED_CAP)
}

/// Every report inside a zip, at most `cap` inflated bytes in all (a zip bomb stops there).
fn read_zip_capped<R: std::io::Read + std::io::Seek>(
    file: R,
    cap: u64,
) -> Result<Vec<crate::core::failures::Results>, String> {
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip: {e}"))?;
    let mut out = Vec::new();
    let mut budget = cap;
    for i in 0..zip.len().min(MAX_ENTRIES) {
        let Ok(entry) = zip.by_index(i) else {
            continue;
        };
        if entry.is_dir() || budget == 0 {
            continue;
        }
        let mut limited = entry.take(budget);
        let read = read_report(BufReader::new(&mut limited), ReportFormat::Auto);
        // What the entry inflated to is spent, report or not.
        budget = limited.limit();
        match read {
            Ok(r) if !r.tests.is_empty() => out.push(r),
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, "a zip entry is not a report"),
        }
    }
    Ok(out)
}

/// Reads an upload body: gzip when `gzipped`, at most `cap` bytes once inflated.
pub fn read_upload(
    body: &[u8],
    gzipped: bool,
    cap: u64,
    format: ReportFormat,
) -> std::io::Result<crate::core::failures::Results> {
    if gzipped {
        let reader = BufReader::new(flate2::read::GzDecoder::new(body).take(cap));
        read_report(reader, format)
    } else {
        read_report(BufReader::new(body.take(cap)), format)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            for (name, data) in files {
                w.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(data).unwrap();
            }
            w.finish().unwrap();
        }
        buf.into_inner()
    }

    #[test]
    fn a_zip_of_reports_gives_every_test() {
        let junit = br#"<testsuite name="s"><testcase classname="p" name="TestA"/><testcase classname="p" name="TestB"><failure/></testcase></testsuite>"#;
        let gojson = b"{\"Action\":\"pass\",\"Package\":\"q\",\"Test\":\"TestC\"}\n";
        let z = zip_of(&[
            ("report.xml", junit),
            ("dir/", b""),
            ("go.json", gojson),
            ("notes.txt", b"hello"),
        ]);
        let per_file = read_zip(std::io::Cursor::new(z)).unwrap();
        let ids: Vec<String> = per_file
            .iter()
            .flat_map(|r| r.tests.iter().map(|t| t.test.id()))
            .collect();
        assert_eq!(ids, ["p::TestA", "p::TestB", "q::TestC"]);
        assert!(read_zip(std::io::Cursor::new(b"not a zip".to_vec())).is_err());
    }

    #[test]
    fn the_cap_counts_every_inflated_byte_of_the_zip() {
        let report = |name: &str| {
            format!(r#"<testsuite name="s"><testcase classname="p" name="{name}"/></testsuite>"#)
        };
        let (a, b) = (report("TestA"), report("TestB"));
        let z = zip_of(&[("a.xml", a.as_bytes()), ("b.xml", b.as_bytes())]);
        let ids = |cap: u64| -> Vec<String> {
            read_zip_capped(std::io::Cursor::new(z.clone()), cap)
                .unwrap()
                .iter()
                .flat_map(|r| r.tests.iter().map(|t| t.test.id()))
                .collect()
        };
        assert_eq!(ids(1 << 20), ["p::TestA", "p::TestB"]);
        // Room for the first entry and a little more: the second is cut before its testcase.
        assert_eq!(ids(a.len() as u64 + 20), ["p::TestA"]);
    }

    #[test]
    fn a_gzip_upload_is_inflated_with_a_cap() {
        let xml = br#"<testsuite name="s"><testcase classname="p" name="TestA"/></testsuite>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(xml).unwrap();
        let body = gz.finish().unwrap();
        let r = read_upload(&body, true, 1 << 20, ReportFormat::Auto).unwrap();
        assert_eq!(r.tests.len(), 1);
        // A bomb stops at the cap: what is read is cut, not inflated whole.
        let bomb = {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(&vec![b'a'; 50 << 20]).unwrap();
            gz.finish().unwrap()
        };
        assert!(bomb.len() < 1 << 20);
        let r = read_upload(&bomb, true, 1 << 20, ReportFormat::Auto).unwrap();
        assert!(r.tests.is_empty());
    }
}
