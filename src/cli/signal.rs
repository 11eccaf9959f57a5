//! The signals that end a long-running command (`serve`, the local runs).

use anyhow::Context as _;
use tokio::signal::unix::{SignalKind, signal};

/// Installs the SIGTERM and SIGINT handlers now (so a signal that arrives at
/// once is caught, not the default action that kills the process) and
/// returns the future that resolves when either arrives. Needs a runtime.
pub(super) fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}
