//! The repository's `.github/repro-gate.yml`: parsed strictly (unknown keys and wrong types are
//! errors with line and column); on an error the defaults apply and the error is reported.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// Where the config lives in a repository.
pub const CONFIG_PATH: &str = ".github/repro-gate.yml";
/// Largest config file read.
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;

use super::tier::{Standing, Tier};

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepoConfig {
    pub label: String,
    pub paths: Vec<String>,
    /// The repository's own words for concurrency: names or globs of its macros, types and
    /// functions built on primitives (`PROJ_ATOMIC_*`, `AtomicCounter`), matched against the
    /// identifiers of changed code (docs/classification.md).
    pub primitives: Vec<String>,
    pub ignore: Vec<String>,
    pub test_changes_count: TestChanges,
    pub reliability_file: String,
    pub comment_tiers: Vec<Tier>,
    pub maintainers: Vec<String>,
    pub history: HistoryConfig,
    pub rerun: RerunConfig,
    pub verify: VerifyConfig,
    /// Which file this config came from (set by whoever read it, never by the file).
    #[serde(skip)]
    pub source: ConfigSource,
}

/// Where a repository's config was read from (docs/configuration.md).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigSource {
    /// No file: the defaults.
    #[default]
    Defaults,
    /// The repository's own `.github/repro-gate.yml` on its default branch.
    Repository,
    /// The owner's `.github` repository (`owner/.github`), on its default branch.
    Organisation(String),
}

impl ConfigSource {
    /// Said in the check summary.
    pub fn describe(&self) -> String {
        match self {
            ConfigSource::Defaults => format!(
                "the defaults (no `{CONFIG_PATH}` in this repository or in the owner's `.github` repository)"
            ),
            ConfigSource::Repository => {
                format!("`{CONFIG_PATH}` on this repository's default branch")
            }
            ConfigSource::Organisation(repo) => {
                format!(
                    "`{CONFIG_PATH}` of `{repo}` (the owner's `.github` repository), as this repository has none"
                )
            }
        }
    }
}

/// `history:` (docs/history.md): which runs count, where reports are, when the file is recomputed.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryConfig {
    pub enabled: bool,
    /// Branch globs whose runs count in the windows.
    pub branches: Vec<String>,
    /// Artifact name globs holding reports.
    pub artifacts: Vec<String>,
    /// Cron (UTC, five fields) of the recomputation.
    pub schedule: String,
    /// Propose the new file as a pull request.
    pub pull_request: bool,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            enabled: true,
            branches: vec!["main".into(), "gh-readonly-queue/**".into()],
            artifacts: vec!["*junit*".into(), "*test-results*".into()],
            schedule: "0 3 * * *".into(),
            pull_request: true,
        }
    }
}

/// `rerun:` (docs/rerun.md): the workflow that reruns one test, and when it starts by itself.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RerunConfig {
    /// A file of `.github/workflows` on the default branch.
    pub workflow: String,
    pub runs: u32,
    /// Tiers whose failure on a PR starts the protocol by itself; empty: only by command.
    pub auto: Vec<Standing>,
    pub timeout_minutes: u32,
    /// One run's time limit: a run past it is a failure (hung).
    pub run_timeout_seconds: u64,
    /// Extra arguments for the test runner (`[--features, loom]`).
    pub args: Vec<String>,
    /// Variables for each run (`{RUSTFLAGS: "--cfg loom"}`).
    pub env: std::collections::BTreeMap<String, String>,
    /// Where a `not this change` quarantine ticket goes.
    pub tickets: Tickets,
}

/// `test_changes_count` (docs/configuration.md): whether a PR that changes only test files is under the gate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestChanges {
    /// Never.
    False,
    /// Always, like any other code.
    True,
    /// When it changes the synchronization of test code already there (a concurrency token on
    /// a removed line, or a lock, atomic or ordering put around existing statements), not when
    /// it only adds tests.
    #[default]
    Sync,
}

