//! How the job queue runs: its own settings, which `settings.rs` (the service's) carries.

use std::time::Duration;

/// How the job queue runs.
#[derive(Clone, Debug)]
pub struct QueueSettings {
    /// Worker tasks in this process; 0 accepts and queues only.
    pub workers: usize,
    /// Most jobs of one installation (lane) running at once, over every replica; 0 = no bound.
    /// Below `workers`, so one installation's burst leaves workers free for the others' next
    /// PR (docs/service.md#the-job-queue).
    pub per_installation: usize,
    /// Attempts before a job is parked as dead.
    pub max_attempts: u32,
    /// How long a claimed job stays leased without a heartbeat.
    pub lease: Duration,
    /// Longest one attempt of a job may run: past it the attempt is stopped and fails as a
    /// transient error (retried with backoff, dead after `max_attempts`), so a job that hangs
    /// cannot hold its worker and its serial key for ever.
    pub job_deadline: Duration,
    /// First retry delay; doubles per attempt, with jitter, up to `retry_cap`.
    pub retry_base: Duration,
    pub retry_cap: Duration,
    /// How often an idle worker looks for jobs written by other replicas.
    pub poll_interval: Duration,
    /// How long shutdown waits for in-flight jobs before giving them back to the queue.
    pub shutdown_grace: Duration,
    /// How often this process records that it is alive.
    pub heartbeat: Duration,
    /// A replica silent this long is dead: its running jobs are released (Postgres).
    pub dead_after: Duration,
    /// Done jobs and stored deliveries older than this are deleted (at least 3 days: GitHub
    /// redelivers deliveries of the past 3 days, and a redelivered id must answer `duplicate`).
    pub retention: Duration,
}

/// The shortest retention allowed.
pub const MIN_RETENTION_DAYS: u64 = 3;

impl Default for QueueSettings {
    fn default() -> Self {
        QueueSettings {
            workers: 16,
            per_installation: 4,
            max_attempts: 8,
            lease: Duration::from_secs(60),
            job_deadline: Duration::from_secs(15 * 60),
            retry_base: Duration::from_secs(2),
            retry_cap: Duration::from_secs(600),
            poll_interval: Duration::from_secs(1),
            shutdown_grace: Duration::from_secs(30),
            heartbeat: Duration::from_secs(3),
            dead_after: Duration::from_secs(15),
            retention: Duration::from_secs(14 * 24 * 3600),
        }
    }
}
