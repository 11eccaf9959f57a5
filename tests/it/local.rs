//! `rerun-local` and `verify-local` on temporary git repositories, run as a person runs them (the
//! release binary's own command line): every verdict, the sides interleaved, and no worktree
//! left after a run, an error or an interruption. Deterministic: a script whose failures are set
//! by the commit (the command runner), and a small cargo project (the cargo runner).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_repro-gate");

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub(crate) fn write(dir: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, t).expect("write");
    }
}

/// A script standing in for one run of a test: it fails when `fails.txt` (set per commit)
/// says so for this run's number on this side (`side.txt`), and logs the side it ran on.
const SCRIPT: &str = "#!/bin/sh\n# t.sh TEST LOG: one run\nside=$(cat side.txt)\necho \"$side\" >> \"$2\"\nn=$(grep -c \"^$side$\" \"$2\")\nmode=$(cat fails.txt)\ncase \"$mode\" in\n  all) exit 1 ;;\n  none) exit 0 ;;\n  every*) k=${mode#every}; [ $((n % k)) -eq 0 ] && exit 1; exit 0 ;;\n  test) grep -q \"forces\" wake_test.go 2>/dev/null && ! grep -q fixed code.txt && exit 1; exit 0 ;;\nesac\n";

/// A clone on branch `feature` of a repository whose main holds `base`; the branch adds
/// `head`. origin/HEAD names main.
pub(crate) fn repo(base: &[(&str, &str)], head: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let top = tempfile::tempdir().expect("tempdir");
    let src = top.path().join("src");
    let work = top.path().join("work");
    std::fs::create_dir_all(&src).expect("mkdir");
    git(&src, &["init", "-q", "-b", "main"]);
    write(&src, &[("t.sh", SCRIPT)]);
    write(&src, base);
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-q", "-m", "base"]);
    git(
        top.path(),
        &[
            "clone",
            "-q",
            src.to_str().expect("utf-8"),
            work.to_str().expect("utf-8"),
        ],
    );
    git(&work, &["checkout", "-q", "-b", "feature"]);
    write(&work, head);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "change"]);
    (top, work)
}

fn run(work: &Path, args: &[&str]) -> (Output, Value) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(work)
        .output()
        .expect("repro-gate runs");
    let js = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, js)
}

pub(crate) fn worktrees(work: &Path) -> usize {
    git(work, &["worktree", "list", "--porcelain"])
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count()
}

