//! `repro-gate mcp`: the agent's tools (docs/agents.md) as a Model Context Protocol server on stdin and
//! stdout (JSON-RPC 2.0, the official SDK `rmcp`). Each tool returns the JSON the matching
//! subcommand prints; the long ones send progress notifications and stop, removing their
//! worktrees, when the request is cancelled or stdin closes. Nothing but JSON-RPC goes to stdout:
//! logs go to stderr and every child process's output is captured.

mod files;
mod params;
mod progress;
mod server;

pub use server::Tools;

use rmcp::ServiceExt as _;

/// Serves on stdio until stdin closes or `stop` resolves (SIGTERM, Ctrl-C), then stops the
/// running tools and waits until they have cleaned up: their runs' process groups ended, their
/// worktrees removed.
pub async fn serve_stdio(
    dir: std::path::PathBuf,
    stop: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let tools = Tools::new(dir);
    let tracker = tools.tracker();
    let running = tools
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("starting the MCP session: {e}"))?;
    let session = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        reason = &mut waiting => {
            tracing::debug!(reason = ?reason?, "the MCP session ended");
        }
        () = stop => {
            tracing::info!("signal received: stopping the running tools");
            tracker.stop_and_wait().await;
            session.cancel();
            let _ = waiting.await;
        }
    }
    tracker.stop_and_wait().await;
    Ok(())
}
