//! The durable job queue. All work is a job: webhook deliveries (enqueued in group commits by
//! intake) and typed tasks (catch-up passes, evaluations, scheduled and multi-step work). Workers
//! claim jobs with a lease, one serial key at a time; failures retry with backoff and jitter; a
//! job that keeps failing is parked as dead; a dead process's jobs are released at once.

mod enqueue;
mod job;
mod maintenance;
mod schedule;
pub mod settings;
mod task;
mod worker;

pub use enqueue::{EnqueueError, Enqueuer};
pub use job::{Delivery, HandlerFuture, Job, JobError, JobHandler, Queue, Work};
pub use maintenance::{Maintenance, replica_id};
pub use schedule::periodically;
pub use task::Task;
pub use worker::{WorkerPool, spawn_workers};

/// What happened to a job, broadcast for observers (tests, logs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEvent {
    pub job_id: i64,
    /// The job's kind (`webhook`, `evaluate_pr`, …).
    pub work: String,
    /// Webhook jobs: their delivery.
    pub delivery_id: Option<String>,
    pub serial_key: String,
    pub kind: QueueEventKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueueEventKind {
    /// A worker took the job (attempt number).
    Started {
        attempt: i32,
    },
    Done,
    /// Failed; will run again.
    Retrying {
        attempt: i32,
        error: String,
    },
    /// Failed for the last time.
    Dead {
        attempt: i32,
        error: String,
    },
    /// Given back unfinished at shutdown.
    Released,
    /// The worker's lease had been lost to another worker, so its result was not recorded.
    LeaseLost,
}
