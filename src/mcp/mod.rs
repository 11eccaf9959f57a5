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
    // stdin's end is seen here, at once: the SDK would first wait up to 5 s for the running
    // calls' answers (which never come for a ten-minute run) before the cleanup could start.
    let eof = tokio_util::sync::CancellationToken::new();
    let stdin = EofSignal {
        inner: tokio::io::stdin(),
        eof: eof.clone(),
    };
    let running = tools
        .serve((stdin, tokio::io::stdout()))
        .await
        .map_err(|e| anyhow::anyhow!("starting the MCP session: {e}"))?;
    let session = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        reason = &mut waiting => {
            tracing::debug!(reason = ?reason?, "the MCP session ended");
        }
        () = eof.cancelled() => {
            tracing::info!("stdin closed: stopping the running tools");
            tracker.stop_and_wait().await;
            session.cancel();
            let _ = waiting.await;
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

/// stdin, cancelling `eof` when it ends (or fails).
struct EofSignal<R> {
    inner: R,
    eof: tokio_util::sync::CancellationToken,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for EofSignal<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let asked = buf.remaining() > 0;
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        match &r {
            std::task::Poll::Ready(Ok(())) if asked && buf.filled().len() == before => {
                self.eof.cancel();
            }
            std::task::Poll::Ready(Err(_)) => self.eof.cancel(),
            _ => {}
        }
        r
    }
}
