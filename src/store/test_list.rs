//! A repository's tests as the dashboard lists them (docs/dashboard.md): one page sorted, searched and
//! filtered in SQL (by tier, status, id substring and owner), the counts by tier and status,
//! and one test with its failures. A page reads one page of rows, never every window.

use anyhow::Context as _;
use sqlx::Row as _;

use super::Store;
use super::dashboard::{DASHBOARD_WINDOW, RepoSummary, SPARK_RUNS, window_marks};
use crate::core::history::status::{Marks, STATUS_RANK_SQL, Status};
use crate::core::history::window::Window;

/// How a page of tests is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestSort {
    /// Problems first: broken, flaky, failed once, healthy; then by tier and name.
    #[default]
    Status,
    /// Quarantined first, then probation, then trusted; by name within a tier.
    Tier,
    /// Lowest pass rate first.
    PassRate,
    /// Most runs first.
    Runs,
    /// By test id.
    Name,
}

impl TestSort {
    pub const ALL: [TestSort; 5] = [
        TestSort::Status,
        TestSort::Tier,
        TestSort::PassRate,
        TestSort::Runs,
        TestSort::Name,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TestSort::Status => "status",
            TestSort::Tier => "tier",
            TestSort::PassRate => "pass_rate",
            TestSort::Runs => "runs",
            TestSort::Name => "name",
        }
    }

    /// A fixed ORDER BY (never built from input).
    fn order_by(self) -> String {
        const TIER: &str = "CASE COALESCE(t.tier, $2) WHEN 'quarantined' THEN 0 WHEN 'probation' THEN 1 ELSE 2 END";
        match self {
            TestSort::Status => format!("{}, {TIER}, t.test", status_rank_sql()),
            TestSort::Tier => format!("{TIER}, t.test"),
            TestSort::PassRate => {
                "CASE WHEN COALESCE(t.runs, 0) > 0 THEN (t.failures * 1.0) / t.runs ELSE 0 END DESC, t.test".into()
            }
            TestSort::Runs => "COALESCE(t.runs, 0) DESC, t.test".into(),
            TestSort::Name => "t.test".into(),
        }
    }
}

/// The status rank with `broken_after` as parameter 7 (see [`FILTER_SQL`]).
fn status_rank_sql() -> String {
    STATUS_RANK_SQL.replace("$B", "$7")
}

/// Which page of which tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestQuery {
    pub tier: Option<String>,
    pub status: Option<Status>,
    /// Part of the id (any case); empty: every test.
    pub text: String,
    /// The owner the file gives (any case).
    pub owner: Option<String>,
    pub sort: TestSort,
    /// From 1.
    pub page: u32,
    pub per_page: u32,
}

impl TestQuery {
    /// Whether the filter is more than a tier (its total must be counted).
    fn narrowed(&self) -> bool {
        !self.text.is_empty() || self.owner.is_some() || self.status.is_some()
    }
}

/// What a page reads the file for: its default tier and `policy.broken_after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Basis {
    pub default_tier: String,
    pub broken_after: u32,
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
    pub status: Status,
    pub runs: i64,
    pub failures: i64,
    pub pass_rate: Option<f64>,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    pub note: Option<String>,
    #[serde(skip)]
    pub pin: bool,
    /// The last outcomes, oldest first: true for a failure.
    pub recent: Vec<bool>,
    pub updated_ms: i64,
    /// `YYYY-MM-DD` of the first and the last failure recorded.
    pub first_failure: Option<String>,
    pub last_failure: Option<String>,
    #[serde(skip)]
    pub window: Window,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestPage {
    pub tests: Vec<TestRow>,
    pub total: u64,
}

/// A failing (or flaky) result with its story.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FailureRow {
    pub run_id: String,
    pub attempt: i64,
    pub outcome: String,
    /// How its run counted: `counted` (the branch windows), `pull_request`, `outage`.
    pub class: String,
    pub sha: String,
    pub branch: String,
    pub pr: Option<i64>,
    pub run_url: Option<String>,
    pub at_ms: i64,
    pub message: Option<String>,
}

/// The filter of a page: parameters 1-7 are the repository, the default tier, the tier (`''`:
/// any), a LIKE pattern of the id (`''`: any), the owner (`''`: any), the status rank (-1:
/// any) and `broken_after`.
fn filter_sql() -> String {
    format!(
        "t.repository = $1 AND ($3 = '' OR COALESCE(t.tier, $2) = $3) \
         AND ($4 = '' OR LOWER(t.test) LIKE $4 ESCAPE '\\') \
         AND ($5 = '' OR EXISTS (SELECT 1 FROM reliability_entries e WHERE e.repository = t.repository \
              AND e.test = t.test AND LOWER(e.owner) = $5)) \
         AND ($6 < 0 OR {} = $6)",
        status_rank_sql()
    )
}

