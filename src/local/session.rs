//! The runs of one test on two sides, interleaved (head, base, head, …) so that a machine that
//! slows down part-way does not bias one side. A stop (Ctrl-C, a cancelled MCP request) kills
//! the run in progress and the caller removes the worktrees.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::core::rerun::verdict::Count;

use super::runner::Runner;

/// One side's runs: failures among the runs that reported the test, and the runs that did not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SideResult {
    pub failures: u32,
    pub runs: u32,
    /// Runs whose output held no result of the test (not found, a build error).
    pub missing: u32,
}

impl SideResult {
    pub fn count(self) -> Count {
        Count {
            failures: self.failures,
            runs: self.runs,
        }
    }
}

/// Where progress goes: a bar when stderr is a terminal, plain lines otherwise (or a callback,
/// for the MCP server's notifications).
pub trait Progress: Send + Sync {
    fn ran(&self, done: u32, total: u32, side: &str, failed: Option<bool>);
}

/// Why the runs stopped early.
#[derive(Debug)]
pub enum Stopped {
    Interrupted,
    Failed(String),
}

async fn run_once(
    runner: &Runner,
    dir: &Path,
    test: &str,
    seed: Option<&str>,
) -> Result<Option<bool>, String> {
    let cmd = runner.command(test, seed);
    let mut c = tokio::process::Command::new("sh");
    c.arg("-c").arg(&cmd).current_dir(dir).kill_on_drop(true);
    // Caches off: every run is a real run.
    c.env("GOFLAGS", "-count=1")
        .env("CARGO_INCREMENTAL", "0")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    if let Some(s) = seed {
        c.env("REPRO_GATE_SEED", s);
    }
    let out = c
        .output()
        .await
        .map_err(|e| format!("cannot run `{cmd}`: {e}"))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(runner.outcome(test, out.status.success(), &text))
}

/// Runs the test `runs` times on each side, alternating; stops (killing the run in progress)
/// when `stop` is cancelled.
pub async fn run_sides(
    runner: &Runner,
    (head, base): (&Path, &Path),
    (test, seed): (&str, Option<&str>),
    runs: u32,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<(SideResult, SideResult), Stopped> {
    let mut h = SideResult::default();
    let mut b = SideResult::default();
    let total = runs * 2;
    let mut done = 0;
    for _ in 0..runs {
        for (side, dir, acc) in [("head", head, &mut h), ("base", base, &mut b)] {
            let outcome = tokio::select! {
                r = run_once(runner, dir, test, seed) => r.map_err(Stopped::Failed)?,
                _ = stop.cancelled() => return Err(Stopped::Interrupted),
            };
            match outcome {
                Some(failed) => {
                    acc.runs += 1;
                    acc.failures += u32::from(failed);
                }
                None => acc.missing += 1,
            }
            done += 1;
            progress.ran(done, total, side, outcome);
        }
    }
    Ok((h, b))
}

/// Progress for a person at a terminal (a bar) or a log (a line per run).
pub struct Stderr {
    bar: Option<indicatif::ProgressBar>,
}

impl Stderr {
    pub fn new(total: u32) -> Stderr {
        use std::io::IsTerminal as _;
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(u64::from(total));
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} runs {msg}")
            {
                b.set_style(style);
            }
            b
        });
        Stderr { bar }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Progress for Stderr {
    fn ran(&self, done: u32, total: u32, side: &str, failed: Option<bool>) {
        let what = match failed {
            Some(true) => "failed",
            Some(false) => "passed",
            None => "no result",
        };
        match &self.bar {
            Some(b) => {
                b.set_position(u64::from(done));
                b.set_message(format!("{side} {what}"));
            }
            None => eprintln!("run {done}/{total}: {side} {what}"),
        }
    }
}
