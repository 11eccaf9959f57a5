//! What the dashboard reads and keeps (§13): sign-in sessions, the default branch's
//! reliability file as rows, one page of a repository's tests (sorted and filtered in SQL), tier
//! changes, recent sessions and the gate's outcomes. A page reads one page of rows, never the
//! whole history.

use anyhow::Context as _;
use sqlx::Row as _;

use super::Store;
use crate::core::history::window::Window;

/// The window the dashboard's pass rate is over (the reliability file's default).
pub const DASHBOARD_WINDOW: usize = 200;

/// Outcomes of a test the sparkline shows.
pub const SPARK_RUNS: usize = 50;

/// (runs, failures) over the dashboard's window, as stored beside the window.
pub fn window_counts(w: &Window) -> (i64, i64) {
    let (runs, failures) = w.counts(DASHBOARD_WINDOW);
    (runs as i64, failures as i64)
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
}

/// How a page of tests is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestSort {
    /// Quarantined first, then probation, then trusted; by name within a tier.
    #[default]
    Tier,
    /// Lowest pass rate first.
    PassRate,
    /// Most runs first.
    Runs,
    /// By test id.
    Name,
}

impl TestSort {
    pub const ALL: [TestSort; 4] = [
        TestSort::Tier,
        TestSort::PassRate,
        TestSort::Runs,
        TestSort::Name,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TestSort::Tier => "tier",
            TestSort::PassRate => "pass_rate",
            TestSort::Runs => "runs",
            TestSort::Name => "name",
        }
    }

    /// A fixed ORDER BY (never built from input).
    fn order_by(self) -> &'static str {
        match self {
            TestSort::Tier => {
                "CASE COALESCE(t.tier, $2) WHEN 'quarantined' THEN 0 WHEN 'probation' THEN 1 ELSE 2 END, t.test"
            }
            TestSort::PassRate => {
                "CASE WHEN COALESCE(t.runs, 0) > 0 THEN (t.failures * 1.0) / t.runs ELSE 0 END DESC, t.test"
            }
            TestSort::Runs => "COALESCE(t.runs, 0) DESC, t.test",
            TestSort::Name => "t.test",
        }
    }
}

/// Which page of which tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestQuery {
    pub tier: Option<String>,
    pub sort: TestSort,
    /// From 1.
    pub page: u32,
    pub per_page: u32,
}

/// One test on a page.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestRow {
    pub test: String,
    /// The default branch's file's tier (the default tier when not listed).
    pub tier: String,
    /// Listed in the default branch's file.
    pub listed: bool,
    /// The tier the history proposes, when it differs from `tier`.
    pub proposed_tier: Option<String>,
    pub runs: i64,
    pub failures: i64,
    pub pass_rate: Option<f64>,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    /// The last outcomes, oldest first: true for a failure.
    pub recent: Vec<bool>,
    pub updated_ms: i64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestPage {
    pub tests: Vec<TestRow>,
    pub total: u64,
}

