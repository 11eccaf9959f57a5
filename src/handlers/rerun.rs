//! Rerun sessions (docs/rerun.md): start one (by command or by itself), dispatch the workflow for the PR's
//! head and its merge base, keep the session's one comment, finish it when both runs complete,
//! and end it at its timeout. A session is durable: its row says what was done, so a retried or
//! restarted job carries on where it stopped.

use std::time::Duration;

use serde_json::json;

use crate::core::config::RepoConfig;
use crate::core::rerun::comment::{SessionView, SideState, SideView, Trigger, render};
use crate::core::rerun::verdict::Count;
use crate::core::rerun::{self, Side};
use crate::core::tier::Standing;
use crate::github::GitHubError;
use crate::github::types::RepoName;
use crate::queue::Task;
use crate::store::{NewSession, NewVerify, SessionRow, SideDone};

use super::JobError;
use super::context::{Services, gh, store_err};
use super::events::WorkflowRun;

/// What starts a session.
#[derive(Clone, Debug)]
pub struct Start<'a> {
    pub inst: i64,
    pub repo: &'a RepoName,
    pub pr: u64,
    pub head_sha: &'a str,
    pub base_ref: &'a str,
    pub test: &'a str,
    pub runs: u32,
    /// `command` with the login, or `auto` with the test's standing.
    pub trigger: StartedBy<'a>,
    /// Stable per trigger: the same trigger retried is the same session.
    pub session: String,
    pub timeout_minutes: u32,
    /// A verification (docs/verification.md): the claim's seed, the test files for the base, the command.
    pub verify: Option<VerifyPlan<'a>>,
}

/// What a verification runs beyond a rerun's inputs (docs/rerun.md).
#[derive(Clone, Debug)]
pub struct VerifyPlan<'a> {
    pub claim: &'a crate::core::verify::Claim,
    pub tests: &'a [String],
    pub command: Option<&'a str>,
    pub seed_env: &'a [String],
    /// The find round (docs/verification.md#found-in-the-prs-tests): an empty test, the files'
    /// every test once, on both sides.
    pub find: bool,
    /// The find round's Rust sources whose test modules run in each side's own copy (the
    /// options' `find_sources`).
    pub sources: &'a [String],
}

#[derive(Clone, Copy, Debug)]
pub enum StartedBy<'a> {
    Command(&'a str),
    Auto(Standing),
}

/// How a start went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Started {
    New(String),
    /// This trigger started the session before.
    Existing(String),
    /// The workflow is not on the default branch, or has no `workflow_dispatch` trigger.
    NoWorkflow(String),
}

