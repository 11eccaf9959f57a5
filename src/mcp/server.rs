//! The MCP server: five tools over the same functions the subcommands use.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, Implementation, JsonObject, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::core::classify::{self, diff};
use crate::core::evidence;
use crate::local::RunnerKind;
use crate::local::protocol::{self, Finished, Options};

use super::params::{
    CheckDescriptionParams, ClassifyDiffParams, LookupParams, RerunParams, RunParams, VerifyParams,
};
use super::progress::Notifier;

/// What the server says about itself at `initialize`.
const INSTRUCTIONS: &str = "Before reasoning about a failing test, call lookup_test: a quarantined \
test's failure is not evidence; a probation test is rerun with rerun_local (HEAD and the merge \
base, the same rate on both means not this change). A single green rerun never confirms a fix. \
Before claiming a concurrency fix, check the PR description with check_description and run its \
reproduction with verify_local: it must fail on the merge base and pass on HEAD.";

/// The running tools' work: stopped and awaited when the session ends, so that no worktree
/// outlives the server.
#[derive(Clone, Default)]
pub struct Work {
    tracker: TaskTracker,
    stop: CancellationToken,
}

impl Work {
    /// Cancels running tools and waits until they have cleaned up.
    pub async fn stop_and_wait(&self) {
        self.stop.cancel();
        self.tracker.close();
        self.tracker.wait().await;
    }
}

#[derive(Clone)]
pub struct Tools {
    dir: Arc<PathBuf>,
    work: Work,
    tool_router: ToolRouter<Tools>,
}

fn failed(message: impl Into<String>) -> CallToolResult {
    CallToolResult::structured_error(json!({ "error": message.into() }))
}

/// A tool's arguments, read by the tool: a missing or mistyped one is a result with
/// `{"error": …}` that says which (the agent reads it and calls again), not a protocol error.
fn arguments<T: serde::de::DeserializeOwned>(args: JsonObject) -> Result<T, CallToolResult> {
    serde_json::from_value(Value::Object(args)).map_err(|e| failed(format!("the arguments: {e}")))
}

/// A tool's `inputSchema`, from its arguments' type.
fn schema<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|_| rmcp::handler::server::common::schema_for_empty_input())
}

fn done(value: Value) -> CallToolResult {
    CallToolResult::structured(value)
}

/// Serialises a result the way the CLI prints it.
fn as_json<T: serde::Serialize>(v: &T) -> CallToolResult {
    match serde_json::to_value(v) {
        Ok(v) => done(v),
        Err(e) => failed(format!("encoding the result: {e}")),
    }
}

impl Tools {
    pub fn new(dir: PathBuf) -> Tools {
        Tools {
            dir: Arc::new(dir),
            work: Work::default(),
            tool_router: Self::tool_router(),
        }
    }

    pub fn tracker(&self) -> Work {
        self.work.clone()
    }

    fn dir_of(&self, dir: Option<&str>) -> PathBuf {
        match dir {
            Some(d) => self.dir.join(d),
            None => self.dir.as_ref().clone(),
        }
    }

    /// Runs blocking or CPU-heavy `f` off the async threads.
    async fn blocking<F>(f: F) -> CallToolResult
    where
        F: FnOnce() -> CallToolResult + Send + 'static,
    {
        tokio::task::spawn_blocking(f)
            .await
            .unwrap_or_else(|e| failed(format!("the tool stopped: {e}")))
    }

    /// Runs a long tool as tracked work that stops with the request or the session.
    async fn long<F, Fut>(&self, ctx: &RequestContext<RoleServer>, f: F) -> CallToolResult
    where
        F: FnOnce(Notifier, CancellationToken) -> Fut,
        Fut: std::future::Future<Output = Result<Finished, String>> + Send + 'static,
    {
        let stop = self.work.stop.child_token();
        let request = ctx.ct.clone();
        let on_cancel = stop.clone();
        let (notifier, sent) = Notifier::new(ctx.peer.clone(), ctx.meta.get_progress_token());
        let fut = f(notifier, stop.clone());
        let handle = self.work.tracker.spawn(async move {
            let watch = tokio::spawn(async move {
                request.cancelled().await;
                on_cancel.cancel();
            });
            let r = fut.await;
            watch.abort();
            r
        });
        let result = handle.await;
        // The work (and with it the notifier) is done: the last notifications go first.
        if let Some(sent) = sent {
            let _ = sent.await;
        }
        match result {
            Ok(Ok(f)) => done(f.json),
            Ok(Err(e)) => failed(e),
            Err(e) => failed(format!("the tool stopped: {e}")),
        }
    }
}

fn options(run: &RunParams, dir: &Path) -> Result<Options, String> {
    let config = crate::local::config::checkout_config(dir, run.config.as_deref())?;
    Ok(Options::from_config(
        &config,
        run.runs.unwrap_or(20),
        run.base.clone(),
        run.runner.unwrap_or(RunnerKind::Auto),
        run.command.clone(),
        run.timeout_seconds,
    ))
}