impl<'de> Deserialize<'de> for TestChanges {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Word(String),
        }
        match Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom("test_changes_count must be true, false or sync")
        })? {
            Raw::Bool(true) => Ok(TestChanges::True),
            Raw::Bool(false) => Ok(TestChanges::False),
            Raw::Word(w) => match w.as_str() {
                "sync" => Ok(TestChanges::Sync),
                "true" => Ok(TestChanges::True),
                "false" => Ok(TestChanges::False),
                other => Err(serde::de::Error::custom(format!(
                    "test_changes_count must be true, false or sync, not {other:?}"
                ))),
            },
        }
    }
}

/// `rerun.tickets`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tickets {
    /// In the session's comment.
    #[default]
    Comment,
    /// Also as one issue per test.
    Issue,
}

/// `verify.mode` (docs/verification.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyMode {
    /// The check waits for the verdict; only `verified` passes.
    #[default]
    Required,
    /// The text decides; the verdict is added to the summary when it comes.
    Advisory,
    /// No verification: the text-only gate.
    Off,
}

/// `verify.trace`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceRule {
    /// The summary says whether the report names a changed file.
    #[default]
    Advisory,
    /// A report that names no file the PR changes does not count.
    Required,
}

/// `verify:` (docs/verification.md): the gate runs the claimed reproduction on the merge base and on the head.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VerifyConfig {
    pub mode: VerifyMode,
    /// Runs per side.
    pub runs: u32,
    /// More environment variables that receive the seed (`REPRO_GATE_SEED` always does).
    pub seed_env: Vec<String>,
    /// A command template run instead of a test runner, with `{test}` and `{seed}`.
    pub command: Option<String>,
    /// With `command`: a template run once per side before the runs; its failure is `could
    /// not run`, never a failure of the test.
    pub build: Option<String>,
    pub trace: TraceRule,
    /// With no claim, look for the reproduction among the PR's tests.
    pub discover: bool,
    /// Candidates of the find round verified at most.
    pub discover_max: u32,
    pub timeout_minutes: u32,
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            mode: VerifyMode::Required,
            runs: 20,
            seed_env: Vec::new(),
            command: None,
            build: None,
            trace: TraceRule::Advisory,
            discover: true,
            discover_max: 3,
            timeout_minutes: 60,
        }
    }
}

/// Longest `verify.command` template (it travels as one workflow input).
pub const MAX_COMMAND_LEN: usize = 1024;

/// Variables a seed may not be written to: they steer the shell, the loader or the runner.
fn reserved_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "SHELL",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "CDPATH",
        "GLOBIGNORE",
        "PROMPT_COMMAND",
        "PWD",
        "OLDPWD",
        "TMPDIR",
        "USER",
        "GOFLAGS",
        "RUSTFLAGS",
        "NODE_OPTIONS",
        "PYTHONPATH",
        "PYTHONSTARTUP",
    ];
    const PREFIXES: &[&str] = &[
        "LD_",
        "DYLD_",
        "GITHUB_",
        "RUNNER_",
        "ACTIONS_",
        "RERUN_",
        "BASH_FUNC_",
        "GIT_",
    ];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// An environment variable name `verify.seed_env` may list.
pub fn valid_seed_env(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 64
        && !reserved_env(name)
}

/// Most candidates of a find round verified (`verify.discover_max`): each is two dispatches.
pub const MAX_DISCOVER: u32 = 10;

/// Most runs per side of a rerun.
pub const MAX_RERUN_RUNS: u32 = 100;

/// Longest `rerun.run_timeout_seconds` (the workflow's job has 50 minutes for all its runs).
pub const MAX_RUN_TIMEOUT_SECONDS: u64 = 3600;

/// A variable `rerun.env` may set: an identifier, not one of the CI's or the workflow's own.
pub fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
        && !["GITHUB_", "RUNNER_", "ACTIONS_", "RERUN_"]
            .iter()
            .any(|p| name.starts_with(p))
}