/// A repository on `/dashboard`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RepoSummary {
    pub repository: String,
    pub trusted: u64,
    pub probation: u64,
    pub quarantined: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TierChange {
    pub repository: String,
    pub test: String,
    pub tier: String,
    pub at_ms: i64,
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

/// The page's ids, in order: one table, no join (the tier is copied beside each test).
const PAGE_SQL_HEAD: &str = "SELECT t.test FROM history_tests t \
    WHERE t.repository = $1 AND ($3 = '' OR COALESCE(t.tier, $2) = $3) ORDER BY ";

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
        const READ: &str =
            "SELECT repository, test, win FROM history_tests WHERE runs IS NULL LIMIT 1000";
        const WRITE: &str =
            "UPDATE history_tests SET runs = $3, failures = $4 WHERE repository = $1 AND test = $2";
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
                let (runs, failures) = window_counts(&Window::decode(&win));
                on_pool!(self, pool => sqlx::query(WRITE).bind(&repo).bind(&test).bind(runs).bind(failures).execute(pool).await.map(|_| ()))
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

    /// The blob sha and default tier of the reliability file last read for `repo`.
    pub async fn reliability_file_read(
        &self,
        repo: &str,
    ) -> anyhow::Result<Option<(String, String, i64)>> {
        const SQL: &str =
            "SELECT sha, default_tier, read_ms FROM reliability_files WHERE repository = $1";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(repo).fetch_optional(pool).await? {
                Some(r) => Some((r.try_get("sha")?, r.try_get("default_tier")?, r.try_get("read_ms")?)),
                None => None,
            }
        });
        Ok(row)
    }

    /// Replaces the rows of `repo`'s reliability file (one transaction).
    pub async fn replace_reliability_file(
        &self,
        repo: &str,
        (sha, default_tier): (&str, &str),
        entries: &[FileEntry],
        now_ms: i64,
    ) -> anyhow::Result<()> {
        macro_rules! replace {
            ($db:ty, $pool:expr) => {{
                let mut tx = $pool.begin().await?;
                sqlx::query("DELETE FROM reliability_entries WHERE repository = $1")
                    .bind(repo)
                    .execute(&mut *tx)
                    .await?;
                for chunk in entries.chunks(500) {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO reliability_entries (repository, test, tier, owner, ticket) ",
                    );
                    q.push_values(chunk, |mut row, e| {
                        row.push_bind(repo)
                            .push_bind(e.test.as_str())
                            .push_bind(e.tier.as_str())
                            .push_bind(e.owner.as_deref())
                            .push_bind(e.ticket.as_deref());
                    });
                    q.push(" ON CONFLICT (repository, test) DO NOTHING");
                    q.build().execute(&mut *tx).await?;
                }
                sqlx::query(
                    "INSERT INTO reliability_files (repository, sha, default_tier, read_ms) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (repository) DO UPDATE SET sha = EXCLUDED.sha, default_tier = EXCLUDED.default_tier, read_ms = EXCLUDED.read_ms",
                )
                .bind(repo)
                .bind(sha)
                .bind(default_tier)
                .bind(now_ms)
                .execute(&mut *tx)
                .await?;
                sqlx::query(COPY_TIERS).bind(repo).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok::<(), sqlx::Error>(())
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

    /// One page of `repo`'s recorded tests: the ids in order from one table, then those rows'
    /// details. `total` is the count of the filter, from `counts` (the repository's tier counts).
    pub async fn test_page(
        &self,
        repo: &str,
        default_tier: &str,
        counts: &RepoSummary,
        q: &TestQuery,
    ) -> anyhow::Result<TestPage> {
        let tier = q.tier.clone().unwrap_or_default();
        let per = i64::from(q.per_page.clamp(1, 1000));
        let offset = i64::from(q.page.max(1) - 1) * per;
        // Safe: the only part not constant is one of `TestSort`'s fixed ORDER BY clauses.
        let sql = format!("{PAGE_SQL_HEAD}{} LIMIT $4 OFFSET $5", q.sort.order_by());
        let ids: Vec<String> = on_pool!(self, pool => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone())).bind(repo).bind(default_tier).bind(&tier).bind(per).bind(offset)
                .fetch_all(pool).await.context("reading a page of tests")?
        });
        let total = match tier.as_str() {
            "" => counts.trusted + counts.probation + counts.quarantined,
            "trusted" => counts.trusted,
            "quarantined" => counts.quarantined,
            _ => counts.probation,
        };
        if ids.is_empty() {
            return Ok(TestPage {
                tests: Vec::new(),
                total,
            });
        }
        let mut by_id: std::collections::HashMap<String, TestRow> = on_pool!(self, pool => {
            let mut q = sqlx::QueryBuilder::new("SELECT t.test, t.runs, t.failures, t.win, t.updated_ms, COALESCE(t.tier, ");
            q.push_bind(default_tier).push(") AS tier, e.tier AS listed_tier, e.owner, e.ticket, c.tier AS proposed \
                FROM history_tests t \
                LEFT JOIN reliability_entries e ON e.repository = t.repository AND e.test = t.test \
                LEFT JOIN history_changes c ON c.repository = t.repository AND c.test = t.test \
                WHERE t.repository = ");
            q.push_bind(repo).push(" AND t.test IN (");
            let mut sep = q.separated(", ");
            for id in &ids {
                sep.push_bind(id.as_str());
            }
            q.push(")");
            let rows = q.build().fetch_all(pool).await.context("reading the page's rows")?;
            rows.iter().map(|r| {
                let row = test_row(r)?;
                Ok((row.test.clone(), row))
            }).collect::<Result<std::collections::HashMap<_, _>, sqlx::Error>>()?
        });
        let tests = ids.iter().filter_map(|id| by_id.remove(id)).collect();
        Ok(TestPage { tests, total })
    }

    /// Tier counts of a repository's recorded tests.
    pub async fn tier_counts(&self, repo: &str, default_tier: &str) -> anyhow::Result<RepoSummary> {
        const SQL: &str = "SELECT COALESCE(tier, $2) AS tier, COUNT(*) AS n FROM history_tests \
            WHERE repository = $1 GROUP BY COALESCE(tier, $2)";
        let mut s = RepoSummary {
            repository: repo.to_string(),
            ..RepoSummary::default()
        };
        let rows: Vec<(String, i64)> = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(default_tier).fetch_all(pool).await?.iter()
                .map(|r| Ok((r.try_get("tier")?, r.try_get("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        for (tier, n) in rows {
            let n = n.max(0) as u64;
            match tier.as_str() {
                "trusted" => s.trusted += n,
                "quarantined" => s.quarantined += n,
                _ => s.probation += n,
            }
        }
        Ok(s)
    }

    /// Tier changes of `repo` since `since_ms`, newest first (at most `limit`).
    pub async fn tier_changes(
        &self,
        repo: &str,
        since_ms: i64,
        limit: i64,
    ) -> anyhow::Result<Vec<TierChange>> {
        const SQL: &str = "SELECT test, tier, at_ms FROM tier_changes WHERE repository = $1 AND at_ms >= $2 ORDER BY at_ms DESC, test LIMIT $3";
        let rows = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(since_ms).bind(limit).fetch_all(pool).await?.iter()
                .map(|r| Ok(TierChange { repository: repo.to_string(), test: r.try_get("test")?, tier: r.try_get("tier")?, at_ms: r.try_get("at_ms")? }))
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
    pub async fn recent_sessions(
        &self,
        repo: &str,
        limit: i64,
    ) -> anyhow::Result<Vec<RecentSession>> {
        const SQL: &str = "SELECT id, purpose, pr_number, test, claim_test, state, verdict, created_ms FROM rerun_sessions \
            WHERE repository = $1 ORDER BY created_ms DESC, id LIMIT $2";
        const SIDES: &str = "SELECT side, failures, runs, run_url FROM rerun_sides WHERE session = $1 ORDER BY side DESC";
        let mut out = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(limit).fetch_all(pool).await?.iter()
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

/// A page row from the rows query.
fn test_row<R: sqlx::Row>(r: &R) -> Result<TestRow, sqlx::Error>
where
    for<'c> &'c str: sqlx::ColumnIndex<R>,
    for<'q> Vec<u8>: sqlx::Decode<'q, R::Database> + sqlx::Type<R::Database>,
    for<'q> String: sqlx::Decode<'q, R::Database> + sqlx::Type<R::Database>,
    for<'q> Option<String>: sqlx::Decode<'q, R::Database>,
    for<'q> i64: sqlx::Decode<'q, R::Database> + sqlx::Type<R::Database>,
    for<'q> Option<i64>: sqlx::Decode<'q, R::Database>,
{
    let win: Vec<u8> = r.try_get("win")?;
    let w = Window::decode(&win);
    let (c_runs, c_fail) = window_counts(&w);
    let runs = r.try_get::<Option<i64>, _>("runs")?.unwrap_or(c_runs);
    let failures = r.try_get::<Option<i64>, _>("failures")?.unwrap_or(c_fail);
    let tier: String = r.try_get("tier")?;
    let proposed: Option<String> = r.try_get("proposed")?;
    Ok(TestRow {
        test: r.try_get("test")?,
        listed: r.try_get::<Option<String>, _>("listed_tier")?.is_some(),
        proposed_tier: proposed.filter(|p| *p != tier),
        tier,
        runs,
        failures,
        pass_rate: (runs > 0).then(|| 1.0 - failures as f64 / runs as f64),
        owner: r.try_get("owner")?,
        ticket: r.try_get("ticket")?,
        recent: w.last(SPARK_RUNS).map(|o| o.failed()).collect(),
        updated_ms: r.try_get("updated_ms")?,
    })
}
