//! `repro-gate rerun-local TEST` (§10 on this checkout) and `repro-gate verify-local` (§11 on
//! this checkout): the same verdicts from the same `core` code the App uses, JSON on stdout,
//! progress on stderr, and no worktree left behind, also on an error or Ctrl-C.

use std::process::ExitCode;

use serde_json::json;

use crate::core::evidence::check_body;
use crate::core::lang::is_test_file;
use crate::core::rerun::comment::{SessionView, SideState, SideView, Trigger, ticket};
use crate::core::rerun::verdict::{Verdict, assess};
use crate::core::verify::{self, Claim};
use crate::local::session::{Stderr, Stopped};
use crate::local::{Checkout, Runner, RunnerKind, SideResult, run_sides};

use super::input::{print_json, read_text};

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

/// Could not run: exit 2 with the reason.
fn could_not(why: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {why}");
    ExitCode::from(2)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("a runtime: {e}"))
}

/// The checkout, its HEAD and the merge base with `--base`.
fn sides(args: &RunArgs) -> Result<(Checkout, String, String), String> {
    if args.runs == 0 || args.runs > crate::core::config::MAX_RERUN_RUNS {
        return Err(format!(
            "--runs must be between 1 and {}",
            crate::core::config::MAX_RERUN_RUNS
        ));
    }
    let here = std::env::current_dir().map_err(|e| format!("the working directory: {e}"))?;
    let co = Checkout::at(&here)?;
    let head = co.commit("HEAD")?;
    let base_ref = match &args.base {
        Some(b) => b.clone(),
        None => co.default_base()?,
    };
    let mb = co.merge_base(&base_ref)?;
    Ok((co, head, mb))
}

/// Worktrees of `head` and of `mb` (with `overlay` laid over it from `head`), the test run
/// `run.runs` times on each, interleaved. The worktrees go when this returns, and on Ctrl-C.
fn run_both(
    co: &Checkout,
    head: &str,
    mb: &str,
    overlay: &[String],
    run: &RunArgs,
    test: &str,
    seed: Option<&str>,
) -> Result<(Runner, SideResult, SideResult), String> {
    let h = co.worktree(head, "head")?;
    let b = co.worktree(mb, "base")?;
    b.lay_over(head, overlay)?;
    let runner = Runner::resolve(run.runner, run.command.clone(), &h.path)?;
    let progress = Stderr::new(run.runs * 2);
    let ran = runtime()?.block_on(run_sides(
        &runner, &h.path, &b.path, test, seed, run.runs, &progress,
    ));
    progress.finish();
    match ran {
        Ok((hr, br)) => Ok((runner, hr, br)),
        Err(Stopped::Interrupted) => Err("interrupted".into()),
        Err(Stopped::Failed(e)) => Err(e),
    }
}

