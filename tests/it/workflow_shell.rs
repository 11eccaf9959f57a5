//! The shipped rerun workflow's own shell, run for real: the `run:` steps of
//! `deploy/repro-gate-rerun.yml` in order, with the inputs as the runner gives them (the job's
//! `env`, `$GITHUB_ENV` carried between steps, `if:` conditions), in a clone of a temporary git
//! repository. An `actions/checkout` step becomes `git checkout` (or, with `path:`, that
//! commit's tree written there); the other actions (setup, upload) are skipped. The report the
//! steps leave is zipped and read by the product's own rerun reader, as the App reads the
//! artifact. Needs git and cargo only.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use repro_gate::core::rerun::count_of;
use repro_gate::core::rerun::verdict::Count;
use repro_gate::history::rerun_report::RerunRead;
use serde_json::Value;

const WORKFLOW: &str = include_str!("../../deploy/repro-gate-rerun.yml");

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// `${{ inputs.x }}` (or `${{ inputs.x || 'y' }}`) in a value, from the inputs.
fn expand(v: &str, inputs: &BTreeMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..]
            .find("}}")
            .map(|e| i + e)
            .expect("a closed expression");
        let expr = rest[i + 3..end].trim();
        let name = expr
            .strip_prefix("inputs.")
            .unwrap_or_else(|| panic!("only inputs are expanded in this test: {expr}"));
        let name = name.split_whitespace().next().unwrap_or("");
        out.push_str(inputs.get(name).map(String::as_str).unwrap_or(""));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The `if:` forms the workflow uses: `always()`, `inputs.x != ''` and `env.X == 'v'`, joined
/// by `||`. Anything else fails the test (keep the workflow's conditions this simple).
fn holds(cond: &str, inputs: &BTreeMap<&str, String>, env: &BTreeMap<String, String>) -> bool {
    cond.split("||").any(|c| {
        let c = c.trim();
        if c == "always()" {
            return true;
        }
        let (lhs, op, rhs) = if let Some((l, r)) = c.split_once("!=") {
            (l.trim(), "!=", r.trim())
        } else if let Some((l, r)) = c.split_once("==") {
            (l.trim(), "==", r.trim())
        } else {
            panic!("an `if:` this test cannot evaluate: {c}")
        };
        let value = if let Some(n) = lhs.strip_prefix("inputs.") {
            inputs.get(n).cloned().unwrap_or_default()
        } else if let Some(n) = lhs.strip_prefix("env.") {
            env.get(n).cloned().unwrap_or_default()
        } else {
            panic!("an `if:` this test cannot evaluate: {c}")
        };
        let want = rhs.trim_matches('\'');
        (value == want) == (op == "==")
    })
}

/// Runs the workflow's job in a fresh clone of `origin`; answers the clone (the report is in
/// `repro-gate-report/`), or the failing step's output.
fn run_job(origin: &Path, inputs: &[(&str, &str)]) -> Result<tempfile::TempDir, String> {
    let wf: Value = serde_saphyr::from_str(WORKFLOW).expect("the workflow parses");
    let inputs: BTreeMap<&str, String> = inputs.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let work = tempfile::tempdir().expect("tempdir");
    let ws = work.path().join("ws");
    let status = Command::new("git")
        .args(["clone", "-q"])
        .arg(origin)
        .arg(&ws)
        .status()
        .expect("git clone");
    assert!(status.success());
    let github_env = work.path().join("github_env");
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in wf["jobs"]["rerun"]["env"].as_object().expect("job env") {
        let v = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        env.insert(k.clone(), expand(&v, &inputs));
    }
    for step in wf["jobs"]["rerun"]["steps"].as_array().expect("steps") {
        if let Some(cond) = step["if"].as_str()
            && !holds(cond, &inputs, &env)
        {
            continue;
        }
        if let Some(uses) = step["uses"].as_str() {
            if uses.starts_with("actions/checkout") {
                let r = expand(step["with"]["ref"].as_str().expect("a ref"), &inputs);
                match step["with"]["path"].as_str() {
                    None => {
                        git(&ws, &["checkout", "-q", "--detach", &r]);
                    }
                    Some(path) => {
                        let dest = ws.join(path);
                        std::fs::create_dir_all(&dest).expect("mkdir");
                        let sh = format!(
                            "git archive {r} | tar -x -C {}",
                            dest.to_str().expect("utf-8 path")
                        );
                        let ok = Command::new("sh")
                            .arg("-c")
                            .arg(&sh)
                            .current_dir(&ws)
                            .status()
                            .expect("sh");
                        assert!(ok.success(), "{sh}");
                    }
                }
            }
            continue;
        }
        let script = step["run"].as_str().expect("a step runs or uses");
        std::fs::write(&github_env, "").expect("GITHUB_ENV");
        let file = work.path().join("step.sh");
        std::fs::write(&file, script).expect("script");
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(&ws);
        // The runner's environment: this process's own, less cargo's variables for this test
        // build (the workflow's cargo builds another project).
        for (k, _) in std::env::vars() {
            if k.starts_with("CARGO_") && k != "CARGO_HOME" || k == "RUSTC_WRAPPER" {
                cmd.env_remove(k);
            }
        }
        cmd.envs(&env)
            .env("GITHUB_ENV", &github_env)
            .env("CARGO_TARGET_DIR", work.path().join("target"));
        let out = cmd.output().expect("bash");
        if !out.status.success() {
            return Err(format!(
                "step {:?} failed: {}{}",
                step["name"].as_str().unwrap_or(""),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        for line in std::fs::read_to_string(&github_env)
            .unwrap_or_default()
            .lines()
        {
            let (k, v) = line.split_once('=').expect("KEY=VALUE in GITHUB_ENV");
            env.insert(k.to_string(), v.to_string());
        }
    }
    Ok(work)
}

/// The report the job left, zipped like the uploaded artifact and read by the App's reader.
/// One side's job of the find round (runs 1, no test, one session) with `input` (the PR's files
/// in `tests`, or `options`) and `extra` inputs: the report it leaves, read.
fn find_job(
    origin: &Path,
    sha: &str,
    side: &str,
    input: (&str, &str),
    extra: &[(&str, &str)],
) -> RerunRead {
    let mut i = vec![
        ("sha", sha),
        ("test", ""),
        ("runs", "1"),
        ("session", "vf-0a1b2c3d4e5f"),
        ("side", side),
        input,
    ];
    i.extend_from_slice(extra);
    let w = run_job(origin, &i).expect("the find round's job");
    read_report(w.path(), "")
}

/// The find round on the head and on the merge base (its tests from the head): each side's
/// results as the App reads them, head first.
fn find_sides(
    origin: &Path,
    base: &str,
    head: &str,
    input: (&str, &str),
) -> (
    Vec<repro_gate::core::verify::find::SideResult>,
    Vec<repro_gate::core::verify::find::SideResult>,
) {
    use repro_gate::core::verify::find::side_results;
    let on_head = side_results(&find_job(origin, head, "branch", input, &[]).tests);
    let on_base =
        side_results(&find_job(origin, base, "base", input, &[("tests_from", head)]).tests);
    (on_head, on_base)
}

pub fn read_report(work: &Path, test: &str) -> RerunRead {
    let dir = work.join("ws/repro-gate-report");
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default();
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("the report folder exists") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path
                    .strip_prefix(&dir)
                    .expect("inside")
                    .to_string_lossy()
                    .to_string();
                zip.start_file(name, opts).expect("zip entry");
                zip.write_all(&std::fs::read(&path).expect("read"))
                    .expect("zip write");
            }
        }
        zip.finish().expect("zip");
    }
    buf.set_position(0);
    repro_gate::history::rerun_report::read(buf, test, 64 << 20).expect("a zip")
}

