//! What the dashboard reads and keeps (docs/dashboard.md): sign-in sessions, the default branch's
//! reliability file as rows, one page of a repository's tests (sorted and filtered in SQL), tier
//! changes, recent sessions and the gate's outcomes. A page reads one page of rows, never the
//! whole history.

use anyhow::Context as _;
use sqlx::Row as _;

use super::Store;
use crate::core::history::merged::{Tiers, moves};
use crate::core::history::status::{Marks, Status};
use crate::core::history::window::Window;
use crate::core::reliability::Policy;
use crate::core::tier::Tier;

/// The window the dashboard's pass rate is over (the reliability file's default).
pub const DASHBOARD_WINDOW: usize = 200;

/// Outcomes of a test the sparkline shows.
pub const SPARK_RUNS: usize = 50;

/// (runs, failures, flakes, tail failures) over the dashboard's window, as stored beside the
/// window.
pub fn window_marks(w: &Window) -> [i64; 4] {
    let m = Marks::of(w, DASHBOARD_WINDOW);
    [m.runs, m.failures, m.flakes, m.tail_fails].map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

/// A signed-in visitor.
#[derive(Clone, Debug)]
pub struct DashSession {
    pub login: String,
    pub token: String,
}

/// One listed test of the default branch's reliability file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    pub test: String,
    pub tier: String,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    pub note: Option<String>,
    pub pin: bool,
}

impl FileEntry {
    /// A listed test with only its tier.
    pub fn new(test: &str, tier: &str) -> FileEntry {
        FileEntry {
            test: test.into(),
            tier: tier.into(),
            owner: None,
            ticket: None,
            note: None,
            pin: false,
        }
    }
}

/// The default branch's reliability file as last read.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredFile {
    pub sha: String,
    pub policy: Policy,
    pub read_ms: i64,
}

/// A repository on `/dashboard`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RepoSummary {
    pub repository: String,
    pub trusted: u64,
    pub probation: u64,
    pub quarantined: u64,
    /// By status (docs/dashboard.md).
    pub broken: u64,
    pub flaky: u64,
    pub failed_once: u64,
    pub healthy: u64,
}

impl RepoSummary {
    pub fn tests(&self) -> u64 {
        self.trusted + self.probation + self.quarantined
    }

    pub fn of_tier(&self, tier: &str) -> u64 {
        match tier {
            "trusted" => self.trusted,
            "quarantined" => self.quarantined,
            _ => self.probation,
        }
    }

    pub fn of_status(&self, s: Status) -> u64 {
        match s {
            Status::Broken => self.broken,
            Status::Flaky => self.flaky,
            Status::FailedOnce => self.failed_once,
            Status::Healthy => self.healthy,
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TierChange {
    pub repository: String,
    pub test: String,
    /// The tier before (merged changes; a proposal's is the file's tier).
    pub from: Option<String>,
    pub tier: String,
    pub at_ms: i64,
    /// The default branch's commit that set it, its pull request and author, when known
    /// (merged changes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_sha: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pr: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_login: Option<String>,
}

/// One side of a session: (side, failures, runs, run url).
pub type SideLine = (String, Option<i64>, Option<i64>, Option<String>);

/// A rerun or verification session.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RecentSession {
    pub id: String,
    pub purpose: String,
    pub pr: i64,
    pub test: String,
    pub state: String,
    pub verdict: Option<String>,
    pub created_ms: i64,
    pub sides: Vec<SideLine>,
}

/// The gate's outcomes in one week (`week_ms`: its Monday 00:00 UTC).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GateWeek {
    pub week_ms: i64,
    pub evidence: u64,
    pub verified: u64,
    pub overridden: u64,
    pub exempted: u64,
    pub blocked: u64,
}

/// Copies the file's tiers beside the tests (NULL for a test it does not list).
const COPY_TIERS: &str = "UPDATE history_tests SET tier = (SELECT e.tier FROM reliability_entries e \
    WHERE e.repository = history_tests.repository AND e.test = history_tests.test) WHERE repository = $1";

/// Copies the tiers of listed tests recorded since the file was read.
const COPY_NEW_TIERS: &str = "UPDATE history_tests SET tier = (SELECT e.tier FROM reliability_entries e \
    WHERE e.repository = history_tests.repository AND e.test = history_tests.test) \
    WHERE repository = $1 AND tier IS NULL AND EXISTS (SELECT 1 FROM reliability_entries e \
    WHERE e.repository = history_tests.repository AND e.test = history_tests.test)";

impl Store {
    /// Fills `runs` and `failures` of windows stored before the columns existed.
    pub(super) async fn backfill_window_counts(&self) -> anyhow::Result<()> {
        const READ: &str = "SELECT repository, test, win FROM history_tests \
            WHERE runs IS NULL OR flakes IS NULL OR tail_fails IS NULL LIMIT 1000";
        const WRITE: &str = "UPDATE history_tests SET runs = $3, failures = $4, flakes = $5, tail_fails = $6 \
            WHERE repository = $1 AND test = $2";
        loop {
            let rows: Vec<(String, String, Vec<u8>)> = on_pool!(self, pool => {
                sqlx::query(READ).fetch_all(pool).await?.iter()
                    .map(|r| Ok((r.try_get("repository")?, r.try_get("test")?, r.try_get("win")?)))
                    .collect::<Result<Vec<_>, sqlx::Error>>()?
            });
            if rows.is_empty() {
                return Ok(());
            }
            for (repo, test, win) in rows {
                let [runs, failures, flakes, tail] = window_marks(&Window::decode(&win));
                on_pool!(self, pool => sqlx::query(WRITE).bind(&repo).bind(&test).bind(runs).bind(failures).bind(flakes).bind(tail).execute(pool).await.map(|_| ()))
                    .context("filling a window's counts")?;
            }
        }
    }

