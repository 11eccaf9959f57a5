//! `repro-gate test -- CMD` as a CI runs it (the binary's own command line): the command's
//! output passes through, quarantined-only failures exit 0 and are recorded once, anything else
//! keeps the command's status. Over the project's own outputs and, when
//! `../shared/fixtures/test-output` is present, real runners' outputs.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use repro_gate::core::failures::{Format, Outcome, results_str};

use crate::local::BIN;

const FILE: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    owner: platform\n    ticket: PLAT-1182\n  - id: services/pool/integration::TestReaperBroken\n    tier: quarantined\n    broken: true\n  - id: services/billing/integration::TestInvoiceRetryIdempotent\n    tier: probation\n";

const QUARANTINED: &str = "=== RUN   TestPoolCheckoutUnderLoad\n    pool_test.go:88: checkout deadline of 50ms exceeded (waited 61ms)\n--- FAIL: TestPoolCheckoutUnderLoad (12.00s)\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t12.345s\n=== RUN   TestAcquireReleaseOrdering\n--- PASS: TestAcquireReleaseOrdering (0.01s)\nPASS\nok  \texample.com/acme/services/pool/unit\t0.020s\nFAIL\n";

fn checkout(reliability: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(d.path().join(".ci")).expect("mkdir");
    std::fs::write(d.path().join(".ci/test-reliability.yaml"), reliability).expect("write");
    d
}

