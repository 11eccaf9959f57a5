//! `repro-gate history import|build|publish|token` (README.md#offline-commands-json-on-stdout-messages-on-stderr, docs/history.md).

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Subcommand;
use serde_json::json;

use super::input::print_json;
use super::{AppArgs, DbArgs};
use crate::core::history::file::{changes_text, render};
use crate::core::reliability::{self, ReliabilityFile};
use crate::github::types::RepoName;
use crate::github::{AppKey, ClientConfig, GitHub};
use crate::history::{self, ReportFormat, RunInfo, tokens};
use crate::store::{Recorded, Store};

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Record the test results of one CI run (reports or runner output).
    Import(ImportArgs),
    /// Print the reliability file computed from the history (YAML on stdout, tier changes on
    /// stderr).
    Build(BuildArgs),
    /// Recompute, push the branch and open or update the pull request now, as the App.
    Publish(PublishArgs),
    /// Print a new upload token for a repository (shown once), or revoke one.
    Token(TokenArgs),
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The repository, `owner/name`.
    #[arg(long)]
    pub repo: String,
    /// The commit the run tested.
    #[arg(long)]
    pub sha: String,
    /// The branch the run was on.
    #[arg(long)]
    pub branch: String,
    /// The CI run's id (recorded once per id and attempt).
    #[arg(long)]
    pub run: String,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(1..))]
    pub attempt: i64,
    #[arg(long, value_enum, default_value_t = ReportFormat::Auto)]
    pub format: ReportFormat,
    /// When the run happened (RFC 3339, e.g. `2026-11-02T09:30:00Z`): a backfill charts as it
    /// was. Default: now.
    #[arg(long, value_parser = parse_at)]
    pub at: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// The run's page (an http(s) link), shown beside its failures.
    #[arg(long, value_parser = parse_url)]
    pub url: Option<String>,
    /// The pull request the run was for.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
    pub pr: Option<i64>,
    /// Reports or logs; `-` reads stdin.
    #[arg(required = true)]
    pub files: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// From the recorded history of this repository.
    #[arg(long, conflicts_with = "reports", required_unless_present = "reports")]
    pub repo: Option<String>,
    /// From a folder of reports, `DIR/<run>/<files>` with a `run.json` per run.
    #[arg(long)]
    pub reports: Option<PathBuf>,
    /// The current reliability file: its tiers, pins, owners, tickets and notes are the start.
    #[arg(long)]
    pub existing: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub app: AppArgs,
    #[arg(long)]
    pub repo: String,
}

#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[arg(long)]
    pub repo: String,
    /// Revoke the token with this id instead.
    #[arg(long)]
    pub revoke: Option<i64>,
}

fn bad_input(message: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {message}");
    Ok(ExitCode::from(2))
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub async fn run(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        HistoryCommand::Import(a) => import(a).await,
        HistoryCommand::Build(a) => build(a).await,
        HistoryCommand::Publish(a) => publish(a).await,
        HistoryCommand::Token(a) => token(a).await,
    }
}

async fn open(db: &DbArgs) -> anyhow::Result<Store> {
    let store = Store::connect(&db.database_url).await?;
    store.migrate().await?;
    Ok(store)
}

async fn import(a: ImportArgs) -> anyhow::Result<ExitCode> {
    let Some(repo) = RepoName::parse(&a.repo) else {
        return bad_input(format!("--repo {:?} is not owner/name", a.repo));
    };
    for (flag, v) in [
        ("--sha", &a.sha),
        ("--branch", &a.branch),
        ("--run", &a.run),
    ] {
        if v.trim().is_empty() || v.len() > 255 {
            return bad_input(format!("{flag} must be 1 to 255 characters"));
        }
    }
    let files = a.files.clone();
    let format = a.format;
    let parsed = tokio::task::spawn_blocking(move || read_files(&files, format))
        .await
        .context("reading the reports")?;
    let results = match parsed {
        Ok(r) => r,
        Err(m) => return bad_input(m),
    };
    if results.is_empty() {
        return bad_input(format!(
            "no test result found in {} (a report or a verbose runner output is needed)",
            a.files.join(", ")
        ));
    }
    let store = open(&a.db).await?;
    let run = RunInfo {
        repository: repo.to_string(),
        run_id: a.run.clone(),
        attempt: a.attempt,
        sha: a.sha.clone(),
        branch: a.branch.clone(),
        source: "import",
        installation_id: None,
        default_branch: None,
        branches: history::default_branches(),
        url: a.url.clone(),
        pr: a.pr,
    };
    let at = a.at.map_or_else(now_ms, |t| t.timestamp_millis());
    let recorded = history::record(&store, &run, &results, at).await?;
    store.close().await;
    let (status, n) = match recorded {
        Recorded::New(n) => ("recorded", n),
        Recorded::Duplicate => ("duplicate", results.len()),
    };
    print_json(&json!({ "run": a.run, "attempt": a.attempt, "results": n, "status": status }))
        .map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

/// Every test of the given files, merged as one run's.
fn read_files(files: &[String], format: ReportFormat) -> Result<history::RunResults, String> {
    let mut results = history::RunResults::default();
    for f in files {
        let parsed = if f == "-" {
            history::read_report(BufReader::new(std::io::stdin().lock()), format)
        } else {
            let file = std::fs::File::open(f).map_err(|e| format!("cannot read {f}: {e}"))?;
            history::read_report(BufReader::new(file), format)
        };
        let r = parsed.map_err(|e| format!("{f}: {e}"))?;
        results.add(r);
    }
    Ok(results)
}

fn parse_at(s: &str) -> Result<chrono::DateTime<chrono::FixedOffset>, String> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map_err(|e| format!("not an RFC 3339 time like 2026-11-02T09:30:00Z: {e}"))
}

