//! Durable storage: webhook deliveries, the job queue and (later) audit rows.
//!
//! One `Store` type over two native sqlx pools. Each backend has its own migration folder
//! (`migrations/sqlite`, `migrations/postgres`) and, where the SQL must differ (claiming a job),
//! its own module. Queries that are the same on both are written once and run through
//! [`on_pool!`], which expands them for each pool type. Times are Unix milliseconds from the
//! caller's [`crate::clock::Clock`], so both backends behave the same and tests can move time.

/// Runs the same expression against whichever pool the store holds.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match $store {
            Store::Sqlite($pool) => $body,
            Store::Postgres($pool) => $body,
        }
    };
}

/// The batch `INSERT INTO deliveries … ON CONFLICT DO NOTHING RETURNING delivery_id`, the same
/// on both backends (only the builder's database type differs).
macro_rules! deliveries_insert {
    ($db:ty, $batch:expr) => {{
        let mut q = sqlx::QueryBuilder::<$db>::new(
            "INSERT INTO deliveries (delivery_id, event, action, installation_id, repository, received_at_ms, payload, payload_encoding, serial_key) ",
        );
        q.push_values($batch.iter(), |mut row, d| {
            row.push_bind(d.delivery_id.as_str())
                .push_bind(d.event.as_str())
                .push_bind(d.action.as_deref())
                .push_bind(d.installation_id)
                .push_bind(d.repository.as_deref())
                .push_bind(d.received_at_ms)
                .push_bind(d.payload.bytes.as_ref())
                .push_bind(d.payload.encoding)
                .push_bind(d.serial_key.as_str());
        });
        q.push(" ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id");
        q
    }};
}

mod dashboard;
mod economy;
mod history;
mod jobs;
mod payload;
mod postgres;
mod records;
mod rerun;
mod sqlite;
mod test_list;
mod tickets;
mod types;

pub use dashboard::{
    DASHBOARD_WINDOW, DashSession, FileEntry, GateWeek, RecentSession, RepoSummary, SPARK_RUNS,
    StoredFile, TierChange,
};
pub use history::{NewRun, Recorded, TokenRow};
pub use payload::StoredPayload;
pub use records::{AuditRow, WaiverRow, ms_to_rfc3339};
pub use rerun::{NewSession, NewVerify, SessionRow, SideDone, SideRow, VerifyRow};
pub use test_list::{
    Basis, FailureRow, MAX_WORDS, OnsetRow, TestPage, TestQuery, TestRow, TestSort,
};

pub use types::{ClaimedJob, InsertOutcome, JobCounts, JobRow, JobState, NewDelivery, NewJob};

use anyhow::Context as _;
use sqlx::{PgPool, Row as _, SqlitePool};

/// The database behind the service.
#[derive(Clone, Debug)]
pub enum Store {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// `Queued` for the first entry of each inserted id, `Duplicate` for everything else.
pub(crate) fn first_occurrences(
    batch: &[NewDelivery],
    inserted: &std::collections::HashSet<String>,
) -> Vec<InsertOutcome> {
    let mut taken = std::collections::HashSet::new();
    batch
        .iter()
        .map(|d| {
            if inserted.contains(&d.delivery_id) && taken.insert(d.delivery_id.as_str()) {
                InsertOutcome::Queued
            } else {
                InsertOutcome::Duplicate
            }
        })
        .collect()
}

impl Store {
    /// Connects to `url` (`sqlite://…` or `postgres://…`). A SQLite file is created when missing.
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        if url.starts_with("sqlite:") {
            Ok(Store::Sqlite(sqlite::connect(url).await?))
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Ok(Store::Postgres(postgres::connect(url).await?))
        } else {
            anyhow::bail!(
                "DATABASE_URL must start with sqlite:// or postgres:// (got a URL with another scheme)"
            )
        }
    }

    /// A short name of the backend, for logs.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Applies the backend's migrations.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self {
            Store::Sqlite(pool) => sqlx::migrate!("migrations/sqlite").run(pool).await,
            Store::Postgres(pool) => sqlx::migrate!("migrations/postgres").run(pool).await,
        }
        .context("applying database migrations")?;
        self.backfill_window_counts().await
    }

    /// Answers when the database does.
    pub async fn ping(&self) -> anyhow::Result<()> {
        on_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()))
            .context("database ping")
    }

    /// Closes every connection.
    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }

    /// Stores a batch of deliveries and enqueues a job for each new one, all in one transaction
    /// (group commit) of two multi-row statements. A delivery id seen before, or earlier in the
    /// same batch, is `Duplicate` and enqueues nothing.
    pub async fn insert_deliveries(
        &self,
        batch: &[NewDelivery],
        now_ms: i64,
    ) -> anyhow::Result<Vec<InsertOutcome>> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let inserted: std::collections::HashSet<String> = match self {
            // One statement, one round trip to SQLite's worker thread: the trigger of
            // migration 0003 enqueues each new delivery's job inside the same statement.
            Store::Sqlite(pool) => sqlite::insert_deliveries(pool, batch).await?,
            Store::Postgres(pool) => postgres::insert_deliveries(pool, batch, now_ms).await?,
        };
        Ok(first_occurrences(batch, &inserted))
    }

    /// The stored payload of a delivery.
    pub async fn delivery_payload(&self, delivery_id: &str) -> anyhow::Result<Option<Vec<u8>>> {
        const SQL: &str = "SELECT payload, payload_encoding FROM deliveries WHERE delivery_id = $1";
        let row = on_pool!(self, pool => sqlx::query(SQL).bind(delivery_id).fetch_optional(pool).await?
            .map(|r| Ok::<_, sqlx::Error>((r.try_get::<Vec<u8>, _>("payload")?, r.try_get::<String, _>("payload_encoding")?)))
            .transpose()?);
        row.map(|(bytes, encoding)| payload::decode(bytes, &encoding))
            .transpose()
    }

    /// True when a delivery with this id is stored.
    pub async fn has_delivery(&self, delivery_id: &str) -> anyhow::Result<bool> {
        const SQL: &str = "SELECT 1 FROM deliveries WHERE delivery_id = $1";
        let found = on_pool!(self, pool => sqlx::query(SQL).bind(delivery_id).fetch_optional(pool).await?.is_some());
        Ok(found)
    }
}