/// The claimed test's count, as the App reads the report.
fn count(work: &Path, test: &str) -> Count {
    let r = read_report(work, test);
    if std::env::var("DEBUG_REPORT").is_ok() {
        eprintln!("{:?}", r.tally);
        let _ = Command::new("sh")
            .arg("-c")
            .arg("find . -type f | head; cat runs/1/output.txt build.txt 2>/dev/null | tail -20")
            .current_dir(work.join("ws/repro-gate-report"))
            .status();
    }
    match r.tally {
        Some(t) => t.count(),
        None => count_of(test, &r.tests),
    }
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A new repository holding an empty crate `pool` (its `target/` ignored), on `main`.
fn cargo_origin() -> tempfile::TempDir {
    let origin = tempfile::tempdir().expect("tempdir");
    let o = origin.path();
    git(o, &["init", "-q", "-b", "main"]);
    write(o, ".gitignore", "target/\n");
    write(
        o,
        "Cargo.toml",
        "[package]\nname = \"pool\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    origin
}

/// A repository whose bug shows only with seed 7311 (the seed drives the bad ordering), and a
/// fix that adds the forcing test. Returns (origin, merge base, head).
fn cargo_repo() -> (tempfile::TempDir, String, String) {
    let origin = cargo_origin();
    let o = origin.path();
    write(
        o,
        "src/lib.rs",
        "/// Whether the waiter wakes under the schedule the seed drives.\npub fn wakes(seed: u64) -> bool {\n    seed != 7311\n}\n",
    );
    let base = commit(o, "base");
    git(o, &["checkout", "-q", "-b", "fix"]);
    write(
        o,
        "src/lib.rs",
        "/// Whether the waiter wakes under the schedule the seed drives.\npub fn wakes(_seed: u64) -> bool {\n    true\n}\n",
    );
    write(
        o,
        "tests/wakeup.rs",
        "#[test]\nfn wakeup_ordering() {\n    let seed: u64 = std::env::var(\"REPRO_GATE_SEED\").ok().and_then(|s| s.parse().ok()).unwrap_or(1);\n    assert!(pool::wakes(seed), \"lost wakeup under seed {seed}\");\n}\n",
    );
    let head = commit(o, "fix the lost wakeup, with its forcing test");
    (origin, base, head)
}

fn inputs<'a>(
    sha: &'a str,
    side: &'a str,
    test: &'a str,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut v = vec![
        ("sha", sha),
        ("test", test),
        ("runs", "3"),
        ("session", "vf-0a1b2c3d4e5f"),
        ("side", side),
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn the_cargo_runner_lays_the_prs_test_over_the_merge_base_and_the_seed_reaches_it() {
    if !have("cargo") || !have("git") {
        eprintln!("skipped: the workflow-shell test needs git and cargo");
        return;
    }
    let (origin, base, head) = cargo_repo();
    let test = "tests/wakeup.rs::wakeup_ordering";
    let overlay = [
        ("tests_from", head.as_str()),
        ("tests", "tests/wakeup.rs"),
        ("seed", "7311"),
    ];
    // The base side: the merge base's code with the PR's test, under the claimed seed.
    let w = run_job(origin.path(), &inputs(&base, "base", test, &overlay)).expect("base side");
    assert_eq!(
        count(w.path(), test),
        Count {
            failures: 3,
            runs: 3
        }
    );
    // The head side: the fix passes every run under the same seed.
    let w = run_job(
        origin.path(),
        &inputs(&head, "branch", test, &[("seed", "7311")]),
    )
    .expect("head side");
    assert_eq!(
        count(w.path(), test),
        Count {
            failures: 0,
            runs: 3
        }
    );
    // Controls: without the seed the base passes (so the seed is what reached the test), and
    // without the overlay the base has no such test (0 runs: `could not run`).
    let w = run_job(origin.path(), &inputs(&base, "base", test, &overlay[..2]))
        .expect("base side without the seed");
    assert_eq!(
        count(w.path(), test),
        Count {
            failures: 0,
            runs: 3
        }
    );
    let w = run_job(
        origin.path(),
        &inputs(&base, "base", test, &[("seed", "7311")]),
    )
    .expect("base side without the overlay");
    assert_eq!(count(w.path(), test).runs, 0);
}

/// A simulator run by `verify.command`: it fails under seed 7311 before the fix, and checks
/// that the seed also reached it through `seed_env` and that `{test}` arrived as one word.
fn command_repo() -> (tempfile::TempDir, String, String) {
    let origin = tempfile::tempdir().expect("tempdir");
    let o = origin.path();
    git(o, &["init", "-q", "-b", "main"]);
    let sim = |fixed: bool| {
        format!(
            "#!/bin/sh\n# sim.sh SEED NAME: one deterministic run of the simulator\n[ \"$#\" -eq 2 ] || {{ echo \"expected 2 arguments, got $#\"; exit 3; }}\n[ \"$SIM_SEED\" = \"$1\" ] || {{ echo \"SIM_SEED is '$SIM_SEED', not the seed\"; exit 4; }}\n[ \"$REPRO_GATE_SEED\" = \"$1\" ] || exit 5\necho \"$2\" >> sim-names.txt\n{}\n",
            if fixed {
                "exit 0"
            } else {
                "[ \"$1\" = 7311 ] && { echo \"lost wakeup at step 41 (seed $1)\"; exit 1; }\nexit 0"
            }
        )
    };
    write(o, "sim.sh", &sim(false));
    let base = commit(o, "base");
    git(o, &["checkout", "-q", "-b", "fix"]);
    write(o, "sim.sh", &sim(true));
    let head = commit(o, "fix");
    (origin, base, head)
}

#[test]
fn the_command_runner_quotes_the_test_runs_once_per_exit_status_and_exports_the_seed() {
    if !have("git") {
        eprintln!("skipped: the workflow-shell test needs git");
        return;
    }
    let (origin, base, head) = command_repo();
    let command = "sh ./sim.sh {seed} {test}";
    // Every character here is one the App dispatches (core::verify::claim::safe_test); unquoted,
    // the bracket would glob to `sim.sh`, the spaces would split it, the parentheses and the
    // `#` would be shell syntax.
    let hostile = "sim.s[h] (touch pwned) #x, y=1 @z";
    let extra = [
        ("seed", "7311"),
        ("options", r#"{"seed_env": ["SIM_SEED"]}"#),
        ("command", command),
    ];
    let w = run_job(origin.path(), &inputs(&base, "base", hostile, &extra)).expect("base side");
    assert_eq!(
        count(w.path(), hostile),
        Count {
            failures: 3,
            runs: 3
        }
    );
    assert!(
        !w.path().join("ws/pwned").exists(),
        "the test id ran as code"
    );
    let names = std::fs::read_to_string(w.path().join("ws/sim-names.txt")).expect("the sim ran");
    assert_eq!(
        names.lines().collect::<Vec<_>>(),
        [hostile; 3],
        "the test id arrives as one word"
    );
    // An id the App would never dispatch does not reach the command at all.
    let refused = "x'; touch pwned; echo '$(touch pwned2) `touch pwned3`";
    let err = run_job(origin.path(), &inputs(&base, "base", refused, &extra))
        .map(|_| ())
        .expect_err("a test id with quotes and $( ) stops the job");
    assert!(err.contains("not plain data"), "{err}");
    let w = run_job(origin.path(), &inputs(&head, "branch", "seed-7311", &extra)).expect("head");
    assert_eq!(
        count(w.path(), "seed-7311"),
        Count {
            failures: 0,
            runs: 3
        }
    );
    // Another seed does not reproduce on the base: the seed is what the command got.
    let other = [
        ("seed", "12"),
        ("options", r#"{"seed_env": ["SIM_SEED"]}"#),
        ("command", command),
    ];
    let w = run_job(origin.path(), &inputs(&base, "base", "seed-12", &other)).expect("seed 12");
    assert_eq!(
        count(w.path(), "seed-12"),
        Count {
            failures: 0,
            runs: 3
        }
    );
}

#[test]
fn inputs_that_are_not_data_stop_the_job_before_anything_runs() {
    if !have("git") {
        eprintln!("skipped: the workflow-shell test needs git");
        return;
    }
    let (origin, base, head) = command_repo();
    let cmd = ("command", "sh ./sim.sh {seed} {test}");
    for (what, extra, test) in [
        ("a seed with a quote", vec![("seed", "1'2"), cmd], "t"),
        (
            "a seed variable the shell reads",
            vec![
                ("seed", "1"),
                ("options", r#"{"seed_env": ["BASH_ENV"]}"#),
                cmd,
            ],
            "t",
        ),
        (
            "a test id with a placeholder",
            vec![("seed", "1"), cmd],
            "{seed}",
        ),
        (
            "a test id read as an option",
            vec![("seed", "1"), cmd],
            "-run=x",
        ),
        (
            "a test name read as an option once the path is stripped",
            vec![("seed", "1"), cmd],
            "services/x::--logfile=/tmp/x",
        ),
        (
            "an overlay path climbing out",
            vec![("tests_from", head.as_str()), ("tests", "../x"), cmd],
            "t",
        ),
        (
            "an overlay file not in tests_from",
            vec![
                ("tests_from", head.as_str()),
                ("tests", "missing_test.go"),
                cmd,
            ],
            "t",
        ),
    ] {
        let err = run_job(origin.path(), &inputs(&base, "base", test, &extra))
            .err()
            .unwrap_or_else(|| panic!("{what}: the job ran"));
        assert!(!err.contains("sim-names"), "{what}: {err}");
    }
    // A file laid over from tests_from is the head's version.
    let w = run_job(
        origin.path(),
        &inputs(
            &base,
            "base",
            "t",
            &[
                ("tests_from", head.as_str()),
                ("tests", "sim.sh"),
                ("seed", "7311"),
                ("options", r#"{"seed_env": ["SIM_SEED"]}"#),
                cmd,
            ],
        ),
    )
    .expect("the overlay of a changed file");
    assert_eq!(
        count(w.path(), "t"),
        Count {
            failures: 0,
            runs: 3
        }
    );
    let _: PathBuf = w.path().to_path_buf();
}

#[test]
fn a_rust_id_that_would_build_a_nextest_filter_stops_the_job() {
    if !have("cargo") || !have("git") {
        eprintln!("skipped: the workflow-shell test needs git and cargo");
        return;
    }
    let (origin, base, _head) = cargo_repo();
    // The first is plain data by the App's rule and stopped by the cargo runner's own; the
    // others never pass the input check.
    for (test, says) in [
        ("pool::x) + all() + test(=y", "a Rust test name holds only"),
        ("wakeup|all", "not plain data"),
        ("services/../x::t", "not plain data"),
    ] {
        let err = run_job(
            origin.path(),
            &inputs(&base, "base", test, &[("seed", "1")]),
        )
        .err()
        .unwrap_or_else(|| panic!("{test}: the job ran"));
        assert!(err.contains(says), "{test}: {err}");
    }
}

/// A case of `../shared/fixtures/real-fixes/cases.yaml` or of the project's own
/// `tests/real-fixes/*.yaml`.
#[derive(serde::Deserialize)]
struct RealFix {
    id: String,
    repo: String,
    fix: String,
    base: String,
    #[serde(default)]
    runner: Option<String>,
    test: String,
    expected: String,
    #[serde(default)]
    config: Option<Value>,
    /// Runs per side this case needs at least.
    #[serde(default)]
    runs: Option<u32>,
    /// One run's time limit for this case, seconds.
    #[serde(default)]
    timeout: Option<u32>,
}

#[derive(serde::Deserialize)]
struct RealFixes {
    cases: Vec<RealFix>,
}

/// The shared cases (when present) and the project's own.
fn real_fix_cases() -> Vec<RealFix> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("../shared/fixtures/real-fixes/cases.yaml")];
    let mut own: Vec<PathBuf> = std::fs::read_dir(root.join("tests/real-fixes"))
        .expect("tests/real-fixes")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    own.sort();
    files.extend(own);
    let mut cases = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            eprintln!("skipped {}: it is absent", file.display());
            continue;
        };
        let parsed: RealFixes = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("{} parses: {e}", file.display()));
        cases.extend(parsed.cases);
    }
    cases
}

/// The project's own real-fix cases are well formed: full commit ids, a verdict the App gives.
#[test]
fn the_projects_own_real_fix_cases_are_well_formed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/real-fixes");
    let mut n = 0;
    for entry in std::fs::read_dir(&root).expect("tests/real-fixes") {
        let path = entry.expect("entry").path();
        let parsed: RealFixes =
            serde_saphyr::from_str(&std::fs::read_to_string(&path).expect("read")).expect("parses");
        for case in parsed.cases {
            n += 1;
            for sha in [&case.fix, &case.base] {
                assert!(
                    sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                    "{}: {sha} is not a full commit id",
                    case.id
                );
            }
            assert!(
                [
                    "verified",
                    "does not fail without the change",
                    "not deterministic",
                    "still fails with the change",
                    "could not run",
                ]
                .contains(&case.expected.as_str()),
                "{}: {:?} is no verdict",
                case.id,
                case.expected
            );
        }
    }
    assert!(n > 0, "no case under {}", root.display());
}

