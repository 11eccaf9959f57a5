//! One test, alone, caches off, for each runner: finding the runner, preparing a side once (the
//! build, and which target holds the test), the command line of one run, and the run judged by
//! the product's own rules (core::runs).

use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::core::runs::{Ended, Family, NoResult, Outcome, first_error_line, judge};
use crate::core::shell::quote;
use crate::core::test_ids::{self, CargoLayout, Selection};

use super::process::{self, NotRun};

/// Which runner runs the test.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, schemars::JsonSchema, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RunnerKind {
    Auto,
    Go,
    Cargo,
    Nextest,
    Pytest,
    Jest,
    Command,
}

/// What a run is given beyond the test: the maintainers' `rerun.args`, `rerun.env` and
/// `rerun.run_timeout_seconds`, and `verify.build` for a command.
#[derive(Clone, Debug, Default)]
pub struct RunSettings {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// One run's time limit.
    pub timeout: Duration,
    /// With a command: run once per side first; its failure is `could not run`.
    pub build: Option<String>,
}

/// A runner ready to run one test.
#[derive(Clone, Debug)]
pub struct Runner {
    pub family: Family,
    /// The `--command` template (`{test}`, `{seed}`).
    pub template: Option<String>,
    pub settings: RunSettings,
}

/// A side made ready: the selection of the test, or why it cannot run at all.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub sel: Selection,
}

/// How long a side's build may take.
const BUILD_LIMIT: Duration = Duration::from_secs(45 * 60);