impl Default for RerunConfig {
    fn default() -> Self {
        RerunConfig {
            workflow: "repro-gate-rerun.yml".into(),
            runs: 20,
            auto: vec![Standing::Probation, Standing::Unlisted],
            timeout_minutes: 60,
            run_timeout_seconds: 300,
            args: Vec::new(),
            env: std::collections::BTreeMap::new(),
            tickets: Tickets::Comment,
        }
    }
}

/// Most `primitives` a config may name, and the longest name.
pub const MAX_PRIMITIVES: usize = 500;
pub const MAX_PRIMITIVE_LEN: usize = 100;

/// A primitive is an identifier, or a glob over one (`*`, `?`, `[…]`): nothing else can be a
/// name in code.
fn check_primitives(names: &[String]) -> Result<(), String> {
    if names.len() > MAX_PRIMITIVES {
        return Err(format!(
            "primitives: at most {MAX_PRIMITIVES} names, not {}",
            names.len()
        ));
    }
    for n in names {
        let ok = !n.is_empty()
            && n.len() <= MAX_PRIMITIVE_LEN
            && !n.starts_with(['-', '!', ']'])
            && n.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'_' | b'$' | b'*' | b'?' | b'[' | b']' | b'!' | b'-')
            })
            && n.bytes().any(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !ok {
            return Err(format!(
                "primitives: {:?} is not a name or a glob over one (letters, digits, `_`, `*`, `?`, `[…]`; at most {MAX_PRIMITIVE_LEN} characters)",
                n.chars().take(60).collect::<String>()
            ));
        }
        if let Err(e) = Glob::new(n) {
            return Err(format!("primitives: invalid glob {n:?}: {e}"));
        }
    }
    Ok(())
}

/// A cron expression of five fields, checked.
pub fn cron(expr: &str) -> Result<croner::Cron, String> {
    if expr.split_whitespace().count() != 5 {
        return Err("a cron expression has five fields (minute hour day month weekday)".into());
    }
    croner::Cron::new(expr).parse().map_err(|e| e.to_string())
}

impl Default for RepoConfig {
    fn default() -> Self {
        RepoConfig {
            label: "concurrency".into(),
            paths: Vec::new(),
            primitives: Vec::new(),
            ignore: vec!["docs/**".into()],
            test_changes_count: TestChanges::Sync,
            reliability_file: ".ci/test-reliability.yaml".into(),
            comment_tiers: vec![Tier::Quarantined, Tier::Probation],
            maintainers: Vec::new(),
            history: HistoryConfig::default(),
            rerun: RerunConfig::default(),
            verify: VerifyConfig::default(),
            source: ConfigSource::Defaults,
        }
    }
}

