//! What a worker hands a handler, what a handler answers, and how work is submitted.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use super::Task;
use crate::clock::Clock;
use crate::store::{NewJob, Store};

/// A stored webhook delivery, as its job sees it.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub id: String,
    pub event: String,
    pub action: Option<String>,
    /// When it arrived (Unix ms).
    pub received_at_ms: i64,
    pub payload: Vec<u8>,
}

/// The work of one job.
#[derive(Clone, Debug)]
pub enum Work {
    Webhook(Delivery),
    Task(Task),
}

/// A claimed job.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: i64,
    /// This attempt's number, from 1.
    pub attempt: i32,
    pub work: Work,
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

/// Submits typed work to the durable queue and wakes this process's idle workers.
#[derive(Clone)]
pub struct Queue {
    store: Store,
    clock: Arc<dyn Clock>,
    new_jobs: Arc<Notify>,
}

impl Queue {
    pub fn new(store: Store, clock: Arc<dyn Clock>, new_jobs: Arc<Notify>) -> Self {
        Queue {
            store,
            clock,
            new_jobs,
        }
    }

    /// Enqueues `task` to run after `delay`. With a `unique_key`, a second submission of the
    /// same key (from this or any replica) is a no-op: returns false.
    pub async fn submit(
        &self,
        task: &Task,
        unique_key: Option<String>,
        delay: Duration,
    ) -> anyhow::Result<bool> {
        let now = self.clock.now_ms();
        let job = NewJob {
            kind: task.kind(),
            args: serde_json::to_string(task)?,
            serial_key: task.serial_key(),
            unique_key,
            run_at_ms: now + i64::try_from(delay.as_millis()).unwrap_or(i64::MAX / 4),
            lane: task.lane(),
        };
        let fresh = self.store.enqueue(&job, now).await?;
        if fresh {
            self.new_jobs.notify_waiters();
        }
        Ok(fresh)
    }
}
