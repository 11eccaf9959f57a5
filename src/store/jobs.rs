//! The job queue's rows: enqueue typed work, claim with a lease, record the outcome, release
//! the work of dead processes, and prune what is old.

use anyhow::Context as _;
use sqlx::Row as _;

use super::{ClaimedJob, JobCounts, JobRow, JobState, NewJob, Store, postgres, sqlite};

/// The columns a `JobRow` reads.
macro_rules! job_rows {
    () => {
        "SELECT id, kind, delivery_id, event, action, serial_key, state, attempts, last_error FROM jobs"
    };
}

/// Rows deleted per statement when pruning, so a prune never holds the writer for long.
const PRUNE_BATCH: i64 = 1000;

impl Store {
    /// Enqueues a typed job. False when a job with its unique key already exists.
    pub async fn enqueue(&self, job: &NewJob, now_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "INSERT INTO jobs (kind, args, event, serial_key, unique_key, state, attempts, \
            run_at_ms, created_at_ms, updated_at_ms, lane) VALUES ($1, $2, $1, $3, $4, 'queued', 0, $5, $6, $6, $7) \
            ON CONFLICT DO NOTHING";
        let n = on_pool!(self, pool => sqlx::query(SQL)
            .bind(job.kind).bind(&job.args).bind(&job.serial_key).bind(job.unique_key.as_deref())
            .bind(job.run_at_ms).bind(now_ms).bind(job.lane)
            .execute(pool).await.context("enqueueing a job")?.rows_affected());
        Ok(n == 1)
    }

