//! The durable job queue: deliveries are enqueued in group commits, workers claim jobs with a
//! lease, failures retry with backoff and jitter, and a job that keeps failing is parked as dead.

mod backoff;
mod enqueue;
mod worker;

pub use backoff::retry_delay;
pub use enqueue::{EnqueueError, Enqueuer};
pub use worker::{WorkerPool, spawn_workers};

/// What happened to a job, broadcast for observers (tests, logs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEvent {
    pub job_id: i64,
    pub delivery_id: String,
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