/// `%text%` for LIKE, lower case, with `\`, `%` and `_` taken literally.
fn like_pattern(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut p = String::with_capacity(text.len() + 2);
    p.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '\\' | '%' | '_') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// The seven filter parameters, bound in order.
macro_rules! bind_filter {
    ($q:expr, $repo:expr, $basis:expr, $query:expr) => {
        $q.bind($repo)
            .bind($basis.default_tier.as_str())
            .bind($query.tier.clone().unwrap_or_default())
            .bind(like_pattern(&$query.text))
            .bind($query.owner.as_deref().unwrap_or("").to_lowercase())
            .bind($query.status.map_or(-1, Status::rank))
            .bind(i64::from($basis.broken_after))
    };
}

const ROWS_SQL: &str = "SELECT t.test, t.runs, t.failures, t.win, t.updated_ms, COALESCE(t.tier, ";
const ROWS_JOIN: &str = ") AS tier, e.tier AS listed_tier, e.owner, e.ticket, e.note, e.pin, c.tier AS proposed \
    FROM history_tests t \
    LEFT JOIN reliability_entries e ON e.repository = t.repository AND e.test = t.test \
    LEFT JOIN history_changes c ON c.repository = t.repository AND c.test = t.test \
    WHERE t.repository = ";

impl Store {
    /// One page of `repo`'s recorded tests: the ids in order from one table, then those rows'
    /// details. `total` is the count of the filter (from `counts` when only a tier filters).
    pub async fn test_page(
        &self,
        repo: &str,
        basis: &Basis,
        counts: &RepoSummary,
        q: &TestQuery,
    ) -> anyhow::Result<TestPage> {
        let per = i64::from(q.per_page.clamp(1, 1000));
        let offset = i64::from(q.page.max(1) - 1) * per;
        // Safe: the parts not constant are `TestSort`'s fixed clauses and the fixed filter.
        let sql = format!(
            "SELECT t.test FROM history_tests t WHERE {} ORDER BY {} LIMIT $8 OFFSET $9",
            filter_sql(),
            q.sort.order_by()
        );
        let ids: Vec<String> = on_pool!(self, pool => {
            bind_filter!(sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone())), repo, basis, q).bind(per).bind(offset)
                .fetch_all(pool).await.context("reading a page of tests")?
        });
        let total = if q.narrowed() {
            let sql = format!(
                "SELECT COUNT(*) FROM history_tests t WHERE {}",
                filter_sql()
            );
            let n: i64 = on_pool!(self, pool => {
                bind_filter!(sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone())), repo, basis, q)
                    .fetch_one(pool).await.context("counting the tests found")?
            });
            n.max(0) as u64
        } else {
            match q.tier.as_deref() {
                None => counts.tests(),
                Some(t) => counts.of_tier(t),
            }
        };
        let mut by_id: std::collections::HashMap<String, TestRow> = self
            .rows(repo, basis, &ids)
            .await?
            .into_iter()
            .map(|r| (r.test.clone(), r))
            .collect();
        let tests = ids.iter().filter_map(|id| by_id.remove(id)).collect();
        Ok(TestPage { tests, total })
    }

    /// The rows of these ids (any order).
    async fn rows(
        &self,
        repo: &str,
        basis: &Basis,
        ids: &[String],
    ) -> anyhow::Result<Vec<TestRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = on_pool!(self, pool => {
            let mut q = sqlx::QueryBuilder::new(ROWS_SQL);
            q.push_bind(basis.default_tier.as_str()).push(ROWS_JOIN);
            q.push_bind(repo).push(" AND t.test IN (");
            let mut sep = q.separated(", ");
            for id in ids {
                sep.push_bind(id.as_str());
            }
            q.push(")");
            let rows = q.build().fetch_all(pool).await.context("reading the page's rows")?;
            rows.iter().map(|r| test_row(r, basis.broken_after)).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// One recorded test by its exact id.
    pub async fn test_row(
        &self,
        repo: &str,
        basis: &Basis,
        test: &str,
    ) -> anyhow::Result<Option<TestRow>> {
        Ok(self.rows(repo, basis, &[test.to_string()]).await?.pop())
    }

    /// A test's failures with their story, newest first (at most `limit`), and how many are kept.
    pub async fn test_failures(
        &self,
        repo: &str,
        test: &str,
        limit: i64,
    ) -> anyhow::Result<(Vec<FailureRow>, u64)> {
        const SQL: &str = "SELECT run_id, attempt, outcome, class, sha, branch, pr, run_url, at_ms, message FROM history_failures \
            WHERE repository = $1 AND test = $2 ORDER BY at_ms DESC, run_id DESC, attempt DESC LIMIT $3";
        const COUNT: &str =
            "SELECT COUNT(*) FROM history_failures WHERE repository = $1 AND test = $2";
        let rows = on_pool!(self, pool => {
            sqlx::query(SQL).bind(repo).bind(test).bind(limit).fetch_all(pool).await?.iter()
                .map(|r| Ok(FailureRow {
                    run_id: r.try_get("run_id")?,
                    attempt: r.try_get("attempt")?,
                    outcome: r.try_get("outcome")?,
                    class: r.try_get("class")?,
                    sha: r.try_get("sha")?,
                    branch: r.try_get("branch")?,
                    pr: r.try_get("pr")?,
                    run_url: r.try_get("run_url")?,
                    at_ms: r.try_get("at_ms")?,
                    message: r.try_get("message")?,
                }))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        let n: i64 = on_pool!(self, pool => sqlx::query_scalar(COUNT).bind(repo).bind(test).fetch_one(pool).await?);
        Ok((rows, n.max(0) as u64))
    }

    /// Counts of a repository's recorded tests by tier and by status.
    pub async fn tier_counts(&self, repo: &str, basis: &Basis) -> anyhow::Result<RepoSummary> {
        let sql = format!(
            "SELECT COALESCE(t.tier, $2) AS tier, {} AS status, COUNT(*) AS n FROM history_tests t \
             WHERE t.repository = $1 GROUP BY COALESCE(t.tier, $2), {}",
            STATUS_RANK_SQL.replace("$B", "$3"),
            STATUS_RANK_SQL.replace("$B", "$3"),
        );
        let mut s = RepoSummary {
            repository: repo.to_string(),
            ..RepoSummary::default()
        };
        let rows: Vec<(String, i64, i64)> = on_pool!(self, pool => {
            sqlx::query(sqlx::AssertSqlSafe(sql.clone())).bind(repo).bind(basis.default_tier.as_str()).bind(i64::from(basis.broken_after))
                .fetch_all(pool).await?.iter()
                .map(|r| Ok((r.try_get("tier")?, r.try_get("status")?, r.try_get("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        for (tier, status, n) in rows {
            let n = n.max(0) as u64;
            match tier.as_str() {
                "trusted" => s.trusted += n,
                "quarantined" => s.quarantined += n,
                _ => s.probation += n,
            }
            match Status::from_rank(status) {
                Status::Broken => s.broken += n,
                Status::Flaky => s.flaky += n,
                Status::FailedOnce => s.failed_once += n,
                Status::Healthy => s.healthy += n,
            }
        }
        Ok(s)
    }
}

/// A page row from the rows query.
fn test_row<R: sqlx::Row>(r: &R, broken_after: u32) -> Result<TestRow, sqlx::Error>
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
    let [c_runs, c_fail, _, _] = window_marks(&w);
    let runs = r.try_get::<Option<i64>, _>("runs")?.unwrap_or(c_runs);
    let failures = r.try_get::<Option<i64>, _>("failures")?.unwrap_or(c_fail);
    let tier: String = r.try_get("tier")?;
    let proposed: Option<String> = r.try_get("proposed")?;
    Ok(TestRow {
        test: r.try_get("test")?,
        listed: r.try_get::<Option<String>, _>("listed_tier")?.is_some(),
        proposed_tier: proposed.filter(|p| *p != tier),
        status: Marks::of(&w, DASHBOARD_WINDOW).status(u64::from(broken_after)),
        tier,
        runs,
        failures,
        pass_rate: (runs > 0).then(|| 1.0 - failures as f64 / runs as f64),
        owner: r.try_get("owner")?,
        ticket: r.try_get("ticket")?,
        note: r.try_get("note")?,
        pin: r.try_get::<Option<i64>, _>("pin")?.unwrap_or(0) != 0,
        recent: w.last(SPARK_RUNS).map(|o| o.failed()).collect(),
        updated_ms: r.try_get("updated_ms")?,
        first_failure: w.first_failure.clone(),
        last_failure: w.last_failure.clone(),
        window: w,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_like_pattern_takes_wildcards_literally() {
        assert_eq!(like_pattern(""), "");
        assert_eq!(like_pattern("Gamma"), "%gamma%");
        assert_eq!(like_pattern("a_b%c\\"), "%a\\_b\\%c\\\\%");
    }
}
