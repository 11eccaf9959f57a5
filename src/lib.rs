//! repro-gate: a GitHub App that enforces "no deterministic reproduction, no concurrency PR".
//!
//! - `core`: pure judgement over plain data (no IO).
//! - `server`, `queue`, `store`, `handlers`: the shell around it.
//! - `cli`: the command line; `app`: the composition root.

pub mod app;
pub mod ci;
pub mod cli;
pub mod clock;
pub mod core;
pub mod dashboard;
pub mod github;
pub mod handlers;
pub mod history;
pub mod local;
pub mod mcp;
pub mod queue;
pub mod random;
pub mod server;
pub mod settings;
pub mod store;
pub mod telemetry;