/// A real fix's clone, the files it changes (with their hunks, as GitHub's API gives them) and
/// the repository's configuration as the case sets it.
struct RealFixRepo {
    clone: PathBuf,
    files: Vec<repro_gate::core::classify::diff::FileChange>,
    config: repro_gate::core::config::RepoConfig,
}

/// The case's clone under `mirror` (`owner+name/repo` or `owner/name`), or why it is skipped.
fn real_fix_repo(mirror: &Path, case: &RealFix, timeout: u32) -> Result<RealFixRepo, String> {
    use repro_gate::core::classify::diff::{FileChange, FileStatus};

    let (owner, name) = case.repo.split_once('/').expect("owner/name");
    let clone = [
        mirror.join(format!("{owner}+{name}")).join("repo"),
        mirror.join(owner).join(name),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .ok_or_else(|| format!("no clone of {}", case.repo))?;
    let runner = case.runner.as_deref().unwrap_or("auto");
    let works = |tool: &str, args: &[&str]| {
        Command::new(tool)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if runner == "pytest" && !works("python3", &["-c", "import pytest"]) {
        return Err("pytest is not installed".into());
    }
    if runner == "go" && !works("go", &["version"]) {
        return Err("go is not installed".into());
    }
    let diff = |args: &[&str]| {
        let out = Command::new("git")
            .arg("--git-dir")
            .arg(&clone)
            .args(["diff", "--no-renames"])
            .args(args)
            .output()
            .expect("git diff");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let files = diff(&["--name-status", &case.base, &case.fix])
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(status, path)| {
            // GitHub's `patch` is the hunks alone, from the first `@@`.
            let whole = diff(&[&case.base, &case.fix, "--", path]);
            let patch = whole.find("\n@@").map(|at| whole[at + 1..].to_string());
            FileChange {
                path: path.to_string(),
                previous_path: None,
                status: match status {
                    "A" => FileStatus::Added,
                    "D" => FileStatus::Removed,
                    _ => FileStatus::Modified,
                },
                patch,
            }
        })
        .collect();
    let mut config = match &case.config {
        Some(c) => {
            repro_gate::core::config::parse(&serde_saphyr::to_string(c).expect("config as YAML"))
                .expect("the case's config")
        }
        None => repro_gate::core::config::RepoConfig::default(),
    };
    config.rerun.run_timeout_seconds = u64::from(case.timeout.unwrap_or(timeout));
    Ok(RealFixRepo {
        clone,
        files,
        config,
    })
}

/// One side of a session through the workflow's shell, as the App dispatches it (the base at
/// the merge base with the PR's test files laid over it; the find round's head with the same
/// files named), and its report as the App reads the artifact.
fn real_fix_side(
    repo: &RealFixRepo,
    case: &RealFix,
    which: &str,
    test: &str,
    runs: u32,
    options: &str,
    tests: &[String],
) -> (
    repro_gate::core::verify::verdict::SideState,
    Vec<repro_gate::core::failures::TestResult>,
) {
    use repro_gate::core::verify::verdict::{RunDetail, SideState};

    let runs = runs.to_string();
    let tests = tests.join(" ");
    let mut inputs: Vec<(&str, &str)> = vec![
        ("test", test),
        ("runs", runs.as_str()),
        ("session", "real-fix"),
        ("side", which),
        ("options", options),
    ];
    if which == "base" {
        inputs.extend([
            ("sha", case.base.as_str()),
            ("tests_from", case.fix.as_str()),
        ]);
    } else {
        inputs.push(("sha", case.fix.as_str()));
    }
    if (which == "base" || test.is_empty()) && !tests.is_empty() {
        inputs.push(("tests", tests.as_str()));
    }
    let work = match run_job(&repo.clone, &inputs) {
        Err(e) => {
            let reason = e.chars().take(300).collect();
            return (SideState::NotStarted { reason }, Vec::new());
        }
        Ok(work) => work,
    };
    let r = read_report(work.path(), test);
    if std::env::var("DEBUG_REPORT").is_ok() {
        eprintln!("{which}: {:?}", r.tally);
        let _ = Command::new("sh")
            .arg("-c")
            .arg("cat selection; find . -type f | head; tail -30 runs/1/output.txt")
            .current_dir(work.path().join("ws/repro-gate-report"))
            .status();
    }
    let who = if which == "base" {
        "the merge base"
    } else {
        "the head"
    };
    let (count, detail) = match &r.tally {
        Some(t) => (
            t.count(),
            RunDetail {
                how: t.failures_described(),
                no_result: t.no_result_reason(who),
            },
        ),
        None => (count_of(test, &r.tests), RunDetail::default()),
    };
    let state = SideState::Done {
        count,
        run_url: None,
        detail,
    };
    (state, r.tests)
}

/// A verification of `test` through the workflow's shell, both sides, as a claim is verified.
fn real_fix_verify(
    repo: &RealFixRepo,
    case: &RealFix,
    test: &str,
    runs: u32,
) -> repro_gate::core::verify::SessionView {
    use repro_gate::core::verify::find::claim_for;

    let tests = repro_gate::core::verify::test_files_for_base(&repo.files).expect("plain paths");
    let options = repro_gate::core::rerun::options_input(&repo.config, true, &[]);
    let (base, _) = real_fix_side(repo, case, "base", test, runs, &options, &tests);
    let (branch, _) = real_fix_side(repo, case, "branch", test, runs, &options, &tests);
    repro_gate::core::verify::SessionView {
        id: "real-fix".into(),
        claim: claim_for(test),
        head_sha: case.fix.clone(),
        base_sha: case.base.clone(),
        runs,
        tests,
        branch,
        base,
        timed_out: false,
        requested_by: None,
    }
}

/// The App's search with no claim, through the workflow's shell: the find round (every test of
/// the PR's test files and of its changed Rust sources' test modules, once on each side), then
/// each candidate verified as a claim is. The verdict and the verified test, if any.
fn real_fix_find(
    repo: &RealFixRepo,
    case: &RealFix,
    runs: u32,
) -> (repro_gate::core::verify::verdict::Outcome, Option<String>) {
    use repro_gate::core::verify::find::{
        FindView, combine, declared_in_diff, side_results, sources_to_run,
    };

    let declared = declared_in_diff(&repo.files);
    let sources = sources_to_run(&declared);
    let tests = repro_gate::core::verify::test_files_for_base(&repo.files).expect("plain paths");
    let options = repro_gate::core::rerun::options_input(&repo.config, true, &sources);
    let (branch, on_head) = real_fix_side(repo, case, "branch", "", 1, &options, &tests);
    let (base, on_base) = real_fix_side(repo, case, "base", "", 1, &options, &tests);
    let found = combine(&declared, &side_results(&on_head), &side_results(&on_base));
    let session = repro_gate::core::verify::SessionView {
        id: "real-fix-find".into(),
        claim: repro_gate::core::verify::find::claim_for(""),
        head_sha: case.fix.clone(),
        base_sha: case.base.clone(),
        runs: 1,
        tests,
        branch,
        base,
        timed_out: false,
        requested_by: None,
    };
    let mut view = FindView::new(session, Some(found), repo.config.verify.discover_max);
    for c in &mut view.candidates {
        let test = c.claim.test.clone().unwrap_or_default();
        c.session = Some(real_fix_verify(repo, case, &test, runs));
    }
    let outcome = view.outcome().expect("every side is in");
    let verified = view.verified().and_then(|s| s.claim.test.clone());
    (outcome, verified)
}

/// One case per fix (repository, fix, base): the one expecting `verified` when there is one,
/// as `benches/real_fixes.py --no-claim` takes them.
fn one_per_fix(cases: Vec<RealFix>) -> Vec<RealFix> {
    let mut out: Vec<RealFix> = Vec::new();
    for c in cases {
        match out
            .iter_mut()
            .find(|k| (&k.repo, &k.fix, &k.base) == (&c.repo, &c.fix, &c.base))
        {
            None => out.push(c),
            Some(k) if c.expected == "verified" && k.expected != "verified" => *k = c,
            Some(_) => {}
        }
    }
    out
}

/// Real fixes of public repositories through the rerun workflow's own shell, both sides, as the
/// App dispatches them for a verification: the branch side at the fix, the base side at the
/// merge base with the fix's test files laid over it; each report read by the App's reader and
/// judged by the App's verdict. Runs only when `REPRO_GATE_REAL_FIXES_MIRROR` names a folder of
/// clones (`owner+name/repo`, as the search tool's fetch leaves them): it builds each repository
/// twice. `REPRO_GATE_REAL_FIXES_RUNS` (3) runs per side, `REPRO_GATE_REAL_FIXES_TIMEOUT` (30 s)
/// per run. With `REPRO_GATE_REAL_FIXES_NO_CLAIM` set, each fix goes through the App's search
/// instead (no claim: the find round, then its candidates verified), and a fix expected
/// `verified` must be verified by its case's test. `benches/real_fixes.py` runs the same cases
/// through `verify-local`.
#[test]
fn real_fixes_get_their_verdict_through_the_workflows_shell() {
    let Some(mirror) = std::env::var_os("REPRO_GATE_REAL_FIXES_MIRROR").map(PathBuf::from) else {
        eprintln!(
            "skipped: set REPRO_GATE_REAL_FIXES_MIRROR to a folder of clones to run the real fixes"
        );
        return;
    };
    let no_claim = std::env::var_os("REPRO_GATE_REAL_FIXES_NO_CLAIM").is_some();
    let cases = if no_claim {
        one_per_fix(real_fix_cases())
    } else {
        real_fix_cases()
    };
    let var = |k: &str, d: u32| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (runs, timeout) = (
        var("REPRO_GATE_REAL_FIXES_RUNS", 3),
        var("REPRO_GATE_REAL_FIXES_TIMEOUT", 30),
    );
    let only = std::env::var("REPRO_GATE_REAL_FIXES_ONLY").unwrap_or_default();
    let last = |t: &str| {
        t.replace('/', "::")
            .rsplit("::")
            .next()
            .unwrap_or("")
            .to_string()
    };
    let mut rows = Vec::new();
    for case in cases {
        if !only.is_empty() && !only.split(',').any(|o| o == case.id) {
            continue;
        }
        let repo = match real_fix_repo(&mirror, &case, timeout) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("skipped {}: {why}", case.id);
                continue;
            }
        };
        let asked = runs.max(case.runs.unwrap_or(0));
        let start = std::time::Instant::now();
        let (outcome, found) = if no_claim {
            real_fix_find(&repo, &case, asked)
        } else {
            let session = real_fix_verify(&repo, &case, &case.test, asked);
            (session.outcome().expect("both sides are in"), None)
        };
        let got = outcome.verdict.as_str().to_string();
        let right = got == case.expected
            && (!no_claim
                || case.expected != "verified"
                || found
                    .as_deref()
                    .is_some_and(|f| last(f) == last(&case.test)));
        let took = start.elapsed().as_secs_f64();
        eprintln!(
            "{} {}: expected {:?}, got {:?} ({}) in {took:.0} s {}",
            if right { "ok  " } else { "MISS" },
            case.id,
            case.expected,
            got,
            found.as_deref().unwrap_or("no test found"),
            outcome.reason.unwrap_or_default()
        );
        rows.push((case.id, case.expected, found, got, took, right));
    }
    eprintln!("| case | expected | found test | got | time |\n|---|---|---|---|---|");
    for (id, expected, found, got, took, _) in &rows {
        let found = found
            .as_deref()
            .unwrap_or(if no_claim { "none" } else { "(claim)" });
        eprintln!("| {id} | {expected} | {found} | {got} | {took:.0} s |");
    }
    let wrong: Vec<_> = rows.iter().filter(|r| !r.5).collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A Go module whose `pool` package has the bug on the merge base, and a fix that adds a test
/// file with a test that reproduces it, one that passes on both, and a package whose new test
/// needs the fix's new API. Returns (origin, merge base, head).
fn go_find_repo() -> (tempfile::TempDir, String, String) {
    let origin = tempfile::tempdir().expect("tempdir");
    let o = origin.path();
    git(o, &["init", "-q", "-b", "main"]);
    write(o, "go.mod", "module example.com/acme\n\ngo 1.19\n");
    write(
        o,
        "pool/pool.go",
        "package pool\n\n// Wakes reports whether a waiter is woken.\nfunc Wakes() bool { return false }\n",
    );
    write(
        o,
        "api/api.go",
        "package api\n\nfunc Old() int { return 1 }\n",
    );
    let base = commit(o, "base");
    write(
        o,
        "pool/pool.go",
        "package pool\n\n// Wakes reports whether a waiter is woken.\nfunc Wakes() bool { return true }\n",
    );
    write(
        o,
        "pool/wake_test.go",
        "package pool\n\nimport \"testing\"\n\nfunc TestWake(t *testing.T) {\n\tif !Wakes() {\n\t\tt.Fatal(\"the waiter never woke\")\n\t}\n}\n\nfunc TestIdle(t *testing.T) {\n\tt.Run(\"sub\", func(t *testing.T) {})\n}\n",
    );
    write(
        o,
        "api/api.go",
        "package api\n\nfunc Old() int { return 1 }\n\nfunc New() int { return 2 }\n",
    );
    write(
        o,
        "api/api_test.go",
        "package api\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tif New() != 2 {\n\t\tt.Fatal(\"new\")\n\t}\n}\n",
    );
    let head = commit(o, "fix");
    (origin, base, head)
}

/// The find mode (an empty `test`, the PR's test files in `tests`, runs 1): every test of the
/// files' packages once, one JUnit entry each, read by the App's reader into the find round's
/// table; a package that does not build on the merge base is one `[build failed]` entry with
/// its first error line.
#[test]
fn the_find_mode_runs_every_test_of_the_prs_go_files_once_on_each_side() {
    use repro_gate::core::verify::discover::Seen;
    use repro_gate::core::verify::find::{combine, side_results};

    if !have("git")
        || !have("jq")
        || !Command::new("go")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: the find mode's test needs git, jq and go");
        return;
    }
    let (origin, base, head) = go_find_repo();
    let files = "pool/wake_test.go api/api_test.go";
    let input = ("tests", files);
    let side = |sha: &str, side: &str, extra: &[(&str, &str)]| {
        let read = find_job(origin.path(), sha, side, input, extra);
        assert!(read.tally.is_none(), "a JUnit report, not per-run folders");
        side_results(&read.tests)
    };
    let on_head = side(&head, "branch", &[]);
    let on_base = side(&base, "base", &[("tests_from", head.as_str())]);
    let declared = vec![
        ("pool::TestWake".to_string(), true),
        ("pool::TestIdle".to_string(), true),
        ("api::TestNew".to_string(), true),
    ];
    let rows: Vec<(String, Seen, Seen)> = combine(&declared, &on_head, &on_base)
        .into_iter()
        .map(|f| (f.test, f.base, f.head))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("pool::TestWake".to_string(), Seen::Failed, Seen::Passed),
            ("pool::TestIdle".to_string(), Seen::Passed, Seen::Passed),
            ("api::TestNew".to_string(), Seen::DidNotBuild, Seen::Passed),
        ],
        "head {on_head:?}, base {on_base:?}"
    );
    let broken = on_base
        .iter()
        .find(|r| r.seen == Seen::DidNotBuild)
        .and_then(|r| r.reason.clone())
        .unwrap_or_default();
    assert!(
        broken.contains("undefined: New"),
        "the first error line: {broken}"
    );

    // Inputs stay data: a path outside the repository stops the job before anything runs.
    let bad = run_job(
        origin.path(),
        &[
            ("sha", head.as_str()),
            ("test", ""),
            ("runs", "1"),
            ("session", "vf-0a1b2c3d4e5f"),
            ("side", "branch"),
            ("tests", "../etc/passwd_test.go"),
        ],
    );
    assert!(bad.is_err_and(|e| e.contains("not a repository path")));
}

