//! The runs of one test on two sides: the head's first, then the base's, each side stopping
//! once the verdict is settled (docs/verification.md#a-verdicts-cost). A stop (Ctrl-C, a
//! cancelled MCP request) kills the run in progress and the caller removes the worktrees.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::core::runs::{NoResult, Outcome, Tally};
use crate::core::verify::Verdict;
use crate::core::verify::early::{self, Limit};

use super::process::NotRun;
use super::runner::{Prepared, Runner};

/// One side's runs added up (core::runs::Tally), and why none could run when it was not
/// even built.
pub type SideResult = Tally;

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

impl From<NotRun> for Stopped {
    fn from(e: NotRun) -> Stopped {
        match e {
            NotRun::Stopped => Stopped::Interrupted,
            NotRun::Spawn(e) => Stopped::Failed(e),
        }
    }
}

/// A side that never got to its runs: every run is no result for this reason.
fn unbuilt(reason: NoResult, runs: u32) -> Tally {
    let mut t = Tally::default();
    let o = Outcome::NoResult { no_result: reason };
    for _ in 0..runs.max(1) {
        t.add(&o);
    }
    t
}

/// Prepares both sides (a build each), then runs the test `runs` times on each, alternating;
/// a side that does not build has no result in any run, and the other side is not run for
/// nothing. Stops (ending the run in progress and its process group) when `stop` is
/// cancelled.
pub async fn run_sides(
    runner: &Runner,
    (head, base): (&Path, &Path),
    (test, seed): (&str, Option<&str>),
    runs: u32,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<(SideResult, SideResult), Stopped> {
    let ph = runner.prepare(head, test, seed, stop).await?;
    let pb = runner.prepare(base, test, seed, stop).await?;
    let (ph, pb) = match (ph, pb) {
        (Ok(h), Ok(b)) => (h, b),
        (h, b) => {
            let side = |p: Result<_, NoResult>| match p {
                Ok(_) => Tally::default(),
                Err(e) => unbuilt(e, runs),
            };
            return Ok((side(h), side(b)));
        }
    };
    let mut h = Tally::default();
    let mut b = Tally::default();
    let total = runs * 2;
    let mut done = 0;
    for _ in 0..runs {
        for (side, dir, prep, acc) in [("head", head, &ph, &mut h), ("base", base, &pb, &mut b)] {
            if stop.is_cancelled() {
                return Err(Stopped::Interrupted);
            }
            let outcome = runner.run_once(prep, dir, test, seed, stop).await?;
            acc.add(&outcome);
            done += 1;
            progress.ran(done, total, side, outcome.failed());
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
                // A find round and each candidate's runs have their own totals.
                b.set_length(u64::from(total));
                b.set_position(u64::from(done));
                b.set_message(format!("{side} {what}"));
            }
            None => eprintln!("run {done}/{total}: {side} {what}"),
        }
    }
}

/// One run of `test` alone in `dir` (its side prepared for it first): the find round's run
/// of each test (docs/verification.md#found-in-the-prs-tests).
pub async fn run_alone(
    runner: &Runner,
    dir: &Path,
    test: &str,
    stop: &CancellationToken,
) -> Result<Outcome, Stopped> {
    Ok(match runner.prepare(dir, test, None, stop).await? {
        Ok(p) => runner.run_once(&p, dir, test, None, stop).await?,
        Err(no_result) => Outcome::NoResult { no_result },
    })
}

/// A verification's runs (docs/verification.md#a-verdicts-cost).
#[derive(Debug)]
pub struct Verification {
    pub head: SideResult,
    pub base: SideResult,
    /// The verdict the runs settled before all were made (core::verify::early), if they did.
    pub settled: Option<Verdict>,
    /// The limit the base's runs had.
    pub base_limit: Limit,
    /// The shorter limit of the base's runs after one hung, when one did (core::verify::early).
    pub after_hang: Option<Limit>,
    /// The wall time of each side's runs, head then base (builds not counted).
    pub run_time: (Duration, Duration),
    /// The wall time of each side's build (`prepare`), head then base.
    pub build_time: (Duration, Duration),
    /// The runs asked of each side.
    pub runs: u32,
}

