//! A repository's tests as the dashboard lists them (docs/dashboard.md): one page sorted, searched and
//! filtered in SQL (by tier, status, id substring and owner), the counts by tier and status,
//! and one test with its failures. A page reads one page of rows, never every window.

use anyhow::Context as _;
use sqlx::Row as _;

use super::Store;
use super::dashboard::{DASHBOARD_WINDOW, RepoSummary, SPARK_RUNS};
use crate::core::history::status::{Marks, STATUS_RANK_SQL, Status};
use crate::core::history::window::Window;

/// How a page of tests is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestSort {
    /// Problems first: broken, flaky, failed once, healthy; within each the highest failure
    /// rate first; then by tier and name.
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
            // Within a status, the highest failure rate first.
            TestSort::Status => format!(
                "{}, CASE WHEN COALESCE(t.runs, 0) > 0 THEN (t.failures * 1.0) / t.runs ELSE 0 END DESC, {TIER}, t.test",
                status_rank_sql()
            ),
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
    /// Search terms not understood (`tier:gold`): said on the page, matched by nothing.
    pub unknown: Vec<String>,
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
    /// The test id (`test` too, as before).
    pub id: String,
    pub test: String,
    /// The default branch's file's tier (the default tier when not listed).
    pub tier: String,
    /// Listed in the default branch's file.
    pub listed: bool,
    /// The tier the history proposes, when it differs from `tier`.
    pub proposed_tier: Option<String>,
    pub status: Status,
    /// Results counted over the dashboard's window (skips excluded).
    pub runs: i64,
    /// Failed results (a failure that passed on a retry is `flaky`, not this).
    pub failures: i64,
    /// Failed, then passed on a retry in the same run (or on the same commit).
    pub flaky: i64,
    /// Runs that skipped it, ever.
    pub skipped: u64,
    /// Passed on the first try: (runs - failures - flaky) / runs, the rate the tiers use.
    pub pass_rate: Option<f64>,
    pub duration_p50_ms: Option<u64>,
    pub duration_p95_ms: Option<u64>,
    /// Where its current failing period began on the tracked branches.
    pub onset: Option<OnsetRow>,
    pub owner: Option<String>,
    pub ticket: Option<String>,
    pub note: Option<String>,
    #[serde(skip)]
    pub pin: bool,
    /// The last outcomes, oldest first.
    pub recent: Vec<crate::core::history::window::Counted>,
    pub updated_ms: i64,
    /// `YYYY-MM-DD` of the first and the last failure recorded.
    pub first_failure: Option<String>,
    pub last_failure: Option<String>,
    #[serde(skip)]
    pub window: Window,
}

/// A failing period's start, as the JSON gives it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OnsetRow {
    pub last_pass_sha: Option<String>,
    pub first_fail_sha: String,
    /// RFC 3339, UTC.
    pub at: String,
    #[serde(skip)]
    pub at_ms: i64,
    /// Results since it began, and how many failed.
    pub results: u64,
    pub failures: u64,
}