/// Runs `repro-gate test [flags] -- sh -c SCRIPT` in `dir`, with no CI variables but `env`.
fn run(dir: &Path, flags: &[&str], script: &str, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.arg("test").args(flags).args(["--", "sh", "-c", script]);
    c.current_dir(dir);
    for k in [
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "BUILDKITE",
        "CIRCLECI",
        "JENKINS_URL",
        "GITHUB_STEP_SUMMARY",
        "REPRO_GATE_UPLOAD_URL",
        "REPRO_GATE_RELIABILITY_FILE",
    ] {
        c.env_remove(k);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("repro-gate runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn emit(dir: &Path, name: &str, output: &str, end: &str) -> String {
    std::fs::write(dir.join(name), output).expect("write");
    format!("cat {name}; {end}")
}

#[test]
fn quarantined_only_failures_exit_zero_and_the_output_passes_through() {
    let d = checkout(FILE);
    let script = emit(d.path(), "out.txt", QUARANTINED, "exit 1");
    let o = run(d.path(), &[], &script, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        out.contains("checkout deadline of 50ms exceeded"),
        "the command's own output: {out}"
    );
    assert!(
        err.contains("TestPoolCheckoutUnderLoad")
            && err.contains("PLAT-1182")
            && err.contains("NOT evidence"),
        "{err}"
    );
}

#[test]
fn anything_else_keeps_the_command_s_status() {
    let d = checkout(FILE);
    let probation = format!(
        "{QUARANTINED}=== RUN   TestInvoiceRetryIdempotent\n--- FAIL: TestInvoiceRetryIdempotent (0.30s)\nFAIL\nFAIL\texample.com/acme/services/billing/integration\t0.4s\n"
    );
    let broken = "=== RUN   TestReaperBroken\n--- FAIL: TestReaperBroken (0.30s)\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t0.4s\n";
    let build = format!(
        "{QUARANTINED}# example.com/acme/services/pool\nservices/pool/pool.go:12:2: undefined: reaper\nFAIL\texample.com/acme/services/pool [build failed]\n"
    );
    let crash_in_run = format!(
        "{QUARANTINED}panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n"
    );
    for (name, output, end, want, says) in [
        (
            "probation",
            probation.as_str(),
            "exit 1",
            Some(1),
            "probation",
        ),
        ("broken", broken, "exit 1", Some(1), "broken"),
        (
            "build",
            build.as_str(),
            "exit 2",
            Some(2),
            "the build failed",
        ),
        ("panic", crash_in_run.as_str(), "exit 1", Some(1), "crashed"),
        (
            "signal",
            QUARANTINED,
            "kill -SEGV $$",
            Some(139),
            "signal 11",
        ),
        ("shell-137", QUARANTINED, "exit 137", Some(137), "signal 9"),
        (
            "unexplained",
            "make: *** [test] Error 3\n",
            "exit 3",
            Some(3),
            "no test failure",
        ),
    ] {
        let script = emit(d.path(), &format!("{name}.txt"), output, end);
        let o = run(d.path(), &[], &script, &[]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), want, "{name}: {err}");
        assert!(err.contains(says), "{name} says why ({says}): {err}");
    }
    let o = run(d.path(), &[], "echo all good", &[]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn without_a_reliability_file_nothing_is_excused() {
    let d = tempfile::tempdir().expect("tempdir");
    let script = emit(d.path(), "out.txt", QUARANTINED, "exit 1");
    let o = run(d.path(), &[], &script, &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no reliability file"), "{err}");
    let d = checkout("tests: [\n");
    let o = run(d.path(), &[], &script.replace("out.txt", "../out.txt"), &[]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_command_that_cannot_start_is_127() {
    let d = checkout(FILE);
    let o = Command::new(BIN)
        .args(["test", "--", "no-such-command-anywhere"])
        .current_dir(d.path())
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot run"));
}

#[test]
fn report_files_count_with_the_output() {
    let d = checkout(FILE);
    let junit = "<testsuites><testsuite><testcase classname=\"example.com/acme/services/pool/integration\" name=\"TestPoolCheckoutUnderLoad\"><failure message=\"deadline\"/></testcase><testcase classname=\"example.com/acme/services/billing/integration\" name=\"TestInvoiceRetryIdempotent\"/></testsuite></testsuites>";
    std::fs::create_dir_all(d.path().join("reports/a")).expect("mkdir");
    std::fs::write(d.path().join("reports/a/junit.xml"), junit).expect("write");
    // Quiet output, the failure only in the report.
    let o = run(
        d.path(),
        &["--report", "reports/**/*.xml"],
        "echo FAIL; exit 1",
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let bad = junit.replace(
        "name=\"TestInvoiceRetryIdempotent\"/>",
        "name=\"TestInvoiceRetryIdempotent\"><failure/></testcase>",
    );
    std::fs::write(d.path().join("reports/a/junit.xml"), bad).expect("write");
    let o = run(
        d.path(),
        &["--report", "reports/**/*.xml"],
        "echo FAIL; exit 1",
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn on_github_actions_excused_failures_are_annotations_and_a_job_summary() {
    let d = checkout(FILE);
    let script = emit(d.path(), "out.txt", QUARANTINED, "exit 1");
    let summary = d.path().join("summary.md");
    let o = run(
        d.path(),
        &["--out", "results.xml"],
        &script,
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().expect("utf-8")),
        ],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let notes: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(notes[0].contains("TestPoolCheckoutUnderLoad") && notes[0].contains("PLAT-1182"));
    let md = std::fs::read_to_string(&summary).expect("a job summary");
    assert!(
        md.contains("quarantined") && md.contains("PLAT-1182"),
        "{md}"
    );
    let xml = std::fs::read_to_string(d.path().join("results.xml")).expect("--out written");
    let back = results_str(&xml, Format::Junit);
    let failed: Vec<String> = back
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Fail)
        .map(|t| t.test.id())
        .collect();
    assert_eq!(
        failed,
        vec!["example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad"]
    );
}

/// What the fake results route saw.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Upload>>>);

/// One request: its query, its Authorization header, its body inflated.
type Upload = (String, Option<String>, Vec<u8>);

async fn fake_route() -> (String, Seen, tokio::task::JoinHandle<()>) {
    use axum::extract::{RawQuery, State};
    let seen = Seen::default();
    let app = axum::Router::new()
        .route(
            "/api/v1/results",
            axum::routing::post(
                |State(s): State<Seen>,
                 RawQuery(q): RawQuery,
                 h: http::HeaderMap,
                 body: bytes::Bytes| async move {
                    let auth = h
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .map(String::from);
                    let mut inflated = Vec::new();
                    let _ = flate2::read::GzDecoder::new(&body[..]).read_to_end(&mut inflated);
                    s.0.lock()
                        .expect("lock")
                        .push((q.unwrap_or_default(), auth, inflated));
                    (
                        http::StatusCode::ACCEPTED,
                        "{\"run\":\"9001\",\"results\":2,\"status\":\"recorded\"}",
                    )
                },
            ),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), seen, task)
}

/// `run` with `--upload base --token-env UPLOAD_TOKEN`, off the async threads (the fake route
/// answers on them).
async fn upload_run(
    dir: &Path,
    base: &str,
    script: &str,
    env: &[(&'static str, &'static str)],
) -> Output {
    let (dir, base, script, env) = (
        dir.to_path_buf(),
        base.to_string(),
        script.to_string(),
        env.to_vec(),
    );
    tokio::task::spawn_blocking(move || {
        run(
            &dir,
            &["--upload", &base, "--token-env", "UPLOAD_TOKEN"],
            &script,
            &env,
        )
    })
    .await
    .expect("ran")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_uploaded_once_with_the_ci_s_run() {
    let (base, seen, task) = fake_route().await;
    let d = checkout(FILE);
    let script = emit(d.path(), "out.txt", QUARANTINED, "exit 1");
    let gh = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_REPOSITORY", "acme/pool"),
        ("GITHUB_SHA", "0123abc"),
        ("GITHUB_REF_NAME", "main"),
        ("GITHUB_RUN_ID", "9001"),
        ("GITHUB_RUN_ATTEMPT", "2"),
        ("UPLOAD_TOKEN", "rgu_secret"),
    ];
    let o = upload_run(d.path(), &base, &script, &gh).await;
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("uploaded"), "{err}");
    {
        let got = seen.0.lock().expect("lock");
        assert_eq!(got.len(), 1, "one upload per invocation");
        let (q, auth, body) = &got[0];
        assert_eq!(
            q,
            "repo=acme%2Fpool&sha=0123abc&branch=main&run=9001&attempt=2&format=junit\
             &url=https%3A%2F%2Fgithub%2Ecom%2Facme%2Fpool%2Factions%2Fruns%2F9001",
            "the run's page goes with its results"
        );
        assert_eq!(auth.as_deref(), Some("Bearer rgu_secret"));
        let back = results_str(&String::from_utf8_lossy(body), Format::Junit);
        let mut got: Vec<(String, Outcome)> = back
            .tests
            .iter()
            .map(|t| (t.test.id(), t.outcome))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            vec![
                (
                    "example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad"
                        .to_string(),
                    Outcome::Fail
                ),
                (
                    "example.com/acme/services/pool/unit::TestAcquireReleaseOrdering".to_string(),
                    Outcome::Pass
                ),
            ]
        );
    }
    // A failure that stands is recorded too, and keeps its status; without the run's
    // variables nothing is sent and the status is unchanged.
    let probation = emit(
        d.path(),
        "p.txt",
        "=== RUN   TestInvoiceRetryIdempotent\n--- FAIL: TestInvoiceRetryIdempotent (0.30s)\nFAIL\nFAIL\texample.com/acme/services/billing/integration\t0.4s\n",
        "exit 1",
    );
    let o = upload_run(d.path(), &base, &probation, &gh).await;
    assert_eq!(o.status.code(), Some(1));
    let o = upload_run(d.path(), &base, &script, &[("UPLOAD_TOKEN", "t")]).await;
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        err.contains("not recorded") && err.contains("--repo"),
        "{err}"
    );
    assert_eq!(seen.0.lock().expect("lock").len(), 2);
    task.abort();
}

fn real_outputs() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/test-output");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared/fixtures/test-output is absent");
        None
    }
}

