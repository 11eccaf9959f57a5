use super::account::{Scan, Unexplained};
use super::excuse::{Decision, FileState, Observed, Problem, Standing, Stands, decide};
use super::signs::Signs;
use super::{junit_out, summary};
use crate::core::failures::{Format, Outcome, results_str};
use crate::core::reliability::{self, ReliabilityFile};
use crate::core::runs::Ended;
use crate::core::tier::Tier;

const FILE: &str = "policy:\n  default_tier: probation\ntests:\n  - id: services/pool/integration::TestPoolCheckoutUnderLoad\n    tier: quarantined\n    owner: platform\n    ticket: PLAT-1182\n  - id: services/pool/integration::TestBrokenForever\n    tier: quarantined\n    broken: true\n  - id: services/billing/integration::TestInvoiceRetryIdempotent\n    tier: probation\n  - id: services/pool/unit::TestAcquireReleaseOrdering\n    tier: trusted\n";

const QUARANTINED: &str = "=== RUN   TestPoolCheckoutUnderLoad\n    pool_test.go:88: checkout deadline of 50ms exceeded\n--- FAIL: TestPoolCheckoutUnderLoad (12.00s)\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t12.345s\n=== RUN   TestAcquireReleaseOrdering\n--- PASS: TestAcquireReleaseOrdering (0.01s)\nPASS\nok  \texample.com/acme/services/pool/unit\t0.020s\nFAIL\n";

fn file() -> ReliabilityFile {
    reliability::parse(FILE).unwrap()
}

fn run(output: &str, ended: Ended, file: FileState<'_>) -> Decision {
    let results = results_str(output, Format::Auto);
    let signs = Signs::of(output);
    let account = Scan::of(output).finish();
    decide(
        &Observed {
            ended,
            results: &results.tests,
            dropped: results.dropped,
            signs: &signs,
            account: &account,
        },
        file,
    )
}

fn go_fail(pkg: &str, test: &str) -> String {
    format!("=== RUN   {test}\n--- FAIL: {test} (0.30s)\nFAIL\nFAIL\t{pkg}\t0.400s\n")
}

#[test]
fn only_quarantined_failures_exit_zero_and_are_named() {
    let f = file();
    let d = run(QUARANTINED, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused);
    assert_eq!((d.exit, d.command_exit), (0, 1));
    assert_eq!(d.excused.len(), 1);
    assert_eq!(
        d.excused[0].test,
        "example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad"
    );
    assert_eq!(d.excused[0].ticket.as_deref(), Some("PLAT-1182"));
    assert!(d.blocking.is_empty() && d.problems.is_empty(), "{d:?}");
}

#[test]
fn a_trusted_probation_or_unlisted_failure_keeps_the_status() {
    let f = file();
    for (pkg, test, why) in [
        (
            "example.com/acme/services/billing/integration",
            "TestInvoiceRetryIdempotent",
            Stands::Tier(Tier::Probation),
        ),
        (
            "example.com/acme/services/pool/unit",
            "TestAcquireReleaseOrdering",
            Stands::Tier(Tier::Trusted),
        ),
        (
            "example.com/acme/services/nowhere",
            "TestNew",
            Stands::Unlisted,
        ),
    ] {
        let out = format!("{QUARANTINED}{}", go_fail(pkg, test));
        let d = run(&out, Ended::Exited(1), FileState::Read(&f));
        assert_eq!((d.standing, d.exit), (Standing::Failed, 1), "{test}");
        assert_eq!(d.blocking.len(), 1, "{d:?}");
        assert_eq!(d.blocking[0].why, why);
        assert_eq!(
            d.excused.len(),
            1,
            "the quarantined failure is still listed"
        );
    }
}

#[test]
fn an_unlisted_test_is_never_excused_even_when_the_default_tier_is_quarantined() {
    let f = reliability::parse("policy:\n  default_tier: quarantined\ntests: []\n").unwrap();
    let d = run(QUARANTINED, Ended::Exited(1), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1));
    assert_eq!(d.blocking[0].why, Stands::Unlisted);
}

