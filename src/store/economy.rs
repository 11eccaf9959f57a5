//! What saves GitHub requests: the newest PR payload handled, and the App's check runs.

use sqlx::Row as _;

use super::Store;

impl Store {
    /// Records a `pull_request` payload's time; true when it is newer than every payload of
    /// that PR handled before (its PR object can stand in for a read), false when stale.
    pub async fn fresh_payload(
        &self,
        repo: &str,
        pr: u64,
        updated_ms: i64,
    ) -> anyhow::Result<bool> {
        const SQL: &str = "INSERT INTO pr_payloads (repository, pr_number, updated_ms) VALUES ($1, $2, $3) \
            ON CONFLICT (repository, pr_number) DO UPDATE SET updated_ms = excluded.updated_ms \
            WHERE pr_payloads.updated_ms < excluded.updated_ms";
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(pr as i64).bind(updated_ms).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// The App's check run for a SHA as last written: (id, digest).
    pub async fn check_run(
        &self,
        repo: &str,
        sha: &str,
        name: &str,
    ) -> anyhow::Result<Option<(u64, String)>> {
        const SQL: &str = "SELECT check_run_id, digest FROM check_runs WHERE repository = $1 AND head_sha = $2 AND name = $3";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(repo).bind(sha).bind(name).fetch_optional(pool).await? {
                Some(r) => Some((r.try_get::<i64, _>("check_run_id")?, r.try_get::<String, _>("digest")?)),
                None => None,
            }
        });
        Ok(row.and_then(|(id, d)| u64::try_from(id).ok().map(|id| (id, d))))
    }

    pub async fn set_check_run(
        &self,
        repo: &str,
        sha: &str,
        name: &str,
        id: u64,
        digest: &str,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO check_runs (repository, head_sha, name, check_run_id, digest) VALUES ($1, $2, $3, $4, $5) \
            ON CONFLICT (repository, head_sha, name) DO UPDATE SET check_run_id = excluded.check_run_id, digest = excluded.digest";
        let id = i64::try_from(id).unwrap_or(i64::MAX);
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(sha).bind(name).bind(id).bind(digest).execute(pool).await.map(|_| ())?);
        Ok(())
    }
}
