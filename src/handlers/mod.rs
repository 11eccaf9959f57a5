//! Job handlers: one per event family. A handler reads like the rule it implements: fetch live
//! state, decide with the pure core, write the effects.

use std::future::Future;
use std::pin::Pin;

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
