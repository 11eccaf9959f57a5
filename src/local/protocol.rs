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
use super::{Checkout, Progress, RunSettings, Runner, RunnerKind, SideResult};

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
    /// The repository's `rerun.args`, `rerun.env`, `rerun.run_timeout_seconds` and
    /// `verify.build`.
    pub settings: RunSettings,
}

impl Options {
    /// Options from the repository's config (`rerun.*`, `verify.command`/`build`), with what
    /// the caller gave winning.
    pub fn from_config(
        config: &crate::core::config::RepoConfig,
        runs: u32,
        base: Option<String>,
        runner: RunnerKind,
        command: Option<String>,
        timeout_seconds: Option<u64>,
    ) -> Options {
        let from_config = command.is_none() && runner == RunnerKind::Auto;
        let command =
            command.or_else(|| from_config.then(|| config.verify.command.clone()).flatten());
        Options {
            runs,
            base,
            runner,
            settings: RunSettings {
                args: config.rerun.args.clone(),
                env: config
                    .rerun
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                timeout: std::time::Duration::from_secs(
                    timeout_seconds
                        .unwrap_or(config.rerun.run_timeout_seconds)
                        .max(1),
                ),
                build: command.as_ref().and(config.verify.build.clone()),
            },
            command,
        }
    }
}

/// A finished run: the JSON printed, and the exit code it means (the exit column of README.md#offline-commands-json-on-stdout-messages-on-stderr).
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
    if mb == head {
        return Err(format!(
            "HEAD is on the base branch already ({base_ref} contains it): give --base, the branch this change goes into"
        ));
    }
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
    let runner = Runner::resolve(
        opts.runner,
        opts.command.clone(),
        &h.path,
        opts.settings.clone(),
    )?;
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

fn runner_name(r: &Runner) -> &'static str {
    r.family.as_str()
}

/// A side's runs as JSON: failures among the runs that reported the test, how they failed,
/// and the runs with no result with their reason.
fn side_json(sha: &str, r: &SideResult, side: &str) -> Value {
    json!({
        "sha": sha,
        "failures": r.failures,
        "runs": r.runs,
        "no_result": r.no_result,
        "how": r.failures_described(),
        "no_result_reason": r.no_result_reason(side),
    })
}

/// The verdict's detail of a side (core::verify).
fn detail(r: &SideResult, side: &str) -> verify::RunDetail {
    verify::RunDetail {
        how: r.failures_described(),
        no_result: r.no_result_reason(side),
    }
}

/// The retry protocol (docs/rerun.md) on this checkout: the test alone on HEAD and on the merge base.
pub async fn rerun(
    dir: &Path,
    test: &str,
    opts: &Options,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Finished, CouldNotRun> {
    // An id is data: the same check as verify-local, the App and the workflow.
    crate::core::verify::claim::safe_test(test)
        .map_err(|e| format!("the test id is refused: {e}"))?;
    let (co, head, mb) = sides(dir, opts)?;
    let dirty = co.dirty();
    let ran = run_both(&co, (&head, &mb), &[], opts, (test, None), progress, stop).await;
    co.remove_all();
    let (runner, hr, br) = ran?;
    let no_result = br
        .no_result_reason("the merge base")
        .or_else(|| hr.no_result_reason("the head"));
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
    let mut head_json = side_json(&head, &hr, "the head");
    head_json["interval"] = json!([a.branch_interval.0, a.branch_interval.1]);
    let mut base_json = side_json(&mb, &br, "the merge base");
    base_json["interval"] = json!([a.base_interval.0, a.base_interval.1]);
    // A run that never started makes the comparison mean nothing: could not run.
    let (phrase, ticket_text) = match &no_result {
        Some(_) => ("could not run", None),
        None => (phrase, ticket_text),
    };
    let json = json!({
        "test": test,
        "verdict": phrase,
        "reason": no_result,
        "head": head_json,
        "base": base_json,
        "p": a.p,
        "ticket": ticket_text,
        "runner": runner_name(&runner),
        "uncommitted_changes_ignored": dirty,
    });
    let exit = if a.verdict == Verdict::NoResults || no_result.is_some() {
        2
    } else {
        0
    };
    Ok(Finished { json, exit })
}

/// Verification (docs/verification.md) on this checkout: the merge base with HEAD's changed test files laid over it must fail,
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
    let done = |r: &SideResult, side: &str| verify::SideState::Done {
        count: r.count(),
        run_url: None,
        detail: detail(r, side),
    };
    let o = verify::assess(&done(&hr, "the head"), &done(&br, "the merge base"), false).unwrap_or(
        verify::Outcome {
            verdict: verify::Verdict::CouldNotRun,
            reason: None,
        },
    );
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
        "head": side_json(&head, &hr, "the head"),
        "base": side_json(&mb, &br, "the merge base"),
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
