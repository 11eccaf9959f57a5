//! `workflow_run`: a rerun session's side starts or finishes its session (docs/rerun.md, docs/verification.md); any other
//! completed run's test results go to the history (docs/history.md), once per run and attempt. Only the
//! App's own runs count for a session (docs/verification.md#run-identity): the run a side's
//! dispatch returned, or, where GitHub returned none, the first run that qualifies. A run that
//! merely carries a session's title (a fork's own workflow, a hand-made dispatch) counts for
//! nothing. GitHub requests per run, beyond the downloads: the config (conditional, usually a
//! 304), the run's artifacts, and, only when no artifact matches, its jobs.

use crate::core::rerun::{self, Side};
use crate::github::types::RepoName;
use crate::history::{self, RunInfo};
use crate::store::Recorded;

use super::JobError;
use super::context::{Services, gh, store_err};
use super::events::{WorkflowRun, WorkflowRunEvent};

/// A run created this long before the dispatch was recorded may still be the dispatch's (the
/// two clocks differ a little).
const CLOCK_SKEW_MS: i64 = 5_000;

pub async fn on_workflow_run(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &WorkflowRunEvent,
) -> Result<(), JobError> {
    let run = &ev.workflow_run;
    let titled = run.display_title.as_deref().and_then(rerun::parse_title);
    let session = session_of(svc, repo, run, titled).await?;
    if ev.action.as_deref() != Some("completed") {
        // A session's run started: its link is shown while it runs.
        if let Some((session, side)) = &session
            && matches!(ev.action.as_deref(), Some("in_progress" | "requested"))
        {
            return super::rerun::on_side_started(svc, repo, run, session, *side).await;
        }
        return Ok(());
    }
    if let Some(branch) = &ev.repository.default_branch {
        svc.prime_default_branch(repo, branch);
    }
    if let Some((session, side)) = session {
        // A rerun's runs are the session's, not the history's: twenty runs of one test on a
        // PR's commit would skew the windows.
        return super::rerun::on_side_completed(svc, inst, repo, run, &session, side).await;
    }
    if let Some((session, _)) = titled {
        tracing::warn!(
            run = run.id,
            session,
            event = run.event.as_deref().unwrap_or(""),
            actor = run.actor.as_ref().map(|a| a.login.as_str()).unwrap_or(""),
            "a run titled like a rerun session's that the App did not dispatch; it counts for nothing"
        );
        return Ok(());
    }
    record(svc, inst, repo, ev).await
}

/// The session side a run is: the side bound to it, or (where the dispatch returned no run)
/// the titled side it qualifies for, bound now.
async fn session_of(
    svc: &Services,
    repo: &RepoName,
    run: &WorkflowRun,
    titled: Option<(&str, Side)>,
) -> Result<Option<(String, Side)>, JobError> {
    let run_id = i64::try_from(run.id).unwrap_or(i64::MAX);
    if let Some((session, side)) = svc
        .store
        .side_of_run(&repo.to_string(), run_id)
        .await
        .map_err(store_err)?
        && let Some(side) = Side::parse(&side)
    {
        return Ok(Some((session, side)));
    }
    let Some((session, side)) = titled else {
        return Ok(None);
    };
    let Some(row) = svc.store.session(session).await.map_err(store_err)? else {
        return Ok(None);
    };
    let Some(s) = row.sides.iter().find(|s| s.side == side.as_str()) else {
        return Ok(None);
    };
    // Bound to another run already, or not dispatched: this run is not the side's.
    let Some(dispatched_ms) = s.dispatched_ms.filter(|_| s.run_id.is_none()) else {
        return Ok(None);
    };
    if row.repository != repo.to_string() {
        return Ok(None);
    }
    let bot = svc.github.bot_login().await.map_err(gh)?;
    if !qualifies(run, repo, &row.workflow, &bot, dispatched_ms) {
        return Ok(None);
    }
    let bound = svc
        .store
        .bind_side(
            session,
            side.as_str(),
            run_id,
            run.html_url.as_deref(),
            svc.clock.now_ms(),
        )
        .await
        .map_err(store_err)?;
    if bound {
        tracing::info!(
            session,
            side = side.as_str(),
            run = run.id,
            "a rerun side bound to its run (the dispatch returned none)"
        );
    }
    Ok(bound.then(|| (session.to_string(), side)))
}

/// Whether a run can be the one a dispatch without run details started: a
/// `workflow_dispatch` run of the rerun workflow, in this repository (its code too), by the
/// App's bot, created after the dispatch.
fn qualifies(run: &WorkflowRun, repo: &RepoName, workflow: &str, bot: &str, after_ms: i64) -> bool {
    let path_ok = run.path.as_deref().is_some_and(|p| {
        let p = p.split('@').next().unwrap_or(p);
        p == format!(".github/workflows/{workflow}")
    });
    let repo_ok = run
        .head_repository
        .as_ref()
        .is_some_and(|h| h.full_name.eq_ignore_ascii_case(&repo.to_string()));
    let actor_ok = run
        .actor
        .as_ref()
        .is_some_and(|a| a.login.eq_ignore_ascii_case(bot));
    let created_ok = run
        .created_at
        .as_deref()
        .and_then(|c| chrono::DateTime::parse_from_rfc3339(c).ok())
        .is_some_and(|c| c.timestamp_millis() + CLOCK_SKEW_MS >= after_ms);
    run.event.as_deref() == Some("workflow_dispatch")
        && path_ok
        && repo_ok
        && actor_ok
        && created_ok
}

/// A run's test results into the history, once per run and attempt.
async fn record(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &WorkflowRunEvent,
) -> Result<(), JobError> {
    let run = &ev.workflow_run;
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
    // A fork PR's run is its own workflow, on its own branch, with results its author writes:
    // it is no history at all, neither a branch's nor the pull request's flakiness (a fork could
    // otherwise make a test look flaky, broken or healthy).
    let fork = run
        .head_repository
        .as_ref()
        .is_some_and(|h| !h.full_name.eq_ignore_ascii_case(&repo_s));
    if fork {
        tracing::info!(run = run.id, "a fork's run: not recorded in the history");
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
        url: run
            .html_url
            .clone()
            .filter(|u| crate::core::markdown::is_web_link(u)),
        pr: run.pull_requests.first().map(|p| p.number),
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