/// A reliability file quarantining `ids`.
fn quarantining(ids: &[String]) -> String {
    let mut s = String::from("tests:\n");
    for id in ids {
        s.push_str(&format!(
            "  - id: {}\n    tier: quarantined\n    ticket: Q-1\n",
            serde_json::to_string(id).expect("json")
        ));
    }
    s
}

#[test]
fn real_runner_outputs() {
    let Some(root) = real_outputs() else { return };
    // (file, as output or as a report, whether it is only test failures). Replayed with the
    // status its runner gives for failed tests (cargo's libtest JSON: 101, else 1).
    for (file, report, excusable) in [
        ("go-test-v/nested-subtests-failures.txt", false, true),
        ("go-test-v/multi-package-pass-fail-skip.txt", false, true),
        (
            "go-test-json/gotestsum-parallel-nested-failures.json",
            false,
            true,
        ),
        ("pytest/output-verbose-3-failures.txt", false, true),
        (
            "cargo-test/sailfish-105-test-lines-4-failed.txt",
            false,
            true,
        ),
        (
            "libtest-json/single-suite-one-failure-stdout.jsonl",
            false,
            true,
        ),
        ("junit-xml/surefire-email-errors-failures.xml", true, true),
        ("junit-xml/pytest-two-failures.xml", true, true),
        (
            "go-test-v/relab-hotstuff-236-panic-negative-waitgroup-subtest.txt",
            false,
            false,
        ),
        (
            "go-timeout/cilium-25666-timeout-10m-package-fail-line.txt",
            false,
            false,
        ),
        ("jest/suite-failed-to-run.txt", false, false),
    ] {
        let path = root.join(file);
        let Ok(body) = std::fs::read_to_string(&path) else {
            eprintln!("skipped: {file} is absent");
            continue;
        };
        let parsed = results_str(&body, if report { Format::Junit } else { Format::Auto });
        let failing: Vec<String> = parsed
            .tests
            .iter()
            .filter(|t| matches!(t.outcome, Outcome::Fail | Outcome::Flaky))
            .map(|t| t.test.id())
            .collect();
        assert!(
            !failing.is_empty(),
            "{file}: the parsers find its failing tests"
        );
        let d = checkout(&quarantining(&failing));
        let (flags, script): (Vec<String>, String) = if report {
            std::fs::copy(&path, d.path().join("report.xml")).expect("copy");
            (
                vec!["--report".into(), "report.xml".into()],
                "echo tests failed; exit 1".into(),
            )
        } else {
            std::fs::copy(&path, d.path().join("out.txt")).expect("copy");
            let status = if file.starts_with("libtest-json/") {
                101
            } else {
                1
            };
            (vec![], format!("cat out.txt; exit {status}"))
        };
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let o = run(d.path(), &flags, &script, &[]);
        let want = if excusable { 0 } else { 1 };
        assert_eq!(
            o.status.code(),
            Some(want),
            "{file}, failing {failing:?}: {}",
            text(&o).1
        );
        // One failure left out of the file (a top-level test: a subtest goes by its parent's
        // entry): its failure stands.
        let top = failing
            .iter()
            .position(|id| !id.rsplit("::").next().unwrap_or(id).contains('/'));
        if let (true, Some(i)) = (excusable && failing.len() > 1, top) {
            let mut rest = failing.clone();
            rest.remove(i);
            let d2 = checkout(&quarantining(&rest));
            if report {
                std::fs::copy(&path, d2.path().join("report.xml")).expect("copy");
            } else {
                std::fs::copy(&path, d2.path().join("out.txt")).expect("copy");
            }
            let o = run(d2.path(), &flags, &script, &[]);
            assert_eq!(o.status.code(), Some(1), "{file} without {}", failing[i]);
        }
    }
}