#[test]
fn a_broken_test_is_never_excused() {
    let f = file();
    let out = go_fail(
        "example.com/acme/services/pool/integration",
        "TestBrokenForever",
    );
    let d = run(&out, Ended::Exited(1), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1));
    assert_eq!(d.blocking[0].why, Stands::Broken);
}

#[test]
fn a_build_error_keeps_its_status() {
    let f = file();
    let out = format!(
        "{QUARANTINED}# example.com/acme/services/pool\nservices/pool/pool.go:12:2: undefined: reaper\nFAIL\texample.com/acme/services/pool [build failed]\nFAIL\n"
    );
    let d = run(&out, Ended::Exited(2), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 2));
    assert!(
        matches!(&d.problems[..], [Problem::Build(l)] if l.contains("build failed")),
        "{d:?}"
    );
}

#[test]
fn a_signal_or_a_shell_s_128_plus_n_is_never_excused() {
    let f = file();
    let d = run(QUARANTINED, Ended::Signalled(11), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 139));
    assert_eq!(d.problems, vec![Problem::Killed(11)]);
    let d = run(QUARANTINED, Ended::Exited(137), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 137));
    assert_eq!(d.problems, vec![Problem::Killed(9)]);
}

#[test]
fn a_crash_or_a_hang_inside_the_run_keeps_the_status() {
    let f = file();
    let crash = format!("{QUARANTINED}panic: runtime error: invalid memory address [recovered]\n");
    let d = run(&crash, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Failed);
    assert!(matches!(d.problems[..], [Problem::Crash(_)]), "{d:?}");
    let hang = format!("{QUARANTINED}panic: test timed out after 10m0s\n");
    let d = run(&hang, Ended::Exited(1), FileState::Read(&f));
    assert!(matches!(d.problems[..], [Problem::Hang(_)]), "{d:?}");
}

#[test]
fn a_failure_no_test_explains_keeps_the_status() {
    let f = file();
    let d = run(
        "make: *** [test] Error 3\n",
        Ended::Exited(3),
        FileState::Read(&f),
    );
    assert_eq!((d.standing, d.exit), (Standing::Failed, 3));
    assert_eq!(d.problems, vec![Problem::Unexplained(3)]);
}

#[test]
fn without_a_usable_file_nothing_is_excused() {
    let d = run(QUARANTINED, Ended::Exited(1), FileState::Missing);
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1));
    assert_eq!(d.blocking[0].why, Stands::Unlisted);
    let d = run(
        QUARANTINED,
        Ended::Exited(1),
        FileState::Invalid("line 3: bad"),
    );
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1));
    assert!(d.problems.contains(&Problem::File("line 3: bad".into())));
}

#[test]
fn a_passing_command_passes_whatever_its_output_says() {
    let f = file();
    let d = run(QUARANTINED, Ended::Exited(0), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Passed, 0));
    let d = run("", Ended::Exited(0), FileState::Missing);
    assert_eq!((d.standing, d.exit), (Standing::Passed, 0));
}

#[test]
fn truncated_results_are_not_enough_to_excuse() {
    let f = file();
    let results = results_str(QUARANTINED, Format::Auto);
    let signs = Signs::default();
    let account = Scan::of(QUARANTINED).finish();
    let d = decide(
        &Observed {
            ended: Ended::Exited(1),
            results: &results.tests,
            dropped: 3,
            signs: &signs,
            account: &account,
        },
        FileState::Read(&f),
    );
    assert_eq!(d.standing, Standing::Failed);
    assert_eq!(d.problems, vec![Problem::Truncated(3)]);
}

