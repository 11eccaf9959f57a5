//! The agent's side of the rule on this machine's checkout (docs/agents.md): git
//! worktrees for HEAD and the merge base, one test run alone on each side (each run its own
//! process group, with a time limit), the head's runs first and the base's after, results
//! read by the product's own rules, and the worktrees removed afterwards whatever happens.

pub mod config;
pub mod input;
pub mod lookup;
pub mod process;
pub mod protocol;
pub mod runner;
pub mod session;
pub mod worktree;

pub use runner::{RunSettings, Runner, RunnerKind};
pub use session::{Progress, SideResult, run_sides};
pub use worktree::{Checkout, Worktree};