impl OnsetRow {
    pub fn of(w: &Window) -> Option<OnsetRow> {
        let o = w.onset.onset()?;
        Some(OnsetRow {
            at: chrono::DateTime::from_timestamp_millis(o.at_ms)
                .unwrap_or_default()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            at_ms: o.at_ms,
            last_pass_sha: o.last_pass_sha,
            first_fail_sha: o.first_fail_sha,
            results: o.results,
            failures: o.failures,
        })
    }
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

/// Words of a search matched (each a part of the id, all of them: AND); more are not read.
pub const MAX_WORDS: usize = 6;

/// The filter of a page: parameters 1-7 are the repository, the default tier, the tier (`''`:
/// any), a LIKE pattern of the id's first word (`''`: any), the owner (`''`: any), the status
/// rank (-1: any) and `broken_after`; 8 to 12 the patterns of the other words (`''`: none).
fn filter_sql() -> String {
    let words: String = (0..MAX_WORDS)
        .map(|i| {
            let p = if i == 0 { 4 } else { 7 + i };
            format!(" AND (${p} = '' OR LOWER(t.test) LIKE ${p} ESCAPE '\\')")
        })
        .collect();
    format!(
        "t.repository = $1 AND ($3 = '' OR COALESCE(t.tier, $2) = $3){words} \
         AND ($5 = '' OR EXISTS (SELECT 1 FROM reliability_entries e WHERE e.repository = t.repository \
              AND e.test = t.test AND LOWER(e.owner) = $5)) \
         AND ($6 < 0 OR {} = $6)",
        status_rank_sql()
    )
}

/// The LIKE pattern of word `i` of a search (`''` past its last).
fn word_pattern(text: &str, i: usize) -> String {
    text.split_whitespace()
        .nth(i)
        .map(like_pattern)
        .unwrap_or_default()
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

/// The twelve filter parameters, bound in order.
macro_rules! bind_filter {
    ($q:expr, $repo:expr, $basis:expr, $query:expr) => {
        $q.bind($repo)
            .bind($basis.default_tier.as_str())
            .bind($query.tier.clone().unwrap_or_default())
            .bind(word_pattern(&$query.text, 0))
            .bind($query.owner.as_deref().unwrap_or("").to_lowercase())
            .bind($query.status.map_or(-1, Status::rank))
            .bind(i64::from($basis.broken_after))
            .bind(word_pattern(&$query.text, 1))
            .bind(word_pattern(&$query.text, 2))
            .bind(word_pattern(&$query.text, 3))
            .bind(word_pattern(&$query.text, 4))
            .bind(word_pattern(&$query.text, 5))
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
            "SELECT t.test FROM history_tests t WHERE {} ORDER BY {} LIMIT $13 OFFSET $14",
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

    /// A repository's results per day since `since_ms` on the tracked branches (outages left
    /// out): (day since 1970-01-01, results reported, failed, flaky). Failures are those kept
    /// (at most [`super::history::MAX_FAILURES_PER_RUN`] per run).
    pub async fn repo_days(
        &self,
        repo: &str,
        since_ms: i64,
    ) -> anyhow::Result<Vec<(i64, i64, i64, i64)>> {
        const RUNS: &str = "SELECT CAST(recorded_ms / 86400000 AS BIGINT) AS d, CAST(SUM(results) AS BIGINT) AS n \
            FROM history_runs WHERE repository = $1 AND class = 'counted' AND recorded_ms >= $2 GROUP BY CAST(recorded_ms / 86400000 AS BIGINT)";
        const FAILS: &str = "SELECT CAST(at_ms / 86400000 AS BIGINT) AS d, \
            CAST(SUM(CASE WHEN outcome = 'fail' THEN 1 ELSE 0 END) AS BIGINT) AS f, \
            CAST(SUM(CASE WHEN outcome = 'flaky' THEN 1 ELSE 0 END) AS BIGINT) AS k \
            FROM history_failures WHERE repository = $1 AND class = 'counted' AND at_ms >= $2 GROUP BY CAST(at_ms / 86400000 AS BIGINT)";
        let runs: Vec<(i64, i64)> = on_pool!(self, pool => {
            sqlx::query(RUNS).bind(repo).bind(since_ms).fetch_all(pool).await.context("reading runs per day")?.iter()
                .map(|r| Ok((r.try_get("d")?, r.try_get("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        let fails: Vec<(i64, i64, i64)> = on_pool!(self, pool => {
            sqlx::query(FAILS).bind(repo).bind(since_ms).fetch_all(pool).await.context("reading failures per day")?.iter()
                .map(|r| Ok((r.try_get("d")?, r.try_get("f")?, r.try_get("k")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        let mut by: std::collections::BTreeMap<i64, (i64, i64, i64)> = Default::default();
        for (d, n) in runs {
            by.entry(d).or_default().0 += n;
        }
        for (d, f, k) in fails {
            let e = by.entry(d).or_default();
            e.1 += f;
            e.2 += k;
        }
        Ok(by.into_iter().map(|(d, (n, f, k))| (d, n, f, k)).collect())
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
    // One count per result, from the window itself: a flaky result is never also a failure.
    let marks = Marks::of(&w, DASHBOARD_WINDOW);
    let n = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
    let (runs, flaky) = (n(marks.runs), n(marks.flakes));
    let failures = n(marks.failures - marks.flakes);
    let tier: String = r.try_get("tier")?;
    let proposed: Option<String> = r.try_get("proposed")?;
    let test: String = r.try_get("test")?;
    Ok(TestRow {
        id: test.clone(),
        test,
        listed: r.try_get::<Option<String>, _>("listed_tier")?.is_some(),
        proposed_tier: proposed.filter(|p| *p != tier),
        status: marks.status(u64::from(broken_after)),
        tier,
        runs,
        failures,
        flaky,
        skipped: w.skips,
        pass_rate: (runs > 0).then(|| (runs - failures - flaky) as f64 / runs as f64),
        duration_p50_ms: w.duration_percentile(50),
        duration_p95_ms: w.duration_percentile(95),
        onset: OnsetRow::of(&w),
        owner: r.try_get("owner")?,
        ticket: r.try_get("ticket")?,
        note: r.try_get("note")?,
        pin: r.try_get::<Option<i64>, _>("pin")?.unwrap_or(0) != 0,
        recent: w.last(SPARK_RUNS).collect(),
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

    #[test]
    fn each_word_of_a_search_is_its_own_pattern() {
        assert_eq!(word_pattern("Why  Onset", 0), "%why%");
        assert_eq!(word_pattern("Why  Onset", 1), "%onset%");
        assert_eq!(word_pattern("Why  Onset", 2), "");
        assert!(filter_sql().contains("$12"));
        assert!(
            !filter_sql().contains("$13"),
            "13 and 14 are the page's limit and offset"
        );
    }
}
