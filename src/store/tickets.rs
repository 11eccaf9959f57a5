//! Quarantine tickets filed as issues (docs/rerun.md, `rerun.tickets: issue`): each test's issue.

use super::Store;

impl Store {
    /// The issue filed for a test, if any.
    pub async fn ticket_issue(&self, repo: &str, test: &str) -> anyhow::Result<Option<u64>> {
        const SQL: &str =
            "SELECT issue_number FROM quarantine_tickets WHERE repository = $1 AND test = $2";
        let n: Option<i64> = on_pool!(self, pool => sqlx::query_scalar(SQL).bind(repo).bind(test).fetch_optional(pool).await?);
        Ok(n.and_then(|n| u64::try_from(n).ok()))
    }

    /// Remembers the issue filed for a test (a newer one replaces a closed one).
    pub async fn set_ticket_issue(
        &self,
        repo: &str,
        test: &str,
        number: u64,
        now_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO quarantine_tickets (repository, test, issue_number, updated_ms) VALUES ($1, $2, $3, $4) \
            ON CONFLICT (repository, test) DO UPDATE SET issue_number = excluded.issue_number, updated_ms = excluded.updated_ms";
        let n = i64::try_from(number).unwrap_or(i64::MAX);
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(test).bind(n).bind(now_ms).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    /// The issues filed for any of these tests: (test, issue).
    pub async fn ticket_issues(
        &self,
        repo: &str,
        tests: &[String],
    ) -> anyhow::Result<Vec<(String, u64)>> {
        let mut out = Vec::new();
        for t in tests {
            if let Some(n) = self.ticket_issue(repo, t).await? {
                out.push((t.clone(), n));
            }
        }
        Ok(out)
    }
}
