//! One run of one test, alone, caches off, for each runner: the command line, and how its
//! result is read (the product's own parsers; for `command`, the exit status).

use std::path::Path;

use crate::core::failures::{Format, results_str};
use crate::core::rerun::count_of;
use crate::core::shell::quote;

/// Which runner runs the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RunnerKind {
    Auto,
    Go,
    Cargo,
    Nextest,
    Pytest,
    Jest,
    Command,
}

/// A runner ready to run one test.
#[derive(Clone, Debug)]
pub struct Runner {
    pub kind: RunnerKind,
    /// The `--command` template (`{test}`, `{seed}`).
    pub template: Option<String>,
}

/// One run's outcome: `None` when the output holds no result of the test (not found, a build
/// error), else whether it failed.
pub type RunOutcome = Option<bool>;

impl Runner {
    /// The runner for a checkout: the one asked for, or found from its files.
    pub fn resolve(
        kind: RunnerKind,
        template: Option<String>,
        dir: &Path,
    ) -> Result<Runner, String> {
        let kind = match kind {
            RunnerKind::Command if template.is_none() => {
                return Err("--runner command needs --command TEMPLATE".into());
            }
            RunnerKind::Auto if template.is_some() => RunnerKind::Command,
            RunnerKind::Auto => {
                if dir.join("go.mod").is_file() {
                    RunnerKind::Go
                } else if dir.join("Cargo.toml").is_file() {
                    RunnerKind::Cargo
                } else if dir.join("package.json").is_file() {
                    RunnerKind::Jest
                } else if ["pyproject.toml", "setup.py", "pytest.ini", "setup.cfg"]
                    .iter()
                    .any(|f| dir.join(f).is_file())
                {
                    RunnerKind::Pytest
                } else {
                    return Err(
                        "cannot tell the test runner from this checkout's files: pass --runner"
                            .into(),
                    );
                }
            }
            k => k,
        };
        Ok(Runner { kind, template })
    }

    /// The shell command of one run (every value from the test id or seed single-quoted).
    pub fn command(&self, test: &str, seed: Option<&str>) -> String {
        let (pkg, name) = crate::core::reliability::split_id(test);
        match self.kind {
            RunnerKind::Command | RunnerKind::Auto => {
                let t = self.template.clone().unwrap_or_default();
                // One pass, so a value holding `{seed}` is never expanded again.
                let mut out = String::new();
                let mut rest = t.as_str();
                while let Some(i) = rest.find('{') {
                    out.push_str(&rest[..i]);
                    let after = &rest[i..];
                    if let Some(r) = after.strip_prefix("{test}") {
                        out.push_str(&quote(test));
                        rest = r;
                    } else if let Some(r) = after.strip_prefix("{seed}") {
                        out.push_str(&quote(seed.unwrap_or("")));
                        rest = r;
                    } else {
                        out.push('{');
                        rest = &after[1..];
                    }
                }
                out.push_str(rest);
                out
            }
            RunnerKind::Go => {
                let top = name.split('/').next().unwrap_or(name);
                let pkg = pkg
                    .map(|p| format!("./{}", p.trim_start_matches("./")))
                    .unwrap_or_else(|| "./...".into());
                format!(
                    "go test -count=1 -race -shuffle=on -v -run {} {}",
                    quote(&format!("^{}$", crate::core::shell::regex_escape(top))),
                    quote(&pkg)
                )
            }
            RunnerKind::Cargo => format!(
                "cargo test --no-fail-fast -- --exact --test-threads=1 {}",
                quote(if pkg.is_some_and(|p| p.contains('/')) {
                    name
                } else {
                    test
                })
            ),
            RunnerKind::Nextest => format!(
                "cargo nextest run --no-fail-fast -E {}",
                quote(&format!(
                    "test(={})",
                    if pkg.is_some_and(|p| p.contains('/')) {
                        name
                    } else {
                        test
                    }
                ))
            ),
            RunnerKind::Pytest => format!(
                "python -m pytest -p no:cacheprovider -p no:randomly -- {}",
                quote(test)
            ),
            RunnerKind::Jest => format!(
                "npx jest --ci --no-cache --runInBand -t {}",
                quote(&format!("^{}$", crate::core::shell::regex_escape(name)))
            ),
        }
    }

    /// Reads one run's result from its exit status and output.
    pub fn outcome(&self, test: &str, success: bool, output: &str) -> RunOutcome {
        if self.kind == RunnerKind::Command {
            return Some(!success);
        }
        let results = results_str(output, Format::Auto);
        let c = count_of(test, &results.tests);
        if c.runs == 0 {
            None
        } else {
            Some(c.failures > 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_get_quoted_values_once() {
        let r = Runner {
            kind: RunnerKind::Command,
            template: Some("sh run.sh {test} {seed} {x}".into()),
        };
        assert_eq!(
            r.command("a'b {seed}", Some("7")),
            "sh run.sh 'a'\\''b {seed}' '7' {x}"
        );
        let g = Runner {
            kind: RunnerKind::Go,
            template: None,
        };
        assert_eq!(
            g.command("pool::TestA/sub", None),
            "go test -count=1 -race -shuffle=on -v -run '^TestA$' './pool'"
        );
    }

    #[test]
    fn a_command_run_is_its_exit_status_and_a_runner_run_its_report() {
        let r = Runner {
            kind: RunnerKind::Command,
            template: Some("x".into()),
        };
        assert_eq!(r.outcome("t", false, ""), Some(true));
        let g = Runner {
            kind: RunnerKind::Go,
            template: None,
        };
        assert_eq!(
            g.outcome(
                "pool::TestA",
                false,
                "=== RUN   TestA\n--- FAIL: TestA (0.01s)\nFAIL\tpool\t0.1s\n"
            ),
            Some(true)
        );
        assert_eq!(
            g.outcome(
                "pool::TestA",
                true,
                "testing: warning: no tests to run\nok\tpool\t0.1s\n"
            ),
            None
        );
    }
}
