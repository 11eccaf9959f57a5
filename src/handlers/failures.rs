//! A failing check from another App: find the failing tests, look them up in the reliability
//! file, and keep one comment per PR saying what each failure is worth.

use crate::core::comment::{self, MARKER};
use crate::core::failures::Collector;
use crate::core::failures::annotations::{self, AnnotationText};
use crate::core::reliability::{self, ReliabilityFile};
use crate::core::rerun;
use crate::core::tier::Standing;
use crate::github::read_blocking;
use crate::github::types::RepoName;

use super::JobError;
use super::context::{Services, gh, store_err};
use super::events::{CheckConclusion, CheckRunEvent};

/// `…/actions/runs/123/job/456` → 456.
fn actions_job_id(details_url: &str) -> Option<u64> {
    let (_, rest) = details_url.split_once("/job/")?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The PR's reliability comment, if there is one.
async fn reliability_comment(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    pr: u64,
) -> Result<Option<crate::github::types::Comment>, JobError> {
    svc.github
        .own_comment(inst, repo, pr, MARKER)
        .await
        .map_err(gh)
}

pub async fn on_failed_check(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &CheckRunEvent,
) -> Result<(), JobError> {
    let run = &ev.check_run;
    let failed = run.conclusion.is_some_and(CheckConclusion::failed);
    let listed: Vec<u64> = run.pull_requests.iter().map(|p| p.number).collect();
    let prs = if listed.is_empty() {
        svc.github
            .pulls_for_commit(inst, repo, &run.head_sha)
            .await
            .map_err(gh)?
    } else {
        listed
    };
    if prs.is_empty() {
        return Ok(());
    }
    if !failed {
        // A check that passes later: its section (if any) says so.
        if run.conclusion == Some(CheckConclusion::Success) {
            for pr in prs {
                let existing = reliability_comment(svc, inst, repo, pr).await?;
                if let Some(c) = existing
                    && comment::has_section(&c.body, &run.name)
                {
                    let body = comment::compose(
                        Some(&c.body),
                        &run.name,
                        comment::passed_section(&run.name, &run.head_sha),
                    );
                    svc.github
                        .update_comment(inst, repo, c.id, &body)
                        .await
                        .map_err(gh)?;
                }
            }
        }
        return Ok(());
    }

    // The failing tests: output text, annotations, and the Actions job log.
    let mut all = Collector::default();
    if let Some(o) = &run.output {
        for t in [&o.title, &o.summary, &o.text].into_iter().flatten() {
            annotations::add_text(&mut all, t);
        }
    }
    let listed = svc
        .github
        .annotations(inst, repo, run.id)
        .await
        .map_err(gh)?;
    for a in &listed {
        annotations::add_annotation(
            &mut all,
            &AnnotationText {
                path: &a.path,
                title: a.title.as_deref(),
                message: &a.message,
                raw_details: a.raw_details.as_deref(),
                failure: a.level == "failure",
            },
        );
    }
    let mut truncated = false;
    if let Some(job) = run.details_url.as_deref().and_then(actions_job_id) {
        match read_job_log(svc, inst, repo, job, all).await? {
            (c, Ok(cut)) => {
                all = c;
                truncated = cut;
            }
            (c, Err(e)) => {
                all = c;
                tracing::warn!(error = %e, job, "the job log could not be read; using output and annotations only");
            }
        }
    }
    let report = all.finish();
    if report.failed.is_empty() && report.flaky.is_empty() {
        tracing::info!(check = %run.name, "no failing test identified; no comment");
        return Ok(());
    }

    let (config, _) = svc.repo_config(inst, repo).await?;
    let (file, file_error) = match svc
        .default_branch_file(inst, repo, &config.reliability_file)
        .await?
    {
        Some(text) => match reliability::parse(&text) {
            Ok(f) => (f, None),
            Err(e) => (ReliabilityFile::default(), Some(e.to_string())),
        },
        None => (ReliabilityFile::default(), None),
    };
    let rows = comment::rows(&report, &file, &config.comment_tiers);
    let check = FailedCheck {
        inst,
        repo,
        head_sha: &run.head_sha,
        report: &report,
        file: &file,
        config: &config,
    };
    for pr in prs {
        let (sessions, skipped) = auto_rerun(svc, &check, pr).await?;
        let mut pr_rows = rows.clone();
        for r in &mut pr_rows {
            if let Some((_, id, comment_id)) = sessions
                .iter()
                .rev()
                .find(|(test, _, _)| crate::core::test_ids::same_test(test, &r.id))
            {
                let anchor = comment_id.map(|c| format!("#issuecomment-{c}"));
                r.session = Some(rerun::comment::pointer(anchor.as_deref(), id));
            } else if skipped
                .iter()
                .any(|t| crate::core::test_ids::same_test(t, &r.id))
            {
                r.session = Some(rerun::comment::FORK_NOTE.to_string());
            }
        }
        if pr_rows.is_empty() {
            tracing::info!(check = %run.name, "failing tests are in tiers that get no comment");
            continue;
        }
        let mut section =
            comment::section(&run.name, &run.head_sha, &pr_rows, file_error.as_deref());
        if truncated {
            section = comment::with_truncation_note(section, LOG_CAP);
        }
        let existing = reliability_comment(svc, inst, repo, pr).await?;
        let body = comment::compose(
            existing.as_ref().map(|c| c.body.as_str()),
            &run.name,
            section,
        );
        match existing {
            Some(c) if c.body == body => {}
            Some(c) => svc
                .github
                .update_comment(inst, repo, c.id, &body)
                .await
                .map_err(gh)?,
            None => {
                svc.github
                    .create_comment(inst, repo, pr, &body)
                    .await
                    .map_err(gh)?;
            }
        }
    }
    Ok(())
}

/// Most sessions one failing check starts by itself.
const MAX_AUTO_SESSIONS: usize = 5;

/// A failing check as its PRs see it.
struct FailedCheck<'a> {
    inst: i64,
    repo: &'a RepoName,
    head_sha: &'a str,
    report: &'a crate::core::failures::Report,
    file: &'a ReliabilityFile,
    config: &'a crate::core::config::RepoConfig,
}

