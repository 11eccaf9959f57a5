//! Whether a CI test command's failure stands (docs/history.md#quarantine-that-holds-in-ci): a quarantined test still runs and is still
//! recorded, but its failure alone does not fail the build. Anything else that went wrong (a
//! failure of a trusted, probation or unlisted test, a test marked `broken`, a build error, a
//! crash or a hang, a command that failed with no test failure to explain it) keeps the
//! command's own status.

use serde::Serialize;

use super::account::{self, Account, Unexplained};
use super::signs::Signs;
use crate::core::failures::{Outcome, TestResult};
use crate::core::reliability::ReliabilityFile;
use crate::core::runs::Ended;
use crate::core::tier::Tier;

/// What the command did, as read.
#[derive(Clone, Debug)]
pub struct Observed<'a> {
    pub ended: Ended,
    /// Every test the output and the reports showed.
    pub results: &'a [TestResult],
    /// Tests the parsers left out (over their bound): their outcomes are unknown.
    pub dropped: usize,
    pub signs: &'a Signs,
    /// Each failing package, binary and session, as the output showed it.
    pub account: &'a Account,
}

/// The reliability file as read before the command ran.
#[derive(Clone, Copy, Debug)]
pub enum FileState<'a> {
    Read(&'a ReliabilityFile),
    /// No file: every test is unlisted.
    Missing,
    /// It could not be used: nothing is excused.
    Invalid(&'a str),
}

/// A failure that does not decide the build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Excused {
    pub test: String,
    pub ticket: Option<String>,
    pub owner: Option<String>,
}

/// Why a failing test's failure stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "why", content = "tier")]
pub enum Stands {
    /// Its entry's tier (trusted or probation).
    Tier(Tier),
    /// It is not in the file.
    Unlisted,
    /// The file marks it broken: a real failure, quarantined or not.
    Broken,
}

/// A failure that decides the build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blocking {
    pub test: String,
    #[serde(flatten)]
    pub why: Stands,
}

/// Trouble beyond the tests' results: any one keeps the command's status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "problem", content = "detail")]
pub enum Problem {
    /// The command was ended by this signal (or its shell exited 128 + it).
    Killed(i32),
    Build(String),
    Crash(String),
    Hang(String),
    Interrupted(String),
    /// It failed and no test failure explains it.
    Unexplained(i32),
    /// A failing package, binary or process, or the command's status, that its failing tests
    /// do not account for.
    Unaccounted(Unexplained),
    /// More tests than the parsers keep: some outcomes are unknown.
    Truncated(usize),
    /// The reliability file could not be used.
    File(String),
}

/// How the build stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The command succeeded.
    Passed,
    /// It failed, and only quarantined tests' failures explain it.
    Excused,
    /// Its failure stands.
    Failed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub standing: Standing,
    /// The status to exit with.
    pub exit: i32,
    /// The command's own status (128 + N for a signal).
    pub command_exit: i32,
    pub excused: Vec<Excused>,
    pub blocking: Vec<Blocking>,
    pub problems: Vec<Problem>,
}

/// What `repro-gate test` does with a failure of a test of this standing (for `lookup` and
/// the MCP tool): listed, its tier, whether the file marks it broken.
pub fn in_ci(listed: bool, tier: Tier, broken: bool) -> &'static str {
    match (listed, tier, broken) {
        (true, _, true) => {
            "Marked broken: under `repro-gate test -- <command>` its failure always fails the build."
        }
        (true, Tier::Quarantined, false) => {
            "In CI under `repro-gate test -- <command>`, its failure alone does not fail the build: it still runs and its result is recorded in the history."
        }
        (false, _, _) => {
            "Not listed: under `repro-gate test -- <command>` its failure fails the build (only quarantined tests are excused)."
        }
        _ => {
            "Under `repro-gate test -- <command>` its failure fails the build (only quarantined tests are excused)."
        }
    }
}

/// The status a process that ended so reports to its parent.
pub fn exit_status(ended: Ended) -> i32 {
    match ended {
        Ended::Exited(c) => c,
        Ended::Signalled(n) => 128 + n,
        Ended::TimedOut(_) => 124,
    }
}

pub fn decide(obs: &Observed<'_>, file: FileState<'_>) -> Decision {
    let command_exit = exit_status(obs.ended);
    let mut excused = Vec::new();
    let mut blocking = Vec::new();
    let mut problems = Vec::new();
    // A test that failed and passed in one run (`-count=N`, a runner's retry) failed too.
    for r in obs
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail | Outcome::Flaky))
    {
        let test = r.test.id();
        let entry = match file {
            FileState::Read(f) => f.find(r.test.package.as_deref(), &r.test.name),
            _ => None,
        };
        match entry {
            Some(e) if e.broken == Some(true) => blocking.push(Blocking {
                test,
                why: Stands::Broken,
            }),
            Some(e) if e.tier == Tier::Quarantined => excused.push(Excused {
                test,
                ticket: e.ticket.clone(),
                owner: e.owner.clone(),
            }),
            Some(e) => blocking.push(Blocking {
                test,
                why: Stands::Tier(e.tier),
            }),
            None => blocking.push(Blocking {
                test,
                why: Stands::Unlisted,
            }),
        }
    }
    if command_exit == 0 {
        return Decision {
            standing: Standing::Passed,
            exit: 0,
            command_exit,
            excused: Vec::new(),
            blocking: Vec::new(),
            problems,
        };
    }
    match obs.ended {
        Ended::Signalled(n) => problems.push(Problem::Killed(n)),
        Ended::Exited(c) if c > 128 && c < 128 + 65 => problems.push(Problem::Killed(c - 128)),
        Ended::TimedOut(s) => problems.push(Problem::Hang(format!("ended after {s} s"))),
        Ended::Exited(_) => {}
    }
    let signs = obs.signs;
    if let Some(l) = &signs.build {
        problems.push(Problem::Build(l.clone()));
    }
    if let Some(l) = &signs.crash {
        problems.push(Problem::Crash(l.clone()));
    }
    if let Some(l) = &signs.hang {
        problems.push(Problem::Hang(l.clone()));
    }
    if let Some(l) = &signs.interrupted {
        problems.push(Problem::Interrupted(l.clone()));
    }
    // A signal, a crash, a hang or a build error says it already. Otherwise each failing
    // package, binary and process, and the status, must be what its failing tests give (with
    // no failing test at all, `Unexplained` below says so).
    let any_failed = !(excused.is_empty() && blocking.is_empty());
    if matches!(obs.ended, Ended::Exited(_)) && problems.is_empty() {
        problems.extend(
            account::unexplained(obs.account, command_exit)
                .into_iter()
                .filter(|u| any_failed || !matches!(u, Unexplained::Status { .. }))
                .map(Problem::Unaccounted),
        );
    }
    if obs.dropped > 0 {
        problems.push(Problem::Truncated(obs.dropped));
    }
    if let FileState::Invalid(e) = file {
        problems.push(Problem::File(e.to_string()));
    }
    if excused.is_empty() && blocking.is_empty() {
        problems.push(Problem::Unexplained(command_exit));
    }
    let standing = if problems.is_empty() && blocking.is_empty() {
        Standing::Excused
    } else {
        Standing::Failed
    };
    Decision {
        standing,
        exit: if standing == Standing::Excused {
            0
        } else {
            command_exit
        },
        command_exit,
        excused,
        blocking,
        problems,
    }
}
