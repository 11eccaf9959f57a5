//! Postgres specifics: connection options and the job claim shared by several replicas.

use anyhow::Context as _;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use super::{ClaimedJob, InsertOutcome, NewDelivery, first_occurrences};

/// Statements are planned for their values, every time: sqlx prepares each statement, and the
/// generic plan Postgres switches to after five runs scans a repository's every test for
/// `repository = $1 AND test IN (…400 ids…)` instead of reading 400 rows of the key (recording
/// ran at ~4,800 results/s with it, ~22,000 without, `cargo bench --bench history`).
pub(super) async fn connect(url: &str) -> anyhow::Result<PgPool> {
    let opts: sqlx::postgres::PgConnectOptions = url.parse().context("the Postgres URL")?;
    PgPoolOptions::new()
        .max_connections(16)
        .connect_with(opts.options([("plan_cache_mode", "force_custom_plan")]))
        .await
        .context("connecting to Postgres")
}

/// Inserts a batch in one transaction of two multi-row statements: the deliveries (skipping ids
/// already stored) and a job for each delivery inserted. Returns the inserted ids.
pub(super) async fn insert_deliveries(
    pool: &PgPool,
    batch: &[NewDelivery],
    now_ms: i64,
) -> anyhow::Result<std::collections::HashSet<String>> {
    let mut tx = pool.begin().await?;
    let mut q = deliveries_insert!(sqlx::Postgres, batch);
    let ids: std::collections::HashSet<String> = q
        .build_query_scalar::<String>()
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .collect();
    let fresh = first_occurrences(batch, &ids);
    let new_jobs: Vec<&NewDelivery> = batch
        .iter()
        .zip(&fresh)
        .filter(|(_, o)| **o == InsertOutcome::Queued)
        .map(|(d, _)| d)
        .collect();
    if !new_jobs.is_empty() {
        let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
            "INSERT INTO jobs (delivery_id, event, action, serial_key, state, attempts, run_at_ms, created_at_ms, updated_at_ms, lane) ",
        );
        q.push_values(new_jobs, |mut row, d| {
            row.push_bind(d.delivery_id.as_str())
                .push_bind(d.event.as_str())
                .push_bind(d.action.as_deref())
                .push_bind(d.serial_key.as_str())
                .push_bind("queued")
                .push_bind(0i32)
                .push_bind(now_ms)
                .push_bind(now_ms)
                .push_bind(now_ms)
                .push_bind(d.installation_id.unwrap_or(0));
        });
        q.build().execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(ids)
}

/// Candidates are locked with `FOR UPDATE SKIP LOCKED`, so replicas never wait on each other's
/// rows; a candidate is taken only when its serial key's row in `job_keys` is won (inserted, or
/// its lease expired). The primary key on `job_keys` is what serialises jobs of one PR across
/// replicas: a concurrent insert of the same key waits for the first and then finds it taken.
///
/// With a bound, the candidates' running counts come from the statement's snapshot, which
/// misses a claim another transaction has made and not yet committed: two claims could each take
/// the lane's last place. So a bounded claim takes the lane's transaction lock and counts the
/// lane's running jobs again, in a statement that sees every claim committed before the lock was
/// won. The first pass only tries the lock (a lane being claimed right now is skipped); when
/// that left it empty-handed, a second pass waits for the busy lane's lock before it looks, so
/// a worker is not left idle by a near miss. A transaction waits on a lane lock only while it
/// holds none, so two claims never wait on each other.
pub(super) async fn claim_job(
    pool: &PgPool,
    owner: &str,
    replica: &str,
    now_ms: i64,
    lease_ms: i64,
    lane_cap: i64,
) -> anyhow::Result<Option<ClaimedJob>> {
    let claim = Claim {
        owner,
        replica,
        now_ms,
        lease_ms,
        lane_cap,
    };
    Ok(match claim.pass(pool, None).await? {
        Pass::Took(job) => Some(job),
        Pass::Nothing => None,
        Pass::Busy(lane) => match claim.pass(pool, Some(lane)).await? {
            Pass::Took(job) => Some(job),
            Pass::Nothing | Pass::Busy(_) => None,
        },
    })
}

struct Claim<'a> {
    owner: &'a str,
    replica: &'a str,
    now_ms: i64,
    lease_ms: i64,
    lane_cap: i64,
}

enum Pass {
    Took(ClaimedJob),
    Nothing,
    /// Nothing taken, and this lane was skipped because another claim held its lock.
    Busy(i64),
}

