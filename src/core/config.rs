//! The repository's `.github/repro-gate.yml`: parsed strictly (unknown keys and wrong types are
//! errors with line and column); on an error the defaults apply and the error is reported.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// Where the config lives in a repository.
pub const CONFIG_PATH: &str = ".github/repro-gate.yml";
/// Largest config file read.
const MAX_CONFIG_BYTES: usize = 256 * 1024;

use super::tier::Tier;

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepoConfig {
    pub label: String,
    pub paths: Vec<String>,
    pub ignore: Vec<String>,
    pub test_changes_count: bool,
    pub reliability_file: String,
    pub comment_tiers: Vec<Tier>,
    pub maintainers: Vec<String>,
}

impl Default for RepoConfig {
    fn default() -> Self {
        RepoConfig {
            label: "concurrency".into(),
            paths: Vec::new(),
            ignore: vec!["docs/**".into()],
            test_changes_count: false,
            reliability_file: ".ci/test-reliability.yaml".into(),
            comment_tiers: vec![Tier::Quarantined, Tier::Probation],
            maintainers: Vec::new(),
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
    Ok(config)
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
        self.full.is_match(path) || self.names.is_match(super::lang::file_name(path))
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
    fn a_full_config_parses() {
        let c = parse(
            "label: needs-repro\npaths: [\"internal/sched/**\"]\nignore: []\ntest_changes_count: true\n\
             reliability_file: ci/rel.yaml\ncomment_tiers: [quarantined]\nmaintainers: [alice, acme/platform]\n",
        )
        .unwrap();
        assert_eq!(c.label, "needs-repro");
        assert!(c.test_changes_count);
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
    fn globs_without_a_slash_match_file_names_anywhere() {
        let m = PathMatcher::new(&["*.sched.go".into(), "docs/**".into()]);
        assert!(m.is_match("a/b/x.sched.go"));
        assert!(m.is_match("docs/a/b.md"));
        assert!(!m.is_match("src/docs/b.md"));
    }
}
