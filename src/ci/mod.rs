//! `repro-gate test -- CMD`, the shell around `core::ci`: the command run with its output
//! passed through and spooled ([`command`]), its reports found ([`reports`]), its results sent
//! to the upload route ([`upload`]).

pub mod command;
pub mod reports;
pub mod upload;