/// Starts (or carries on) a session.
pub async fn start(svc: &Services, config: &RepoConfig, s: Start<'_>) -> Result<Started, JobError> {
    if let Some(existing) = svc.store.session(&s.session).await.map_err(store_err)? {
        drive(svc, &existing).await?;
        return Ok(Started::Existing(existing.id));
    }
    let workflow = &config.rerun.workflow;
    let (default, inputs) = svc.workflow_inputs(s.inst, s.repo, workflow).await?;
    let Some(inputs) = inputs else {
        return Ok(Started::NoWorkflow(format!(
            "the rerun workflow `.github/workflows/{workflow}` is not on `{default}` (or has no `workflow_dispatch` trigger): copy `deploy/repro-gate-rerun.yml` from repro-gate, or set `rerun.workflow` in `.github/repro-gate.yml`"
        )));
    };
    let base_sha = svc
        .github
        .merge_base(s.inst, s.repo, s.base_ref, s.head_sha)
        .await
        .map_err(gh)?;
    let history = svc
        .store
        .test_window(&s.repo.to_string(), s.test)
        .await
        .map_err(store_err)?
        .map(|w| {
            let (runs, failures) = w.counts(w.len());
            (failures, runs)
        });
    let now = svc.clock.now_ms();
    let timeout_ms = i64::from(s.timeout_minutes.max(1)) * 60_000;
    let (kind, detail) = match s.trigger {
        StartedBy::Command(login) => ("command", login.to_string()),
        StartedBy::Auto(st) => ("auto", st.as_str().to_string()),
    };
    let claim_key = s.verify.as_ref().map(|v| {
        if v.find {
            crate::core::verify::find::KEY.to_string()
        } else {
            v.claim.key()
        }
    });
    let verify = s.verify.as_ref().map(|v| NewVerify {
        claim_key: claim_key.as_deref().unwrap_or(""),
        claim_kind: match v.claim.kind {
            _ if v.find => crate::core::verify::find::KEY,
            crate::core::evidence::EvidenceKind::Seed => "seed",
            crate::core::evidence::EvidenceKind::Interleaving => "interleaving",
            crate::core::evidence::EvidenceKind::Trace => "trace",
        },
        claim_test: v.claim.test.as_deref(),
        seed: v.claim.seed.as_deref(),
        tests: v.tests,
        command: v.command,
        seed_env: v.seed_env,
    });
    let created = svc
        .store
        .create_session(&NewSession {
            id: &s.session,
            repository: &s.repo.to_string(),
            installation_id: s.inst,
            pr_number: s.pr,
            test: s.test,
            runs: s.runs,
            workflow,
            trigger_kind: kind,
            trigger_detail: &detail,
            head_sha: s.head_sha,
            base_sha: &base_sha,
            history,
            now_ms: now,
            deadline_ms: now + timeout_ms,
            verify,
            options: Some(&rerun::options_input(
                config,
                s.verify.is_some(),
                s.verify.as_ref().map_or(&[], |v| v.sources),
            )),
        })
        .await
        .map_err(store_err)?;
    let row = svc
        .store
        .session(&s.session)
        .await
        .map_err(store_err)?
        .ok_or_else(|| JobError::Transient(anyhow::anyhow!("session {} vanished", s.session)))?;
    // The timeout is queued before anything is dispatched: a session always ends.
    svc.queue
        .submit(
            &Task::RerunTimeout {
                session: s.session.clone(),
            },
            Some(format!("rerun-timeout:{}", s.session)),
            Duration::from_millis(u64::try_from(timeout_ms).unwrap_or(0)),
        )
        .await
        .map_err(store_err)?;
    dispatch_sides(svc, &row, &inputs, &default).await?;
    let row = svc
        .store
        .session(&s.session)
        .await
        .map_err(store_err)?
        .unwrap_or(row);
    announce(svc, &row).await?;
    Ok(if created {
        Started::New(s.session)
    } else {
        Started::Existing(s.session)
    })
}

/// Carries a session on after an interruption: sides not yet dispatched are, the comment is
/// brought up to date.
async fn drive(svc: &Services, row: &SessionRow) -> Result<(), JobError> {
    if row.state == "running"
        && row
            .sides
            .iter()
            .any(|s| !s.dispatched && s.dispatch_error.is_none())
    {
        let repo = repo_of(row)?;
        let (default, inputs) = svc
            .workflow_inputs(row.installation_id, &repo, &row.workflow)
            .await?;
        dispatch_sides(svc, row, &inputs.unwrap_or_default(), &default).await?;
    }
    let row = svc
        .store
        .session(&row.id)
        .await
        .map_err(store_err)?
        .unwrap_or_else(|| row.clone());
    announce(svc, &row).await
}

/// After a start: a rerun's comment is written; a verification's caller is evaluating the PR
/// and writes the check itself, so only a verdict already there (a refused dispatch) is kept.
async fn announce(svc: &Services, row: &SessionRow) -> Result<(), JobError> {
    if row.verify.is_some() {
        super::verdict::settle(svc, row).await
    } else {
        refresh(svc, row).await
    }
}

fn repo_of(row: &SessionRow) -> Result<RepoName, JobError> {
    RepoName::parse(&row.repository).ok_or_else(|| {
        JobError::Permanent(anyhow::anyhow!(
            "session {} names repository {:?}",
            row.id,
            row.repository
        ))
    })
}

