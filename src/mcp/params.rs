//! The tools' arguments: each becomes the tool's JSON schema (`inputSchema`).

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupParams {
    /// The test id, as CI names it (`pkg/path::TestName`; a Go import path matches by suffix).
    pub test: String,
    /// The reliability file (default: the repository config's, else `.ci/test-reliability.yaml`),
    /// relative to `dir`.
    #[serde(default)]
    pub file: Option<String>,
    /// The checkout (default: the server's working directory).
    #[serde(default)]
    pub dir: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckDescriptionParams {
    /// The PR description (markdown).
    pub body: String,
    /// The PR's unified diff (`git diff` form): a test named as the forcing test must be added
    /// by it.
    #[serde(default)]
    pub diff: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClassifyDiffParams {
    /// A unified diff (`git diff`, `.patch`).
    pub diff: String,
    /// A `.github/repro-gate.yml` (default: the checkout's when present, else the defaults),
    /// relative to `dir`.
    #[serde(default)]
    pub config: Option<String>,
    /// The checkout (default: the server's working directory).
    #[serde(default)]
    pub dir: Option<String>,
}

/// How the runs of `rerun_local` and `verify_local` are made.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RunParams {
    /// Runs of the test on each side, 1 to 100 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub runs: Option<u32>,
    /// The branch whose merge base with HEAD is the other side (default: the remote's default
    /// branch).
    #[serde(default)]
    pub base: Option<String>,
    /// The test runner (default auto: found from the checkout's files).
    #[serde(default)]
    pub runner: Option<crate::local::RunnerKind>,
    /// One run's time limit in seconds (default: `rerun.run_timeout_seconds` of the config,
    /// 300): a run past it is a failure (hung).
    #[serde(default)]
    #[schemars(range(min = 1, max = 3600))]
    pub timeout_seconds: Option<u64>,
    /// A `.github/repro-gate.yml` whose `rerun.args`, `rerun.env`, `rerun.run_timeout_seconds`
    /// and `verify.command`/`verify.build` apply (default: the checkout's when present),
    /// relative to `dir`.
    #[serde(default)]
    pub config: Option<String>,
    /// For the command runner: a template run once per run (`{test}`, `{seed}` are replaced by
    /// shell-quoted values); its exit status is the run's result.
    #[serde(default)]
    pub command: Option<String>,
    /// The git checkout (default: the server's working directory).
    #[serde(default)]
    pub dir: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RerunParams {
    /// The test id (`pkg/path::TestName`, `tests/test_x.py::test_y`, …).
    pub test: String,
    #[serde(flatten)]
    pub run: RunParams,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct VerifyParams {
    /// The PR description whose claim is run (the gate's own parser reads it).
    #[serde(default)]
    pub body: Option<String>,
    /// The test to run (instead of, or beside, `body`).
    #[serde(default)]
    pub test: Option<String>,
    /// The seed the test reads from REPRO_GATE_SEED.
    #[serde(default)]
    pub seed: Option<String>,
    #[serde(flatten)]
    pub run: RunParams,
}