pub fn rerun_local(args: RerunLocalArgs) -> ExitCode {
    let (co, head, mb) = match sides(&args.run) {
        Ok(s) => s,
        Err(e) => return could_not(e),
    };
    if co.dirty() {
        eprintln!(
            "note: uncommitted changes are not part of the runs (both sides run as committed)"
        );
    }
    let result = (|| -> Result<serde_json::Value, String> {
        let (runner, hr, br) = run_both(&co, &head, &mb, &[], &args.run, &args.test, None)?;
        let a = assess(hr.count(), br.count());
        let phrase = match a.verdict {
            Verdict::NotThisChange => "not this change",
            Verdict::ThisChangeMakesItFail => "this change makes it fail",
            Verdict::BrokenOnBoth => "broken on both",
            Verdict::NoFailure => "no failure in n runs on either side",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoResults => "no results",
        };
        let ticket_text = (a.verdict == Verdict::NotThisChange).then(|| {
            let view = SessionView {
                session: "local",
                test: &args.test,
                runs: args.run.runs,
                workflow: "rerun-local",
                trigger: Trigger::Command("local"),
                branch: SideView {
                    sha: &head,
                    state: SideState::Done {
                        count: hr.count(),
                        run_url: None,
                        seeds: &[],
                    },
                },
                base: SideView {
                    sha: &mb,
                    state: SideState::Done {
                        count: br.count(),
                        run_url: None,
                        seeds: &[],
                    },
                },
                history: None,
                timed_out_after: None,
                ticket_issue: None,
            };
            ticket(&view, &a, hr.count(), br.count())
        });
        Ok(json!({
            "test": args.test,
            "verdict": phrase,
            "head": {"sha": head, "failures": hr.failures, "runs": hr.runs, "no_result": hr.missing,
                     "interval": [a.branch_interval.0, a.branch_interval.1]},
            "base": {"sha": mb, "failures": br.failures, "runs": br.runs, "no_result": br.missing,
                     "interval": [a.base_interval.0, a.base_interval.1]},
            "p": a.p,
            "ticket": ticket_text,
            "runner": format!("{:?}", runner.kind).to_lowercase(),
        }))
    })();
    co.remove_all();
    match result {
        Ok(v) => {
            let none = v["verdict"] == "no results";
            if let Err(e) = print_json(&v) {
                return could_not(e);
            }
            if none {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => could_not(e),
    }
}

pub fn verify_local(args: VerifyLocalArgs) -> ExitCode {
    let claim = match claim_of(&args) {
        Ok(c) => c,
        Err(e) => return could_not(e),
    };
    if let Err(e) = claim.check() {
        return could_not(e);
    }
    let (co, head, mb) = match sides(&args.run) {
        Ok(s) => s,
        Err(e) => return could_not(e),
    };
    if co.dirty() {
        eprintln!("note: uncommitted changes are not part of the runs (HEAD runs as committed)");
    }
    let result = (|| -> Result<serde_json::Value, String> {
        let tests: Vec<String> = co
            .changed_files(&mb, &head)?
            .into_iter()
            .filter(|p| is_test_file(p))
            .collect();
        let test = claim.test_input();
        let (runner, hr, br) = run_both(
            &co,
            &head,
            &mb,
            &tests,
            &args.run,
            &test,
            claim.seed.as_deref(),
        )?;
        let done = |r: SideResult| verify::SideState::Done {
            count: r.count(),
            run_url: None,
        };
        let o = verify::assess(&done(hr), &done(br), false).unwrap_or(verify::Outcome {
            verdict: verify::Verdict::CouldNotRun,
            reason: None,
        });
        Ok(json!({
            "test": test,
            "seed": claim.seed,
            "verdict": o.verdict.as_str(),
            "reason": o.reason,
            "head": {"sha": head, "failures": hr.failures, "runs": hr.runs, "no_result": hr.missing},
            "base": {"sha": mb, "failures": br.failures, "runs": br.runs, "no_result": br.missing},
            "tests_laid_over": tests,
            "runner": format!("{:?}", runner.kind).to_lowercase(),
        }))
    })();
    co.remove_all();
    match result {
        Ok(v) => {
            let verdict = v["verdict"].as_str().unwrap_or("").to_string();
            if let Err(e) = print_json(&v) {
                return could_not(e);
            }
            match verdict.as_str() {
                "verified" => ExitCode::SUCCESS,
                "could not run" => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
        Err(e) => could_not(e),
    }
}

/// The claim: `--test`/`--seed`, else the description's (read by the gate's own parser).
fn claim_of(args: &VerifyLocalArgs) -> Result<Claim, String> {
    let from_body = match &args.body {
        Some(b) => {
            let text = read_text(b, "the description")?;
            let v = check_body(&text, None);
            verify::claim_of(&v, args.run.command.is_some())
        }
        None => None,
    };
    match (&args.test, from_body) {
        (Some(t), c) => Ok(Claim {
            kind: crate::core::evidence::EvidenceKind::Interleaving,
            test: Some(t.clone()),
            seed: args.seed.clone().or(c.and_then(|c| c.seed)),
        }),
        (None, Some(mut c)) => {
            if args.seed.is_some() {
                c.seed = args.seed.clone();
            }
            Ok(c)
        }
        (None, None) if args.seed.is_some() && args.run.command.is_some() => Ok(Claim {
            kind: crate::core::evidence::EvidenceKind::Seed,
            test: None,
            seed: args.seed.clone(),
        }),
        (None, None) => Err("no claim to run: give --body (a description with a seed and its test, or a forcing test) or --test".into()),
    }
}