impl Claim<'_> {
    async fn pass(&self, pool: &PgPool, wait_for: Option<i64>) -> anyhow::Result<Pass> {
        // Fair across installations (docs/service.md#the-job-queue): the lanes with the fewest
        // running jobs first, then the oldest ready job.
        const CANDIDATES: &str = "WITH busy AS (SELECT lane, COUNT(*) AS n FROM jobs \
                WHERE state = 'running' AND lease_until_ms >= $1 GROUP BY lane) \
            SELECT j.id, j.serial_key, j.lane FROM jobs j LEFT JOIN busy b ON b.lane = j.lane \
            WHERE ((j.state = 'queued' AND j.run_at_ms <= $1) \
                OR (j.state = 'running' AND j.lease_until_ms < $1)) \
              AND COALESCE(b.n, 0) < $2 \
              AND NOT EXISTS (SELECT 1 FROM job_keys k WHERE k.serial_key = j.serial_key \
                AND k.job_id <> j.id AND k.lease_until_ms >= $1) \
            ORDER BY COALESCE(b.n, 0), j.run_at_ms, j.id LIMIT 8 FOR UPDATE OF j SKIP LOCKED";
        const TAKE_KEY: &str = "INSERT INTO job_keys (serial_key, job_id, lease_until_ms) VALUES ($1, $2, $3) \
            ON CONFLICT (serial_key) DO UPDATE SET job_id = EXCLUDED.job_id, lease_until_ms = EXCLUDED.lease_until_ms \
            WHERE job_keys.lease_until_ms < $4 OR job_keys.job_id = EXCLUDED.job_id";
        const TAKE_JOB: &str = "UPDATE jobs SET state = 'running', lease_owner = $1, lease_until_ms = $3, \
                replica = $5, attempts = attempts + 1, updated_at_ms = $2 WHERE id = $4 \
            RETURNING id, kind, args, delivery_id, event, action, serial_key, attempts, created_at_ms";
        const TRY_LANE: &str =
            "SELECT pg_try_advisory_xact_lock(hashtext('repro-gate lane ' || $1::text))";
        const WAIT_LANE: &str =
            "SELECT pg_advisory_xact_lock(hashtext('repro-gate lane ' || $1::text))";
        const LANE_RUNNING: &str = "SELECT COUNT(*) FROM jobs \
            WHERE lane = $1 AND state = 'running' AND lease_until_ms >= $2";

        let mut tx = pool.begin().await?;
        let mut lanes_held = std::collections::HashSet::new();
        if let Some(lane) = wait_for {
            sqlx::query(WAIT_LANE).bind(lane).execute(&mut *tx).await?;
            lanes_held.insert(lane);
        }
        let candidates: Vec<(i64, String, i64)> = sqlx::query_as(CANDIDATES)
            .bind(self.now_ms)
            .bind(self.lane_cap)
            .fetch_all(&mut *tx)
            .await?;
        let until = self.now_ms + self.lease_ms;
        let mut busy = None;
        for (id, key, lane) in candidates {
            if self.lane_cap < i64::MAX {
                if !lanes_held.contains(&lane) {
                    let locked: bool = sqlx::query_scalar(TRY_LANE)
                        .bind(lane)
                        .fetch_one(&mut *tx)
                        .await?;
                    if !locked {
                        busy.get_or_insert(lane);
                        continue;
                    }
                    lanes_held.insert(lane);
                }
                let running: i64 = sqlx::query_scalar(LANE_RUNNING)
                    .bind(lane)
                    .bind(self.now_ms)
                    .fetch_one(&mut *tx)
                    .await?;
                if running >= self.lane_cap {
                    continue;
                }
            }
            let won = sqlx::query(TAKE_KEY)
                .bind(&key)
                .bind(id)
                .bind(until)
                .bind(self.now_ms)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if won == 0 {
                continue;
            }
            let row = sqlx::query(TAKE_JOB)
                .bind(self.owner)
                .bind(self.now_ms)
                .bind(until)
                .bind(id)
                .bind(self.replica)
                .fetch_one(&mut *tx)
                .await?;
            let job = ClaimedJob::from_row(&row, self.owner)?;
            tx.commit().await?;
            return Ok(Pass::Took(job));
        }
        tx.commit().await?;
        Ok(busy.map_or(Pass::Nothing, Pass::Busy))
    }
}

pub(super) async fn extend_key_lease(
    pool: &PgPool,
    job: &ClaimedJob,
    until_ms: i64,
) -> anyhow::Result<()> {
    sqlx::query("UPDATE job_keys SET lease_until_ms = $1 WHERE serial_key = $2 AND job_id = $3")
        .bind(until_ms)
        .bind(&job.serial_key)
        .bind(job.id)
        .execute(pool)
        .await?;
    Ok(())
}

pub(super) async fn release_key(pool: &PgPool, job: &ClaimedJob) -> anyhow::Result<()> {
    sqlx::query("DELETE FROM job_keys WHERE serial_key = $1 AND job_id = $2")
        .bind(&job.serial_key)
        .bind(job.id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Deliveries older than `cutoff_ms` whose jobs are gone.
pub(super) async fn prune_deliveries(
    pool: &PgPool,
    cutoff_ms: i64,
    limit: i64,
) -> anyhow::Result<u64> {
    const SQL: &str = "DELETE FROM deliveries WHERE delivery_id IN ( \
        SELECT d.delivery_id FROM deliveries d \
        WHERE d.received_at_ms < $1 \
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.delivery_id = d.delivery_id) \
        ORDER BY d.received_at_ms LIMIT $2)";
    Ok(sqlx::query(SQL)
        .bind(cutoff_ms)
        .bind(limit)
        .execute(pool)
        .await?
        .rows_affected())
}

/// Frees the serial keys held by jobs that are no longer running.
pub(super) async fn free_keys_of(pool: &PgPool, job_ids: &[i64]) -> anyhow::Result<()> {
    if job_ids.is_empty() {
        return Ok(());
    }
    sqlx::query("DELETE FROM job_keys WHERE job_id = ANY($1)")
        .bind(job_ids)
        .execute(pool)
        .await?;
    Ok(())
}
