//! `rerun-local` and `verify-local` as functions: the CLI and the MCP server call the same ones
//! (same JSON, same verdicts), each with its own progress sink and its own way to stop (Ctrl-C
//! for the CLI, a cancelled request for MCP). The worktrees are gone when these return.

use std::path::Path;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::core::evidence::{EvidenceKind, check_body};
use crate::core::lang::is_test_file;
use crate::core::rerun::comment::{SessionView, SideState, SideView, Trigger, ticket};
use crate::core::rerun::verdict::{Verdict, assess};
use crate::core::verify::{self, Claim};

use super::session::{Stopped, run_sides};
use super::{Checkout, Progress, Runner, RunnerKind, SideResult};

/// How the runs are made.
#[derive(Clone, Debug)]
pub struct Options {
    /// Runs of the test on each side.
    pub runs: u32,
    /// The branch whose merge base with HEAD is the other side (default: the remote's
    /// default branch).
    pub base: Option<String>,
    pub runner: RunnerKind,
    /// A command template run instead of a test runner (`{test}`, `{seed}`).
    pub command: Option<String>,
}

/// A finished run: the JSON printed, and the exit code it means (§2's table).
#[derive(Debug)]
pub struct Finished {
    pub json: Value,
    pub exit: u8,
}

/// Why nothing was decided: exit 2 with this reason.
pub type CouldNotRun = String;

/// The checkout at `dir`, its HEAD and the merge base with `--base`.
fn sides(dir: &Path, opts: &Options) -> Result<(Checkout, String, String), String> {
    if opts.runs == 0 || opts.runs > crate::core::config::MAX_RERUN_RUNS {
        return Err(format!(
            "runs must be between 1 and {}",
            crate::core::config::MAX_RERUN_RUNS
        ));
    }
    let co = Checkout::at(dir)?;
    let head = co.commit("HEAD")?;
    let base_ref = match &opts.base {
        Some(b) => b.clone(),
        None => co.default_base()?,
    };
    let mb = co.merge_base(&base_ref)?;
    Ok((co, head, mb))
}

