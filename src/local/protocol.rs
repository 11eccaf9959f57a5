//! `rerun-local` and `verify-local` as functions: the CLI and the MCP server call the same ones
//! (same JSON, same verdicts), each with its own progress sink and its own way to stop (Ctrl-C
//! for the CLI, a cancelled request for MCP). The worktrees are gone when these return.

use std::path::Path;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::core::classify::lang::is_test_file;
use crate::core::evidence::{EvidenceKind, check_body};
use crate::core::rerun::comment::{SessionView, SideState, SideView, Trigger, ticket};
use crate::core::rerun::verdict::{Verdict, assess};
use crate::core::runs::{NoResult, Outcome};
use crate::core::verify::{self, Claim, discover};

use super::session::{Stopped, Verification, run_alone, run_sides, verify_sides};
use super::{Checkout, Progress, RunSettings, Runner, RunnerKind, SideResult, Worktree};

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
    /// With no claim, candidates of the find round verified at most (`verify.discover_max`);
    /// `None` when `verify.discover` is off.
    pub discover_max: Option<u32>,
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
            discover_max: config.verify.discover.then_some(config.verify.discover_max),
        }
    }
}

/// A finished run: the JSON printed, and the exit code it means (the exit column of README.md#offline-commands-json-on-stdout-messages-on-stderr).
#[derive(Debug)]
pub struct Finished {
    pub json: Value,
    pub exit: u8,
}

/// The head's and the base's worktrees, `laid` (the test files HEAD changes) laid over the
/// base, and the runner resolved in the head's.
fn worktrees_and_runner(
    co: &Checkout,
    (head, mb): (&str, &str),
    laid: &[String],
    opts: &Options,
) -> Result<(Worktree, Worktree, Runner), String> {
    let h = co.worktree(head, "head")?;
    let b = co.worktree(mb, "base")?;
    b.lay_over(head, laid)?;
    let runner = Runner::resolve(
        opts.runner,
        opts.command.clone(),
        &h.path,
        opts.settings.clone(),
    )?;
    Ok((h, b, runner))
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
    let (h, b, runner) = worktrees_and_runner(co, (head, mb), overlay, opts)?;
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
        let (h, b, runner) = worktrees_and_runner(&co, (&head, &mb), &tests, opts)?;
        let v = verify_sides(
            &runner,
            (&h.path, &b.path),
            (&test, seed),
            opts.runs,
            progress,
            stop,
        )
        .await
        .map_err(stopped)?;
        Ok::<_, String>((tests, runner, v))
    }
    .await;
    co.remove_all();
    let (tests, runner, v) = ran?;
    let o = verification_outcome(&v);
    let exit = exit_of(&o);
    let json = json!({
        "test": test,
        "seed": claim.seed,
        "verdict": o.verdict.as_str(),
        "reason": o.reason,
        "head": head_json(&head, &v),
        "base": base_json(&mb, &v),
        "stopped_early": v.settled.is_some(),
        "tests_laid_over": tests,
        "runner": runner_name(&runner),
        "uncommitted_changes_ignored": dirty,
    });
    Ok(Finished { json, exit })
}

/// The verdict of a claim's runs on both sides.
fn outcome_of(hr: &SideResult, br: &SideResult, runs: u32) -> verify::Outcome {
    let done = |r: &SideResult, side: &str| verify::SideState::Done {
        count: r.count(),
        run_url: None,
        detail: detail(r, side),
    };
    verify::assess(
        &done(hr, "the head"),
        &done(br, "the merge base"),
        false,
        runs,
    )
    .unwrap_or(verify::Outcome {
        verdict: verify::Verdict::CouldNotRun,
        reason: None,
    })
}

/// The verdict of a verification's runs: the one they settled early, else both sides' counts.
fn verification_outcome(v: &Verification) -> verify::Outcome {
    match v.settled {
        Some(verdict) => verify::Outcome {
            verdict,
            reason: None,
        },
        None => outcome_of(&v.head, &v.base, v.runs),
    }
}

/// The head side's JSON of a verification, with its runs' and its build's wall time.
fn head_json(head: &str, v: &Verification) -> Value {
    let mut j = side_json(head, &v.head, "the head");
    j["run_seconds"] = json!(seconds(v.run_time.0));
    j["build_seconds"] = json!(seconds(v.build_time.0));
    j
}