#[test]
fn a_failing_subtest_of_a_quarantined_test_is_excused() {
    let f = file();
    let out = "=== RUN   TestPoolCheckoutUnderLoad\n=== RUN   TestPoolCheckoutUnderLoad/burst\n--- FAIL: TestPoolCheckoutUnderLoad (1.00s)\n    --- FAIL: TestPoolCheckoutUnderLoad/burst (1.00s)\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t1.1s\n";
    let d = run(out, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

#[test]
fn the_summaries_name_the_tests_and_escape_them() {
    let f = file();
    let d = run(QUARANTINED, Ended::Exited(1), FileState::Read(&f));
    let recorded = vec!["uploaded to https://gate.example (run 9)".to_string()];
    let text = summary::terminal(&d, &recorded);
    assert!(text.contains("exit 0 (the command exited 1)"), "{text}");
    assert!(text.contains("TestPoolCheckoutUnderLoad") && text.contains("PLAT-1182"));
    assert!(text.contains("NOT evidence") && text.contains("uploaded to"));
    let md = summary::step_summary(&d, &recorded);
    assert!(
        md.contains("`example.com/acme/services/pool/integration::TestPoolCheckoutUnderLoad`"),
        "{md}"
    );
    let notes = summary::annotations(&d);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("::warning title=Quarantined test failed%3A "),
        "{}",
        notes[0]
    );
    assert!(notes[0].contains("PLAT-1182"));

    // A hostile name from a log: no line break in a workflow command, no markup in markdown.
    let hostile = "=== RUN   TestX\n--- FAIL: TestX`<img src=x>` (0.1s)\nFAIL\nFAIL\tpkg\t0.1s\n";
    let f = reliability::parse("tests:\n  - id: TestX`<img src=x>`\n    tier: quarantined\n    ticket: \"T-1\\n::error::x\"\n").unwrap();
    let d = run(hostile, Ended::Exited(1), FileState::Read(&f));
    if d.standing == Standing::Excused {
        for n in summary::annotations(&d) {
            assert!(!n.contains('\n') && n.matches("::").count() == 2, "{n}");
        }
    }
    let md = summary::step_summary(&d, &[]);
    assert!(!md.contains("<img"), "{md}");
    let failed = run(
        &go_fail(
            "example.com/acme/services/pool/unit",
            "TestAcquireReleaseOrdering",
        ),
        Ended::Exited(1),
        FileState::Read(&file()),
    );
    let text = summary::terminal(&failed, &[]);
    assert!(
        text.contains("exit 1 (the command's own status)") && text.contains("trusted"),
        "{text}"
    );
    assert!(summary::annotations(&failed).is_empty());
}

#[test]
fn beside_a_failure_that_stands_nothing_is_titled_excused() {
    let out = format!(
        "{}{}",
        go_fail(
            "example.com/acme/services/pool/integration",
            "TestPoolCheckoutUnderLoad"
        ),
        go_fail(
            "example.com/acme/services/pool/unit",
            "TestAcquireReleaseOrdering"
        )
    );
    let d = run(&out, Ended::Exited(1), FileState::Read(&file()));
    assert_eq!(d.standing, Standing::Failed, "{d:?}");
    assert_eq!(d.excused.len(), 1, "{d:?}");
    let md = summary::step_summary(&d, &[]);
    assert!(!md.to_lowercase().contains("excused |"), "{md}");
    assert!(md.contains("not excused: the failure stands"), "{md}");
    assert!(md.contains("TestPoolCheckoutUnderLoad"), "{md}");
    // When the quarantined failure is alone, the same table says it was excused.
    let alone = run(QUARANTINED, Ended::Exited(1), FileState::Read(&file()));
    assert!(summary::step_summary(&alone, &[]).contains("| quarantined, excused |"));
}

#[test]
fn the_junit_written_reads_back_as_the_same_results() {
    let out = format!(
        "{QUARANTINED}=== RUN   TestSkip\n--- SKIP: TestSkip (0.00s)\nok  \texample.com/acme/x\t0.1s\n"
    );
    let results = results_str(&out, Format::Auto);
    let xml = junit_out::write(&results.tests);
    let back = results_str(&xml, Format::Junit);
    let pairs = |r: &crate::core::failures::Results| {
        let mut v: Vec<(String, Outcome, Option<String>)> = r
            .tests
            .iter()
            .map(|t| (t.test.id(), t.outcome, t.message.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(pairs(&back), pairs(&results), "ids, outcomes and messages");
    assert!(
        pairs(&results).iter().any(|(_, _, m)| m.is_some()),
        "a failure with its message"
    );
    assert!(pairs(&results).iter().any(|(_, o, _)| *o == Outcome::Skip));
    // Names with XML's specials and control characters still parse.
    let odd = results_str(
        "--- FAIL: Test<&\"'>\u{1}x (0.1s)\nFAIL\tpkg\t0.1s\n",
        Format::Auto,
    );
    let back = results_str(&junit_out::write(&odd.tests), Format::Junit);
    assert_eq!(back.tests.len(), odd.tests.len());
}

#[test]
fn lookup_says_what_the_ci_command_does_with_each_standing() {
    use super::excuse::in_ci;
    assert!(in_ci(true, Tier::Quarantined, false).contains("does not fail the build"));
    assert!(in_ci(true, Tier::Quarantined, true).contains("always fails"));
    assert!(in_ci(false, Tier::Quarantined, false).contains("fails the build"));
    assert!(in_ci(true, Tier::Trusted, false).contains("fails the build"));
    assert!(!in_ci(true, Tier::Probation, false).contains("does not fail"));
}

// What quarantine explains (docs/history.md#quarantine-that-holds-in-ci): each failing package, binary and process must be
// accounted for by its failing tests. Outputs as go 1.19, pytest 7 and cargo 1.95 print them.

const GO_QUARANTINED_PLAIN: &str = "--- FAIL: TestPoolCheckoutUnderLoad (0.00s)\n    pool_test.go:88: checkout deadline exceeded\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t0.003s\n";

fn unaccounted(d: &Decision) -> Vec<&Unexplained> {
    d.problems
        .iter()
        .filter_map(|p| match p {
            Problem::Unaccounted(u) => Some(u),
            _ => None,
        })
        .collect()
}

#[test]
fn a_go_package_whose_test_main_exits_1_is_not_excused() {
    let f = file();
    for other in [
        // go test ./...
        "PASS\nFAIL\texample.com/acme/services/ledger\t0.006s\n",
        // go test -v ./...
        "=== RUN   TestLedgerPost\n--- PASS: TestLedgerPost (0.00s)\nPASS\nFAIL\texample.com/acme/services/ledger\t0.002s\n",
    ] {
        let out = format!("{GO_QUARANTINED_PLAIN}{other}FAIL\n");
        let d = run(&out, Ended::Exited(1), FileState::Read(&f));
        assert_eq!((d.standing, d.exit), (Standing::Failed, 1), "{d:?}");
        assert_eq!(d.excused.len(), 1, "the quarantined failure is still named");
        assert_eq!(
            unaccounted(&d),
            vec![&Unexplained::NoFailingTest {
                unit: "example.com/acme/services/ledger".into()
            }]
        );
        let text = summary::terminal(&d, &[]);
        assert!(
            text.contains("example.com/acme/services/ledger FAILed with no failing test"),
            "{text}"
        );
    }
    // The quarantined package alone still is.
    let d = run(
        &format!("{GO_QUARANTINED_PLAIN}ok  \texample.com/acme/services/ledger\t0.002s\nFAIL\n"),
        Ended::Exited(1),
        FileState::Read(&f),
    );
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

#[test]
fn a_go_test_ending_its_process_is_not_excused() {
    let f = file();
    // go test ./...: `exit status 3`, no failing test in that package.
    let plain = format!(
        "{GO_QUARANTINED_PLAIN}exit status 3\nFAIL\texample.com/acme/services/osexit\t0.004s\nFAIL\n"
    );
    let d = run(&plain, Ended::Exited(1), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1), "{d:?}");
    let u = unaccounted(&d);
    assert!(
        u.contains(&&Unexplained::ExitStatus {
            unit: "example.com/acme/services/osexit".into(),
            status: 3
        }),
        "{u:?}"
    );
    // go test -v: the test started and never reported.
    let verbose = "=== RUN   TestPoolCheckoutUnderLoad\n    pool_test.go:88: checkout deadline exceeded\n--- FAIL: TestPoolCheckoutUnderLoad (0.00s)\n=== RUN   TestExits\nFAIL\texample.com/acme/services/pool/integration\t0.004s\nFAIL\n";
    let d = run(verbose, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Failed, "{d:?}");
    assert_eq!(
        unaccounted(&d),
        vec![&Unexplained::NeverReported {
            unit: "example.com/acme/services/pool/integration".into(),
            tests: vec!["TestExits".into()],
            count: 1
        }]
    );
    // The same in the quarantined test's own package, without -v.
    let same = "--- FAIL: TestPoolCheckoutUnderLoad (0.00s)\nexit status 3\nFAIL\texample.com/acme/services/pool/integration\t0.004s\nFAIL\n";
    let d = run(same, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Failed, "{d:?}");
}

#[test]
fn a_race_report_after_the_tests_is_not_excused() {
    let f = file();
    let out = "--- FAIL: TestPoolCheckoutUnderLoad (12.00s)\nFAIL\n==================\nWARNING: DATA RACE\nWrite at 0x00c0001a2010 by goroutine 31:\n==================\nFound 1 data race(s)\nexit status 66\nFAIL\texample.com/acme/services/pool/integration\t12.345s\nFAIL\n";
    let d = run(out, Ended::Exited(1), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 1), "{d:?}");
    assert!(
        unaccounted(&d).iter().any(
            |u| matches!(u, Unexplained::Race { line, .. } if line.contains("Found 1 data race"))
        ),
        "{d:?}"
    );
    // A race inside the quarantined test fails that test: its own failure.
    let inside = "==================\nWARNING: DATA RACE\n==================\n--- FAIL: TestPoolCheckoutUnderLoad (0.02s)\n    testing.go:1319: race detected during execution of test\nFAIL\nFAIL\texample.com/acme/services/pool/integration\t0.032s\nFAIL\n";
    let d = run(inside, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

#[test]
fn go_test_json_packages_are_accounted_for_too() {
    let f = file();
    let ev = |pkg: &str, action: &str, test: Option<&str>, output: Option<&str>| {
        serde_json::json!({"Action": action, "Package": pkg, "Test": test, "Output": output})
            .to_string()
    };
    let q = "example.com/acme/services/pool/integration";
    let l = "example.com/acme/services/ledger";
    let mut lines = vec![
        ev(q, "run", Some("TestPoolCheckoutUnderLoad"), None),
        ev(
            l,
            "output",
            Some("TestLedgerPost"),
            Some("=== RUN   TestLedgerPost\n"),
        ),
        ev(
            q,
            "output",
            Some("TestPoolCheckoutUnderLoad"),
            Some("--- FAIL: TestPoolCheckoutUnderLoad (0.00s)\n"),
        ),
        ev(q, "fail", Some("TestPoolCheckoutUnderLoad"), None),
        ev(
            l,
            "output",
            Some("TestLedgerPost"),
            Some("--- PASS: TestLedgerPost (0.00s)\n"),
        ),
        ev(l, "pass", Some("TestLedgerPost"), None),
        ev(q, "output", None, Some(&format!("FAIL\t{q}\t0.004s\n"))),
        ev(q, "fail", None, None),
    ];
    let excused = lines.join("\n");
    let d = run(&excused, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
    lines.push(ev(l, "output", None, Some("PASS\n")));
    lines.push(ev(l, "output", None, Some(&format!("FAIL\t{l}\t0.003s\n"))));
    lines.push(ev(l, "fail", None, None));
    let d = run(&lines.join("\n"), Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Failed, "{d:?}");
    assert_eq!(
        unaccounted(&d),
        vec![&Unexplained::NoFailingTest { unit: l.into() }]
    );
}

#[test]
fn a_status_beyond_the_runner_s_own_is_not_excused() {
    let f = file();
    // sh -c 'go test ./...; exit 3'
    let d = run(QUARANTINED, Ended::Exited(3), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 3), "{d:?}");
    assert!(matches!(
        unaccounted(&d)[..],
        [Unexplained::Status { exit: 3, .. }]
    ));
    assert!(
        summary::terminal(&d, &[]).contains("the command exited 3, but go test exits 1"),
        "{}",
        summary::terminal(&d, &[])
    );
    // make reports the recipe's status and exits 2.
    let made = format!("{QUARANTINED}make: *** [Makefile:3: test] Error 1\n");
    let d = run(&made, Ended::Exited(2), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

fn pytest_file() -> ReliabilityFile {
    reliability::parse(
        "tests:\n  - id: tests/test_pool.py::test_checkout_under_load\n    tier: quarantined\n    ticket: PLAT-9\n",
    )
    .unwrap()
}

#[test]
fn pytest_ended_by_os_exit_is_not_excused() {
    let f = pytest_file();
    let head = "============================= test session starts ==============================\nplatform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\ncollecting ... collected 3 items\n\ntests/test_pool.py::test_checkout_under_load FAILED                      [ 33%]\n";
    let exited = format!("{head}tests/test_zexit.py::test_zz_exit ");
    let d = run(&exited, Ended::Exited(3), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 3), "{d:?}");
    let u = unaccounted(&d);
    assert!(u.contains(&&Unexplained::NoSummary), "{u:?}");
    assert!(
        u.iter()
            .any(|u| matches!(u, Unexplained::Status { exit: 3, .. })),
        "{u:?}"
    );
    // os._exit(1): the status is pytest's own, the missing summary is not.
    let d = run(&exited, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(unaccounted(&d), vec![&Unexplained::NoSummary]);
    let whole = format!(
        "{head}tests/test_pool.py::test_ok PASSED    [ 66%]\n=========================== short test summary info ============================\nFAILED tests/test_pool.py::test_checkout_under_load - AssertionError: deadline\n========================= 1 failed, 1 passed in 0.01s ==========================\n"
    );
    let d = run(&whole, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
    // -q
    let quiet = "F.                                                                       [100%]\nFAILED tests/test_pool.py::test_checkout_under_load - AssertionError: deadline\n1 failed, 1 passed in 0.01s\n";
    let d = run(quiet, Ended::Exited(1), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

fn cargo_file() -> ReliabilityFile {
    reliability::parse("tests:\n  - id: pool::tests::checkout_under_load\n    tier: quarantined\n")
        .unwrap()
}

const CARGO_QUARANTINED: &str = "     Running unittests src/lib.rs (target/debug/deps/pool-0123456789abcdef)\n\nrunning 2 tests\ntest tests::ok ... ok\ntest tests::checkout_under_load ... FAILED\n\nfailures:\n\n---- tests::checkout_under_load stdout ----\n\nthread 'tests::checkout_under_load' panicked at src/lib.rs:9:9:\ncheckout deadline exceeded\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::checkout_under_load\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n";

#[test]
fn a_cargo_test_binary_s_own_exit_status_is_not_excused() {
    let f = cargo_file();
    let ended = |status: i32| {
        format!(
            "{CARGO_QUARANTINED}error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/w/target/debug/deps/pool-0123456789abcdef` (exit status: {status})\n     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\nrunning 1 test\ntest t ... ok\n\ntest result: ok. 1 passed; 0 failed\n\nerror: 1 target failed:\n    `--lib`\n"
        )
    };
    let d = run(&ended(101), Ended::Exited(101), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
    assert_eq!(
        d.excused[0].test, "pool::tests::checkout_under_load",
        "{d:?}"
    );
    let d = run(&ended(3), Ended::Exited(101), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 101), "{d:?}");
    assert_eq!(
        unaccounted(&d),
        vec![&Unexplained::ExitStatus {
            unit: "pool".into(),
            status: 3
        }]
    );
    // sh -c 'cargo test; exit 3'
    let d = run(&ended(101), Ended::Exited(3), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 3), "{d:?}");
    assert!(matches!(
        unaccounted(&d)[..],
        [Unexplained::Status { exit: 3, .. }]
    ));
}

#[test]
fn a_cargo_test_binary_ending_after_its_tests_passed_is_not_excused() {
    // cargo 1.95 --no-fail-fast: a normal failure has no `Caused by`; a binary a test ended
    // with `process::exit(3)` does, and one test never reported.
    let f = cargo_file();
    let out = format!(
        "{CARGO_QUARANTINED}error: test failed, to rerun pass `--lib`\n     Running tests/exit3.rs (/t/debug/deps/exit3-edc7e69131ae62b6)\n\nrunning 2 tests\ntest passes_then_exits ... ok\nerror: test failed, to rerun pass `--test exit3`\n\nCaused by:\n  process didn't exit successfully: `/t/debug/deps/exit3-edc7e69131ae62b6` (exit status: 3)\nnote: test exited abnormally; to see the full output pass --no-capture to the harness.\n     Running tests/it.rs (/t/debug/deps/it-7e7bdc80461378c8)\n\nrunning 1 test\ntest it_ok ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: 2 targets failed:\n    `--lib`\n    `--test exit3`\n"
    );
    let d = run(&out, Ended::Exited(101), FileState::Read(&f));
    assert_eq!((d.standing, d.exit), (Standing::Failed, 101), "{d:?}");
    let u = unaccounted(&d);
    assert!(
        u.contains(&&Unexplained::ExitStatus {
            unit: "exit3".into(),
            status: 3
        }) && u.contains(&&Unexplained::NoFailingTest {
            unit: "exit3".into()
        }),
        "{u:?}"
    );
    let lib_only = format!(
        "{CARGO_QUARANTINED}error: test failed, to rerun pass `--lib`\n     Running tests/it.rs (/t/debug/deps/it-7e7bdc80461378c8)\n\nrunning 1 test\ntest it_ok ... ok\n\ntest result: ok. 1 passed; 0 failed\n\nerror: 1 target failed:\n    `--lib`\n"
    );
    let d = run(&lib_only, Ended::Exited(101), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Excused, "{d:?}");
}

#[test]
fn cargo_stopping_at_the_quarantined_binary_is_not_excused() {
    let f = cargo_file();
    let stopped = format!(
        "{CARGO_QUARANTINED}error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/w/target/debug/deps/pool-0123456789abcdef` (exit status: 101)\n"
    );
    let d = run(&stopped, Ended::Exited(101), FileState::Read(&f));
    assert_eq!(d.standing, Standing::Failed, "{d:?}");
    assert_eq!(
        unaccounted(&d),
        vec![&Unexplained::Stopped {
            unit: "pool".into()
        }]
    );
}

#[test]
fn cargo_s_failure_message_is_kept_in_the_junit_written() {
    let results = results_str(CARGO_QUARANTINED, Format::Auto);
    let xml = junit_out::write(&results.tests);
    assert!(
        xml.contains("checkout deadline exceeded") && xml.contains("panicked at src/lib.rs:9:9"),
        "{xml}"
    );
    assert!(!xml.contains("RUST_BACKTRACE"), "{xml}");
}
