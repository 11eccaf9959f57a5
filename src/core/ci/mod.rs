//! `repro-gate test -- CMD` (§2, §7), the pure part: what a CI test command's output says
//! ([`signs`]), whether its failure stands ([`excuse`]), what it tells people ([`summary`]),
//! the results it records ([`junit_out`]) and the run they belong to ([`env`]).

pub mod env;
pub mod excuse;
pub mod junit_out;
pub mod signs;
pub mod summary;

#[cfg(test)]
mod tests;
