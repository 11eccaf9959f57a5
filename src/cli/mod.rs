//! The command line: `repro-gate <subcommand>`. Every flag also reads its environment variable.

mod agents_md;
mod audit;
mod check_body;
pub(crate) mod classify;
mod failures;
mod history;
mod input;
mod local;
mod lookup;
mod mcp;
mod serve;
mod signal;
mod test;
mod vocabulary;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::telemetry::LogFormat;

#[derive(Debug, Parser)]
#[command(
    name = "repro-gate",
    version,
    about = "No deterministic reproduction, no concurrency PR: a GitHub App and its offline checks."
)]
pub struct Cli {
    /// Log format: pretty for people, json for log pipelines.
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty, global = true)]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the service.
    Serve(Box<ServeArgs>),
    /// Apply the database migrations and exit.
    Migrate(DbArgs),
    /// Concurrency verdict for a unified diff, as JSON.
    Classify(classify::ClassifyArgs),
    /// Reads a checkout and prints the `primitives:` block for `.github/repro-gate.yml`: the
    /// macros, types and functions it defines over concurrency primitives, with where.
    Vocabulary(vocabulary::VocabularyArgs),
    /// Evidence verdict for a PR description, as JSON (exit 0 satisfied, 1 not, 2 bad input).
    CheckBody(check_body::CheckBodyArgs),
    /// Failing tests found in a CI log or report, as JSON, with tiers from a reliability file.
    Failures(failures::FailuresArgs),
    /// Validate a test-reliability file and print a summary (exit 0 valid, 1 invalid).
    Reliability(failures::ReliabilityArgs),
    /// Print the command audit log as JSON lines.
    Audit(audit::AuditArgs),
    /// The test history: record CI results, build and publish the reliability file, upload tokens.
    History(history::HistoryArgs),
    /// A test's tier, stats and the tier's instruction from the reliability file, as JSON (exit 0
    /// listed, 1 not listed, 2 bad input).
    Lookup(lookup::LookupArgs),
    /// The block for AGENTS.md / CLAUDE.md: what a coding agent does before reasoning about a
    /// failing test, and what the gate asks.
    AgentsMd(agents_md::AgentsMdArgs),
    /// The retry protocol on this checkout: the test alone on HEAD and on the merge base, the
    /// verdict as JSON (exit 0 a verdict, 2 could not run).
    RerunLocal(local::RerunLocalArgs),
    /// The verification of a reproduction on this checkout: the merge base with HEAD's test
    /// files laid over it must fail, HEAD must pass (exit 0 verified, 1 not, 2 could not run).
    VerifyLocal(local::VerifyLocalArgs),
    /// A Model Context Protocol server on stdin/stdout with the tools lookup_test,
    /// check_description, classify_diff, rerun_local and verify_local (exit 0 when stdin closes).
    Mcp,
    /// Run a CI test command, record its results, and excuse the failures of quarantined tests
    /// only (exit 0 when every failure is a quarantined test's and nothing else went wrong,
    /// else the command's own status).
    Test(Box<test::TestArgs>),
}

#[derive(Debug, Args)]
pub struct DbArgs {
    /// sqlite://FILE (embedded, the default) or postgres://… (several replicas).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://repro-gate.db")]
    pub database_url: String,
}

/// The GitHub App's identity and where its API is (`serve`, `history publish`).
#[derive(Debug, Args)]
pub struct AppArgs {
    /// The GitHub App's id.
    #[arg(long, env = "GITHUB_APP_ID")]
    pub app_id: Option<u64>,

    /// A file holding the App's PEM private key.
    #[arg(long, env = "GITHUB_APP_PRIVATE_KEY_PATH")]
    pub private_key_path: Option<PathBuf>,

    /// The App's PEM private key itself.
    #[arg(long, env = "GITHUB_APP_PRIVATE_KEY", hide_env_values = true)]
    pub private_key: Option<String>,

    /// The webhook secret; several, comma-separated, during a rotation.
    #[arg(long, env = "GITHUB_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<String>,

    /// GitHub's REST API: github.com, GitHub Enterprise Server (https://HOST/api/v3) or a test server.
    #[arg(long, env = "GITHUB_API_URL", default_value = "https://api.github.com")]
    pub github_api_url: String,

    /// Evaluate and log every write it would make; write nothing to GitHub.
    #[arg(long, env = "REPRO_GATE_DRY_RUN", default_value = "false",
          value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,

    /// Address to bind.
    #[arg(long, env = "REPRO_GATE_LISTEN", default_value = "127.0.0.1:3000")]
    pub listen: std::net::SocketAddr,

    #[command(flatten)]
    pub app: AppArgs,

