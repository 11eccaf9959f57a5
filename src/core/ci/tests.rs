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
    decide(
        &Observed {
            ended,
            results: &results.tests,
            dropped: results.dropped,
            signs: &signs,
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
    let d = decide(
        &Observed {
            ended: Ended::Exited(1),
            results: &results.tests,
            dropped: 3,
            signs: &signs,
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
