//! The history's rows: runs (recorded once), each test's window, pull-request SHA outcomes,
//! proposed tier changes, upload tokens and scheduled publishes.

use std::collections::HashMap;

use anyhow::Context as _;
use sqlx::Row as _;

use super::Store;
use crate::core::failures::Outcome;
use crate::core::history::record::{Ledger, RunClass, ShaOutcomes};
use crate::core::history::window::Window;

/// Rows per multi-row statement.
const CHUNK: usize = 400;

/// A run to record.
#[derive(Clone, Debug)]
pub struct NewRun<'a> {
    pub repository: &'a str,
    pub run_id: &'a str,
    pub attempt: i64,
    pub sha: &'a str,
    pub branch: &'a str,
    pub class: RunClass,
    pub source: &'a str,
    pub installation_id: Option<i64>,
    pub now_ms: i64,
    /// `YYYY-MM-DD` of the run (first and last failures are dated by it).
    pub day: &'a str,
    /// The run's page.
    pub url: Option<&'a str>,
    /// The pull request it ran for.
    pub pr: Option<i64>,
}

/// Failing results of one run kept with their story (an outage's first ones).
pub const MAX_FAILURES_PER_RUN: usize = 500;

/// How long a failure's story is kept.
pub const FAILURES_KEPT_MS: i64 = 180 * 86_400_000;

/// What recording did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Newly recorded, with this many results.
    New(usize),
    /// This run and attempt were recorded before.
    Duplicate,
}

/// An upload token's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    pub id: i64,
    pub repository: String,
}

/// The column is `INTEGER` on both backends: 32 bits on Postgres, so an `i32` both ways (an
/// `i64` fails to decode there, and a PR's run was never recorded on Postgres).
fn flags(s: ShaOutcomes) -> i32 {
    i32::from(s.failed) | (i32::from(s.passed) << 1) | (i32::from(s.counted) << 2)
}

fn from_flags(f: i32) -> ShaOutcomes {
    ShaOutcomes {
        failed: f & 1 != 0,
        passed: f & 2 != 0,
        counted: f & 4 != 0,
    }
}

/// The statements of one recording, the same on both backends (the builder's database type
/// differs).
macro_rules! record_in_tx {
    ($db:ty, $tx:expr, $run:expr, $results:expr, $messages:expr, $durations:expr) => {{
        let run = $run;
        let results: &[(String, Outcome)] = $results;
        let messages: &HashMap<String, String> = $messages;
        let durations: &HashMap<String, u64> = $durations;
        let inserted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO history_runs (repository, run_id, attempt, sha, branch, class, results, source, installation_id, recorded_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id",
        )
        .bind(run.repository)
        .bind(run.run_id)
        .bind(run.attempt)
        .bind(run.sha)
        .bind(run.branch)
        .bind(run.class.as_str())
        .bind(results.len() as i64)
        .bind(run.source)
        .bind(run.installation_id)
        .bind(run.now_ms)
        .fetch_optional(&mut *$tx)
        .await?;
        if inserted.is_none() {
            Recorded::Duplicate
        } else {
            for chunk in results.chunks(CHUNK) {
                // The rows this chunk touches, into the ledger; the ledger applies the results;
                // the rows it moved go back.
                let mut ledger = Ledger::default();
                if run.class == RunClass::PullRequest {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "SELECT test, flags FROM history_pr_outcomes WHERE repository = ",
                    );
                    q.push_bind(run.repository).push(" AND sha = ").push_bind(run.sha).push(" AND test IN (");
                    let mut sep = q.separated(", ");
                    for (t, _) in chunk {
                        sep.push_bind(t.as_str());
                    }
                    q.push(")");
                    for r in q.build().fetch_all(&mut *$tx).await? {
                        ledger.pr.insert(
                            (run.sha.to_string(), r.try_get("test")?),
                            from_flags(r.try_get("flags")?),
                        );
                    }
                }
                if run.class != RunClass::Outage {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "SELECT test, win FROM history_tests WHERE repository = ",
                    );
                    q.push_bind(run.repository).push(" AND test IN (");
                    let mut sep = q.separated(", ");
                    for (t, _) in chunk {
                        sep.push_bind(t.as_str());
                    }
                    q.push(")");
                    for r in q.build().fetch_all(&mut *$tx).await? {
                        let bytes: Vec<u8> = r.try_get("win")?;
                        ledger.windows.insert(r.try_get("test")?, Window::decode(&bytes));
                    }
                }
                let moved: std::collections::HashSet<&str> =
                    ledger.apply(run.class, run.sha, chunk, run.day, run.now_ms, durations).into_iter().collect();
                if run.class == RunClass::PullRequest && !ledger.pr.is_empty() {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO history_pr_outcomes (repository, sha, test, flags) ",
                    );
                    q.push_values(ledger.pr.iter(), |mut row, ((sha, t), seen)| {
                        row.push_bind(run.repository).push_bind(sha.as_str()).push_bind(t.as_str()).push_bind(flags(*seen));
                    });
                    q.push(" ON CONFLICT (repository, sha, test) DO UPDATE SET flags = EXCLUDED.flags");
                    q.build().execute(&mut *$tx).await?;
                }
                let encoded: Vec<(&str, Vec<u8>, [i64; 4])> = ledger
                    .windows
                    .iter()
                    .filter(|(t, _)| moved.contains(t.as_str()))
                    .map(|(t, w)| (t.as_str(), w.encode(), super::dashboard::window_marks(w)))
                    .collect();
                if !encoded.is_empty() {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO history_tests (repository, test, win, updated_ms, runs, failures, flakes, tail_fails) ",
                    );
                    q.push_values(encoded, |mut row, (t, w, [runs, failures, flakes, tail])| {
                        row.push_bind(run.repository).push_bind(t).push_bind(w).push_bind(run.now_ms)
                            .push_bind(runs).push_bind(failures).push_bind(flakes).push_bind(tail);
                    });
                    q.push(" ON CONFLICT (repository, test) DO UPDATE SET win = EXCLUDED.win, updated_ms = EXCLUDED.updated_ms, \
                        runs = EXCLUDED.runs, failures = EXCLUDED.failures, flakes = EXCLUDED.flakes, tail_fails = EXCLUDED.tail_fails");
                    q.build().execute(&mut *$tx).await?;
                }
            }
            // Each failure with its story, for the test's page.
            let failing: Vec<&(String, Outcome)> = results
                .iter()
                .filter(|(_, o)| matches!(o, Outcome::Fail | Outcome::Flaky))
                .take(MAX_FAILURES_PER_RUN)
                .collect();
            for chunk in failing.chunks(CHUNK / 4) {
                let mut q = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO history_failures (repository, test, run_id, attempt, outcome, class, sha, branch, pr, run_url, at_ms, message) ",
                );
                q.push_values(chunk, |mut row, (t, o)| {
                    row.push_bind(run.repository).push_bind(t.as_str()).push_bind(run.run_id).push_bind(run.attempt)
                        .push_bind(o.as_str()).push_bind(run.class.as_str()).push_bind(run.sha).push_bind(run.branch).push_bind(run.pr)
                        .push_bind(run.url).push_bind(run.now_ms).push_bind(messages.get(t).map(String::as_str));
                });
                q.build().execute(&mut *$tx).await?;
            }
            if !failing.is_empty() {
                sqlx::query("DELETE FROM history_failures WHERE repository = $1 AND at_ms < $2")
                    .bind(run.repository)
                    .bind(run.now_ms - FAILURES_KEPT_MS)
                    .execute(&mut *$tx)
                    .await?;
            }
            Recorded::New(results.len())
        }
    }};
}

