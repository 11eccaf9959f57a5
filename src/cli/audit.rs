//! `repro-gate audit [--repo owner/name] [--pr N] [--since DATE]`: the command audit log as
//! JSON lines.

use std::process::ExitCode;

use super::DbArgs;
use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Only this repository (`owner/name`).
    #[arg(long)]
    pub repo: Option<String>,
    /// Only this pull request.
    #[arg(long)]
    pub pr: Option<i64>,
    /// Only entries at or after this date (`2026-11-01` or RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
}

fn parse_since(s: &str) -> Result<i64, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp_millis());
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
        .ok_or_else(|| format!("--since {s:?} is not a date (YYYY-MM-DD) or an RFC 3339 time"))
}

pub async fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    let since = match args.since.as_deref().map(parse_since).transpose() {
        Ok(s) => s,
        Err(m) => {
            eprintln!("error: {m}");
            return Ok(ExitCode::from(2));
        }
    };
    let store = Store::connect(&args.db.database_url).await?;
    store.migrate().await?;
    let rows = store.audit(args.repo.as_deref(), args.pr, since).await?;
    for r in rows {
        println!("{}", serde_json::to_string(&r)?);
    }
    store.close().await;
    Ok(ExitCode::SUCCESS)
}
