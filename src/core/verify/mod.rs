//! Verified reproduction (docs/verification.md), pure: the claim a description makes (test, seed), whether it can
//! be passed to the workflow safely, the test files laid over the merge base, the verdict of the
//! two sides, the trace cross-check, and the text of each state.

pub mod claim;
pub mod discover;
pub mod early;
pub mod find;
pub mod find_summary;
pub mod summary;
pub mod to_run;
pub mod trace;
pub mod verdict;

pub use claim::{Claim, claim_of, test_files_for_base};
pub use verdict::{Outcome, RunDetail, SideState, Verdict, assess};

/// The `workflow_dispatch` inputs a verification needs beyond a rerun's (`tests_from` and `tests`
/// always; `seed` and `command` when the claim or the config uses them).
pub const INPUTS: [&str; 4] = ["tests_from", "tests", "seed", "command"];

/// Where verification stands for a PR's head, as the gate reads it (no IO).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Nothing to verify: `verify.mode: off`, no claim, or the PR is not under the gate.
    Inapplicable,
    /// No rerun workflow on the default branch: the text-only gate, and how to turn it on.
    NotInstalled { workflow: String },
    /// The workflow is there but does not take the inputs a verification needs.
    Outdated {
        workflow: String,
        missing: Vec<String>,
    },
    /// The PR's code is from a fork: nothing runs until a writer's `/repro verify`.
    AwaitingWriter { claim: Claim },
    /// The claim cannot be passed to the workflow safely: nothing is dispatched.
    Unrunnable { claim: Claim, reason: String },
    /// A session should start now (the shell starts it, then reads it as `Session`).
    ToStart { claim: Claim, tests: Vec<String> },
    /// A session of this head and claim: running or concluded.
    Session(Box<SessionView>),
    /// No claim, and the rerun workflow is an older copy without the find round: the
    /// text-only gate, and the summary says so.
    NoFindMode { workflow: String },
    /// No claim, and the PR adds or changes these test files (laid over the merge base) or
    /// the tests of these Rust sources (each side runs its own copy): the find round should
    /// start.
    ToFind {
        tests: Vec<String>,
        sources: Vec<String>,
    },
    /// The search among the PR's tests: its find round and its candidates' verifications.
    Finding(Box<find::FindView>),
    /// No claim, the PR's code is from a fork and it adds or changes these test files (or the
    /// tests of these Rust sources): the find round waits for a writer's `/repro verify`.
    FindAwaitingWriter {
        tests: Vec<String>,
        sources: Vec<String>,
    },
}

impl Status {
    /// The verdict, once there is one (`could not run` for a claim that cannot be passed).
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Status::Session(s) => s.outcome(),
            Status::Finding(f) => f.outcome(),
            Status::Unrunnable { reason, .. } => Some(Outcome {
                verdict: Verdict::CouldNotRun,
                reason: Some(reason.clone()),
            }),
            _ => None,
        }
    }

    /// A verification decides (or will decide) the check under `mode: required`.
    pub fn decides(&self) -> bool {
        matches!(
            self,
            Status::AwaitingWriter { .. }
                | Status::FindAwaitingWriter { .. }
                | Status::Unrunnable { .. }
                | Status::ToStart { .. }
                | Status::Session(_)
                | Status::ToFind { .. }
                | Status::Finding(_)
        )
    }
}

/// A verification session as the gate shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionView {
    pub id: String,
    pub claim: Claim,
    pub head_sha: String,
    pub base_sha: String,
    pub runs: u32,
    /// Test files laid over the merge base.
    pub tests: Vec<String>,
    pub branch: SideState,
    pub base: SideState,
    pub timed_out: bool,
    /// Who asked for it (`/repro verify`), if a person did.
    pub requested_by: Option<String>,
}

impl SessionView {
    pub fn outcome(&self) -> Option<Outcome> {
        assess(&self.branch, &self.base, self.timed_out, self.runs)
    }
}