/// A config that could not be used, with where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConfigError {
    pub message: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{CONFIG_PATH}:{l}:{c}: {}", self.message),
            (Some(l), None) => write!(f, "{CONFIG_PATH}:{l}: {}", self.message),
            _ => write!(f, "{CONFIG_PATH}: {}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Parses a config strictly.
pub fn parse(text: &str) -> Result<RepoConfig, ConfigError> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError {
            message: format!("the file is larger than {MAX_CONFIG_BYTES} bytes"),
            line: None,
            column: None,
        });
    }
    if text.trim().is_empty() {
        return Ok(RepoConfig::default());
    }
    let config: RepoConfig = serde_saphyr::from_str(text).map_err(|e| {
        let loc = e.location();
        ConfigError {
            message: first_line(&e.to_string()),
            line: loc.map(|l| l.line()),
            column: loc.map(|l| l.column()),
        }
    })?;
    if config.label.trim().is_empty() {
        return Err(ConfigError {
            message: "label must not be empty".into(),
            line: find_line(text, "label"),
            column: None,
        });
    }
    for (key, globs) in [("paths", &config.paths), ("ignore", &config.ignore)] {
        for g in globs {
            if let Err(e) = glob(g) {
                return Err(ConfigError {
                    message: format!("{key}: invalid glob {g:?}: {e}"),
                    line: find_line(text, key),
                    column: None,
                });
            }
        }
    }
    if let Err(message) = check_primitives(&config.primitives) {
        return Err(ConfigError {
            message,
            line: find_line(text, "primitives"),
            column: None,
        });
    }
    let problem = |message: String, key: &str| ConfigError {
        message,
        line: find_line(text, key),
        column: None,
    };
    if let Err(e) = cron(&config.history.schedule) {
        return Err(problem(
            format!(
                "history.schedule: invalid cron {:?}: {e}",
                config.history.schedule
            ),
            "schedule",
        ));
    }
    for (key, globs) in [
        ("branches", &config.history.branches),
        ("artifacts", &config.history.artifacts),
    ] {
        for g in globs {
            if let Err(e) = Glob::new(g) {
                return Err(problem(
                    format!("history.{key}: invalid glob {g:?}: {e}"),
                    key,
                ));
            }
        }
    }
    let r = &config.rerun;
    if r.runs == 0 || r.runs > MAX_RERUN_RUNS {
        return Err(problem(
            format!(
                "rerun.runs must be between 1 and {MAX_RERUN_RUNS}, not {}",
                r.runs
            ),
            "runs",
        ));
    }
    if r.timeout_minutes == 0 {
        return Err(problem(
            "rerun.timeout_minutes must be at least 1".into(),
            "timeout_minutes",
        ));
    }
    if r.run_timeout_seconds == 0 || r.run_timeout_seconds > MAX_RUN_TIMEOUT_SECONDS {
        return Err(problem(
            format!(
                "rerun.run_timeout_seconds must be between 1 and {MAX_RUN_TIMEOUT_SECONDS}, not {}",
                r.run_timeout_seconds
            ),
            "run_timeout_seconds",
        ));
    }
    if r.args.len() > 32
        || r.args
            .iter()
            .any(|a| a.is_empty() || a.len() > 256 || a.contains(['\n', '\r', '\0']))
    {
        return Err(problem(
            "rerun.args lists at most 32 arguments, each one line of 1 to 256 characters".into(),
            "args",
        ));
    }
    if r.env.len() > 32 {
        return Err(problem("rerun.env sets at most 32 variables".into(), "env"));
    }
    for (k, v) in &r.env {
        if !valid_env_name(k) {
            return Err(problem(
                format!(
                    "rerun.env: {k:?} is not a variable name this can set (letters, digits and _, not GITHUB_*, RUNNER_*, ACTIONS_* or RERUN_*)"
                ),
                "env",
            ));
        }
        if v.len() > 1024 || v.contains(['\n', '\r', '\0']) {
            return Err(problem(
                format!("rerun.env: the value of {k} must be one line of at most 1024 characters"),
                "env",
            ));
        }
    }
    if !valid_workflow_file(&r.workflow) {
        return Err(problem(
            format!(
                "rerun.workflow must name a file of .github/workflows (like repro-gate-rerun.yml), not {:?}",
                r.workflow
            ),
            "workflow",
        ));
    }
    let v = &config.verify;
    if v.runs == 0 || v.runs > MAX_RERUN_RUNS {
        return Err(problem(
            format!(
                "verify.runs must be between 1 and {MAX_RERUN_RUNS}, not {}",
                v.runs
            ),
            "runs",
        ));
    }
    if v.discover_max == 0 || v.discover_max > MAX_DISCOVER {
        return Err(problem(
            format!(
                "verify.discover_max must be between 1 and {MAX_DISCOVER}, not {}",
                v.discover_max
            ),
            "discover_max",
        ));
    }
    if v.timeout_minutes == 0 {
        return Err(problem(
            "verify.timeout_minutes must be at least 1".into(),
            "timeout_minutes",
        ));
    }
    if v.seed_env.len() > 8 {
        return Err(problem(
            "verify.seed_env lists at most 8 variables".into(),
            "seed_env",
        ));
    }
    if let Some(bad) = v.seed_env.iter().find(|n| !valid_seed_env(n)) {
        return Err(problem(
            format!(
                "verify.seed_env: {bad:?} is not a variable a seed may be written to (upper-case letters, digits and _, not PATH, LD_*, GITHUB_*, RUNNER_* or the shell's own)"
            ),
            "seed_env",
        ));
    }
    if let Some(c) = &v.command {
        if c.trim().is_empty() || c.len() > MAX_COMMAND_LEN || c.contains(['\n', '\r', '\0']) {
            return Err(problem(
                format!("verify.command must be one line of at most {MAX_COMMAND_LEN} characters"),
                "command",
            ));
        }
        if let Some(b) = &v.build
            && (b.trim().is_empty() || b.len() > MAX_COMMAND_LEN || b.contains(['\n', '\r', '\0']))
        {
            return Err(problem(
                format!("verify.build must be one line of at most {MAX_COMMAND_LEN} characters"),
                "build",
            ));
        }
        if !c.contains("{seed}") && !c.contains("{test}") {
            return Err(problem(
                "verify.command must use {seed} or {test} (else every run is the same command, whatever the claim)".into(),
                "command",
            ));
        }
    }
    Ok(config)
}

