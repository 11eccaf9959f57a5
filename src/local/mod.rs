//! The agent's side of the rule on this machine's checkout (§12): git worktrees for HEAD and
//! the merge base, one test run alone on each side, the sides interleaved, results read by the
//! product's own parsers, and the worktrees removed afterwards whatever happens.

pub mod protocol;
pub mod runner;
pub mod session;
pub mod worktree;

pub use runner::{Runner, RunnerKind};
pub use session::{Progress, SideResult, run_sides};
pub use worktree::{Checkout, Worktree};