fn parse_url(s: &str) -> Result<String, String> {
    if crate::core::markdown::is_web_link(s) {
        Ok(s.to_string())
    } else {
        Err("not an http(s) link".into())
    }
}

fn read_existing(path: Option<&PathBuf>) -> Result<ReliabilityFile, String> {
    let Some(path) = path else {
        return Ok(ReliabilityFile::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read --existing {}: {e}", path.display()))?;
    reliability::parse(&text).map_err(|e| format!("--existing {}: {e}", path.display()))
}

async fn build(a: BuildArgs) -> anyhow::Result<ExitCode> {
    let existing = match read_existing(a.existing.as_ref()) {
        Ok(e) => e,
        Err(m) => return bad_input(m),
    };
    let built = match (&a.repo, &a.reports) {
        (Some(repo), _) => {
            if RepoName::parse(repo).is_none() {
                return bad_input(format!("--repo {repo:?} is not owner/name"));
            }
            let store = open(&a.db).await?;
            let built = history::build_from_store(&store, repo, &existing).await?;
            store.close().await;
            built
        }
        (None, Some(dir)) => {
            let dir = dir.clone();
            let built = tokio::task::spawn_blocking(move || {
                history::reports::build_from_reports(&dir, &existing)
            })
            .await
            .context("reading the reports")?;
            match built {
                Ok(b) => b,
                Err(e) => return bad_input(format!("{e:#}")),
            }
        }
        (None, None) => return bad_input("give --repo O/R or --reports DIR"),
    };
    print!("{}", render(&built.file));
    if built.changes.is_empty() {
        eprintln!("no tier changes");
    } else {
        eprint!("{}", changes_text(&built.changes, false));
    }
    Ok(ExitCode::SUCCESS)
}

async fn publish(a: PublishArgs) -> anyhow::Result<ExitCode> {
    let Some(repo) = RepoName::parse(&a.repo) else {
        return bad_input(format!("--repo {:?} is not owner/name", a.repo));
    };
    let (Some(app_id), Some(key)) = (a.app.app_id, super::serve::private_key(&a.app)?) else {
        eprintln!(
            "error: history publish acts as the App: set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_PATH (or GITHUB_APP_PRIVATE_KEY)"
        );
        return Ok(ExitCode::FAILURE);
    };
    let key = AppKey::from_pem(app_id, &key, super::serve::key_variable(&a.app))?;
    let mut config = ClientConfig::new(a.app.github_api_url.clone());
    config.dry_run = a.app.dry_run;
    let gh = GitHub::new(config, key);
    let store = open(&a.db).await?;
    let inst = gh
        .repo_installation(&repo)
        .await
        .with_context(|| format!("finding the App's installation on {repo}"))?;
    let done = history::publish::publish(&gh, &store, inst, &repo).await;
    store.close().await;
    let done = done.with_context(|| format!("publishing the reliability file of {repo}"))?;
    print_json(&done).map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

async fn token(a: TokenArgs) -> anyhow::Result<ExitCode> {
    if RepoName::parse(&a.repo).is_none() {
        return bad_input(format!("--repo {:?} is not owner/name", a.repo));
    }
    let store = open(&a.db).await?;
    let code = match a.revoke {
        Some(id) => {
            if store.revoke_token(&a.repo, id, now_ms()).await? {
                print_json(&json!({ "revoked": true, "id": id, "repository": a.repo }))
                    .map_err(anyhow::Error::msg)?;
                ExitCode::SUCCESS
            } else {
                eprintln!("error: {} has no live upload token with id {id}", a.repo);
                ExitCode::FAILURE
            }
        }
        None => {
            let token = tokens::new_token();
            let id = store
                .add_token(&a.repo, &tokens::hash(&token), now_ms())
                .await?;
            print_json(&json!({ "token": token, "id": id, "repository": a.repo }))
                .map_err(anyhow::Error::msg)?;
            eprintln!(
                "This token is shown once; only its hash is stored. Revoke it with: repro-gate history token --repo {} --revoke {id}",
                crate::core::shell::quote(&a.repo)
            );
            ExitCode::SUCCESS
        }
    };
    store.close().await;
    Ok(code)
}