/// The find mode on a Rust source's own test module (options' `find_sources`, no test file):
/// each side runs its own copy of the module's tests (nothing is laid over the merge base),
/// so a test the fix changes fails on the base and passes on the head; a source path outside
/// `src/` or with `..` is not run.
#[test]
fn the_find_mode_runs_a_rust_source_s_test_module_in_each_side_s_own_copy() {
    use repro_gate::core::verify::discover::Seen;
    use repro_gate::core::verify::find::combine;

    if !have("cargo") || !have("git") || !have("jq") {
        eprintln!("skipped: the cargo find mode's test needs cargo, git and jq");
        return;
    }
    let origin = cargo_origin();
    let o = origin.path();
    let lib = |wakes: &str| {
        format!(
            "pub fn wakes() -> bool {{\n    {wakes}\n}}\n\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn wakes_the_waiter() {{\n        assert!(super::wakes(), \"the waiter never woke\");\n    }}\n\n    #[test]\n    fn idle() {{}}\n}}\n"
        )
    };
    write(o, "src/lib.rs", &lib("false"));
    let base = commit(o, "base");
    write(o, "src/lib.rs", &lib("true"));
    let head = commit(o, "fix");
    let options = r#"{"find_sources": ["src/lib.rs", "../etc/x.rs", "build.rs"]}"#;
    let (on_head, on_base) = find_sides(origin.path(), &base, &head, ("options", options));
    let declared = vec![("src/lib.rs::tests::wakes_the_waiter".to_string(), true)];
    let rows: Vec<(String, Seen, Seen)> = combine(&declared, &on_head, &on_base)
        .into_iter()
        .map(|f| (f.test, f.base, f.head))
        .collect();
    assert_eq!(
        rows[0],
        (
            "src/lib.rs::tests::wakes_the_waiter".to_string(),
            Seen::Failed,
            Seen::Passed
        ),
        "head {on_head:?}, base {on_base:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.0.ends_with("idle") && r.1 == Seen::Passed && r.2 == Seen::Passed),
        "{rows:?}"
    );
}