/// A workflow file name: `NAME.yml` / `NAME.yaml`, no path.
fn valid_workflow_file(name: &str) -> bool {
    (name.ends_with(".yml") || name.ends_with(".yaml"))
        && name.len() <= 255
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.')
}

/// The config to use and the error that made it fall back to the defaults, if any.
pub fn load(text: Option<&str>) -> (RepoConfig, Option<ConfigError>) {
    match text.map(parse) {
        None => (RepoConfig::default(), None),
        Some(Ok(c)) => (c, None),
        Some(Err(e)) => (RepoConfig::default(), Some(e)),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).trim().to_string()
}

fn find_line(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .position(|l| l.trim_start().starts_with(&format!("{key}:")))
        .map(|i| i as u64 + 1)
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// Compiled `paths` / `ignore` globs. A glob without a `/` matches a file name anywhere, as in
/// `.gitignore`.
#[derive(Clone, Debug)]
pub struct PathMatcher {
    full: GlobSet,
    names: GlobSet,
}

impl PathMatcher {
    pub fn new(patterns: &[String]) -> Self {
        let mut full = GlobSetBuilder::new();
        let mut names = GlobSetBuilder::new();
        for p in patterns {
            let Ok(g) = glob(p) else { continue };
            if p.contains('/') {
                full.add(g);
            } else {
                names.add(g);
            }
        }
        PathMatcher {
            full: full.build().unwrap_or_else(|_| GlobSet::empty()),
            names: names.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    pub fn is_match(&self, path: &str) -> bool {
        self.full.is_match(path) || self.names.is_match(super::classify::lang::file_name(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_empty_config_is_the_defaults() {
        assert_eq!(load(None), (RepoConfig::default(), None));
        assert_eq!(parse("").unwrap(), RepoConfig::default());
    }

    #[test]
    fn discovery_is_on_by_default_and_its_bound_is_checked() {
        let d = parse("").unwrap();
        assert!(d.verify.discover);
        assert_eq!(d.verify.discover_max, 3);
        let c = parse("verify:\n  discover: false\n  discover_max: 5\n").unwrap();
        assert!(!c.verify.discover);
        assert_eq!(c.verify.discover_max, 5);
        let e = parse("verify:\n  discover_max: 0\n").unwrap_err();
        assert!(e.message.contains("discover_max"), "{e}");
        assert_eq!(e.line, Some(2));
        assert!(parse("verify:\n  discover_max: 11\n").is_err());
    }

    #[test]
    fn a_full_config_parses() {
        let c = parse(
            "label: needs-repro\npaths: [\"internal/sched/**\"]\nignore: []\ntest_changes_count: true\n\
             reliability_file: ci/rel.yaml\ncomment_tiers: [quarantined]\nmaintainers: [alice, acme/platform]\n",
        )
        .unwrap();
        assert_eq!(c.label, "needs-repro");
        assert_eq!(c.test_changes_count, TestChanges::True);
        assert_eq!(
            parse("test_changes_count: sync\n")
                .unwrap()
                .test_changes_count,
            TestChanges::Sync
        );
        assert_eq!(
            parse("test_changes_count: false\n")
                .unwrap()
                .test_changes_count,
            TestChanges::False
        );
        assert_eq!(RepoConfig::default().test_changes_count, TestChanges::Sync);
        assert_eq!(c.maintainers, ["alice", "acme/platform"]);
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_errors_with_a_location() {
        let e = parse("label: x\nlabels: y\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("labels"), "{e}");
        let e = parse("test_changes_count: maybe\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        let (config, err) = load(Some("paths: 3\n"));
        assert_eq!(config, RepoConfig::default());
        assert!(err.is_some());
    }

    #[test]
    fn unknown_tiers_and_bad_globs_are_errors() {
        assert!(parse("comment_tiers: [flaky]\n").is_err());
        assert!(parse("paths: [\"src/[\"]\n").is_err());
    }

    #[test]
    fn history_and_rerun_sections_have_the_contract_defaults() {
        let c = parse("label: x\n").unwrap();
        assert_eq!(c.history.branches, ["main", "gh-readonly-queue/**"]);
        assert_eq!(c.history.artifacts, ["*junit*", "*test-results*"]);
        assert_eq!(c.history.schedule, "0 3 * * *");
        assert!(c.history.enabled && c.history.pull_request);
        assert_eq!(c.rerun.workflow, "repro-gate-rerun.yml");
        assert_eq!(c.rerun.runs, 20);
        assert_eq!(c.rerun.auto, [Standing::Probation, Standing::Unlisted]);
        assert_eq!(c.rerun.timeout_minutes, 60);
    }

    #[test]
    fn history_and_rerun_sections_parse_and_are_checked() {
        let c = parse(
            "history:\n  enabled: false\n  branches: [main]\n  artifacts: [\"*junit*\"]\n  schedule: \"30 2 * * 1\"\n\
             rerun:\n  workflow: rerun.yaml\n  runs: 50\n  auto: []\n  timeout_minutes: 5\n",
        )
        .unwrap();
        assert!(!c.history.enabled);
        assert!(c.history.pull_request, "unset keys keep their default");
        assert_eq!(c.rerun.runs, 50);
        assert!(c.rerun.auto.is_empty());
        for bad in [
            "history:\n  schedule: \"every night\"\n",
            "history:\n  schedule: \"61 3 * * *\"\n",
            "history:\n  schedule: \"0 0 3 * * *\"\n",
            "history:\n  branchs: [main]\n",
            "rerun:\n  runs: 101\n",
            "rerun:\n  runs: 0\n",
            "rerun:\n  auto: [flaky]\n",
            "rerun:\n  workflow: ../../evil.yml\n",
            "rerun:\n  workflow: build.sh\n",
            "rerun:\n  timeout_minutes: 0\n",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.line.is_some(), "{bad:?}: {e}");
        }
    }

    #[test]
    fn globs_without_a_slash_match_file_names_anywhere() {
        let m = PathMatcher::new(&["*.sched.go".into(), "docs/**".into()]);
        assert!(m.is_match("a/b/x.sched.go"));
        assert!(m.is_match("docs/a/b.md"));
        assert!(!m.is_match("src/docs/b.md"));
    }
}