/// The PR's sessions (test, session, comment id), and the tests not rerun because the PR is
/// from a fork.
type AutoReruns = (Vec<(String, String, Option<u64>)>, Vec<String>);

/// Starts a rerun session for each failing test whose standing is in `rerun.auto` (once per
/// test and head SHA), except on a PR from a fork: its code never runs on this repository's
/// runners without a person, so those tests are answered as skipped.
async fn auto_rerun(
    svc: &Services,
    check: &FailedCheck<'_>,
    pr: u64,
) -> Result<AutoReruns, JobError> {
    let FailedCheck {
        inst,
        repo,
        head_sha,
        report,
        file,
        config,
    } = *check;
    let candidates: Vec<(String, Standing)> = report
        .failed
        .iter()
        .filter_map(|t| {
            let entry = file.find(t.package.as_deref(), &t.name);
            let standing = Standing::of(entry.map(|e| e.tier));
            let id = entry.map(|e| e.id.clone()).unwrap_or_else(|| t.id());
            // A name from a log reaches the workflow only as plain data.
            if let Err(why) = crate::core::verify::claim::safe_test(&id) {
                tracing::info!(test = %id, why, "no automatic rerun of a test id that is not plain data");
                return None;
            }
            config
                .rerun
                .auto
                .contains(&standing)
                .then_some((id, standing))
        })
        .take(MAX_AUTO_SESSIONS)
        .collect();
    let mut skipped = Vec::new();
    if !candidates.is_empty() {
        let live = svc.github.pull_request(inst, repo, pr).await.map_err(gh)?;
        if live.fork {
            tracing::info!(pr, "a PR from a fork: no automatic rerun without a person");
            skipped = candidates.iter().map(|(t, _)| t.clone()).collect();
        } else if live.head_sha != head_sha {
            tracing::info!(
                pr,
                "the failing check is of an older head; no rerun started"
            );
        } else {
            for (test, standing) in candidates {
                let start = super::rerun::Start {
                    inst,
                    repo,
                    pr,
                    head_sha,
                    base_ref: &live.base_ref,
                    test: &test,
                    runs: config.rerun.runs,
                    trigger: super::rerun::StartedBy::Auto(standing),
                    session: rerun::session_id(
                        svc.github.session_key(),
                        &format!("{repo}#{pr}:auto:{test}@{head_sha}"),
                    ),
                    timeout_minutes: config.rerun.timeout_minutes,
                    verify: None,
                };
                if let super::rerun::Started::NoWorkflow(why) =
                    super::rerun::start(svc, config, start).await?
                {
                    tracing::info!(%repo, pr, why, "no automatic rerun");
                    break;
                }
            }
        }
    }
    let sessions = svc
        .store
        .pr_sessions(&repo.to_string(), pr)
        .await
        .map_err(store_err)?;
    Ok((sessions, skipped))
}

/// Most bytes of one job log read (a log is streamed through the parser; memory stays flat).
pub const LOG_CAP: usize = 64 * 1024 * 1024;

/// Streams a job log through the failing-test parser on a blocking thread; answers the
/// collector with the log's tests added, and whether the log was cut at [`LOG_CAP`].
async fn read_job_log(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    job: u64,
    mut all: Collector,
) -> Result<(Collector, Result<bool, crate::github::GitHubError>), JobError> {
    let (tx, parser) = read_blocking(move |log| {
        annotations::add_log(&mut all, std::io::BufReader::new(log));
        all
    });
    let downloaded = svc.github.job_log(inst, repo, job, LOG_CAP, &tx).await;
    drop(tx);
    let all = parser
        .await
        .map_err(|e| JobError::Transient(anyhow::anyhow!("reading the job log: {e}")))?;
    Ok((all, downloaded.map(|t| t.0)))
}