    pub async fn insert_dash_session(
        &self,
        id_hash: &str,
        s: &DashSession,
        now_ms: i64,
        expires_ms: i64,
    ) -> anyhow::Result<()> {
        const PURGE: &str = "DELETE FROM dashboard_sessions WHERE expires_ms < $1";
        const SQL: &str = "INSERT INTO dashboard_sessions (id_hash, login, token, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5)";
        on_pool!(self, pool => sqlx::query(PURGE).bind(now_ms).execute(pool).await.map(|_| ()))?;
        on_pool!(self, pool => sqlx::query(SQL).bind(id_hash).bind(&s.login).bind(&s.token).bind(now_ms).bind(expires_ms).execute(pool).await.map(|_| ()))
            .context("storing a dashboard session")
    }

    pub async fn dash_session(
        &self,
        id_hash: &str,
        now_ms: i64,
    ) -> anyhow::Result<Option<DashSession>> {
        const SQL: &str =
            "SELECT login, token FROM dashboard_sessions WHERE id_hash = $1 AND expires_ms > $2";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(id_hash).bind(now_ms).fetch_optional(pool).await? {
                Some(r) => Some(DashSession { login: r.try_get("login")?, token: r.try_get("token")? }),
                None => None,
            }
        });
        Ok(row)
    }

    pub async fn delete_dash_session(&self, id_hash: &str) -> anyhow::Result<()> {
        const SQL: &str = "DELETE FROM dashboard_sessions WHERE id_hash = $1";
        on_pool!(self, pool => sqlx::query(SQL).bind(id_hash).execute(pool).await.map(|_| ()))
            .context("deleting a dashboard session")
    }

    /// The reliability file last read for `repo`: its blob sha, policy and when.
    pub async fn reliability_file_read(&self, repo: &str) -> anyhow::Result<Option<StoredFile>> {
        const SQL: &str = "SELECT sha, default_tier, policy, read_ms FROM reliability_files WHERE repository = $1";
        let row: Option<(String, String, Option<String>, i64)> = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(repo).fetch_optional(pool).await? {
                Some(r) => Some((r.try_get("sha")?, r.try_get("default_tier")?, r.try_get("policy")?, r.try_get("read_ms")?)),
                None => None,
            }
        });
        Ok(row.map(|(sha, default_tier, policy, read_ms)| {
            // A row from before the policy was kept: the defaults, with its default tier.
            let policy = policy
                .and_then(|p| serde_json::from_str::<Policy>(&p).ok())
                .unwrap_or_else(|| Policy {
                    default_tier: Tier::named(&default_tier).unwrap_or(Tier::Probation),
                    ..Policy::default()
                });
            StoredFile {
                sha,
                policy,
                read_ms,
            }
        }))
    }

    /// The listed tests' tiers of the stored file.
    async fn stored_tiers(&self, repo: &str) -> anyhow::Result<Option<Tiers>> {
        const SQL: &str = "SELECT test, tier FROM reliability_entries WHERE repository = $1";
        let Some(file) = self.reliability_file_read(repo).await? else {
            return Ok(None);
        };
        let listed = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).fetch_all(pool).await?.iter()
                .map(|r| Ok((r.try_get("test")?, r.try_get("tier")?)))
                .collect::<Result<std::collections::HashMap<String, String>, sqlx::Error>>()?
        });
        Ok(Some(Tiers {
            default_tier: file.policy.default_tier.as_str().to_string(),
            listed,
        }))
    }

    /// Replaces the rows of `repo`'s reliability file (one transaction), logging the tiers
    /// that moved since the blob read before (the merged changes).
    pub async fn replace_reliability_file(
        &self,
        repo: &str,
        (sha, policy): (&str, &Policy),
        entries: &[FileEntry],
        now_ms: i64,
    ) -> anyhow::Result<usize> {
        let default_tier = policy.default_tier.as_str();
        let policy_json = serde_json::to_string(policy).context("writing the policy")?;
        let moved = match self.stored_tiers(repo).await? {
            Some(old) => moves(
                &old,
                &Tiers {
                    default_tier: default_tier.to_string(),
                    listed: entries
                        .iter()
                        .map(|e| (e.test.clone(), e.tier.clone()))
                        .collect(),
                },
            ),
            None => Vec::new(),
        };
        macro_rules! replace {
            ($db:ty, $pool:expr) => {{
                let mut tx = $pool.begin().await?;
                sqlx::query("DELETE FROM reliability_entries WHERE repository = $1")
                    .bind(repo)
                    .execute(&mut *tx)
                    .await?;
                for chunk in entries.chunks(500) {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO reliability_entries (repository, test, tier, owner, ticket, note, pin) ",
                    );
                    q.push_values(chunk, |mut row, e| {
                        row.push_bind(repo)
                            .push_bind(e.test.as_str())
                            .push_bind(e.tier.as_str())
                            .push_bind(e.owner.as_deref())
                            .push_bind(e.ticket.as_deref())
                            .push_bind(e.note.as_deref())
                            .push_bind(i64::from(e.pin));
                    });
                    q.push(" ON CONFLICT (repository, test) DO NOTHING");
                    q.build().execute(&mut *tx).await?;
                }
                sqlx::query(
                    "INSERT INTO reliability_files (repository, sha, default_tier, policy, read_ms) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (repository) DO UPDATE SET sha = EXCLUDED.sha, default_tier = EXCLUDED.default_tier, \
                     policy = EXCLUDED.policy, read_ms = EXCLUDED.read_ms",
                )
                .bind(repo)
                .bind(sha)
                .bind(default_tier)
                .bind(&policy_json)
                .bind(now_ms)
                .execute(&mut *tx)
                .await?;
                for chunk in moved.chunks(500) {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO file_tier_changes (repository, test, from_tier, tier, at_ms) ",
                    );
                    q.push_values(chunk, |mut row, m| {
                        row.push_bind(repo)
                            .push_bind(m.test.as_str())
                            .push_bind(m.from.as_str())
                            .push_bind(m.to.as_str())
                            .push_bind(now_ms);
                    });
                    q.build().execute(&mut *tx).await?;
                }
                sqlx::query(COPY_TIERS).bind(repo).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok::<usize, sqlx::Error>(moved.len())
            }};
        }
        match self {
            Store::Sqlite(pool) => replace!(sqlx::Sqlite, pool),
            Store::Postgres(pool) => replace!(sqlx::Postgres, pool),
        }
        .context("storing the reliability file's rows")
    }

    /// Marks the stored file as read now (it has not changed), and gives tests recorded since
    /// their listed tier.
    pub async fn touch_reliability_file(&self, repo: &str, now_ms: i64) -> anyhow::Result<()> {
        const SQL: &str = "UPDATE reliability_files SET read_ms = $2 WHERE repository = $1";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(now_ms).execute(pool).await.map(|_| ()))
            .context("touching the reliability file")?;
        on_pool!(self, pool => sqlx::query(COPY_NEW_TIERS).bind(repo).execute(pool).await.map(|_| ()))
            .context("copying the tiers of new tests")
    }

    /// Tier changes merged into `repo`'s default branch file since `since_ms`, newest first
    /// (at most `limit`).
    pub async fn tier_changes(
        &self,
        repo: &str,
        since_ms: i64,
        limit: i64,
    ) -> anyhow::Result<Vec<TierChange>> {
        const SQL: &str = "SELECT test, from_tier, tier, at_ms, commit_sha, pr, by_login FROM file_tier_changes WHERE repository = $1 AND at_ms >= $2 \
            ORDER BY at_ms DESC, test LIMIT $3";
        let rows = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(since_ms).bind(limit).fetch_all(pool).await?.iter()
                .map(|r| Ok(TierChange { repository: repo.to_string(), test: r.try_get("test")?, from: r.try_get("from_tier")?,
                    tier: r.try_get("tier")?, at_ms: r.try_get("at_ms")?, commit_sha: r.try_get("commit_sha")?,
                    pr: r.try_get("pr")?, by_login: r.try_get("by_login")? }))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// The newest merged change that set `test`'s tier, if one was seen.
    pub async fn tier_set_by(&self, repo: &str, test: &str) -> anyhow::Result<Option<TierChange>> {
        const SQL: &str = "SELECT test, from_tier, tier, at_ms, commit_sha, pr, by_login FROM file_tier_changes \
            WHERE repository = $1 AND test = $2 ORDER BY at_ms DESC LIMIT 1";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(repo).bind(test).fetch_optional(pool).await? {
                Some(r) => Some(TierChange { repository: repo.to_string(), test: r.try_get("test")?, from: r.try_get("from_tier")?,
                    tier: r.try_get("tier")?, at_ms: r.try_get("at_ms")?, commit_sha: r.try_get("commit_sha")?,
                    pr: r.try_get("pr")?, by_login: r.try_get("by_login")? }),
                None => None,
            }
        });
        Ok(row)
    }

    /// The changes seen at the file read of `read_ms` were set by this commit: its time (not
    /// the read's), pull request and author.
    pub async fn set_tier_origin(
        &self,
        repo: &str,
        read_ms: i64,
        commit_sha: &str,
        commit_ms: Option<i64>,
        pr: Option<i64>,
        by_login: Option<&str>,
    ) -> anyhow::Result<()> {
        const SQL: &str = "UPDATE file_tier_changes SET commit_sha = $3, pr = $4, by_login = $5, at_ms = COALESCE($6, at_ms) \
            WHERE repository = $1 AND at_ms = $2 AND commit_sha IS NULL";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(read_ms).bind(commit_sha).bind(pr).bind(by_login)
            .bind(commit_ms.filter(|&c| c <= read_ms)).execute(pool).await.map(|_| ()))
            .context("recording who set the tiers")
    }

    /// The history's proposals the file has not taken: tests whose proposed tier differs from
    /// the file's, newest proposal first (at most `limit`).
    pub async fn open_proposals(
        &self,
        repo: &str,
        default_tier: &str,
        limit: i64,
    ) -> anyhow::Result<Vec<TierChange>> {
        const SQL: &str = "SELECT c.test, COALESCE(e.tier, $2) AS from_tier, c.tier, \
            (SELECT MAX(x.at_ms) FROM tier_changes x WHERE x.repository = c.repository AND x.test = c.test) AS at_ms \
            FROM history_changes c LEFT JOIN reliability_entries e ON e.repository = c.repository AND e.test = c.test \
            WHERE c.repository = $1 AND c.tier <> COALESCE(e.tier, $2) ORDER BY at_ms DESC, c.test LIMIT $3";
        let rows = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(default_tier).bind(limit).fetch_all(pool).await?.iter()
                .map(|r| Ok(TierChange { repository: repo.to_string(), test: r.try_get("test")?, from: r.try_get("from_tier")?,
                    tier: r.try_get("tier")?, at_ms: r.try_get::<Option<i64>, _>("at_ms")?.unwrap_or(0),
                    commit_sha: None, pr: None, by_login: None }))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// Logs tier changes (the published file's).
    pub async fn log_tier_changes(
        &self,
        repo: &str,
        changes: &[(String, String)],
        now_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str =
            "INSERT INTO tier_changes (repository, test, tier, at_ms) VALUES ($1, $2, $3, $4)";
        for (test, tier) in changes {
            on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(test).bind(tier).bind(now_ms).execute(pool).await.map(|_| ()))?;
        }
        Ok(())
    }

    /// The pull request the last publish opened or updated.
    pub async fn set_reliability_pull(
        &self,
        repo: &str,
        number: i64,
        now_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO reliability_pulls (repository, number, at_ms) VALUES ($1, $2, $3) \
            ON CONFLICT (repository) DO UPDATE SET number = EXCLUDED.number, at_ms = EXCLUDED.at_ms";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(number).bind(now_ms).execute(pool).await.map(|_| ()))
            .context("remembering the reliability pull request")
    }

    pub async fn reliability_pull(&self, repo: &str) -> anyhow::Result<Option<(i64, i64)>> {
        const SQL: &str = "SELECT number, at_ms FROM reliability_pulls WHERE repository = $1";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(repo).fetch_optional(pool).await? {
                Some(r) => Some((r.try_get("number")?, r.try_get("at_ms")?)),
                None => None,
            }
        });
        Ok(row)
    }

    /// The newest rerun and verification sessions of `repo`.
    /// `test`: only this test's (`""`: every test's).
    pub async fn recent_sessions(
        &self,
        repo: &str,
        test: &str,
        limit: i64,
    ) -> anyhow::Result<Vec<RecentSession>> {
        const SQL: &str = "SELECT id, purpose, pr_number, test, claim_test, state, verdict, created_ms FROM rerun_sessions \
            WHERE repository = $1 AND ($3 = '' OR test = $3 OR claim_test = $3) ORDER BY created_ms DESC, id LIMIT $2";
        const SIDES: &str = "SELECT side, failures, runs, run_url FROM rerun_sides WHERE session = $1 ORDER BY side DESC";
        let mut out = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(limit).bind(test).fetch_all(pool).await?.iter()
                .map(|r| {
                    let test: String = r.try_get("test")?;
                    let claim: Option<String> = r.try_get("claim_test")?;
                    Ok(RecentSession {
                        id: r.try_get("id")?,
                        purpose: r.try_get("purpose")?,
                        pr: r.try_get("pr_number")?,
                        test: claim.filter(|c| !c.is_empty()).unwrap_or(test),
                        state: r.try_get("state")?,
                        verdict: r.try_get("verdict")?,
                        created_ms: r.try_get("created_ms")?,
                        sides: Vec::new(),
                    })
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        for s in &mut out {
            s.sides = on_pool!(self, pool => {
                sqlx::query(SIDES).bind(&s.id).fetch_all(pool).await?.iter()
                    .map(|r| Ok((r.try_get("side")?, r.try_get("failures")?, r.try_get("runs")?, r.try_get("run_url")?)))
                    .collect::<Result<Vec<_>, sqlx::Error>>()?
            });
        }
        Ok(out)
    }

    /// Records what the gate concluded for a PR head (the newest basis wins).
    pub async fn record_gate_outcome(
        &self,
        repo: &str,
        pr: i64,
        head_sha: &str,
        basis: &str,
        now_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO gate_outcomes (repository, pr, head_sha, basis, at_ms) VALUES ($1, $2, $3, $4, $5) \
            ON CONFLICT (repository, pr, head_sha) DO UPDATE SET basis = EXCLUDED.basis, at_ms = EXCLUDED.at_ms";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(pr).bind(head_sha).bind(basis).bind(now_ms).execute(pool).await.map(|_| ()))
            .context("recording the gate's outcome")
    }

    /// (basis, at_ms) of the gate's outcomes since `since_ms`.
    pub async fn gate_outcomes(
        &self,
        repo: &str,
        since_ms: i64,
    ) -> anyhow::Result<Vec<(String, i64)>> {
        const SQL: &str =
            "SELECT basis, at_ms FROM gate_outcomes WHERE repository = $1 AND at_ms >= $2";
        let rows = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(since_ms).fetch_all(pool).await?.iter()
                .map(|r| Ok((r.try_get("basis")?, r.try_get("at_ms")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }
}
