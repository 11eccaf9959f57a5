//! `repro-gate mcp`: the MCP server on stdio, in the working directory's checkout (docs/agents.md).

use std::process::ExitCode;

pub async fn run() -> anyhow::Result<ExitCode> {
    let dir = std::env::current_dir()?;
    crate::mcp::serve_stdio(dir).await?;
    Ok(ExitCode::SUCCESS)
}