    /// The URL GitHub reaches this service at (behind a proxy or tunnel): the setup page builds
    /// the webhook and callback URLs from it.
    #[arg(long, env = "REPRO_GATE_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// The App's OAuth client id: turns on the dashboard's sign-in (docs/dashboard.md).
    #[arg(long, env = "GITHUB_CLIENT_ID")]
    pub client_id: Option<String>,

    /// The App's OAuth client secret.
    #[arg(long, env = "GITHUB_CLIENT_SECRET", hide_env_values = true)]
    pub client_secret: Option<String>,

    /// Worker tasks in this process; 0 accepts and queues only.
    #[arg(long, env = "REPRO_GATE_WORKERS", default_value_t = 16)]
    pub workers: usize,

    /// Most jobs of one installation running at once (over every replica); 0 = no bound.
    #[arg(long, env = "REPRO_GATE_WORKERS_PER_INSTALLATION", default_value_t = 4)]
    pub workers_per_installation: usize,

    /// Attempts before a failing job is parked as dead.
    #[arg(long, env = "REPRO_GATE_MAX_ATTEMPTS", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_attempts: u32,

    /// Seconds a claimed job stays leased without a heartbeat before another worker may take it.
    #[arg(long, env = "REPRO_GATE_LEASE_SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub lease_seconds: u64,

    /// Seconds one attempt of a job may run before it is stopped and retried (a job that hangs
    /// on a report, a download or GitHub cannot hold its worker for ever).
    #[arg(long, env = "REPRO_GATE_JOB_DEADLINE_SECONDS", default_value_t = 900,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub job_deadline_seconds: u64,

    /// Minutes between catch-up passes (redeliver failed webhooks, evaluate PRs missing a
    /// check run); 0 turns them off.
    #[arg(long, env = "REPRO_GATE_RECONCILE_MINUTES", default_value_t = 10)]
    pub reconcile_minutes: u64,

    /// Minutes between looks at each repository's `history.schedule` (the nightly reliability
    /// file); 0 turns scheduled publishing off (`history publish` still works).
    #[arg(long, env = "REPRO_GATE_HISTORY_SCHEDULE_MINUTES", default_value_t = 5)]
    pub history_schedule_minutes: u64,

    /// Seconds shutdown waits for in-flight jobs before giving them back to the queue.
    #[arg(long, env = "REPRO_GATE_SHUTDOWN_GRACE_SECONDS", default_value_t = 30)]
    pub shutdown_grace_seconds: u64,

    /// Most HTTP connections open at once; more are closed as they arrive.
    #[arg(long, env = "REPRO_GATE_MAX_CONNECTIONS", default_value_t = 512,
          value_parser = clap::value_parser!(usize))]
    pub max_connections: usize,

    /// Days done jobs and stored deliveries are kept (at least 3: GitHub redelivers
    /// deliveries of the past 3 days, and a redelivered id must still answer `duplicate`).
    #[arg(long, env = "REPRO_GATE_RETENTION_DAYS", default_value_t = 14,
          value_parser = clap::value_parser!(u64).range(crate::settings::MIN_RETENTION_DAYS..))]
    pub retention_days: u64,
}

/// Parses the command line (after loading `.env`) and runs it; returns the exit code.
pub fn main() -> std::process::ExitCode {
    let dotenv = dotenvy::dotenv();
    let cli = Cli::parse();
    crate::telemetry::init_logging(cli.log_format);
    if let Err(err) = &dotenv
        && !err.not_found()
    {
        tracing::warn!(error = %err, ".env could not be read; continuing without it");
    }
    match cli.command {
        // The offline subcommands are pure: no runtime, no database.
        Command::Classify(args) => classify::run(args),
        Command::Vocabulary(args) => vocabulary::run(args),
        Command::Lookup(args) => lookup::run(args),
        Command::AgentsMd(args) => agents_md::run(args),
        Command::RerunLocal(args) => local::rerun_local(args),
        Command::VerifyLocal(args) => local::verify_local(args),
        Command::CheckBody(args) => check_body::run(args),
        Command::Failures(args) => failures::run_failures(args),
        Command::Reliability(args) => failures::run_reliability(args),
        Command::Mcp => run_async(mcp::run()),
        Command::Test(args) => run_async(test::run(*args)),
        Command::Serve(args) => run_async(serve::run(*args)),
        Command::Migrate(args) => run_async(serve::migrate(args)),
        Command::Audit(args) => run_async(audit::run(args)),
        Command::History(args) => run_async(history::run(args)),
    }
}

/// Runs a service subcommand on a multi-threaded runtime.
fn run_async(
    work: impl std::future::Future<Output = anyhow::Result<std::process::ExitCode>>,
) -> std::process::ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: starting the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(work);
    // The work is done (in-flight jobs finished, tools cleaned up). A read of stdin still
    // blocking a thread (the MCP server stopped by a signal) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