fn words(args: &[String]) -> String {
    args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// Words of a command line, the empty ones left out.
fn line(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Runner {
    /// The runner for a checkout: the one asked for, or found from its files.
    pub fn resolve(
        kind: RunnerKind,
        template: Option<String>,
        dir: &Path,
        settings: RunSettings,
    ) -> Result<Runner, String> {
        let family = match kind {
            RunnerKind::Command if template.is_none() => {
                return Err("--runner command needs --command TEMPLATE".into());
            }
            RunnerKind::Auto if template.is_some() => Family::Command,
            RunnerKind::Auto => {
                if dir.join("go.mod").is_file() {
                    Family::Go
                } else if dir.join("Cargo.toml").is_file() {
                    Family::Cargo
                } else if dir.join("package.json").is_file() {
                    Family::Jest
                } else if ["pyproject.toml", "setup.py", "pytest.ini", "setup.cfg"]
                    .iter()
                    .any(|f| dir.join(f).is_file())
                {
                    Family::Pytest
                } else {
                    return Err(
                        "cannot tell the test runner from this checkout's files: pass --runner"
                            .into(),
                    );
                }
            }
            RunnerKind::Go => Family::Go,
            RunnerKind::Cargo => Family::Cargo,
            RunnerKind::Nextest => Family::Nextest,
            RunnerKind::Pytest => Family::Pytest,
            RunnerKind::Jest => Family::Jest,
            RunnerKind::Command => Family::Command,
        };
        Ok(Runner {
            family,
            template,
            settings,
        })
    }

    /// The variables of every run on a side in `dir`: caches off, the side's own build folder
    /// and sources (a package installed editable imports the checkout's code otherwise), the
    /// maintainers' `rerun.env`, and the seed.
    pub fn env(&self, dir: &Path, seed: Option<&str>) -> Vec<(String, String)> {
        let mut env = vec![
            ("CARGO_INCREMENTAL".to_string(), "0".to_string()),
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            (
                "CARGO_TARGET_DIR".into(),
                dir.join("target").to_string_lossy().into_owned(),
            ),
        ];
        // The caller's GOFLAGS stay (a -timeout, -tags); -count=1 turns the test cache off.
        let goflags = std::env::var("GOFLAGS").unwrap_or_default();
        env.push((
            "GOFLAGS".into(),
            format!("{goflags} -count=1").trim().to_string(),
        ));
        let mut py: Vec<String> = Vec::new();
        if dir.join("src").is_dir() && self.family == Family::Pytest {
            py.push(dir.join("src").to_string_lossy().into_owned());
        }
        py.push(dir.to_string_lossy().into_owned());
        if let Ok(p) = std::env::var("PYTHONPATH")
            && !p.is_empty()
        {
            py.push(p);
        }
        env.push(("PYTHONPATH".into(), py.join(":")));
        env.extend(self.settings.env.iter().cloned());
        if let Some(s) = seed {
            env.push(("REPRO_GATE_SEED".into(), s.to_string()));
        }
        env
    }

    /// Makes a side ready once: builds it (a build error is no result for every run) and finds
    /// which target holds the test.
    pub async fn prepare(
        &self,
        dir: &Path,
        test: &str,
        seed: Option<&str>,
        stop: &CancellationToken,
    ) -> Result<Result<Prepared, NoResult>, NotRun> {
        let env = self.env(dir, seed);
        let build = |script: String| {
            let env = env.clone();
            async move { process::run(&script, dir, &env, BUILD_LIMIT, stop).await }
        };
        let failed = |r: process::Ran, what: &str| {
            (r.ended != Ended::Exited(0)).then(|| {
                NoResult::Build(
                    first_error_line(&r.output).unwrap_or_else(|| format!("{what} failed")),
                )
            })
        };
        let sel = match self.family {
            Family::Cargo | Family::Nextest => {
                let meta =
                    build("cargo metadata --no-deps --format-version 1 --quiet".into()).await?;
                let layout = CargoLayout::from_metadata(&meta.output).unwrap_or_default();
                let sel = test_ids::cargo(test, &layout);
                // The name reaches libtest and a nextest filter: plain data or nothing.
                test_ids::rust_test_name(&sel.name)
                    .map_err(|e| NotRun::Spawn(format!("the test id is refused: {e}")))?;
                let head = match self.family {
                    Family::Nextest => "cargo nextest run --no-run",
                    _ => "cargo test --no-run",
                };
                let script = line(&[head, &words(&self.settings.args), &words(&sel.target)]);
                if let Some(e) = failed(build(script).await?, "the build") {
                    return Ok(Err(e));
                }
                sel
            }
            Family::Go => {
                let sel = test_ids::go(test, |p| dir.join(p).is_dir());
                let script = line(&[
                    "go test -count=1 -race",
                    &words(&self.settings.args),
                    "-run '^$'",
                    &quote(sel.package.as_deref().unwrap_or("./...")),
                ]);
                if let Some(e) = failed(build(script).await?, "the build") {
                    return Ok(Err(e));
                }
                sel
            }
            Family::Pytest => test_ids::pytest(test, |p| dir.join(p).is_file()),
            Family::Jest => Selection {
                target: Vec::new(),
                name: crate::core::test_ids::split_id(test).1.to_string(),
                package: None,
                binary: None,
            },
            Family::Command => {
                if let Some(b) = &self.settings.build
                    && let Some(e) = failed(build(self.fill(b, test, seed)).await?, "verify.build")
                {
                    return Ok(Err(e));
                }
                Selection {
                    target: Vec::new(),
                    name: test.to_string(),
                    package: None,
                    binary: None,
                }
            }
        };
        Ok(Ok(Prepared { sel }))
    }

    /// A template with `{test}` and `{seed}` replaced by quoted values, in one pass (a value
    /// holding `{seed}` is never expanded again).
    fn fill(&self, template: &str, test: &str, seed: Option<&str>) -> String {
        let mut out = String::new();
        let mut rest = template;
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

    /// The shell command of one run (every value from the test id or seed single-quoted).
    pub fn command(&self, p: &Prepared, test: &str, seed: Option<&str>) -> String {
        let args = words(&self.settings.args);
        let sel = &p.sel;
        match self.family {
            Family::Command => self.fill(self.template.as_deref().unwrap_or(""), test, seed),
            Family::Go => line(&[
                &format!(
                    "go test -count=1 -race -shuffle=on -v -timeout {}s",
                    self.settings.timeout.as_secs().max(1)
                ),
                &args,
                "-run",
                &quote(&test_ids::go_run_pattern(&sel.name)),
                &quote(sel.package.as_deref().unwrap_or("./...")),
            ]),
            Family::Cargo => line(&[
                "cargo test --no-fail-fast",
                &args,
                &words(&sel.target),
                "-- --exact --test-threads=1",
                &quote(&sel.name),
            ]),
            Family::Nextest => line(&[
                "cargo nextest run --no-fail-fast",
                &args,
                &words(&sel.target),
                "-E",
                &quote(&format!("test(={})", sel.name)),
            ]),
            // -v shows a test's start and its pass; the cache provider stays as the
            // repository configures it (its addopts may use it).
            Family::Pytest => line(&[
                "python3 -m pytest -v -rA -p no:randomly",
                &args,
                "--",
                &quote(&sel.name),
            ]),
            // jest's -t matches the describe blocks and the title joined by spaces; --verbose
            // prints each test's result, whatever the number of files.
            Family::Jest => line(&[
                "npx jest --ci --no-cache --runInBand --verbose",
                &args,
                "-t",
                &quote(&format!(
                    "^{}$",
                    crate::core::shell::regex_escape(&sel.name.replace(" \u{203a} ", " "))
                )),
            ]),
        }
    }

    /// One run of the prepared test in `dir`, ended by the time limit or `stop`.
    pub async fn run_once(
        &self,
        p: &Prepared,
        dir: &Path,
        test: &str,
        seed: Option<&str>,
        stop: &CancellationToken,
    ) -> Result<Outcome, NotRun> {
        let cmd = self.command(p, test, seed);
        let env = self.env(dir, seed);
        // go test gets the limit itself (its panic names the test); ours ends it shortly after.
        let limit = if self.family == Family::Go {
            self.settings.timeout + Duration::from_secs(15)
        } else {
            self.settings.timeout
        };
        let ran = process::run(&cmd, dir, &env, limit, stop).await?;
        let ended = match ran.ended {
            Ended::TimedOut(_) => Ended::TimedOut(self.settings.timeout.as_secs()),
            e => e,
        };
        Ok(judge(self.family, &p.sel, test, &ran.output, ended))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(family: Family, template: Option<&str>) -> Runner {
        Runner {
            family,
            template: template.map(str::to_string),
            settings: RunSettings {
                args: vec!["--features".into(), "loom".into()],
                env: Vec::new(),
                timeout: Duration::from_secs(300),
                build: None,
            },
        }
    }

    fn prepared(sel: Selection) -> Prepared {
        Prepared { sel }
    }

    #[test]
    fn templates_get_quoted_values_once() {
        let r = runner(Family::Command, Some("sh run.sh {test} {seed} {x}"));
        let p = prepared(test_ids::cargo("x", &CargoLayout::default()));
        assert_eq!(
            r.command(&p, "a'b {seed}", Some("7")),
            "sh run.sh 'a'\\''b {seed}' '7' {x}"
        );
    }

    #[test]
    fn each_runner_runs_just_the_one_test_with_the_maintainers_arguments() {
        let layout = CargoLayout {
            tests: vec!["loom".into()],
            crates: Vec::new(),
        };
        let c = runner(Family::Cargo, None);
        let p = prepared(test_ids::cargo(
            "loom::poll_then_drop_receiver_during_send",
            &layout,
        ));
        assert_eq!(
            c.command(&p, "loom::poll_then_drop_receiver_during_send", None),
            "cargo test --no-fail-fast '--features' 'loom' '--test' 'loom' -- --exact --test-threads=1 'poll_then_drop_receiver_during_send'"
        );
        let g = Runner {
            settings: RunSettings {
                timeout: Duration::from_secs(60),
                ..RunSettings::default()
            },
            ..runner(Family::Go, None)
        };
        let p = prepared(test_ids::go("pool::TestA/sub", |_| true));
        assert_eq!(
            g.command(&p, "pool::TestA/sub", None),
            "go test -count=1 -race -shuffle=on -v -timeout 60s -run '^TestA$/^sub$' './pool'"
        );
    }

    #[test]
    fn the_caller_goflags_are_kept_and_each_side_imports_its_own_tree() {
        let r = runner(Family::Pytest, None);
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("src");
        let env = r.env(dir.path(), Some("7"));
        let get = |k: &str| {
            env.iter()
                .rev()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        assert!(get("GOFLAGS").is_some_and(|g| g.ends_with("-count=1")));
        let py = get("PYTHONPATH").expect("PYTHONPATH");
        assert!(
            py.starts_with(&dir.path().join("src").to_string_lossy().into_owned()),
            "{py}"
        );
        assert_eq!(get("REPRO_GATE_SEED").as_deref(), Some("7"));
    }
}