/// The find mode on a cargo test target whose test takes its process down on the merge base
/// (an abort, as loom's cleanup does after a panic): that test is a failure there, the tests
/// before it pass, and those after it have no result (they never ran).
#[test]
fn the_find_mode_counts_a_test_that_aborts_its_process_as_failed() {
    use repro_gate::core::verify::discover::Seen;
    use repro_gate::core::verify::find::combine;

    if !have("cargo") || !have("git") || !have("jq") {
        eprintln!("skipped: the cargo find mode's test needs cargo, git and jq");
        return;
    }
    let origin = cargo_origin();
    let o = origin.path();
    write(o, "src/lib.rs", "pub fn wakes() -> bool {\n    false\n}\n");
    let base = commit(o, "base");
    write(o, "src/lib.rs", "pub fn wakes() -> bool {\n    true\n}\n");
    write(
        o,
        "tests/wake.rs",
        "#[test]\nfn a_first() {}\n\n#[test]\nfn b_aborts_without_the_fix() {\n    if !pool::wakes() {\n        std::process::abort();\n    }\n}\n\n#[test]\nfn c_after() {}\n",
    );
    let head = commit(o, "fix");
    let (on_head, on_base) = find_sides(origin.path(), &base, &head, ("tests", "tests/wake.rs"));
    let declared: Vec<(String, bool)> = ["a_first", "b_aborts_without_the_fix", "c_after"]
        .iter()
        .map(|t| (format!("tests/wake.rs::{t}"), true))
        .collect();
    let rows: Vec<(Seen, Seen)> = combine(&declared, &on_head, &on_base)
        .into_iter()
        .map(|f| (f.base, f.head))
        .collect();
    assert_eq!(
        rows,
        vec![
            (Seen::Passed, Seen::Passed),
            (Seen::Failed, Seen::Passed),
            (Seen::NoResult, Seen::Passed),
        ],
        "head {on_head:?}, base {on_base:?}"
    );
}