/// Worktrees of `head` and of `mb` (with `overlay` laid over it from `head`), the test run
/// `opts.runs` times on each, interleaved.
async fn run_both(
    co: &Checkout,
    (head, mb): (&str, &str),
    overlay: &[String],
    opts: &Options,
    (test, seed): (&str, Option<&str>),
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<(Runner, SideResult, SideResult), String> {
    let h = co.worktree(head, "head")?;
    let b = co.worktree(mb, "base")?;
    b.lay_over(head, overlay)?;
    let runner = Runner::resolve(opts.runner, opts.command.clone(), &h.path)?;
    match run_sides(
        &runner,
        (&h.path, &b.path),
        (test, seed),
        opts.runs,
        progress,
        stop,
    )
    .await
    {
        Ok((hr, br)) => Ok((runner, hr, br)),
        Err(Stopped::Interrupted) => Err("interrupted".into()),
        Err(Stopped::Failed(e)) => Err(e),
    }
}

fn runner_name(r: &Runner) -> String {
    format!("{:?}", r.kind).to_lowercase()
}

/// §10 on this checkout: the test alone on HEAD and on the merge base.
pub async fn rerun(
    dir: &Path,
    test: &str,
    opts: &Options,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Finished, CouldNotRun> {
    let (co, head, mb) = sides(dir, opts)?;
    let dirty = co.dirty();
    let ran = run_both(&co, (&head, &mb), &[], opts, (test, None), progress, stop).await;
    co.remove_all();
    let (runner, hr, br) = ran?;
    let a = assess(hr.count(), br.count());
    let phrase = a.verdict.phrase();
    let ticket_text = (a.verdict == Verdict::NotThisChange).then(|| {
        let done = |sha, count| SideView {
            sha,
            state: SideState::Done {
                count,
                run_url: None,
                seeds: &[],
            },
        };
        let view = SessionView {
            session: "local",
            test,
            runs: opts.runs,
            workflow: "rerun-local",
            trigger: Trigger::Command("local"),
            branch: done(&head, hr.count()),
            base: done(&mb, br.count()),
            history: None,
            timed_out_after: None,
            ticket_issue: None,
        };
        ticket(&view, &a, hr.count(), br.count())
    });
    let json = json!({
        "test": test,
        "verdict": phrase,
        "head": {"sha": head, "failures": hr.failures, "runs": hr.runs, "no_result": hr.missing,
                 "interval": [a.branch_interval.0, a.branch_interval.1]},
        "base": {"sha": mb, "failures": br.failures, "runs": br.runs, "no_result": br.missing,
                 "interval": [a.base_interval.0, a.base_interval.1]},
        "p": a.p,
        "ticket": ticket_text,
        "runner": runner_name(&runner),
        "uncommitted_changes_ignored": dirty,
    });
    let exit = if a.verdict == Verdict::NoResults {
        2
    } else {
        0
    };
    Ok(Finished { json, exit })
}

/// §11 on this checkout: the merge base with HEAD's changed test files laid over it must fail,
/// HEAD must pass.
pub async fn verify(
    dir: &Path,
    claim: &Claim,
    opts: &Options,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Finished, CouldNotRun> {
    claim.check()?;
    let (co, head, mb) = sides(dir, opts)?;
    let dirty = co.dirty();
    let test = claim.test_input();
    let ran = async {
        let tests: Vec<String> = co
            .changed_files(&mb, &head)?
            .into_iter()
            .filter(|p| is_test_file(p))
            .collect();
        let seed = claim.seed.as_deref();
        let (runner, hr, br) = run_both(
            &co,
            (&head, &mb),
            &tests,
            opts,
            (&test, seed),
            progress,
            stop,
        )
        .await?;
        Ok::<_, String>((tests, runner, hr, br))
    }
    .await;
    co.remove_all();
    let (tests, runner, hr, br) = ran?;
    let done = |r: SideResult| verify::SideState::Done {
        count: r.count(),
        run_url: None,
    };
    let o = verify::assess(&done(hr), &done(br), false).unwrap_or(verify::Outcome {
        verdict: verify::Verdict::CouldNotRun,
        reason: None,
    });
    let exit = match o.verdict {
        verify::Verdict::Verified => 0,
        verify::Verdict::CouldNotRun => 2,
        _ => 1,
    };
    let json = json!({
        "test": test,
        "seed": claim.seed,
        "verdict": o.verdict.as_str(),
        "reason": o.reason,
        "head": {"sha": head, "failures": hr.failures, "runs": hr.runs, "no_result": hr.missing},
        "base": {"sha": mb, "failures": br.failures, "runs": br.runs, "no_result": br.missing},
        "tests_laid_over": tests,
        "runner": runner_name(&runner),
        "uncommitted_changes_ignored": dirty,
    });
    Ok(Finished { json, exit })
}

/// The claim: `test`/`seed` given, else the description's (read by the gate's own parser).
pub fn claim_of(
    body: Option<&str>,
    test: Option<&str>,
    seed: Option<&str>,
    has_command: bool,
) -> Result<Claim, String> {
    let from_body = body.and_then(|text| verify::claim_of(&check_body(text, None), has_command));
    let seed = seed.map(str::to_string);
    match (test, from_body) {
        (Some(t), c) => Ok(Claim {
            kind: EvidenceKind::Interleaving,
            test: Some(t.to_string()),
            seed: seed.or(c.and_then(|c| c.seed)),
        }),
        (None, Some(mut c)) => {
            if seed.is_some() {
                c.seed = seed;
            }
            Ok(c)
        }
        (None, None) if seed.is_some() && has_command => Ok(Claim {
            kind: EvidenceKind::Seed,
            test: None,
            seed,
        }),
        (None, None) => Err("no claim to run: give a description with a seed and its test, or a forcing test, or a test".into()),
    }
}