/// Seconds to a tenth.
fn seconds(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

/// The base side's JSON, with the limit its runs had (and so which one ended a hung run) and
/// its runs' and its build's wall time.
fn base_json(mb: &str, v: &Verification) -> Value {
    let mut j = side_json(mb, &v.base, "the merge base");
    j["run_seconds"] = json!(seconds(v.run_time.1));
    j["build_seconds"] = json!(seconds(v.build_time.1));
    j["limit_seconds"] = json!(v.base_limit.seconds());
    j["limit"] = json!(v.base_limit.describe());
    if let Some(later) = v.after_hang {
        j["after_hang_limit_seconds"] = json!(later.seconds());
        j["after_hang_limit"] = json!(later.describe());
    }
    j
}

fn stopped(e: Stopped) -> String {
    match e {
        Stopped::Interrupted => "interrupted".to_string(),
        Stopped::Failed(e) => e,
    }
}

/// 0 verified, 2 could not run, 1 any other verdict.
fn exit_of(o: &verify::Outcome) -> u8 {
    match o.verdict {
        verify::Verdict::Verified => 0,
        verify::Verdict::CouldNotRun => 2,
        _ => 1,
    }
}

/// `verify-local`: the claim's verification, or with none the reproduction found among the
/// tests HEAD adds or changes (unless `verify.discover` is off).
pub async fn verify_or_discover(
    dir: &Path,
    claim: Option<&Claim>,
    opts: &Options,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Finished, CouldNotRun> {
    match (claim, opts.discover_max) {
        (Some(c), _) => verify(dir, c, opts, progress, stop).await,
        (None, Some(max)) => discover(dir, max, opts, progress, stop).await,
        (None, None) => Err("no claim to run, and verify.discover is off in the config: give a description with a seed and its test, or a forcing test, or --test".into()),
    }
}

/// The claim: `test`/`seed` given, else the description's (read by the gate's own parser).
/// `None`: nothing names a claim (the reproduction is then looked for among HEAD's tests).
pub fn claim_of(
    body: Option<&str>,
    test: Option<&str>,
    seed: Option<&str>,
    has_command: bool,
) -> Result<Option<Claim>, String> {
    let from_body = body.and_then(|text| verify::claim_of(&check_body(text, None), has_command));
    let seed = seed.map(str::to_string);
    match (test, from_body) {
        (Some(t), c) => Ok(Some(Claim {
            kind: EvidenceKind::Interleaving,
            test: Some(t.to_string()),
            seed: seed.or(c.and_then(|c| c.seed)),
        })),
        (None, Some(mut c)) => {
            if seed.is_some() {
                c.seed = seed;
            }
            Ok(Some(c))
        }
        (None, None) if seed.is_some() && has_command => Ok(Some(Claim {
            kind: EvidenceKind::Seed,
            test: None,
            seed,
        })),
        (None, None) if seed.is_some() => Err(
            "a seed alone names no test to run: give --test (or --command, which takes {seed})"
                .into(),
        ),
        (None, None) => Ok(None),
    }
}

/// What a find round's run of a test was on one side (core::verify::discover).
fn seen(o: &Outcome, side: &str) -> (discover::Seen, Option<String>) {
    match o {
        Outcome::Passed => (discover::Seen::Passed, None),
        Outcome::Failed { .. } => (discover::Seen::Failed, None),
        Outcome::NoResult {
            no_result: NoResult::Build(line),
        } => (discover::Seen::DidNotBuild, Some(line.clone())),
        Outcome::NoResult { no_result } => (discover::Seen::NoResult, Some(no_result.reason(side))),
    }
}

/// The new-file numbers of the lines `from..to` adds to `path`.
fn added_lines(co: &Checkout, (from, to): (&str, &str), path: &str) -> Result<Vec<u32>, String> {
    let diff = co.git(&[
        "diff",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        from,
        to,
        "--",
        path,
    ])?;
    Ok(crate::core::classify::diff::patch_lines(&diff)
        .filter(|l| l.kind == crate::core::classify::diff::LineKind::Added)
        .filter_map(|l| l.line)
        .collect())
}

/// The tests the find round runs: each test the changed test files declare (and, of a Rust
/// source file, the tests its diff declares or changes: its test module is not laid over the
/// base), with whether the diff declares or changes it; ids that cannot be passed safely are
/// left out.
fn tests_to_find(
    co: &Checkout,
    head_tree: &Path,
    (mb, head): (&str, &str),
    changed: &[String],
) -> Result<Vec<(String, bool)>, String> {
    let mut out = Vec::new();
    for f in changed {
        let rust_source = f.ends_with(".rs") && !is_test_file(f);
        if !is_test_file(f) && !rust_source {
            continue;
        }
        let bytes = std::fs::read(head_tree.join(f)).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let tests = discover::declared_tests(f, &text);
        if tests.is_empty() {
            continue;
        }
        let added = added_lines(co, (mb, head), f)?;
        let flags = discover::changed(&tests, &added);
        for (t, c) in tests.into_iter().zip(flags) {
            if (rust_source && !c) || verify::claim::safe_test(&t.id).is_err() {
                continue;
            }
            if out.len() < discover::MAX_FOUND {
                out.push((t.id, c));
            }
        }
    }
    Ok(out)
}

/// A candidate's verification as JSON.
fn candidate_json(
    test: &str,
    o: &verify::Outcome,
    (head, mb): (&str, &str),
    v: &Verification,
) -> Value {
    json!({
        "test": test,
        "verdict": o.verdict.as_str(),
        "reason": o.reason,
        "head": head_json(head, v),
        "base": base_json(mb, v),
        "stopped_early": v.settled.is_some(),
    })
}

/// Verification with no claim (docs/verification.md#found-in-the-prs-tests): every test the
/// test files HEAD adds or changes declare, once on each side (the find round); the tests that
/// fail on the merge base and pass on HEAD (the diff's own first, at most `max`) verified as a
/// claim is, in turn, until one is `verified`.
pub async fn discover(
    dir: &Path,
    max: u32,
    opts: &Options,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Finished, CouldNotRun> {
    let (co, head, mb) = sides(dir, opts)?;
    let dirty = co.dirty();
    let ran = async {
        let changed = co.changed_files(&mb, &head)?;
        let laid: Vec<String> = changed
            .iter()
            .filter(|p| is_test_file(p))
            .cloned()
            .collect();
        let (h, b, runner) = worktrees_and_runner(&co, (&head, &mb), &laid, opts)?;
        let tests = tests_to_find(&co, &h.path, (&mb, &head), &changed)?;
        let total = u32::try_from(tests.len() * 2).unwrap_or(u32::MAX);
        let mut found = Vec::new();
        for (i, (test, changed)) in tests.iter().enumerate() {
            let done = u32::try_from(i * 2).unwrap_or(u32::MAX);
            let ho = run_alone(&runner, &h.path, test, stop)
                .await
                .map_err(stopped)?;
            progress.ran(done + 1, total, "find: head", ho.failed());
            let bo = run_alone(&runner, &b.path, test, stop)
                .await
                .map_err(stopped)?;
            progress.ran(done + 2, total, "find: base", bo.failed());
            let (head_seen, head_reason) = seen(&ho, "the head");
            let (base_seen, base_reason) = seen(&bo, "the merge base");
            found.push(discover::Found {
                test: test.clone(),
                base: base_seen,
                head: head_seen,
                changed: *changed,
                base_reason,
                head_reason,
            });
        }
        let mut verified: Vec<(String, verify::Outcome, Verification)> = Vec::new();
        for c in discover::candidates(&found, max) {
            let v = verify_sides(
                &runner,
                (&h.path, &b.path),
                (&c.test, None),
                opts.runs,
                progress,
                stop,
            )
            .await
            .map_err(stopped)?;
            let o = verification_outcome(&v);
            let done = o.verdict == verify::Verdict::Verified;
            verified.push((c.test.clone(), o, v));
            if done {
                break;
            }
        }
        Ok::<_, String>((laid, runner, found, verified))
    }
    .await;
    co.remove_all();
    let (laid, runner, found, verified) = ran?;
    let chosen = verified
        .iter()
        .find(|v| v.1.verdict == verify::Verdict::Verified)
        .or(verified.first());
    let o = match chosen {
        Some(v) => v.1.clone(),
        None => discover::without_candidate(&found),
    };
    let exit = match o.verdict {
        verify::Verdict::Verified => 0,
        verify::Verdict::CouldNotRun => 2,
        _ => 1,
    };
    let sides = (head.as_str(), mb.as_str());
    let json = json!({
        "test": chosen.map(|v| v.0.clone()),
        "found_in_tests": true,
        "verdict": o.verdict.as_str(),
        "reason": o.reason,
        "head": chosen.map(|v| head_json(&head, &v.2)),
        "base": chosen.map(|v| base_json(&mb, &v.2)),
        "found": found,
        "candidates": verified.iter().map(|v| candidate_json(&v.0, &v.1, sides, &v.2)).collect::<Vec<_>>(),
        "tests_laid_over": laid,
        "runner": runner_name(&runner),
        "uncommitted_changes_ignored": dirty,
    });
    Ok(Finished { json, exit })
}
