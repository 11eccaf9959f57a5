//! `workflow_run` completed: a rerun session's side finishes its session (§10); any other run's
//! test results go to the history (§9), once per run and attempt. GitHub requests per run,
//! beyond the downloads: the config (conditional, usually a 304), the run's artifacts, and, only
//! when no artifact matches, its jobs.

use crate::core::rerun;
use crate::github::types::RepoName;
use crate::history::{self, RunInfo};
use crate::store::Recorded;

use super::JobError;
use super::context::{Services, gh, store_err};
use super::events::WorkflowRunEvent;

pub async fn on_workflow_run(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &WorkflowRunEvent,
) -> Result<(), JobError> {
    let run = &ev.workflow_run;
    let session = run.display_title.as_deref().and_then(rerun::parse_title);
    if ev.action.as_deref() != Some("completed") {
        // A session's run started: its link is shown while it runs.
        if let Some((session, side)) = session
            && matches!(ev.action.as_deref(), Some("in_progress" | "requested"))
        {
            return super::rerun::on_side_started(svc, repo, run, session, side).await;
        }
        return Ok(());
    }
    if let Some(branch) = &ev.repository.default_branch {
        svc.prime_default_branch(repo, branch);
    }
    if let Some((session, side)) = session {
        // A rerun's runs are the session's, not the history's: twenty runs of one test on a
        // PR's commit would skew the windows.
        return super::rerun::on_side_completed(svc, inst, repo, run, session, side).await;
    }
    let attempt = run.run_attempt.unwrap_or(1).max(1);
    let repo_s = repo.to_string();
    let run_id = run.id.to_string();
    if svc
        .store
        .has_run(&repo_s, &run_id, attempt)
        .await
        .map_err(store_err)?
    {
        tracing::debug!(run = run.id, attempt, "run recorded before");
        return Ok(());
    }
    let (config, _) = svc.repo_config(inst, repo).await?;
    if !config.history.enabled {
        return Ok(());
    }
    let patterns = history::sources::artifact_globs(&config.history.artifacts);
    let (results, source) =
        history::sources::run_results(&svc.github, inst, repo, run.id, &patterns)
            .await
            .map_err(gh)?;
    if results.is_empty() {
        tracing::info!(
            run = run.id,
            ?source,
            "the run showed no test result; nothing recorded"
        );
        return Ok(());
    }
    let info = RunInfo {
        repository: repo_s,
        run_id,
        attempt,
        sha: run.head_sha.clone(),
        branch: run.head_branch.clone().unwrap_or_default(),
        source: match source {
            history::sources::Source::Artifacts(_) => "artifacts",
            _ => "logs",
        },
        installation_id: Some(inst),
        default_branch: ev.repository.default_branch.clone(),
        branches: config.history.branches.clone(),
    };
    let recorded = history::record(&svc.store, &info, &results, svc.clock.now_ms())
        .await
        .map_err(store_err)?;
    match recorded {
        Recorded::New(n) => {
            tracing::info!(run = run.id, attempt, results = n, ?source, "run recorded")
        }
        Recorded::Duplicate => tracing::debug!(run = run.id, attempt, "run recorded meanwhile"),
    }
    Ok(())
}