/// jest and its lockfile, installed once into this build's test folder from the npm registry,
/// for repositories that copy them; `None` when node or the registry cannot be had.
fn jest_install() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("jest-30");
    if dir.join("node_modules/.bin/jest").exists() && dir.join("package-lock.json").exists() {
        return Some(dir);
    }
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(
        dir.join("package.json"),
        "{\n  \"name\": \"pool\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"devDependencies\": {\"jest\": \"30\"}\n}\n",
    )
    .ok()?;
    let ok = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir)
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(dir)
}

/// The find mode on jest files: every test of the PR's files once on each side, each named by
/// its describe blocks and title; a file that does not load on the merge base (it requires a
/// module the fix adds) is `did not build` with jest's message; and a candidate's claim, in the
/// App's form, selects that one test in the verification mode.
#[test]
fn the_find_mode_runs_every_test_of_the_prs_jest_files_once_on_each_side() {
    use repro_gate::core::verify::discover::Seen;
    use repro_gate::core::verify::find::combine;

    if !have("git") || !have("jq") || !have("npm") {
        eprintln!("skipped: the jest find mode's test needs git, jq and npm");
        return;
    }
    let Some(jest) = jest_install() else {
        eprintln!("skipped: jest could not be installed from the npm registry");
        return;
    };
    let origin = tempfile::tempdir().expect("tempdir");
    let o = origin.path();
    git(o, &["init", "-q", "-b", "main"]);
    write(o, ".gitignore", "node_modules/\n");
    for f in ["package.json", "package-lock.json"] {
        let text = std::fs::read_to_string(jest.join(f)).expect("jest's package files");
        write(o, f, &text);
    }
    write(
        o,
        "pool.js",
        "exports.checkout = (waiters) => waiters.length === 0;\n",
    );
    let base = commit(o, "base");
    write(o, "pool.js", "exports.checkout = () => true;\n");
    write(o, "api.js", "exports.size = () => 0;\n");
    write(
        o,
        "pool.test.js",
        "const { checkout } = require('./pool');\n\ndescribe('pool', () => {\n  describe('checkout', () => {\n    test('wakes a waiter', () => {\n      expect(checkout([1])).toBe(true);\n    });\n    test('returns idle', () => {\n      expect(checkout([])).toBe(true);\n    });\n  });\n});\n",
    );
    write(
        o,
        "api.test.js",
        "const { size } = require('./api');\n\ntest('size', () => {\n  expect(size()).toBe(0);\n});\n",
    );
    let head = commit(o, "fix");
    let files = "pool.test.js api.test.js";
    let (on_head, on_base) = find_sides(origin.path(), &base, &head, ("tests", files));
    let rows: Vec<(String, Seen, Seen)> = combine(&[], &on_head, &on_base)
        .into_iter()
        .map(|f| (f.test, f.base, f.head))
        .collect();
    let wake = "pool.test.js::pool \u{203a} checkout \u{203a} wakes a waiter";
    let row = |t: &str| rows.iter().find(|r| r.0 == t).map(|r| (r.1, r.2));
    assert_eq!(row(wake), Some((Seen::Failed, Seen::Passed)), "{rows:?}");
    assert_eq!(
        row("pool.test.js::pool \u{203a} checkout \u{203a} returns idle"),
        Some((Seen::Passed, Seen::Passed)),
        "{rows:?}"
    );
    let broken = on_base
        .iter()
        .find(|r| r.seen == Seen::DidNotBuild)
        .and_then(|r| r.reason.clone())
        .unwrap_or_default();
    assert!(
        broken.contains("./api"),
        "jest's message: {broken:?} {on_base:?}"
    );

    // The candidate, verified as the App dispatches it, runs that test alone on each side.
    let verify = |sha: &str, side: &str, extra: &[(&str, &str)]| {
        let mut i = vec![
            ("sha", sha),
            ("test", wake),
            ("runs", "2"),
            ("session", "vf-0a1b2c3d4e5f"),
            ("side", side),
        ];
        i.extend_from_slice(extra);
        let w = run_job(origin.path(), &i).expect("the verification's job");
        let first =
            std::fs::read_to_string(w.path().join("ws/repro-gate-report/runs/1/output.txt"))
                .unwrap_or_default();
        let count = read_report(w.path(), wake)
            .tally
            .expect("per-run results")
            .count();
        (count, first)
    };
    let extra = [("tests_from", head.as_str()), ("tests", "pool.test.js")];
    let ((on_base, base_out), (on_head, head_out)) =
        (verify(&base, "base", &extra), verify(&head, "branch", &[]));
    assert_eq!(
        (
            on_base.failures,
            on_base.runs,
            on_head.failures,
            on_head.runs
        ),
        (2, 2, 0, 2),
        "base {on_base:?}: {base_out}\nhead {on_head:?}: {head_out}"
    );
}