/// Dispatches each side not dispatched yet. A refusal (4xx) is recorded on the side; a fault
/// (5xx, timeout) retries the job, which carries on from the sides already dispatched.
async fn dispatch_sides(
    svc: &Services,
    row: &SessionRow,
    declared: &[String],
    default: &str,
) -> Result<(), JobError> {
    let repo = repo_of(row)?;
    let takes = |name: &str| declared.iter().any(|d| d == name);
    for side in &row.sides {
        if side.dispatched || side.dispatch_error.is_some() {
            continue;
        }
        let mut inputs = json!({
            "sha": side.sha,
            "test": row.test,
            "runs": row.runs,
            "session": row.id,
        });
        if takes("side") {
            inputs["side"] = json!(side.side);
        }
        if let Some(v) = &row.verify {
            // Only what the workflow declares: GitHub refuses an unexpected input.
            let mut put = |name: &str, value: Option<String>| {
                if let Some(value) = value.filter(|v| !v.is_empty())
                    && takes(name)
                {
                    inputs[name] = json!(value);
                }
            };
            if side.side == Side::Base.as_str() {
                put("tests_from", row.head_sha.clone());
                put("tests", Some(v.tests.join(" ")));
            } else if v.claim_kind == crate::core::verify::find::KEY {
                // The find round runs the same files' tests on the head.
                put("tests", Some(v.tests.join(" ")));
            }
            put("seed", v.seed.clone());
            put("command", v.command.clone());
            // A workflow of an earlier version takes the seed's variables on their own.
            if !takes("options") {
                put("seed_env", Some(v.seed_env.join(" ")));
            }
        }
        if takes("options")
            && let Some(o) = &row.options
        {
            inputs["options"] = json!(o);
        }
        let done = svc
            .github
            .dispatch_workflow(row.installation_id, &repo, &row.workflow, default, &inputs)
            .await;
        let mut bound = None;
        let error = match done {
            Ok(run) => {
                // The side is this run's, and no other's (docs/verification.md#run-identity).
                bound = run.map(|r| (i64::try_from(r.id).unwrap_or(i64::MAX), r.html_url));
                None
            }
            Err(
                e @ (GitHubError::NotFound { .. }
                | GitHubError::Unprocessable { .. }
                | GitHubError::Forbidden { .. }),
            ) if !e.is_transient() => {
                tracing::warn!(session = %row.id, side = %side.side, error = %e, "the rerun workflow refused the dispatch");
                Some(e.to_string())
            }
            Err(e) => return Err(gh(e)),
        };
        svc.store
            .side_dispatched(
                &row.id,
                &side.side,
                error.as_deref(),
                bound.as_ref().map(|(id, url)| (*id, url.as_deref())),
                svc.clock.now_ms(),
            )
            .await
            .map_err(store_err)?;
    }
    Ok(())
}

/// Renders the session's comment and writes it (creates it the first time). A verification
/// has no comment: its PR is evaluated again, and the check run shows it.
async fn refresh(svc: &Services, row: &SessionRow) -> Result<(), JobError> {
    if row.verify.is_some() {
        super::verdict::settle(svc, row).await?;
        return svc
            .queue
            .submit(
                &Task::EvaluatePr {
                    installation: row.installation_id,
                    repo: row.repository.clone(),
                    number: row.pr_number,
                },
                None,
                Duration::ZERO,
            )
            .await
            .map(|_| ())
            .map_err(store_err);
    }
    let repo = repo_of(row)?;
    let ticket_issue = svc
        .store
        .ticket_issue(&row.repository, &row.test)
        .await
        .map_err(store_err)?;
    let mut view = session_view(row);
    view.ticket_issue = ticket_issue;
    let body = render(&view);
    match row.comment_id {
        Some(id) => svc
            .github
            .update_comment(row.installation_id, &repo, id, &body)
            .await
            .map_err(gh)?,
        None => {
            // Found by its marker if an earlier attempt posted it and stopped before noting it.
            let id = svc
                .github
                .upsert_marked_comment(
                    row.installation_id,
                    &repo,
                    row.pr_number,
                    &rerun::marker(&row.id),
                    &body,
                )
                .await
                .map_err(gh)?;
            svc.store
                .set_session_comment(&row.id, id)
                .await
                .map_err(store_err)?;
        }
    }
    Ok(())
}

