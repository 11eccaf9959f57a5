//! `repro-gate mcp`: the MCP server on stdio, in the working directory's checkout (docs/agents.md).

use std::process::ExitCode;

pub async fn run() -> anyhow::Result<ExitCode> {
    let dir = std::env::current_dir()?;
    // Installed before the session starts: a signal at any point is a clean stop.
    let stop = super::signal::shutdown_signal()?;
    crate::mcp::serve_stdio(dir, stop).await?;
    Ok(ExitCode::SUCCESS)
}
