//! `repro-gate rerun-local TEST` (the retry protocol, docs/rerun.md, on this checkout) and `repro-gate verify-local` (verification, docs/verification.md, on
//! this checkout): flags in, `local::protocol` does the work (the MCP server calls the same
//! functions), JSON on stdout, progress on stderr, worktrees removed also on Ctrl-C.

use std::process::ExitCode;

use tokio_util::sync::CancellationToken;

use crate::local::RunnerKind;
use crate::local::protocol::{self, Finished, Options};
use crate::local::session::Stderr;

use super::input::print_json;
use crate::local::input::read_text;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Runs of the test on each side.
    #[arg(long, default_value_t = 20)]
    pub runs: u32,
    /// The branch whose merge base with HEAD is the other side (default: the remote's default
    /// branch, from `refs/remotes/origin/HEAD`).
    #[arg(long)]
    pub base: Option<String>,
    #[arg(long, value_enum, default_value_t = RunnerKind::Auto)]
    pub runner: RunnerKind,
    /// A command run instead of a test runner, once per run: `{test}` and `{seed}` are replaced
    /// by shell-quoted values; its exit status is the run's result.
    #[arg(long)]
    pub command: Option<String>,
    /// One run's time limit in seconds: a run past it is a failure (hung). Default:
    /// `rerun.run_timeout_seconds` of the config (300).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: Option<u64>,
    /// The `.github/repro-gate.yml` whose `rerun.args`, `rerun.env`,
    /// `rerun.run_timeout_seconds` and `verify.command`/`verify.build` apply (default: the
    /// checkout's, when present).
    #[arg(long)]
    pub config: Option<String>,
}

impl RunArgs {
    fn options(&self, dir: &std::path::Path) -> Result<Options, String> {
        let config = crate::local::config::checkout_config(dir, self.config.as_deref())?;
        Ok(Options::from_config(
            &config,
            self.runs,
            self.base.clone(),
            self.runner,
            self.command.clone(),
            self.timeout,
        ))
    }
}

#[derive(Debug, clap::Args)]
pub struct RerunLocalArgs {
    /// The test id (`pkg/path::TestName`, `tests/test_x.py::test_y`, …).
    pub test: String,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, clap::Args)]
pub struct VerifyLocalArgs {
    /// The PR description whose claim is run (the gate's own parser reads it).
    #[arg(long)]
    pub body: Option<String>,
    /// The test to run (instead of, or beside, `--body`).
    #[arg(long)]
    pub test: Option<String>,
    /// The seed the test reads from REPRO_GATE_SEED.
    #[arg(long)]
    pub seed: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Could not run: exit 2 with the reason, on stderr for people and as JSON on stdout.
fn could_not(why: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {why}");
    let _ = print_json(&serde_json::json!({
        "verdict": "could not run",
        "reason": why.to_string(),
    }));
    ExitCode::from(2)
}

/// Runs `work` on a small runtime with Ctrl-C cancelling it and a progress bar of `total` runs.
fn drive<F, W>(total: u32, work: W) -> ExitCode
where
    W: FnOnce(Stderr, CancellationToken) -> F,
    F: std::future::Future<Output = Result<Finished, String>>,
{
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return could_not(format!("a runtime: {e}")),
    };
    let stop = CancellationToken::new();
    let result = rt.block_on(async {
        let on_signal = stop.clone();
        // Ctrl-C or SIGTERM: the run in progress (its whole process group) ends and the
        // worktrees go before this exits.
        let signal = match super::signal::shutdown_signal() {
            Ok(signal) => tokio::spawn(async move {
                signal.await;
                on_signal.cancel();
            }),
            Err(e) => return Err(format!("{e:#}")),
        };
        let r = work(Stderr::new(total), stop.clone()).await;
        signal.abort();
        r
    });
    match result {
        Ok(f) => {
            if f.json["uncommitted_changes_ignored"] == true {
                eprintln!(
                    "note: uncommitted changes are not part of the runs (both sides run as committed)"
                );
            }
            match print_json(&f.json) {
                Ok(()) => ExitCode::from(f.exit),
                Err(e) => could_not(e),
            }
        }
        Err(e) => could_not(e),
    }
}

fn here() -> Result<std::path::PathBuf, String> {
    std::env::current_dir().map_err(|e| format!("the working directory: {e}"))
}

pub fn rerun_local(args: RerunLocalArgs) -> ExitCode {
    let dir = match here() {
        Ok(d) => d,
        Err(e) => return could_not(e),
    };
    let opts = match args.run.options(&dir) {
        Ok(o) => o,
        Err(e) => return could_not(e),
    };
    drive(opts.runs.saturating_mul(2), |progress, stop| async move {
        let r = protocol::rerun(&dir, &args.test, &opts, &progress, &stop).await;
        progress.finish();
        r
    })
}

pub fn verify_local(args: VerifyLocalArgs) -> ExitCode {
    let body = match &args.body {
        Some(b) => match read_text(b, "the description") {
            Ok(t) => Some(t),
            Err(e) => return could_not(e),
        },
        None => None,
    };
    let dir = match here() {
        Ok(d) => d,
        Err(e) => return could_not(e),
    };
    let opts = match args.run.options(&dir) {
        Ok(o) => o,
        Err(e) => return could_not(e),
    };
    let claim = match protocol::claim_of(
        body.as_deref(),
        args.test.as_deref(),
        args.seed.as_deref(),
        opts.command.is_some(),
    ) {
        Ok(c) => c,
        Err(e) => return could_not(e),
    };
    drive(opts.runs.saturating_mul(2), |progress, stop| async move {
        let r = protocol::verify_or_discover(&dir, claim.as_ref(), &opts, &progress, &stop).await;
        progress.finish();
        r
    })
}
