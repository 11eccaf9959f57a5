//! Job handlers: one per event family. A handler reads like the rule it implements: fetch live
//! state, decide with the pure core, write the effects.

mod checks;
mod commands;
pub mod context;
pub mod events;
mod failures;
mod pull_request;

use std::future::Future;
use std::pin::Pin;

pub use context::Services;
use events::{
    CheckRunEvent, CheckSuiteEvent, InstallationEvent, IssueCommentEvent, MergeGroupEvent,
    PullRequestEvent, Repository,
};
pub use pull_request::evaluate as evaluate_pr;

/// A claimed job with its delivery's payload.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: i64,
    pub delivery_id: String,
    pub event: String,
    pub action: Option<String>,
    /// This attempt's number, from 1.
    pub attempt: i32,
    pub payload: Vec<u8>,
}

/// Why a job failed: worth another attempt, or not.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A fault that may pass (GitHub 5xx, timeouts, the database): retried with backoff.
    #[error("{0:#}")]
    Transient(anyhow::Error),
    /// Retrying cannot help (a payload that does not parse): parked as dead at once.
    #[error("{0:#}")]
    Permanent(anyhow::Error),
}

impl JobError {
    pub fn into_inner(self) -> anyhow::Error {
        match self {
            JobError::Transient(e) | JobError::Permanent(e) => e,
        }
    }
}

pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<(), JobError>> + Send + 'a>>;

/// Runs one job.
pub trait JobHandler: Send + Sync + 'static {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a>;
}

/// Logs the job and marks it done: the handler used until the feature handlers exist, and in
/// setup mode.
#[derive(Debug, Default)]
pub struct LogOnly;

impl JobHandler for LogOnly {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        Box::pin(async move {
            tracing::info!(
                event = %job.event,
                action = job.action.as_deref().unwrap_or(""),
                bytes = job.payload.len(),
                "job received; no handler acts on this event yet"
            );
            Ok(())
        })
    }
}

/// The product's handler: parses the stored payload into a domain event and runs its handler.
pub struct Dispatcher {
    pub services: Services,
}

fn parse<T: serde::de::DeserializeOwned>(job: &Job) -> Result<T, JobError> {
    serde_json::from_slice(&job.payload).map_err(|e| {
        JobError::Permanent(anyhow::anyhow!(
            "delivery {} ({}) has an unexpected payload: {e}",
            job.delivery_id,
            job.event
        ))
    })
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
        let svc = &self.services;
        match job.event.as_str() {
            "pull_request" => {
                let ev: PullRequestEvent = parse(job)?;
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                if ev.action == "edited" {
                    let c = ev.changes.unwrap_or_default();
                    if c.body.is_none() && c.title.is_none() {
                        tracing::debug!("edited without a body or title change; nothing to do");
                        return Ok(());
                    }
                }
                let number = ev.number.unwrap_or(ev.pull_request.number);
                pull_request::evaluate(svc, inst, &repo, number).await
            }
            "check_run" => {
                let ev: CheckRunEvent = parse(job)?;
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_check_run(svc, inst, &repo, &ev).await
            }
            "check_suite" => {
                let ev: CheckSuiteEvent = parse(job)?;
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_check_suite(svc, inst, &repo, &ev).await
            }
            "merge_group" => {
                let ev: MergeGroupEvent = parse(job)?;
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                checks::on_merge_group(svc, inst, &repo, &ev).await
            }
            "issue_comment" => {
                let ev: IssueCommentEvent = parse(job)?;
                let (repo, inst) = target(&ev.repository, ev.installation.as_ref())?;
                commands::on_comment(svc, inst, &repo, &ev).await
            }
            "installation" | "installation_repositories" => {
                let ev: InstallationEvent = parse(job)?;
                let account = ev.installation.account.as_ref().map(|a| a.login.as_str());
                let removed = ev.action == "deleted";
                svc.store
                    .record_installation(ev.installation.id, account, removed, svc.clock.now_ms())
                    .await
                    .map_err(context::store_err)?;
                tracing::info!(installation = ev.installation.id, action = %ev.action, "installation recorded");
                Ok(())
            }
            other => {
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