impl Store {
    /// Records one run's results, once per (repository, run id, attempt), with every window it
    /// moves, in one transaction. Runs of one repository are recorded one at a time, whatever
    /// the number of replicas.
    pub async fn record_run(
        &self,
        run: &NewRun<'_>,
        results: &[(String, Outcome)],
        messages: &HashMap<String, String>,
        durations: &HashMap<String, u64>,
    ) -> anyhow::Result<Recorded> {
        let outcome = match self {
            Store::Sqlite(pool) => {
                // The first statement writes: SQLite's one writer is taken before the reads.
                let mut tx = pool.begin().await?;
                let r = record_in_tx!(sqlx::Sqlite, tx, run, results, messages, durations);
                tx.commit().await?;
                r
            }
            Store::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                    .bind(run.repository)
                    .execute(&mut *tx)
                    .await?;
                let r = record_in_tx!(sqlx::Postgres, tx, run, results, messages, durations);
                tx.commit().await?;
                r
            }
        };
        Ok(outcome)
    }

    /// Every test window of a repository.
    pub async fn windows(&self, repo: &str) -> anyhow::Result<Vec<(String, Window)>> {
        const SQL: &str = "SELECT test, win FROM history_tests WHERE repository = $1 ORDER BY test";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).bind(repo).fetch_all(pool).await.context("reading the windows")?;
            rows.iter().map(|r| {
                let bytes: Vec<u8> = r.try_get("win")?;
                Ok((r.try_get("test")?, Window::decode(&bytes)))
            }).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// One test's window, by its exact id.
    pub async fn test_window(&self, repo: &str, test: &str) -> anyhow::Result<Option<Window>> {
        const SQL: &str = "SELECT win FROM history_tests WHERE repository = $1 AND test = $2";
        let w = on_pool!(self, pool => sqlx::query_scalar::<_, Vec<u8>>(SQL).bind(repo).bind(test).fetch_optional(pool).await?);
        Ok(w.map(|b| Window::decode(&b)))
    }

    /// The tier changes proposed for a repository: test → (tier, run count then).
    pub async fn proposed_changes(
        &self,
        repo: &str,
    ) -> anyhow::Result<HashMap<String, (String, u64)>> {
        const SQL: &str = "SELECT test, tier, at_total FROM history_changes WHERE repository = $1";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).bind(repo).fetch_all(pool).await?;
            rows.iter().map(|r| Ok((r.try_get::<String, _>("test")?, (r.try_get::<String, _>("tier")?, r.try_get::<i64, _>("at_total")?.max(0) as u64))))
                .collect::<Result<HashMap<_, _>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// The tier change proposed for one test: (tier, run count then).
    pub async fn proposed_change(
        &self,
        repo: &str,
        test: &str,
    ) -> anyhow::Result<Option<(String, u64)>> {
        const SQL: &str =
            "SELECT tier, at_total FROM history_changes WHERE repository = $1 AND test = $2";
        let row = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(test).fetch_optional(pool).await?
                .map(|r| Ok::<_, sqlx::Error>((r.try_get::<String, _>("tier")?, r.try_get::<i64, _>("at_total")?.max(0) as u64)))
                .transpose()?
        });
        Ok(row)
    }

    /// Remembers proposed tier changes (the newest per test). Proposing the same tier again
    /// keeps the run count of its first proposal (a full window counts from there).
    pub async fn propose_changes(
        &self,
        repo: &str,
        changes: &[(String, String, u64)],
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO history_changes (repository, test, tier, at_total) VALUES ($1, $2, $3, $4) \
            ON CONFLICT (repository, test) DO UPDATE SET tier = EXCLUDED.tier, at_total = EXCLUDED.at_total \
            WHERE history_changes.tier <> EXCLUDED.tier";
        for (test, tier, total) in changes {
            let total = i64::try_from(*total).unwrap_or(i64::MAX);
            on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(test).bind(tier).bind(total).execute(pool).await.map(|_| ())?);
        }
        Ok(())
    }

    /// Repositories with recorded history, with the installation that last recorded for them.
    pub async fn history_repositories(&self) -> anyhow::Result<Vec<(String, Option<i64>)>> {
        const SQL: &str = "SELECT repository, MAX(installation_id) AS inst FROM history_runs GROUP BY repository ORDER BY repository";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).fetch_all(pool).await?;
            rows.iter().map(|r| Ok((r.try_get("repository")?, r.try_get("inst")?))).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// Whether a run and attempt were recorded.
    pub async fn has_run(&self, repo: &str, run_id: &str, attempt: i64) -> anyhow::Result<bool> {
        const SQL: &str =
            "SELECT 1 FROM history_runs WHERE repository = $1 AND run_id = $2 AND attempt = $3";
        let found = on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(run_id).bind(attempt).fetch_optional(pool).await?.is_some());
        Ok(found)
    }

    /// Stores an upload token's hash; answers its id.
    pub async fn add_token(&self, repo: &str, hash: &str, now_ms: i64) -> anyhow::Result<i64> {
        const SQL: &str = "INSERT INTO upload_tokens (repository, hash, created_ms) VALUES ($1, $2, $3) RETURNING id";
        let id = on_pool!(self, pool => sqlx::query_scalar::<_, i64>(SQL).bind(repo).bind(hash).bind(now_ms).fetch_one(pool).await?);
        Ok(id)
    }

    /// Revokes a token of `repo`; false when there is no such live token.
    pub async fn revoke_token(&self, repo: &str, id: i64, now_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE upload_tokens SET revoked_ms = $1 WHERE id = $2 AND repository = $3 AND revoked_ms IS NULL";
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(now_ms).bind(id).bind(repo).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// The live token with this hash.
    pub async fn token(&self, hash: &str) -> anyhow::Result<Option<TokenRow>> {
        const SQL: &str =
            "SELECT id, repository FROM upload_tokens WHERE hash = $1 AND revoked_ms IS NULL";
        let row = on_pool!(self, pool => sqlx::query(SQL).bind(hash).fetch_optional(pool).await?
            .map(|r| Ok::<_, sqlx::Error>(TokenRow { id: r.try_get("id")?, repository: r.try_get("repository")? })).transpose()?);
        Ok(row)
    }

    /// When the last scheduled publish of `repo` was due.
    pub async fn last_publish(&self, repo: &str) -> anyhow::Result<Option<i64>> {
        const SQL: &str = "SELECT last_due_ms FROM history_publishes WHERE repository = $1";
        let v = on_pool!(self, pool => sqlx::query_scalar::<_, i64>(SQL).bind(repo).fetch_optional(pool).await?);
        Ok(v)
    }

    pub async fn set_last_publish(&self, repo: &str, due_ms: i64) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO history_publishes (repository, last_due_ms) VALUES ($1, $2) \
            ON CONFLICT (repository) DO UPDATE SET last_due_ms = EXCLUDED.last_due_ms";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(due_ms).execute(pool).await.map(|_| ())?);
        Ok(())
    }
}
