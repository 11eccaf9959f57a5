//! Job handlers: one per event family. A handler reads like the rule it implements: fetch live
//! state, decide with the pure core, write the effects.

pub mod catch_up;
mod checks;
mod commands;
pub mod context;
pub mod events;
mod failures;
mod find;
mod history;
mod pull_request;
mod rerun;
mod tickets;
mod verdict;
mod verify;
mod workflow_run;

pub use context::Services;
use events::{Action, Event, PullRequestAction, Repository};
pub use pull_request::evaluate as evaluate_pr;

use crate::queue::{Delivery, Task, Work};
pub use crate::queue::{HandlerFuture, Job, JobError, JobHandler};

/// Logs the job and marks it done: the handler used until the feature handlers exist, and in
/// setup mode.
#[derive(Debug, Default)]
pub struct LogOnly;

impl JobHandler for LogOnly {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        Box::pin(async move {
            match &job.work {
                Work::Webhook(d) => tracing::info!(
                    event = %d.event,
                    action = d.action.as_deref().unwrap_or(""),
                    bytes = d.payload.len(),
                    "job received; no handler acts on this event yet"
                ),
                Work::Task(t) => {
                    tracing::info!(kind = t.kind(), "task received; nothing acts on it here")
                }
            }
            Ok(())
        })
    }
}

/// The product's handler: parses a delivery into a domain event once and runs its handler;
/// runs typed tasks.
pub struct Dispatcher {
    pub services: Services,
}

fn target(
    repo: &Repository,
    inst: Option<&events::Installation>,
) -> Result<(crate::github::types::RepoName, i64), JobError> {
    let name = repo.name().ok_or_else(|| {
        JobError::Permanent(anyhow::anyhow!(
            "repository name {:?} is not owner/name",
            repo.full_name
        ))
    })?;
    let inst = inst
        .map(|i| i.id)
        .ok_or_else(|| JobError::Permanent(anyhow::anyhow!("the payload names no installation")))?;
    Ok((name, inst))
}

impl Dispatcher {
    async fn run(&self, job: &Job) -> Result<(), JobError> {
        match &job.work {
            Work::Webhook(d) => self.webhook(d).await,
            Work::Task(t) => self.task(t).await,
        }
    }

    async fn task(&self, task: &Task) -> Result<(), JobError> {
        let svc = &self.services;
        match task {
            Task::EvaluatePr {
                installation,
                repo,
                number,
            } => {
                let name = crate::github::types::RepoName::parse(repo).ok_or_else(|| {
                    JobError::Permanent(anyhow::anyhow!(
                        "repository name {repo:?} is not owner/name"
                    ))
                })?;
                pull_request::evaluate(svc, *installation, &name, *number).await
            }
            Task::CatchUp => catch_up::run(svc).await,
            Task::RerunTimeout { session } => rerun::on_timeout(svc, session).await,
            Task::QuarantineTicket {
                installation,
                repo,
                test,
                session,
            } => tickets::file(svc, *installation, repo, test, session).await,
            Task::HistorySchedule => history::schedule(svc).await,
            Task::HistoryPublish {
                installation,
                repo,
                due_ms,
            } => history::publish(svc, *installation, repo, *due_ms).await,
        }
    }

    async fn webhook(&self, d: &Delivery) -> Result<(), JobError> {
        let svc = &self.services;
        let event = Event::parse(&d.event, &d.payload).map_err(|e| {
            JobError::Permanent(anyhow::anyhow!(
                "delivery {} ({}) has an unexpected payload: {e}",
                d.id,
                d.event
            ))
        })?;
        match event {
            Event::PullRequest(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                if ev.action == PullRequestAction::Edited {
                    let c = ev.changes.unwrap_or_default();
                    if c.body.is_none() && c.title.is_none() {
                        tracing::debug!("edited without a body or title change; nothing to do");
                        return Ok(());
                    }
                }
                let number = ev.number.unwrap_or(ev.pull_request.number);
                // When the head this delivery announces was current (GitHub's clock, like the
                // comments' times): an override is bound to the head its commenter saw.
                if let Some(head) = &ev.pull_request.head {
                    let seen = events::rfc3339_ms(ev.pull_request.updated_at.as_deref())
                        .unwrap_or(d.received_at_ms);
                    svc.store
                        .record_head(&repo.to_string(), number as i64, &head.sha, seen)
                        .await
                        .map_err(context::store_err)?;
                }
                // The payload's PR stands in for a read unless a newer delivery of this PR was
                // handled already (deliveries arrive out of order): then it is read live.
                let given = match (
                    crate::github::pull_from_payload(&d.payload),
                    events::rfc3339_ms(ev.pull_request.updated_at.as_deref()),
                ) {
                    (Some(pr), Some(at)) if pr.number == number => svc
                        .store
                        .fresh_payload(&repo.to_string(), number, at)
                        .await
                        .map_err(context::store_err)?
                        .then_some(pr),
                    _ => None,
                };
                pull_request::evaluate_with(svc, inst, &repo, number, given).await
            }
            Event::CheckRun(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_check_run(svc, inst, &repo, &ev).await
            }
            Event::CheckSuite(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_check_suite(svc, inst, &repo, &ev).await
            }
            Event::MergeGroup(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_merge_group(svc, inst, &repo, &ev).await
            }
            Event::IssueComment(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                commands::on_comment(svc, inst, &repo, &ev).await
            }
            Event::Installation(ev) => {
                let account = ev.installation.account.as_ref().map(|a| a.login.as_str());
                let removed = ev.action == Action::Deleted;
                svc.store
                    .record_installation(ev.installation.id, account, removed, svc.clock.now_ms())
                    .await
                    .map_err(context::store_err)?;
                tracing::info!(installation = ev.installation.id, action = ?ev.action, "installation recorded");
                Ok(())
            }
            Event::WorkflowRun(ev) => {
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                workflow_run::on_workflow_run(svc, inst, &repo, &ev).await
            }
            Event::Other(other) => {
                tracing::debug!(event = other, "no handler for this event");
                Ok(())
            }
        }
    }
}

impl JobHandler for Dispatcher {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        Box::pin(self.run(job))
    }
}
