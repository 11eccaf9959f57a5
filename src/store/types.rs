//! Plain rows going in and out of the store.

use sqlx::Row;

use super::StoredPayload;

/// A verified webhook delivery to store, with the serial key its job runs under.
#[derive(Clone, Debug)]
pub struct NewDelivery {
    pub delivery_id: String,
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<i64>,
    pub repository: Option<String>,
    pub received_at_ms: i64,
    pub payload: StoredPayload,
    /// Jobs with the same key never run at once (one pull request, one commit, one installation).
    pub serial_key: String,
}

/// What storing one delivery did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertOutcome {
    Queued,
    Duplicate,
}

/// A typed job to enqueue (webhook jobs are enqueued with their delivery instead).
#[derive(Clone, Debug)]
pub struct NewJob {
    /// The kind of work (`evaluate_pr`, `catch_up`, …).
    pub kind: &'static str,
    /// Its arguments, as JSON.
    pub args: String,
    /// Jobs with the same key never run at once, across replicas.
    pub serial_key: String,
    /// At most one job with this key ever exists (until pruned).
    pub unique_key: Option<String>,
    /// Not before this time (Unix ms).
    pub run_at_ms: i64,
    /// The installation whose work it is (0: the App's own), for fair claims across them.
    pub lane: i64,
}

/// A job leased to one worker.
#[derive(Clone, Debug)]
pub struct ClaimedJob {
    pub id: i64,
    pub kind: String,
    pub args: Option<String>,
    /// Webhook jobs: the stored delivery.
    pub delivery_id: Option<String>,
    /// The webhook event, or the job's kind.
    pub event: String,
    pub action: Option<String>,
    pub serial_key: String,
    /// Attempts so far, this one included.
    pub attempts: i32,
    /// When the job was enqueued (a webhook job: when its delivery arrived).
    pub created_at_ms: i64,
    pub lease_owner: String,
}

/// The states of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    Queued,
    Running,
    Done,
    Dead,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Dead => "dead",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "queued" => Some(JobState::Queued),
            "running" => Some(JobState::Running),
            "done" => Some(JobState::Done),
            "dead" => Some(JobState::Dead),
            _ => None,
        }
    }
}

/// Jobs per state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub dead: i64,
}

/// A job as stored, for inspection.
#[derive(Clone, Debug)]
pub struct JobRow {
    pub id: i64,
    pub kind: String,
    pub delivery_id: Option<String>,
    pub event: String,
    pub action: Option<String>,
    pub serial_key: String,
    pub state: String,
    pub attempts: i32,
    pub last_error: Option<String>,
}

impl JobRow {
    pub(crate) fn from_row<R: Row>(row: &R) -> Result<Self, sqlx::Error>
    where
        for<'a> &'a str: sqlx::ColumnIndex<R>,
        for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        for<'a> i32: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    {
        Ok(JobRow {
            id: row.try_get("id")?,
            kind: row.try_get("kind")?,
            delivery_id: row.try_get("delivery_id")?,
            event: row.try_get("event")?,
            action: row.try_get("action")?,
            serial_key: row.try_get("serial_key")?,
            state: row.try_get("state")?,
            attempts: row.try_get("attempts")?,
            last_error: row.try_get("last_error")?,
        })
    }
}

impl ClaimedJob {
    pub(crate) fn from_row<R: Row>(row: &R, owner: &str) -> Result<Self, sqlx::Error>
    where
        for<'a> &'a str: sqlx::ColumnIndex<R>,
        for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        for<'a> i32: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
        for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    {
        Ok(ClaimedJob {
            id: row.try_get("id")?,
            kind: row.try_get("kind")?,
            args: row.try_get("args")?,
            delivery_id: row.try_get("delivery_id")?,
            event: row.try_get("event")?,
            action: row.try_get("action")?,
            serial_key: row.try_get("serial_key")?,
            attempts: row.try_get("attempts")?,
            created_at_ms: row.try_get("created_at_ms")?,
            lease_owner: owner.to_owned(),
        })
    }
}