/// What a rerun session's comment (and its ticket) shows.
pub fn session_view(row: &SessionRow) -> SessionView<'_> {
    let trigger = match row.trigger_kind.as_str() {
        "command" => Trigger::Command(&row.trigger_detail),
        _ => Trigger::Auto(Standing::named(&row.trigger_detail)),
    };
    let side_view = |which: Side| {
        let s = row.sides.iter().find(|s| s.side == which.as_str());
        SideView {
            sha: s.map(|s| s.sha.as_str()).unwrap_or(""),
            state: match s {
                Some(s) if s.count.is_some() => {
                    let (failures, runs) = s.count.unwrap_or_default();
                    SideState::Done {
                        count: Count { failures, runs },
                        run_url: s.run_url.as_deref(),
                        seeds: &s.seeds,
                    }
                }
                Some(s) if s.dispatch_error.is_some() => {
                    SideState::NotStarted(s.dispatch_error.as_deref().unwrap_or(""))
                }
                _ => SideState::Running,
            },
        }
    };
    SessionView {
        session: &row.id,
        test: &row.test,
        runs: row.runs,
        workflow: &row.workflow,
        trigger,
        branch: side_view(Side::Branch),
        base: side_view(Side::Base),
        history: row.history.map(|(f, n)| Count {
            failures: u32::try_from(f).unwrap_or(u32::MAX),
            runs: u32::try_from(n).unwrap_or(u32::MAX),
        }),
        timed_out_after: (row.state == "timed_out").then(|| row.timeout_minutes()),
        ticket_issue: None,
    }
}

/// One side's run completed: count the test's results, update the comment, finish the session
/// when both are in.
pub async fn on_side_completed(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    run: &WorkflowRun,
    session: &str,
    side: Side,
) -> Result<(), JobError> {
    let Some(row) = svc.store.session(session).await.map_err(store_err)? else {
        tracing::info!(
            session,
            run = run.id,
            "a rerun run of a session this service does not know"
        );
        return Ok(());
    };
    if row.repository != repo.to_string() || row.installation_id != inst {
        tracing::warn!(
            session,
            run = run.id,
            "a rerun run from another repository; ignored"
        );
        return Ok(());
    }
    let Some(known) = row.sides.iter().find(|s| s.side == side.as_str()) else {
        return Ok(());
    };
    if known.count.is_some() {
        // Recorded before. A job that stopped between recording the side and finishing the
        // session finishes it now; otherwise there is nothing new.
        if row.state == "running" && row.sides.iter().all(|s| s.count.is_some()) {
            let (config, _) = svc.repo_config(inst, repo).await?;
            let mut row = row;
            finish(svc, &config, inst, &mut row).await?;
            return refresh(svc, &row).await;
        }
        return Ok(());
    }
    if row.state == "timed_out" {
        tracing::info!(
            session,
            run = run.id,
            "a run of a session that timed out; its verdict stands"
        );
        return Ok(());
    }
    let (config, _) = svc.repo_config(inst, repo).await?;
    let mut patterns = config.history.artifacts.clone();
    patterns.push("repro-gate-rerun*".into());
    let globs = crate::history::sources::artifact_globs(&patterns);
    let read =
        crate::history::sources::rerun_results(&svc.github, inst, repo, run.id, &globs, &row.test)
            .await
            .map_err(gh)?;
    let find = row
        .verify
        .as_ref()
        .is_some_and(|v| v.claim_kind == crate::core::verify::find::KEY);
    let found = find.then(|| find_results_of(&read));
    // Each run judged as a concurrency test fails it (a report of this version's workflow),
    // else an earlier report's results counted; a find round's report, each test once.
    let counted = found.as_ref().map(|(_, (failed, tests))| {
        (
            Count {
                failures: *failed,
                runs: *tests,
            },
            0,
            None,
            None,
        )
    });
    let (count, no_result, reason, how) = match (counted, &read.tally) {
        (Some(c), _) => c,
        (None, Some(t)) => {
            let who = if side == Side::Base {
                "the merge base"
            } else {
                "the head"
            };
            (
                t.count(),
                t.no_result,
                t.no_result_reason(who),
                t.failures_described(),
            )
        }
        (None, None) => (rerun::count_of(&row.test, &read.tests), 0, None, None),
    };
    let run_id = i64::try_from(run.id).unwrap_or(i64::MAX);
    let fresh = svc
        .store
        .side_done(
            &SideDone {
                session,
                side: side.as_str(),
                run_id,
                run_url: run.html_url.as_deref(),
                count: (count.failures, count.runs),
                seeds: &read.seeds,
                no_result: (no_result, reason.as_deref()),
                how: how.as_deref(),
                found: found.as_ref().map(|(j, _)| j.as_str()),
            },
            svc.clock.now_ms(),
        )
        .await
        .map_err(store_err)?;
    if !fresh {
        return Ok(());
    }
    let mut row = svc
        .store
        .session(session)
        .await
        .map_err(store_err)?
        .unwrap_or(row);
    if row.sides.iter().all(|s| s.count.is_some()) {
        finish(svc, &config, inst, &mut row).await?;
    }
    tracing::info!(
        session,
        side = side.as_str(),
        failures = count.failures,
        runs = count.runs,
        "rerun side completed"
    );
    refresh(svc, &row).await
}