/// Sends `signal` (`-TERM`, `-0`) to process `pid`; whether it was delivered.
pub(crate) fn kill(signal: &str, pid: &str) -> bool {
    Command::new("kill")
        .args([signal, pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .expect("kill")
        .success()
}

/// The first line a run wrote to `file` (its pid): the signal that it started, waited for with
/// a deadline.
pub(crate) fn first_line(file: &Path, within: std::time::Duration) -> String {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(p) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
            .filter(|p| !p.trim().is_empty())
        {
            return p;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing written to {} in {within:?}",
            file.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn log_of(top: &Path, name: &str) -> String {
    top.join(name).to_string_lossy().to_string()
}

fn rerun(mode_base: &str, mode_head: &str, runs: &str) -> (Output, Value, Vec<String>) {
    let (top, work) = repro_case(mode_base, mode_head);
    let log = log_of(top.path(), "sides.log");
    let cmd = format!("sh t.sh {{test}} {log}");
    let (out, js) = run(
        &work,
        &[
            "rerun-local",
            "pkg::TestFlaky",
            "--runs",
            runs,
            "--runner",
            "command",
            "--command",
            &cmd,
        ],
    );
    assert_eq!(worktrees(&work), 1, "no worktree left");
    let sides = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    (out, js, sides)
}

pub(crate) fn repro_case(mode_base: &str, mode_head: &str) -> (tempfile::TempDir, PathBuf) {
    repo(
        &[
            ("side.txt", "base\n"),
            ("fails.txt", &format!("{mode_base}\n")),
        ],
        &[
            ("side.txt", "head\n"),
            ("fails.txt", &format!("{mode_head}\n")),
        ],
    )
}

#[test]
fn rerun_local_gives_each_verdict_with_the_sides_interleaved() {
    let (out, js, sides) = rerun("every5", "every5", "20");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(js["verdict"], "not this change", "{js}");
    assert_eq!(
        (js["head"]["failures"].as_u64(), js["head"]["runs"].as_u64()),
        (Some(4), Some(20))
    );
    assert_eq!(
        (js["base"]["failures"].as_u64(), js["base"]["runs"].as_u64()),
        (Some(4), Some(20))
    );
    assert!(
        js["ticket"]
            .as_str()
            .is_some_and(|t| t.contains("Quarantine pkg::TestFlaky")),
        "{js}"
    );
    // head, base, head, base, …: a machine slowing down part-way biases neither side.
    let expected: Vec<&str> = (0..40)
        .map(|i| if i % 2 == 0 { "head" } else { "base" })
        .collect();
    assert_eq!(sides, expected);

    let (_, js, _) = rerun("none", "every2", "20");
    assert_eq!(js["verdict"], "this change makes it fail", "{js}");
    let (_, js, _) = rerun("all", "all", "10");
    assert_eq!(js["verdict"], "broken on both", "{js}");
    let (_, js, _) = rerun("none", "none", "10");
    assert_eq!(js["verdict"], "no failure in n runs on either side", "{js}");
}

fn verify(base: &[(&str, &str)], head: &[(&str, &str)], extra: &[&str]) -> (Output, Value) {
    let (top, work) = repo(base, head);
    let log = log_of(top.path(), "sides.log");
    let cmd = format!("sh t.sh {{test}} {log}");
    let mut args = vec![
        "verify-local",
        "--test",
        "pkg::TestWake",
        "--runs",
        "10",
        "--runner",
        "command",
        "--command",
        &cmd,
    ];
    args.extend_from_slice(extra);
    let (out, js) = run(&work, &args);
    assert_eq!(worktrees(&work), 1, "no worktree left");
    (out, js)
}

#[test]
fn verify_local_gives_each_verdict_and_lays_heads_test_files_over_the_merge_base() {
    // The branch adds a forcing test and the fix: the merge base with that test fails every run.
    let base = [
        ("side.txt", "base\n"),
        ("fails.txt", "test\n"),
        ("code.txt", "bug\n"),
    ];
    let fixed = [
        ("wake_test.go", "// TestWake forces the lost wakeup\n"),
        ("code.txt", "fixed\n"),
        ("side.txt", "head\n"),
    ];
    let (out, js) = verify(&base, &fixed, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{js} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(js["verdict"], "verified");
    assert_eq!(
        (
            js["base"]["failures"].as_u64(),
            js["head"]["failures"].as_u64()
        ),
        (Some(10), Some(0))
    );
    assert_eq!(js["tests_laid_over"], serde_json::json!(["wake_test.go"]));

    // A test that forces nothing: the base passes.
    let noop = [
        ("wake_test.go", "// TestWake waits\n"),
        ("code.txt", "fixed\n"),
        ("side.txt", "head\n"),
    ];
    let (out, js) = verify(&base, &noop, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(js["verdict"], "does not fail without the change");

    // Some base runs only.
    let flaky_base = [("side.txt", "base\n"), ("fails.txt", "every2\n")];
    let (_, js) = verify(
        &flaky_base,
        &[("side.txt", "head\n"), ("fails.txt", "none\n")],
        &[],
    );
    assert_eq!(js["verdict"], "not deterministic");

    // The head still fails.
    let (out, js) = verify(
        &[("side.txt", "base\n"), ("fails.txt", "all\n")],
        &[("side.txt", "head\n"), ("fails.txt", "every3\n")],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(js["verdict"], "still fails with the change");

    // No base to compare with: could not run, exit 2, nothing left behind.
    let (out, _) = verify(&base, &fixed, &["--base", "no-such-ref"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_claim_that_cannot_be_passed_safely_is_refused_before_anything_runs() {
    let (top, work) = repo(
        &[("side.txt", "base\n"), ("fails.txt", "none\n")],
        &[("side.txt", "head\n")],
    );
    let (out, _) = run(
        &work,
        &[
            "verify-local",
            "--test",
            "T$(touch pwned)",
            "--runner",
            "command",
            "--command",
            "sh t.sh {test} x",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!work.join("pwned").exists() && !top.path().join("pwned").exists());
    assert_eq!(worktrees(&work), 1);
}

#[test]
fn an_interrupted_run_leaves_no_worktree_and_no_process() {
    for signal in ["-INT", "-TERM"] {
        let (top, work) = repo(
            &[
                ("side.txt", "base\n"),
                ("fails.txt", "none\n"),
                ("slow.sh", "#!/bin/sh\necho $$ >> \"$1\"\nsleep 30\n"),
            ],
            &[("side.txt", "head\n")],
        );
        let started = top.path().join("started");
        let cmd = format!("sh slow.sh {}", started.display());
        let mut child = Command::new(BIN)
            .args([
                "rerun-local",
                "pkg::TestSlow",
                "--runs",
                "5",
                "--runner",
                "command",
                "--command",
                &cmd,
            ])
            .current_dir(&work)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        // Wait for the first run to have started (an explicit signal, not a sleep guess).
        let run_pid = first_line(&started, std::time::Duration::from_secs(60));
        assert_eq!(worktrees(&work), 3, "both worktrees exist while it runs");
        assert!(kill(signal, &child.id().to_string()));
        let status = child.wait().expect("wait");
        assert_eq!(
            status.code(),
            Some(2),
            "{signal}: an interrupted run could not finish"
        );
        assert_eq!(worktrees(&work), 1, "{signal}: no worktree left");
        let alive = kill("-0", &run_pid);
        assert!(
            !alive,
            "{signal}: the run's process {run_pid} is still running"
        );
    }
}

#[test]
fn a_hung_run_costs_one_time_limit_and_is_a_failure() {
    let (_top, work) = repo(
        &[
            ("side.txt", "base\n"),
            ("hang.sh", "#!/bin/sh\nsleep 600\n"),
        ],
        &[("side.txt", "head\n")],
    );
    let out = Command::new(BIN)
        .args([
            "rerun-local",
            "pkg::TestHang",
            "--runs",
            "1",
            "--timeout",
            "1",
            "--runner",
            "command",
            "--command",
            "sh hang.sh",
        ])
        .current_dir(&work)
        .output()
        .expect("run");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    for side in ["head", "base"] {
        assert_eq!(json[side]["failures"], 1, "{json}");
        assert_eq!(json[side]["how"], "1 hung (1 s)", "{json}");
    }
    assert_eq!(json["verdict"], "broken on both", "{json}");
    assert_eq!(worktrees(&work), 1);
}

/// A cargo crate whose merge base lacks the fix `tests/wake.rs` checks.
fn cargo_repo() -> (tempfile::TempDir, PathBuf) {
    let manifest =
        "[package]\nname = \"wake\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";
    repo(
        &[
            ("Cargo.toml", manifest),
            (".gitignore", "target/\n"),
            ("src/lib.rs", "pub fn wakes() -> bool { false }\n"),
        ],
        &[
            ("src/lib.rs", "pub fn wakes() -> bool { true }\n"),
            (
                "tests/wake.rs",
                "#[test]\nfn wakeup_ordering() { assert!(wake::wakes()); }\n",
            ),
        ],
    )
}

/// `repro-gate` as a person's shell runs it, not this test build's: none of cargo's variables.
fn run_as_a_person(work: &Path, args: &[&str]) -> (Output, Value) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(work);
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_") && k != "CARGO_HOME" || k == "RUSTC_WRAPPER" {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().expect("runs");
    let js: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, js)
}

#[test]
fn the_cargo_runner_reads_the_tests_own_results() {
    if Command::new("cargo").arg("--version").output().is_err() {
        eprintln!("skipped: cargo is not on PATH");
        return;
    }
    let (_top, work) = cargo_repo();
    let (out, js) = run_as_a_person(
        &work,
        &[
            "verify-local",
            "--test",
            "tests/wake.rs::wakeup_ordering",
            "--runs",
            "2",
            "--runner",
            "cargo",
        ],
    );
    assert_eq!(
        js["verdict"],
        "verified",
        "{js} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        (js["base"]["failures"].as_u64(), js["base"]["runs"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(worktrees(&work), 1);
}

/// A name that is not a Rust path would become part of a nextest filter: with it,
/// `test(=x) + all() + test(=wakeup_ordering)` selects every test and the claim would be
/// verified by a test nobody named. The cargo runners refuse it before any run.
#[test]
fn the_cargo_runners_refuse_a_name_that_would_build_a_filter() {
    let has = |tool: &[&str]| {
        Command::new("cargo")
            .args(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has(&[]) || !has(&["nextest"]) {
        eprintln!("skipped: cargo or cargo-nextest is not on PATH");
        return;
    }
    let (_top, work) = cargo_repo();
    for runner in ["nextest", "cargo"] {
        let (out, js) = run_as_a_person(
            &work,
            &[
                "verify-local",
                "--test",
                "tests/wake.rs::x) + all() + test(=wakeup_ordering",
                "--runs",
                "1",
                "--runner",
                runner,
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(js["verdict"], "verified", "{runner}: {js} {err}");
        assert!(
            format!("{js}{err}").contains("a Rust test name holds only"),
            "{runner}: {js} {err}"
        );
        assert_eq!(worktrees(&work), 1, "{runner}: no worktree left");
    }
}

/// `verify-local` with no claim in a clone whose branch adds `wake_test.go` (and `code.txt`'s
/// fix): the tests it declares run once on each side, and those failing on the base and
/// passing on the head are verified.
fn discover(test_file: &str) -> (Output, Value, usize) {
    let script = "name=${1##*::}\nif grep -q \"^func $name(.*// forces\" wake_test.go && ! grep -q fixed code.txt; then exit 1; fi\nexit 0\n";
    let (_top, work) = repo(
        &[("code.txt", "bug\n"), ("d.sh", script)],
        &[("code.txt", "fixed\n"), ("wake_test.go", test_file)],
    );
    let (out, js) = run(
        &work,
        &[
            "verify-local",
            "--runs",
            "5",
            "--runner",
            "command",
            "--command",
            "sh d.sh {test}",
        ],
    );
    (out, js, worktrees(&work))
}

#[test]
fn verify_local_without_a_claim_finds_the_reproduction_among_heads_tests() {
    let (out, js, trees) = discover(
        "package wake\n\nfunc TestNoop(t *testing.T) {}\n\nfunc TestWake(t *testing.T) {} // forces the lost wakeup\n",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{js} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(js["verdict"], "verified", "{js}");
    assert_eq!(js["test"], ".::TestWake", "{js}");
    assert_eq!(
        (js["base"]["failures"].as_u64(), js["base"]["runs"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(js["head"]["failures"].as_u64(), Some(0));
    let found = js["found"].as_array().expect("found");
    let seen = |t: &str| {
        found
            .iter()
            .find(|f| f["test"] == t)
            .map(|f| (f["base"].clone(), f["head"].clone()))
    };
    assert_eq!(
        seen(".::TestNoop"),
        Some((Value::from("passed"), Value::from("passed")))
    );
    assert_eq!(
        seen(".::TestWake"),
        Some((Value::from("failed"), Value::from("passed")))
    );
    assert_eq!(trees, 1, "no worktree left");

    // No test of the branch fails on the base: none reproduces the bug.
    let (out, js, trees) = discover("package wake\n\nfunc TestNoop(t *testing.T) {}\n");
    assert_eq!(out.status.code(), Some(1), "{js}");
    assert_eq!(js["verdict"], "does not fail without the change", "{js}");
    assert!(
        js["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("None of the PR's 1 test fails")),
        "{js}"
    );
    assert_eq!(trees, 1);
}

#[test]
fn verify_local_runs_the_head_first_and_stops_once_the_verdict_is_settled() {
    let runs_of = |base: &str, head: &str| {
        let (top, work) = repro_case(base, head);
        let log = log_of(top.path(), "sides.log");
        let cmd = format!("sh t.sh {{test}} {log}");
        let (_, js) = run(
            &work,
            &[
                "verify-local",
                "--test",
                "pkg::TestWake",
                "--runs",
                "10",
                "--runner",
                "command",
                "--command",
                &cmd,
            ],
        );
        assert_eq!(worktrees(&work), 1, "no worktree left");
        let sides: Vec<String> = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        (js, sides)
    };
    // The head fails its first run: still fails, and the base never runs.
    let (js, sides) = runs_of("all", "all");
    assert_eq!(js["verdict"], "still fails with the change", "{js}");
    assert_eq!(sides, vec!["head"], "{js}");
    assert_eq!(js["stopped_early"], true);
    // The head passes 10/10; the base passes once then fails: not deterministic after 2 base runs.
    let (js, sides) = runs_of("every2", "none");
    assert_eq!(js["verdict"], "not deterministic", "{js}");
    let mut want = vec!["head"; 10];
    want.extend(["base", "base"]);
    assert_eq!(sides, want, "{js}");
    // Nothing settles early: every run is made, and the base's limit is the test's own.
    let (js, sides) = runs_of("all", "none");
    assert_eq!(js["verdict"], "verified", "{js}");
    assert_eq!(sides.len(), 20);
    assert_eq!(js["stopped_early"], false);
    assert!(
        js["base"]["limit"]
            .as_str()
            .is_some_and(|l| l.contains("the floor")),
        "{js}"
    );
}

#[test]
fn after_a_base_run_hangs_the_later_ones_get_twice_the_head_not_the_limit_again() {
    // The head passes at once; every base run sleeps. The first base run has the configured
    // limit (3 s, under the floor); once it hung, the later ones have 2x the head's slowest
    // passing run, rounded up to 1 s. The hung runs are failures: verified.
    let (_top, work) = repo(
        &[
            (
                "t.sh",
                "#!/bin/sh\nif grep -q base side.txt; then sleep 600; fi\n",
            ),
            ("side.txt", "base\n"),
        ],
        &[("side.txt", "head\n")],
    );
    let (_, js) = run(
        &work,
        &[
            "verify-local",
            "--test",
            "pkg::TestWake",
            "--runs",
            "3",
            "--timeout",
            "3",
            "--runner",
            "command",
            "--command",
            "sh t.sh",
        ],
    );
    assert_eq!(js["verdict"], "verified", "{js}");
    assert_eq!(js["base"]["how"], "2 hung (1 s), 1 hung (3 s)", "{js}");
    assert_eq!(js["base"]["limit_seconds"], 3, "{js}");
    assert_eq!(js["base"]["after_hang_limit_seconds"], 1, "{js}");
    assert!(
        js["base"]["after_hang_limit"]
            .as_str()
            .is_some_and(|l| l.contains("once a run hung")),
        "{js}"
    );
    for side in ["head", "base"] {
        assert!(js[side]["run_seconds"].is_number(), "{side}: {js}");
    }
    assert_eq!(worktrees(&work), 1, "no worktree left");
}

#[test]
fn rerun_local_refuses_option_like_and_dotdot_ids_and_runs_nothing() {
    // A Go module on both sides: with the id passed on, `go test -run … -exec=…` would run the
    // command. Refused before any worktree or runner.
    let (top, work) = repo(
        &[
            ("go.mod", "module example.com/acme\n\ngo 1.19\n"),
            (
                "pool/p_test.go",
                "package pool\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
            ),
        ],
        &[("pool/more.txt", "head\n")],
    );
    for id in [
        "-exec=sh -c \"touch CANARY\"::TestX",
        "pool::-exec=touch CANARY",
        "pool::--include-ignored",
        "../../etc::TestA",
    ] {
        let (out, _) = run(
            &work,
            &["rerun-local", "--runner", "go", "--runs", "1", "--", id],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{id}: {err}");
        assert!(err.contains("refused"), "{id}: {err}");
        assert!(!work.join("CANARY").exists() && !work.join("pool/CANARY").exists());
        assert_eq!(worktrees(&work), 1, "no worktree made");
    }
    drop(top);
}