/// Prepares both sides, then runs the test on the head `runs` times, stopping at its first
/// failure (`still fails`); then on the base, each run limited by the larger of a floor and a
/// multiple of the head's slowest passing run (never more than the configured limit), and
/// after a base run hung, twice the head's slowest passing run; stopping once a base run
/// passed and another failed (`not deterministic`).
pub async fn verify_sides(
    runner: &Runner,
    (head, base): (&Path, &Path),
    (test, seed): (&str, Option<&str>),
    runs: u32,
    progress: &dyn Progress,
    stop: &CancellationToken,
) -> Result<Verification, Stopped> {
    let configured = Limit::Configured {
        seconds: runner.settings.timeout.as_secs().max(1),
    };
    let began = Instant::now();
    let ph = runner.prepare(head, test, seed, stop).await?;
    let head_built = began.elapsed();
    let pb = runner.prepare(base, test, seed, stop).await?;
    let build_time = (head_built, began.elapsed() - head_built);
    let (ph, pb) = match (ph, pb) {
        (Ok(h), Ok(b)) => (h, b),
        (h, b) => {
            let side = |p: Result<_, NoResult>| match p {
                Ok(_) => Tally::default(),
                Err(e) => unbuilt(e, runs),
            };
            return Ok(Verification {
                head: side(h),
                base: side(b),
                settled: None,
                base_limit: configured,
                after_hang: None,
                run_time: (Duration::ZERO, Duration::ZERO),
                build_time,
                runs,
            });
        }
    };
    let mut runs_so_far = Runs {
        head: Tally::default(),
        base: Tally::default(),
        head_time: Duration::ZERO,
        base_time: Duration::ZERO,
        done: 0,
        total: runs * 2,
        progress,
        stop,
    };
    let (slowest, settled, _) = runs_so_far
        .side(Side::Head, runner, (&ph, head), (test, seed), runs)
        .await?;
    if settled.is_some() {
        return Ok(runs_so_far.verification(settled, (configured, None), build_time, runs));
    }
    let limit = early::base_limit(runner.settings.timeout, slowest);
    let (_, settled, after_hang) = runs_so_far
        .side(
            Side::Base(limit, slowest),
            runner,
            (&pb, base),
            (test, seed),
            runs,
        )
        .await?;
    Ok(runs_so_far.verification(settled, (limit, after_hang), build_time, runs))
}

#[derive(Clone, Copy)]
enum Side {
    Head,
    /// The base, its runs under this limit until one hangs, and the head's slowest passing run.
    Base(Limit, Option<Duration>),
}

/// Both sides' tallies while `verify_sides` runs them, and the progress it reports.
struct Runs<'a> {
    head: Tally,
    base: Tally,
    /// The wall time of each side's runs so far.
    head_time: Duration,
    base_time: Duration,
    done: u32,
    total: u32,
    progress: &'a dyn Progress,
    stop: &'a CancellationToken,
}

impl Runs<'_> {
    /// Up to `runs` runs of one side, each added to its tally: the slowest passing run, the
    /// verdict when the runs so far settled it (the remaining runs are not made), and the
    /// shorter limit the base's runs had after one hung, if one did.
    async fn side(
        &mut self,
        side: Side,
        runner: &Runner,
        (prepared, dir): (&Prepared, &Path),
        (test, seed): (&str, Option<&str>),
        runs: u32,
    ) -> Result<(Option<Duration>, Option<Verdict>, Option<Limit>), Stopped> {
        let mut slowest: Option<Duration> = None;
        let mut after_hang: Option<Limit> = None;
        let mut limited = runner.clone();
        if let Side::Base(limit, _) = side {
            limited.settings.timeout = Duration::from_secs(limit.seconds());
        }
        for _ in 0..runs {
            if self.stop.is_cancelled() {
                return Err(Stopped::Interrupted);
            }
            let began = Instant::now();
            let outcome = limited
                .run_once(prepared, dir, test, seed, self.stop)
                .await?;
            let took = began.elapsed();
            if outcome == Outcome::Passed {
                slowest = slowest.max(Some(took));
            }
            let (tally, time, label) = match side {
                Side::Head => (&mut self.head, &mut self.head_time, "head"),
                Side::Base(..) => (&mut self.base, &mut self.base_time, "base"),
            };
            *time += took;
            if let Side::Base(limit, head_slowest) = side
                && after_hang.is_none()
                && early::hung(&outcome)
            {
                let later = early::after_hang(limit, head_slowest);
                if later != limit {
                    limited.settings.timeout = Duration::from_secs(later.seconds());
                    after_hang = Some(later);
                }
            }
            tally.add(&outcome);
            self.done += 1;
            self.progress
                .ran(self.done, self.total, label, outcome.failed());
            if let Some(v) = early::settled(self.head.count(), self.base.count()) {
                return Ok((slowest, Some(v), after_hang));
            }
        }
        Ok((slowest, None, after_hang))
    }

    fn verification(
        self,
        settled: Option<Verdict>,
        (base_limit, after_hang): (Limit, Option<Limit>),
        build_time: (Duration, Duration),
        runs: u32,
    ) -> Verification {
        Verification {
            head: self.head,
            base: self.base,
            settled,
            base_limit,
            after_hang,
            run_time: (self.head_time, self.base_time),
            build_time,
            runs,
        }
    }
}