#[test]
fn lookup_tells_what_the_ci_command_does_with_a_failure() {
    let d = checkout(FILE);
    for (test, says) in [
        (
            "services/pool/integration::TestPoolCheckoutUnderLoad",
            "does not fail the build",
        ),
        (
            "services/pool/integration::TestReaperBroken",
            "always fails the build",
        ),
        (
            "services/billing/integration::TestInvoiceRetryIdempotent",
            "fails the build",
        ),
    ] {
        let o = Command::new(BIN)
            .args(["lookup", test])
            .current_dir(d.path())
            .output()
            .expect("runs");
        let js: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let in_ci = js["in_ci"].as_str().unwrap_or_default();
        assert!(in_ci.contains(says), "{test}: {in_ci}");
    }
}

/// Whether `tool ARG` runs here (a real runner's test skips, and says so, without it).
fn runs(tool: &str, arg: &str) -> bool {
    let ok = Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: {tool} is not installed");
    }
    ok
}

fn write_all(dir: &Path, files: &[(&str, &str)]) {
    for (name, body) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
}

const GO_QUARANTINE: &str =
    "tests:\n  - id: quar::TestQuarantined\n    tier: quarantined\n    ticket: Q-7\n";

/// A Go module: `quar` holds the quarantined test (it fails), `other` what `other_test` says.
fn go_module(other_test: Option<&str>) -> tempfile::TempDir {
    let d = checkout(GO_QUARANTINE);
    write_all(
        d.path(),
        &[
            ("go.mod", "module example.com/acme\n\ngo 1.19\n"),
            (
                "quar/q_test.go",
                "package quar\n\nimport \"testing\"\n\nfunc TestQuarantined(t *testing.T) { t.Fatal(\"checkout deadline exceeded\") }\n\nfunc TestFine(t *testing.T) {}\n",
            ),
        ],
    );
    if let Some(body) = other_test {
        write_all(d.path(), &[("other/o_test.go", body)]);
    }
    d
}

