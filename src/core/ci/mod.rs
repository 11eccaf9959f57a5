//! `repro-gate test -- CMD` (README.md#offline-commands-json-on-stdout-messages-on-stderr, docs/history.md#quarantine-that-holds-in-ci), the pure part: what a CI test command's output says
//! ([`signs`]), whether its failure stands ([`excuse`]), what it tells people ([`summary`]),
//! the results it records ([`junit_out`]) and the run they belong to ([`env`]).

pub mod account;
pub mod env;
pub mod excuse;
pub mod junit_out;
pub mod merge;
pub mod signs;
pub mod summary;

#[cfg(test)]
mod tests;