    /// Claims a ready job whose serial key has no other running job, leasing it to `owner` until
    /// `now_ms + lease_ms`: the oldest of the installation (lane) with the fewest running jobs,
    /// so one installation's burst never holds back another's work. A running job whose lease
    /// expired is ready again.
    pub async fn claim_job(
        &self,
        owner: &str,
        replica: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> anyhow::Result<Option<ClaimedJob>> {
        self.claim_job_within(owner, replica, now_ms, lease_ms, 0)
            .await
    }

    /// `claim_job`, skipping the lanes that already run `lane_cap` jobs (0: no bound). The
    /// count spans every replica and holds under concurrent claims on both backends (SQLite's
    /// write lock; a lane lock on Postgres, see `postgres::claim_job`).
    pub async fn claim_job_within(
        &self,
        owner: &str,
        replica: &str,
        now_ms: i64,
        lease_ms: i64,
        lane_cap: usize,
    ) -> anyhow::Result<Option<ClaimedJob>> {
        let cap = if lane_cap == 0 {
            i64::MAX
        } else {
            i64::try_from(lane_cap).unwrap_or(i64::MAX)
        };
        match self {
            Store::Sqlite(pool) => {
                sqlite::claim_job(pool, owner, replica, now_ms, lease_ms, cap).await
            }
            Store::Postgres(pool) => {
                postgres::claim_job(pool, owner, replica, now_ms, lease_ms, cap).await
            }
        }
        .context("claiming a job")
    }

    /// Extends the lease of a job still held by its owner. False when the lease was lost.
    pub async fn extend_lease(&self, job: &ClaimedJob, until_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE jobs SET lease_until_ms = $1 \
            WHERE id = $2 AND state = 'running' AND lease_owner = $3";
        let n = on_pool!(self, pool => sqlx::query(SQL)
            .bind(until_ms).bind(job.id).bind(&job.lease_owner)
            .execute(pool).await?.rows_affected());
        if let Store::Postgres(pool) = self {
            postgres::extend_key_lease(pool, job, until_ms).await?;
        }
        Ok(n == 1)
    }

    /// Marks a job done. False when its lease had been lost to another worker.
    pub async fn complete_job(&self, job: &ClaimedJob, now_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until_ms = NULL, replica = NULL, \
            last_error = NULL, updated_at_ms = $1 \
            WHERE id = $2 AND state = 'running' AND lease_owner = $3";
        self.finish(job, SQL, now_ms, None, None).await
    }

    /// Records a failed attempt: back to `queued` at `retry_at_ms`, or `dead` when that is `None`.
    pub async fn fail_job(
        &self,
        job: &ClaimedJob,
        now_ms: i64,
        error: &str,
        retry_at_ms: Option<i64>,
    ) -> anyhow::Result<bool> {
        const RETRY: &str = "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until_ms = NULL, replica = NULL, \
            updated_at_ms = $1, last_error = $4, run_at_ms = $5 \
            WHERE id = $2 AND state = 'running' AND lease_owner = $3";
        const DEAD: &str = "UPDATE jobs SET state = 'dead', lease_owner = NULL, lease_until_ms = NULL, replica = NULL, \
            updated_at_ms = $1, last_error = $4 \
            WHERE id = $2 AND state = 'running' AND lease_owner = $3";
        match retry_at_ms {
            Some(at) => self.finish(job, RETRY, now_ms, Some(error), Some(at)).await,
            None => self.finish(job, DEAD, now_ms, Some(error), None).await,
        }
    }

    /// Gives a job back untouched (shutdown before it finished): queued again, attempt not counted.
    pub async fn release_job(&self, job: &ClaimedJob, now_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until_ms = NULL, replica = NULL, \
            updated_at_ms = $1, attempts = attempts - 1, run_at_ms = $1 \
            WHERE id = $2 AND state = 'running' AND lease_owner = $3";
        self.finish(job, SQL, now_ms, None, None).await
    }

    async fn finish(
        &self,
        job: &ClaimedJob,
        sql: &'static str,
        now_ms: i64,
        error: Option<&str>,
        run_at_ms: Option<i64>,
    ) -> anyhow::Result<bool> {
        let n = on_pool!(self, pool => {
            let mut q = sqlx::query(sql).bind(now_ms).bind(job.id).bind(&job.lease_owner);
            if let Some(e) = error {
                q = q.bind(e);
            }
            if let Some(at) = run_at_ms {
                q = q.bind(at);
            }
            q.execute(pool).await?.rows_affected()
        });
        // Only the holder of the lease gives the key back: a worker that lost its lease must not
        // free the key of the worker that took the job over.
        if let (Store::Postgres(pool), 1) = (self, n) {
            postgres::release_key(pool, job).await?;
        }
        Ok(n == 1)
    }

    /// How many jobs are in each state.
    pub async fn job_counts(&self) -> anyhow::Result<JobCounts> {
        const SQL: &str = "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).fetch_all(pool).await?;
            rows.iter()
                .map(|r| Ok((r.try_get::<String, _>("state")?, r.try_get::<i64, _>("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        let mut counts = JobCounts::default();
        for (state, n) in rows {
            match JobState::parse(&state) {
                Some(JobState::Queued) => counts.queued = n,
                Some(JobState::Running) => counts.running = n,
                Some(JobState::Done) => counts.done = n,
                Some(JobState::Dead) => counts.dead = n,
                None => {}
            }
        }
        Ok(counts)
    }

    /// Records this process as alive (and refreshes its beat).
    pub async fn heartbeat(&self, replica: &str, now_ms: i64) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO replicas (id, started_ms, heartbeat_ms) VALUES ($1, $2, $2) \
            ON CONFLICT (id) DO UPDATE SET heartbeat_ms = EXCLUDED.heartbeat_ms";
        on_pool!(self, pool => sqlx::query(SQL).bind(replica).bind(now_ms).execute(pool).await.map(|_| ()))
            .context("recording the heartbeat")
    }

    /// Forgets this process (clean shutdown).
    pub async fn forget_replica(&self, replica: &str) -> anyhow::Result<()> {
        const SQL: &str = "DELETE FROM replicas WHERE id = $1";
        on_pool!(self, pool => sqlx::query(SQL).bind(replica).execute(pool).await.map(|_| ()))
            .context("removing the replica row")
    }

    /// Gives back the running jobs of processes that are gone: on SQLite (one process by
    /// definition) every job another process was running; on Postgres those of replicas whose
    /// last beat is older than `dead_after_ms`. A job claimed before replicas were recorded
    /// (no `replica`) is left to its lease. Returns how many jobs were released.
    pub async fn release_orphans(
        &self,
        me: &str,
        now_ms: i64,
        dead_after_ms: i64,
    ) -> anyhow::Result<usize> {
        const SQL: &str = "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until_ms = NULL, \
            replica = NULL, run_at_ms = $1, updated_at_ms = $1 \
            WHERE state = 'running' AND replica IS NOT NULL AND replica <> $2 \
              AND NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = jobs.replica AND r.heartbeat_ms >= $3) \
            RETURNING id";
        let live_since = match self {
            // Whoever else held a job is dead: this process owns the file.
            Store::Sqlite(_) => i64::MAX,
            Store::Postgres(_) => now_ms - dead_after_ms,
        };
        let ids: Vec<i64> = on_pool!(self, pool => sqlx::query_scalar(SQL)
            .bind(now_ms).bind(me).bind(live_since)
            .fetch_all(pool).await.context("releasing the jobs of dead processes")?);
        if let Store::Postgres(pool) = self {
            postgres::free_keys_of(pool, &ids).await?;
        }
        const GONE: &str = "DELETE FROM replicas WHERE heartbeat_ms < $1 AND id <> $2";
        on_pool!(self, pool => sqlx::query(GONE).bind(live_since).bind(me).execute(pool).await.map(|_| ()))
            .context("forgetting dead replicas")?;
        Ok(ids.len())
    }

    /// Deletes done jobs and stored deliveries older than `cutoff_ms`, in batches. Dead jobs
    /// stay (someone should look at them), and with them their deliveries.
    pub async fn prune(&self, cutoff_ms: i64) -> anyhow::Result<(u64, u64)> {
        const JOBS: &str = "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs \
            WHERE state = 'done' AND run_at_ms < $1 AND updated_at_ms < $1 LIMIT $2)";
        let mut jobs = 0;
        loop {
            let n = on_pool!(self, pool => sqlx::query(JOBS).bind(cutoff_ms).bind(PRUNE_BATCH)
                .execute(pool).await.context("pruning done jobs")?.rows_affected());
            jobs += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        let mut deliveries = 0;
        loop {
            let n = match self {
                Store::Sqlite(pool) => sqlite::prune_deliveries(pool, cutoff_ms, PRUNE_BATCH).await,
                Store::Postgres(pool) => {
                    postgres::prune_deliveries(pool, cutoff_ms, PRUNE_BATCH).await
                }
            }
            .context("pruning stored deliveries")?;
            deliveries += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        Ok((jobs, deliveries))
    }

    /// Every job of a delivery (normally one), oldest first.
    pub async fn jobs_for_delivery(&self, delivery_id: &str) -> anyhow::Result<Vec<JobRow>> {
        self.job_rows(
            concat!(job_rows!(), " WHERE delivery_id = $1 ORDER BY id"),
            delivery_id,
        )
        .await
    }

    /// Every job of a kind, oldest first (inspection and tests).
    pub async fn jobs_of_kind(&self, kind: &str) -> anyhow::Result<Vec<JobRow>> {
        self.job_rows(concat!(job_rows!(), " WHERE kind = $1 ORDER BY id"), kind)
            .await
    }

    /// The rows of a `job_rows!()` query with one parameter.
    async fn job_rows(&self, sql: &'static str, value: &str) -> anyhow::Result<Vec<JobRow>> {
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(sql).bind(value).fetch_all(pool).await?;
            rows.iter().map(JobRow::from_row).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }
}