#[test]
fn real_go_failures_quarantine_does_not_explain_keep_the_status() {
    if !runs("go", "version") {
        return;
    }
    let go_env = [("GOFLAGS", "-count=1"), ("CGO_ENABLED", "1")];
    // The quarantined failure alone is excused (plain and -v).
    let d = go_module(None);
    for cmd in ["go test ./...", "go test -v ./..."] {
        let o = run(d.path(), &[], cmd, &go_env);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", text(&o).1);
    }
    let test_main_exits = "package other\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { m.Run(); os.Exit(1) }\n\nfunc TestOk(t *testing.T) {}\n";
    let test_exits = "package other\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestFirst(t *testing.T) {}\n\nfunc TestExits(t *testing.T) { os.Exit(3) }\n";
    let race_after = "package other\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nvar x int\n\nfunc TestRacy(t *testing.T) {}\n\nfunc TestMain(m *testing.M) {\n\tc := m.Run()\n\tgo func() { x = 1 }()\n\tx = 2\n\ttime.Sleep(50 * time.Millisecond)\n\t_ = x\n\tif c != 0 {\n\t\tpanic(c)\n\t}\n}\n";
    for (name, other, cmd, says) in [
        (
            "TestMain os.Exit(1)",
            test_main_exits,
            "go test ./...",
            "example.com/acme/other FAILed with no failing test",
        ),
        (
            "TestMain os.Exit(1), -v",
            test_main_exits,
            "go test -v ./...",
            "example.com/acme/other FAILed with no failing test",
        ),
        (
            "a test's os.Exit(3)",
            test_exits,
            "go test ./...",
            "exit status 3",
        ),
        (
            "a test's os.Exit(3), -v",
            test_exits,
            "go test -v ./...",
            "TestExits started and never reported",
        ),
        (
            "a race after the tests",
            race_after,
            "go test -race ./...",
            "data race",
        ),
    ] {
        let d = go_module(Some(other));
        let o = run(d.path(), &[], cmd, &go_env);
        let (out, err) = text(&o);
        if name.contains("race") && out.contains("-race requires cgo") {
            eprintln!("skipped: {name}: go's race detector is unavailable");
            continue;
        }
        assert_eq!(o.status.code(), Some(1), "{name}: {out}\n{err}");
        assert!(err.contains(says), "{name} says why ({says}): {err}");
        assert!(err.contains("TestQuarantined"), "{name}: {err}");
    }
}

const PYTEST_QUARANTINE: &str = "tests:\n  - id: tests/test_pool.py::test_checkout_under_load\n    tier: quarantined\n    ticket: Q-8\n";

#[test]
fn real_pytest_quarantined_once_passes_recorded_and_os_exit_not_excused() {
    if !runs("pytest", "--version") {
        return;
    }
    let d = checkout(PYTEST_QUARANTINE);
    write_all(
        d.path(),
        &[(
            "tests/test_pool.py",
            "def test_checkout_under_load():\n    assert False, 'checkout deadline exceeded'\n\n\ndef test_ok():\n    pass\n\n\nclass TestC:\n    def test_m(self):\n        pass\n",
        )],
    );
    // -q and its own JUnit file: one test once, passing tests recorded, the message kept.
    let o = run(
        d.path(),
        &["--report", "j.xml", "--out", "out.xml"],
        "pytest -q -p no:cacheprovider tests --junitxml=j.xml",
        &[],
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("only 1 quarantined test failed"), "{err}");
    let xml = std::fs::read_to_string(d.path().join("out.xml")).expect("--out written");
    let back = results_str(&xml, Format::Junit);
    let mut got: Vec<(String, Outcome)> = back
        .tests
        .iter()
        .map(|t| (t.test.id(), t.outcome))
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        vec![
            (
                "tests/test_pool.py::TestC::test_m".to_string(),
                Outcome::Pass
            ),
            (
                "tests/test_pool.py::test_checkout_under_load".to_string(),
                Outcome::Fail
            ),
            ("tests/test_pool.py::test_ok".to_string(), Outcome::Pass),
        ],
        "{xml}"
    );
    assert!(xml.contains("checkout deadline exceeded"), "{xml}");
    // A test ending the process with os._exit(3).
    write_all(
        d.path(),
        &[(
            "tests/test_zexit.py",
            "import os\n\n\ndef test_zz_exit():\n    os._exit(3)\n",
        )],
    );
    for cmd in [
        "pytest -p no:cacheprovider tests",
        "pytest -v -p no:cacheprovider tests",
    ] {
        let o = run(d.path(), &[], cmd, &[]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(3), "{cmd}: {err}");
        assert!(err.contains("exited 3"), "{cmd}: {err}");
    }
}