/// Both sides are in: the session is finished, and a `not this change` rerun under
/// `rerun.tickets: issue` queues its quarantine ticket (unique per session: a retry queues it
/// once).
async fn finish(
    svc: &Services,
    config: &RepoConfig,
    inst: i64,
    row: &mut SessionRow,
) -> Result<(), JobError> {
    svc.store
        .set_session_state(&row.id, "finished")
        .await
        .map_err(store_err)?;
    row.state = "finished".into();
    let not_this_change = crate::core::rerun::comment::outcome(&session_view(row))
        .is_some_and(|a| a.verdict == crate::core::rerun::verdict::Verdict::NotThisChange);
    if row.verify.is_none()
        && not_this_change
        && config.rerun.tickets == crate::core::config::Tickets::Issue
    {
        svc.queue
            .submit(
                &Task::QuarantineTicket {
                    installation: inst,
                    repo: row.repository.clone(),
                    test: row.test.clone(),
                    session: row.id.clone(),
                },
                Some(format!("quarantine-ticket:{}", row.id)),
                Duration::ZERO,
            )
            .await
            .map_err(store_err)?;
    }
    Ok(())
}

/// A session's time is up: if its runs have not both completed, its comment says so.
pub async fn on_timeout(svc: &Services, session: &str) -> Result<(), JobError> {
    let Some(mut row) = svc.store.session(session).await.map_err(store_err)? else {
        return Ok(());
    };
    if row.state != "running" || row.sides.iter().all(|s| s.count.is_some()) {
        return Ok(());
    }
    svc.store
        .set_session_state(session, "timed_out")
        .await
        .map_err(store_err)?;
    row.state = "timed_out".into();
    tracing::info!(
        session,
        minutes = row.timeout_minutes(),
        "rerun session timed out"
    );
    refresh(svc, &row).await
}

/// One side's run started: its link goes into the session's comment or check run at once.
pub async fn on_side_started(
    svc: &Services,
    repo: &RepoName,
    run: &WorkflowRun,
    session: &str,
    side: Side,
) -> Result<(), JobError> {
    let Some(row) = svc.store.session(session).await.map_err(store_err)? else {
        return Ok(());
    };
    if row.repository != repo.to_string() || row.state != "running" {
        return Ok(());
    }
    let run_id = i64::try_from(run.id).unwrap_or(i64::MAX);
    if svc
        .store
        .side_started(session, side.as_str(), run_id, run.html_url.as_deref())
        .await
        .map_err(store_err)?
    {
        let row = svc
            .store
            .session(session)
            .await
            .map_err(store_err)?
            .unwrap_or(row);
        refresh(svc, &row).await?;
    }
    Ok(())
}

/// A find run's report as one result per test (JSON for the side's row), and the side's count
/// (failed tests, tests).
fn find_results_of(read: &crate::history::rerun_report::RerunRead) -> (String, (u32, u32)) {
    let results = crate::core::verify::find::side_results(&read.tests);
    let failed = results
        .iter()
        .filter(|r| r.seen != crate::core::verify::discover::Seen::Passed)
        .count();
    let count = (
        u32::try_from(failed).unwrap_or(u32::MAX),
        u32::try_from(results.len()).unwrap_or(u32::MAX),
    );
    (
        serde_json::to_string(&results).unwrap_or_else(|_| "[]".into()),
        count,
    )
}
