//! The pure core: judgement over plain data. No IO, no async, no clock.

pub mod backoff;
pub mod ci;
pub mod classify;
pub mod commands;
pub mod comment;
pub mod config;
pub mod delivery;
pub mod evidence;
pub mod explain;
pub mod failures;
pub mod history;
pub mod markdown;
pub mod merge_group;
pub mod reliability;
pub mod render;
pub mod rerun;
pub mod runs;
pub mod shell;
pub mod test_ids;
pub mod tier;
pub mod tier_changes;
pub mod verdict;
pub mod verify;