/// The workflow's "Check the inputs" step alone, in an empty folder, with `test` as the id and
/// every other input valid (a command runner): whether it lets the id through.
fn workflow_takes_id(step: &str, test: &str) -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", step])
        .current_dir(dir.path())
        .env("RERUN_SHA", "0123456789abcdef0123456789abcdef01234567")
        .env("RERUN_TEST", test)
        .env("RERUN_RUNS", "3")
        .env("RERUN_TESTS_FROM", "")
        .env("RERUN_TESTS", "")
        .env("RERUN_SEED", "")
        .env("RERUN_COMMAND", "true")
        .env("RERUN_OPTIONS", "")
        .env("RERUN_RUNNER", "auto")
        .env("GITHUB_ENV", dir.path().join("github_env"))
        .output()
        .expect("bash");
    out.status.success()
}

#[test]
fn the_workflow_takes_exactly_the_test_ids_the_app_takes() {
    if !have("jq") {
        eprintln!("skipped: the workflow's input check needs jq");
        return;
    }
    let wf: Value = serde_saphyr::from_str(WORKFLOW).expect("the workflow parses");
    let step = wf["jobs"]["rerun"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["name"] == "Check the inputs")
        .and_then(|s| s["run"].as_str())
        .expect("the input check step")
        .to_string();
    let mut ids: Vec<String> = [
        "services/pool::TestCheckoutWakeupOrdering",
        "tests/test_pool.py::test_checkout[slow-2]",
        "src/pool.test.ts › Pool › wakes a waiter",
        "pool::TestRange/-1",
        "-exec=sh -c \"touch CANARY\"::TestX",
        "pool::--include-ignored",
        "pool::x) + all() + test(=y",
        "services/x::--logfile=/tmp/x",
        "src/a.test.ts › --watch",
        "../../etc::TestA",
        "pool/../../x::TestA",
        "pool:::-q",
        "pool:: .. ::TestA",
        "TestX$(touch p)",
        "Test{seed}",
        "TestX\tY",
        "TestÉ",
        " TestX",
        "TestX ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ids.push("T".repeat(300));
    ids.push("T".repeat(301));
    ids.push(format!("{}›", "T".repeat(297)));
    ids.push(format!("{}›", "T".repeat(298)));
    // Short ids over the characters where the two checks could part: separators, options,
    // `..`, spaces, and characters either side of the allowed set.
    let alphabet = [
        ":", "::", "-", " ", ".", "..", "/", "›", "a", "T", "$", "\\", "[", "{", "é", "=", "_",
    ];
    let mut seed: u64 = 0x5eed;
    for _ in 0..150 {
        let mut id = String::new();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        for k in 0..(1 + (seed >> 60) % 7) {
            let pick = (seed >> (8 * (k % 7))) as usize % alphabet.len();
            id.push_str(alphabet[pick]);
        }
        ids.push(id);
    }
    let mut taken = 0;
    for id in &ids {
        let app = repro_gate::core::verify::claim::safe_test(id).is_ok();
        assert_eq!(
            workflow_takes_id(&step, id),
            app,
            "{id:?}: the App says {:?}",
            repro_gate::core::verify::claim::safe_test(id)
        );
        taken += usize::from(app);
    }
    // Both outcomes are exercised, so the comparison says something.
    assert!(
        taken > 10 && taken < ids.len() - 10,
        "{taken} of {}",
        ids.len()
    );
}

/// A command whose outcome the test id picks: `pass`, `fail`, or `alternate` (run 1 passes,
/// run 2 fails, …), counting its runs in `flip-runs.txt`.
fn flip_repo() -> (tempfile::TempDir, String) {
    let origin = tempfile::tempdir().expect("tempdir");
    let o = origin.path();
    git(o, &["init", "-q", "-b", "main"]);
    write(
        o,
        "flip.sh",
        "#!/bin/sh\necho run >> flip-runs.txt\nn=$(wc -l < flip-runs.txt)\ncase \"$1\" in\n  pass) exit 0 ;;\n  fail) exit 1 ;;\n  alternate) [ $((n % 2)) = 1 ] ;;\n  *) exit 9 ;;\nesac\n",
    );
    let sha = commit(o, "flip");
    (origin, sha)
}

/// The runs a job made and the early stop it recorded, if any.
fn made(work: &Path) -> (usize, Option<String>) {
    let runs = std::fs::read_to_string(work.join("ws/flip-runs.txt")).unwrap_or_default();
    let stopped = std::fs::read_to_string(work.join("ws/repro-gate-report/stopped")).ok();
    (runs.lines().count(), stopped)
}

#[test]
fn a_verification_side_stops_once_its_verdict_is_settled_and_a_rerun_makes_every_run() {
    if !have("git") {
        eprintln!("skipped: the workflow-shell test needs git");
        return;
    }
    let (origin, sha) = flip_repo();
    let job = |session: &str, side: &str, test: &str| {
        let inputs = [
            ("sha", sha.as_str()),
            ("test", test),
            ("runs", "6"),
            ("session", session),
            ("side", side),
            ("command", "sh ./flip.sh {test}"),
        ];
        let w = run_job(origin.path(), &inputs).expect("the job ran");
        let c = count(w.path(), test);
        let (runs, stopped) = made(w.path());
        assert_eq!(
            c.runs as usize, runs,
            "{session} {side} {test}: the report holds every run made"
        );
        (c, runs, stopped)
    };
    let vf = "vf-0a1b2c3d4e5f";
    // The head: its first failing run settles `still fails`.
    let (c, runs, stopped) = job(vf, "branch", "fail");
    assert_eq!((c.failures, runs), (1, 1));
    let stopped = stopped.expect("the stop is recorded");
    assert!(
        stopped.contains("runs=1\nof=6\n") && stopped.contains("the head failed"),
        "{stopped}"
    );
    let (c, runs, stopped) = job(vf, "branch", "alternate");
    assert_eq!((c.failures, runs, stopped.is_some()), (1, 2, true));
    // The base: a failure alone settles nothing (it must fail every run); passing and failing
    // settles `not deterministic`.
    let (c, runs, stopped) = job(vf, "base", "fail");
    assert_eq!((c.failures, runs, stopped), (6, 6, None));
    let (c, runs, stopped) = job(vf, "base", "alternate");
    assert_eq!((c.failures, runs), (1, 2));
    assert!(stopped.is_some_and(|s| s.contains("both passed and failed")));
    // Passing everywhere: every run is made on both sides.
    for side in ["branch", "base"] {
        let (c, runs, stopped) = job(vf, side, "pass");
        assert_eq!((c.failures, runs, stopped), (0, 6, None), "{side}");
    }
    // A rerun session's rates are its point: every run, whatever they show.
    for side in ["branch", "base"] {
        for test in ["fail", "alternate"] {
            let (c, runs, stopped) = job("rr-0a1b2c3d4e5f", side, test);
            assert_eq!((runs, stopped), (6, None), "rr {side} {test}");
            assert_eq!(c.failures, if test == "fail" { 6 } else { 3 });
        }
    }
}
