//! Waivers (overrides and exemptions), the audit log, and installations.

use serde::Serialize;
use sqlx::Row as _;

use super::Store;

/// A stored waiver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaiverRow {
    pub kind: String,
    pub head_sha: Option<String>,
    pub by_login: String,
    pub reason: String,
    pub at_ms: i64,
}

/// One audit entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AuditRow {
    pub at: String,
    pub repository: String,
    pub pr: i64,
    pub head_sha: Option<String>,
    pub actor: String,
    pub command: String,
    pub args: String,
    pub accepted: bool,
    pub why: String,
}

pub fn ms_to_rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

impl Store {
    #[allow(clippy::too_many_arguments)]
    pub async fn add_waiver(
        &self,
        repo: &str,
        pr: i64,
        kind: crate::core::verdict::WaiverKind,
        head_sha: Option<&str>,
        by: &str,
        reason: &str,
        at_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO waivers (repository, pr, kind, head_sha, by_login, reason, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(pr).bind(kind.as_str()).bind(head_sha).bind(by).bind(reason).bind(at_ms).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    pub async fn waivers(&self, repo: &str, pr: i64) -> anyhow::Result<Vec<WaiverRow>> {
        const SQL: &str = "SELECT kind, head_sha, by_login, reason, at_ms FROM waivers WHERE repository = $1 AND pr = $2 ORDER BY at_ms, id";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).bind(repo).bind(pr).fetch_all(pool).await?;
            rows.iter().map(|r| Ok(WaiverRow {
                kind: r.try_get("kind")?,
                head_sha: r.try_get("head_sha")?,
                by_login: r.try_get("by_login")?,
                reason: r.try_get("reason")?,
                at_ms: r.try_get("at_ms")?,
            })).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    /// Records a maintainer's `/repro approve-tiers` for one head SHA.
    pub async fn add_tier_approval(
        &self,
        repo: &str,
        pr: i64,
        head_sha: &str,
        by: &str,
        at_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO tier_approvals (repository, pr, head_sha, by_login, at_ms) VALUES ($1, $2, $3, $4, $5)";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(pr).bind(head_sha).bind(by).bind(at_ms).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    /// Who last approved the tiers of this PR at `head_sha`, if anyone.
    pub async fn tier_approval(
        &self,
        repo: &str,
        pr: i64,
        head_sha: &str,
    ) -> anyhow::Result<Option<String>> {
        const SQL: &str = "SELECT by_login FROM tier_approvals WHERE repository = $1 AND pr = $2 AND head_sha = $3 ORDER BY at_ms DESC, id DESC LIMIT 1";
        let by = on_pool!(self, pool => {
            let row = sqlx::query(SQL).bind(repo).bind(pr).bind(head_sha).fetch_optional(pool).await?;
            row.map(|r| r.try_get::<String, _>("by_login")).transpose()?
        });
        Ok(by)
    }

    pub async fn add_audit(&self, row: &AuditRow, at_ms: i64) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO audit_log (at_ms, repository, pr, head_sha, actor, command, args, accepted, why) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
        on_pool!(self, pool => sqlx::query(SQL).bind(at_ms).bind(&row.repository).bind(row.pr).bind(&row.head_sha).bind(&row.actor).bind(&row.command).bind(&row.args).bind(i32::from(row.accepted)).bind(&row.why).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    pub async fn audit(
        &self,
        repo: Option<&str>,
        pr: Option<i64>,
        since_ms: Option<i64>,
    ) -> anyhow::Result<Vec<AuditRow>> {
        const SQL: &str = "SELECT at_ms, repository, pr, head_sha, actor, command, args, accepted, why FROM audit_log \
            WHERE ($1 IS NULL OR repository = $1) AND ($2 IS NULL OR pr = $2) AND ($3 IS NULL OR at_ms >= $3) ORDER BY at_ms, id";
        const SQL_PG: &str = "SELECT at_ms, repository, pr, head_sha, actor, command, args, accepted, why FROM audit_log \
            WHERE ($1::TEXT IS NULL OR repository = $1) AND ($2::BIGINT IS NULL OR pr = $2) AND ($3::BIGINT IS NULL OR at_ms >= $3) ORDER BY at_ms, id";
        let rows = on_pool!(self, pool => {
            let sql = if matches!(self, Store::Postgres(_)) { SQL_PG } else { SQL };
            let rows = sqlx::query(sql).bind(repo).bind(pr).bind(since_ms).fetch_all(pool).await?;
            rows.iter().map(|r| Ok(AuditRow {
                at: ms_to_rfc3339(r.try_get("at_ms")?),
                repository: r.try_get("repository")?,
                pr: r.try_get("pr")?,
                head_sha: r.try_get("head_sha")?,
                actor: r.try_get("actor")?,
                command: r.try_get("command")?,
                args: r.try_get("args")?,
                accepted: r.try_get::<i32, _>("accepted")? != 0,
                why: r.try_get("why")?,
            })).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }

    pub async fn record_installation(
        &self,
        id: i64,
        account: Option<&str>,
        removed: bool,
        at_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO installations (id, account, updated_ms, removed) VALUES ($1, $2, $3, $4) \
            ON CONFLICT (id) DO UPDATE SET account = EXCLUDED.account, updated_ms = EXCLUDED.updated_ms, removed = EXCLUDED.removed";
        on_pool!(self, pool => sqlx::query(SQL).bind(id).bind(account).bind(at_ms).bind(i32::from(removed)).execute(pool).await.map(|_| ())?);
        Ok(())
    }
}

impl Store {
    /// Records that a PR had `head_sha` at `seen_ms` (the earliest time is kept).
    pub async fn record_head(
        &self,
        repo: &str,
        pr: i64,
        head_sha: &str,
        seen_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "INSERT INTO pr_heads (repository, pr, head_sha, seen_ms) VALUES ($1, $2, $3, $4) \
            ON CONFLICT (repository, pr, head_sha) DO UPDATE SET seen_ms = EXCLUDED.seen_ms \
            WHERE pr_heads.seen_ms > EXCLUDED.seen_ms";
        on_pool!(self, pool => sqlx::query(SQL).bind(repo).bind(pr).bind(head_sha).bind(seen_ms).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    /// The head SHAs a PR had, with when each was first seen.
    pub async fn heads(&self, repo: &str, pr: i64) -> anyhow::Result<Vec<(String, i64)>> {
        const SQL: &str = "SELECT head_sha, seen_ms FROM pr_heads WHERE repository = $1 AND pr = $2 ORDER BY seen_ms";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).bind(repo).bind(pr).fetch_all(pool).await?;
            rows.iter().map(|r| Ok((r.try_get("head_sha")?, r.try_get("seen_ms")?))).collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }
}