const CARGO_QUARANTINE: &str =
    "tests:\n  - id: pool::tests::checkout_under_load\n    tier: quarantined\n    ticket: Q-9\n";

#[test]
fn real_cargo_exit_statuses_beyond_the_failed_tests_keep_theirs() {
    if !runs("cargo", "--version") {
        return;
    }
    let d = checkout(CARGO_QUARANTINE);
    write_all(
        d.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"pool\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            (
                "src/lib.rs",
                "#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n\n    #[test]\n    fn checkout_under_load() {\n        panic!(\"checkout deadline exceeded\");\n    }\n}\n",
            ),
            ("tests/it.rs", "#[test]\nfn it_ok() {}\n"),
        ],
    );
    let target = d.path().join("target");
    let target = target.to_str().expect("utf-8");
    let env = [("CARGO_TARGET_DIR", target), ("RUST_BACKTRACE", "0")];
    let o = run(
        d.path(),
        &["--out", "out.xml"],
        "cargo test -q --no-fail-fast 2>&1",
        &env,
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let xml = std::fs::read_to_string(d.path().join("out.xml")).expect("--out written");
    assert!(
        xml.contains("checkout deadline exceeded"),
        "the panic message, not an empty <failure/>: {xml}"
    );
    // A script's own status after cargo's.
    let o = run(d.path(), &[], "cargo test -q --no-fail-fast; exit 3", &env);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("exited 3, but cargo test exits 101"), "{err}");
    // A test binary ended with exit status 3 after its tests passed.
    write_all(
        d.path(),
        &[(
            "tests/exit3.rs",
            "#[test]\nfn exits() {\n    std::process::exit(3);\n}\n",
        )],
    );
    let o = run(d.path(), &[], "cargo test -q --no-fail-fast", &env);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(101), "{err}");
    assert!(err.contains("exit status 3"), "{err}");
}

fn git_in(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", text(&o).1);
}

#[test]
fn on_a_pull_request_the_tiers_come_from_the_merge_base() {
    let base_file = FILE.replace(
        "TestPoolCheckoutUnderLoad\n    tier: quarantined",
        "TestPoolCheckoutUnderLoad\n    tier: probation",
    );
    assert_ne!(base_file, FILE);
    let d = checkout(&base_file);
    let script = emit(d.path(), "out.txt", QUARANTINED, "exit 1");
    git_in(d.path(), &["init", "-q", "-b", "main"]);
    git_in(d.path(), &["add", "-A"]);
    git_in(d.path(), &["commit", "-q", "-m", "base"]);
    git_in(d.path(), &["checkout", "-q", "-b", "feature"]);
    // The PR quarantines its own failing test.
    std::fs::write(d.path().join(".ci/test-reliability.yaml"), FILE).expect("write");
    git_in(
        d.path(),
        &["commit", "-q", "-am", "quarantine my failing test"],
    );
    let o = run(d.path(), &[], &script, &[]);
    assert_eq!(o.status.code(), Some(0), "off a PR: {}", text(&o).1);
    let o = run(d.path(), &[], &script, &[("GITHUB_BASE_REF", "main")]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the merge base") && err.contains("probation"),
        "{err}"
    );
    let o = run(d.path(), &["--tiers-from", "main"], &script, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    // A base this clone does not have: nothing is excused, and it says how to fetch it.
    let o = run(d.path(), &["--tiers-from", "no-such-branch"], &script, &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("git fetch origin no-such-branch"), "{err}");
}