#[tool_router]
impl Tools {
    #[tool(
        description = "A test's reliability tier (trusted, probation, quarantined), its stats, owner and ticket, and what to do about a failure of it, from the repository's reliability file. Call it before reasoning about any failing test.",
        input_schema = schema::<LookupParams>()
    )]
    async fn lookup_test(&self, args: JsonObject) -> CallToolResult {
        let p: LookupParams = match arguments(args) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let dir = self.dir_of(p.dir.as_deref());
        Self::blocking(move || {
            let rel = match p.file {
                Some(f) => f,
                None => match crate::local::config::checkout_config(&dir, None) {
                    Ok(c) => c.reliability_file,
                    Err(e) => return failed(e),
                },
            };
            // Inside the checkout, no larger than the parser takes, never quoted back.
            let limit = crate::core::reliability::MAX_BYTES as u64;
            let text = match super::files::read_inside(&dir, &rel, "the reliability file", limit) {
                Ok(t) => t,
                Err(e) => return failed(e),
            };
            if let Err(e) = crate::core::reliability::parse(&text) {
                let at = match (e.line, e.column) {
                    (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
                    (Some(l), None) => format!(" (line {l})"),
                    _ => String::new(),
                };
                return failed(format!(
                    "the reliability file {rel} is not a valid reliability file{at}"
                ));
            }
            match crate::local::lookup::lookup(&p.test, &text) {
                Ok(l) => as_json(&l),
                Err(e) => failed(e),
            }
        })
        .await
    }

    #[tool(
        description = "Whether a PR description holds a deterministic reproduction the gate accepts (a seed with its test, a forcing interleaving test, or a race/trace report), with the evidence found and the problems with near misses.",
        input_schema = schema::<CheckDescriptionParams>()
    )]
    async fn check_description(&self, args: JsonObject) -> CallToolResult {
        let p: CheckDescriptionParams = match arguments(args) {
            Ok(p) => p,
            Err(e) => return e,
        };
        Self::blocking(move || {
            let files = match p.diff.as_deref().map(diff::parse_unified) {
                Some(Ok(f)) => Some(f),
                Some(Err(e)) => return failed(format!("the diff: {e}")),
                None => None,
            };
            as_json(&evidence::check_body(&p.body, files.as_deref()))
        })
        .await
    }

    #[tool(
        description = "Whether a unified diff touches concurrency code (so the gate will ask its PR for a reproduction), with the file, line and rule of each reason.",
        input_schema = schema::<ClassifyDiffParams>()
    )]
    async fn classify_diff(&self, args: JsonObject) -> CallToolResult {
        let p: ClassifyDiffParams = match arguments(args) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let dir = self.dir_of(p.dir.as_deref());
        Self::blocking(move || {
            let config = match crate::local::config::checkout_config(&dir, p.config.as_deref()) {
                Ok(c) => c,
                Err(e) => return failed(e),
            };
            match diff::parse_unified(&p.diff) {
                Ok(files) => as_json(&classify::classify(&files, &config)),
                Err(e) => failed(format!("the diff: {e}")),
            }
        })
        .await
    }

    #[tool(
        description = "The retry protocol on this git checkout: the test alone `runs` times on HEAD and on the merge base (interleaved, caches off), and the verdict (not this change, this change makes it fail, broken on both, no failure, inconclusive) with the numbers and, for not this change, the quarantine ticket text. Sends progress notifications; cancelling it removes its worktrees.",
        input_schema = schema::<RerunParams>()
    )]
    async fn rerun_local(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let p: RerunParams = match arguments(args) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let dir = self.dir_of(p.run.dir.as_deref());
        let opts = match options(&p.run, &dir) {
            Ok(o) => o,
            Err(e) => return failed(e),
        };
        self.long(&ctx, move |progress, stop| async move {
            protocol::rerun(&dir, &p.test, &opts, &progress, &stop).await
        })
        .await
    }

    #[tool(
        description = "Runs a reproduction on this git checkout as the gate would: the merge base with HEAD's changed test files laid over it must fail, HEAD must pass. The claim comes from `body` (a PR description) or `test`/`seed`. Verdicts: verified, does not fail without the change, not deterministic, still fails with the change, could not run. Sends progress notifications; cancelling it removes its worktrees.",
        input_schema = schema::<VerifyParams>()
    )]
    async fn verify_local(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let p: VerifyParams = match arguments(args) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let dir = self.dir_of(p.run.dir.as_deref());
        let opts = match options(&p.run, &dir) {
            Ok(o) => o,
            Err(e) => return failed(e),
        };
        let claim = match protocol::claim_of(
            p.body.as_deref(),
            p.test.as_deref(),
            p.seed.as_deref(),
            opts.command.is_some(),
        ) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        self.long(&ctx, move |progress, stop| async move {
            protocol::verify_or_discover(&dir, claim.as_ref(), &opts, &progress, &stop).await
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("repro-gate", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
