use super::*;

use crate::core::test_ids::{self, CargoLayout, Selection};

fn sel(name: &str) -> Selection {
    Selection {
        target: Vec::new(),
        name: name.into(),
        package: None,
        binary: None,
    }
}

fn layout() -> CargoLayout {
    CargoLayout {
        tests: vec!["bounded".into(), "unbounded".into()],
        crates: Vec::new(),
    }
}

fn cargo(name: &str, output: &str, ended: Ended) -> Outcome {
    let id = format!("bounded::{name}");
    judge(
        Family::Cargo,
        &test_ids::cargo(&id, &layout()),
        &id,
        output,
        ended,
    )
}

const RUNNING: &str = "     Running tests/bounded.rs (target/debug/deps/bounded-0123456789abcdef)\n\nrunning 1 test\n";

#[test]
fn a_libtest_pass_and_failure_are_read_from_the_report_not_the_status() {
    let pass = format!("{RUNNING}test forget_blocked_sender ... ok\n\ntest result: ok. 1 passed\n");
    assert_eq!(
        cargo("forget_blocked_sender", &pass, Ended::Exited(0)),
        Outcome::Passed
    );
    let fail = format!(
        "{RUNNING}test forget_blocked_sender ... FAILED\n\nfailures:\n\n---- forget_blocked_sender stdout ----\nassertion failed\n\ntest result: FAILED. 0 passed; 1 failed\nerror: test failed, to rerun pass `--test bounded`\n"
    );
    assert_eq!(
        cargo("forget_blocked_sender", &fail, Ended::Exited(101)),
        Outcome::Failed {
            failure: Failure::Failed
        }
    );
    // A pass whose process then exits non-zero (another binary failed) is still a pass.
    assert_eq!(
        cargo("forget_blocked_sender", &pass, Ended::Exited(101)),
        Outcome::Passed
    );
}

#[test]
fn a_test_binary_that_aborts_after_the_test_started_crashed() {
    let out = format!(
        "{RUNNING}test poll_then_drop ... thread 'poll_then_drop' panicked at src/lib.rs:9:5:\ninternal error: entered unreachable code\nthread panicked while processing panic. aborting.\nerror: test failed, to rerun pass `--test bounded`\n\nCaused by:\n  process didn't exit successfully: `/t/target/debug/deps/bounded-0123 --exact poll_then_drop` (signal: 6, SIGABRT: process abort signal)\n"
    );
    assert_eq!(
        cargo("poll_then_drop", &out, Ended::Exited(101)),
        Outcome::Failed {
            failure: Failure::Crashed(6)
        }
    );
    // The same crash seen as the shell's status of the test binary itself.
    let bare = format!("{RUNNING}test poll_then_drop ... ");
    assert_eq!(
        cargo("poll_then_drop", &bare, Ended::Signalled(11)),
        Outcome::Failed {
            failure: Failure::Crashed(11)
        }
    );
}

#[test]
fn a_run_the_time_limit_ended_hung() {
    let out = format!("{RUNNING}test cancellation ... ");
    assert_eq!(
        cargo("cancellation", &out, Ended::TimedOut(300)),
        Outcome::Failed {
            failure: Failure::Hung(300)
        }
    );
    let go = "=== RUN   TestDrain\npanic: test timed out after 5m0s\n\trunning tests:\n\t\tTestDrain (5m0s)\n\ngoroutine 7 [chan receive]:\nFAIL\tpool\t300.012s\n";
    assert_eq!(
        judge(
            Family::Go,
            &sel("TestDrain"),
            "pool::TestDrain",
            go,
            Ended::Exited(1)
        ),
        Outcome::Failed {
            failure: Failure::Hung(300)
        }
    );
}

#[test]
fn a_build_error_is_no_result_with_its_first_error_line() {
    let out = "   Compiling oneshot v0.1.10\nerror[E0599]: no method named `is_closed` found for struct `Receiver` in the current scope\n  --> tests/sync.rs:40:20\nerror: could not compile `oneshot` (test \"sync\") due to 1 previous error\n";
    let o = cargo(
        "dropping_sender_disconnects_receiver",
        out,
        Ended::Exited(101),
    );
    let Outcome::NoResult {
        no_result: NoResult::Build(line),
    } = &o
    else {
        panic!("{o:?}");
    };
    assert!(line.starts_with("error[E0599]: no method named"), "{line}");
    assert!(!line.contains('`'), "backticks are taken out: {line}");
    let reason = NoResult::Build(line.clone()).reason("the merge base");
    assert!(reason.starts_with("the test file does not build on the merge base: error[E0599]"));
    let jest = "  \u{25cf} Test suite failed to run\n\n    Cannot find module './api' from 'api.test.js'\n\n    However, Jest was able to find:\n\nTest results written to: o.json\n";
    assert_eq!(
        crate::core::runs::first_error_line(jest).as_deref(),
        Some("Cannot find module './api' from 'api.test.js'")
    );
    let go = "# example.com/pool [example.com/pool.test]\n./wakeup_test.go:12:5: undefined: pool.Drain\nFAIL\texample.com/pool [build failed]\n";
    assert!(matches!(
        judge(Family::Go, &sel("TestDrain"), "pool::TestDrain", go, Ended::Exited(1)),
        Outcome::NoResult {
            no_result: NoResult::Build(l)
        } if l.contains("undefined: pool.Drain")
    ));
}

#[test]
fn no_such_test_and_a_shared_name_are_no_result() {
    let none = format!("{RUNNING}\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed\n");
    assert_eq!(
        cargo("nope", &none, Ended::Exited(0)),
        Outcome::NoResult {
            no_result: NoResult::NotFound
        }
    );
    let two = "     Running tests/bounded.rs (target/debug/deps/bounded-0123456789abcdef)\n\nrunning 1 test\ntest close_wakes_receiver ... ok\n\n     Running tests/unbounded.rs (target/debug/deps/unbounded-0123456789abcdef)\n\nrunning 1 test\ntest close_wakes_receiver ... ok\n";
    let o = judge(
        Family::Cargo,
        &test_ids::cargo("close_wakes_receiver", &layout()),
        "close_wakes_receiver",
        two,
        Ended::Exited(0),
    );
    assert_eq!(
        o,
        Outcome::NoResult {
            no_result: NoResult::Ambiguous(vec![
                "bounded::close_wakes_receiver".into(),
                "unbounded::close_wakes_receiver".into()
            ])
        }
    );
    // The same under a target folder elsewhere (`CARGO_TARGET_DIR=/tmp/t/target`).
    let absolute = two.replace("(target/", "(/tmp/t/target/");
    assert!(
        matches!(
            judge(
                Family::Cargo,
                &test_ids::cargo("close_wakes_receiver", &layout()),
                "close_wakes_receiver",
                &absolute,
                Ended::Exited(0),
            ),
            Outcome::NoResult {
                no_result: NoResult::Ambiguous(_)
            }
        ),
        "{absolute}"
    );
    // Named with its binary, the same output is one test.
    assert_eq!(
        judge(
            Family::Cargo,
            &test_ids::cargo("unbounded::close_wakes_receiver", &layout()),
            "unbounded::close_wakes_receiver",
            two,
            Ended::Exited(0)
        ),
        Outcome::Passed
    );
}

#[test]
fn pytest_verbose_output_shows_passes_and_starts() {
    let id = "tests/test_corner_cases.py::test_cancelled_reader_waiters";
    let pass = format!(
        "============================= test session starts ==============================\ncollected 1 item\n\n{id} PASSED [100%]\n\n============================== 1 passed in 0.12s ===============================\n"
    );
    assert_eq!(
        judge(Family::Pytest, &sel(id), id, &pass, Ended::Exited(0)),
        Outcome::Passed
    );
    let hung = format!("collected 1 item\n\n{id} ");
    assert_eq!(
        judge(Family::Pytest, &sel(id), id, &hung, Ended::TimedOut(60)),
        Outcome::Failed {
            failure: Failure::Hung(60)
        }
    );
    let missing = "ERROR: not found: /w/tests/test_corner_cases.py::test_nope\n(no match in any of [<Module test_corner_cases.py>])\n\n============================ no tests ran in 0.01s =============================\n";
    assert_eq!(
        judge(
            Family::Pytest,
            &sel("tests/test_corner_cases.py::test_nope"),
            "tests/test_corner_cases.py::test_nope",
            missing,
            Ended::Exited(4)
        ),
        Outcome::NoResult {
            no_result: NoResult::NotFound
        }
    );
}

#[test]
fn a_command_is_its_exit_status() {
    let c = |e| judge(Family::Command, &sel("sim"), "sim", "", e);
    assert_eq!(c(Ended::Exited(0)), Outcome::Passed);
    assert_eq!(
        c(Ended::Exited(1)),
        Outcome::Failed {
            failure: Failure::Failed
        }
    );
    assert_eq!(
        c(Ended::Exited(134)),
        Outcome::Failed {
            failure: Failure::Crashed(6)
        }
    );
    assert_eq!(
        c(Ended::TimedOut(5)),
        Outcome::Failed {
            failure: Failure::Hung(5)
        }
    );
}

#[test]
fn a_tally_says_how_the_runs_failed_and_why_some_had_no_result() {
    let mut t = Tally::default();
    for _ in 0..18 {
        t.add(&Outcome::Failed {
            failure: Failure::Failed,
        });
    }
    for _ in 0..2 {
        t.add(&Outcome::Failed {
            failure: Failure::Crashed(6),
        });
    }
    assert_eq!(t.count().failures, 20);
    assert_eq!(
        t.failures_described().as_deref(),
        Some("18 failed, 2 crashed (signal 6)")
    );
    assert_eq!(t.no_result_reason("the head"), None);
    t.add(&Outcome::NoResult {
        no_result: NoResult::NotFound,
    });
    t.add(&Outcome::NoResult {
        no_result: NoResult::NotFound,
    });
    assert_eq!(
        t.no_result_reason("the head").as_deref(),
        Some("no test has that name on the head (2 of 22 runs)")
    );
}

#[test]
fn shell_statuses_read_as_exits_signals_and_time_limits() {
    assert_eq!(Ended::from_shell(0, None), Ended::Exited(0));
    assert_eq!(Ended::from_shell(134, None), Ended::Signalled(6));
    assert_eq!(Ended::from_shell(124, Some(300)), Ended::TimedOut(300));
    assert_eq!(Ended::from_shell(101, None), Ended::Exited(101));
}

#[test]
fn nothing_in_a_hostile_output_panics_or_leaks_markup() {
    for out in [
        "",
        "\u{0}",
        "(signal: ",
        "(signal: 99999999999999999999",
        "panic: test timed out after ",
        "panic: test timed out after 1x",
    ] {
        for f in [
            Family::Cargo,
            Family::Go,
            Family::Pytest,
            Family::Jest,
            Family::Nextest,
        ] {
            let _ = judge(f, &sel("b"), "a::b", out, Ended::Exited(1));
        }
    }
}

/// jest's own output names a test by its title; the run selected it by its describe blocks.
#[test]
fn a_jest_test_is_read_by_its_title_under_its_describe_blocks() {
    let id = "pool.test.js::pool \u{203a} checkout \u{203a} wakes a waiter";
    let name = "pool \u{203a} checkout \u{203a} wakes a waiter";
    let failed = "FAIL ./pool.test.js\n  pool\n    checkout\n      \u{2715} wakes a waiter (4 ms)\n      \u{25cb} skipped returns idle\n\n  \u{25cf} pool \u{203a} checkout \u{203a} wakes a waiter\n\n    Expected: true\n\nTests:       1 failed, 1 skipped, 2 total\n";
    assert_eq!(
        judge(Family::Jest, &sel(name), id, failed, Ended::Exited(1)),
        Outcome::Failed {
            failure: Failure::Failed
        }
    );
    let passed = "PASS ./pool.test.js\n  pool\n    checkout\n      \u{2713} wakes a waiter (2 ms)\n      \u{25cb} skipped returns idle\n\nTests:       1 skipped, 1 passed, 2 total\n";
    assert_eq!(
        judge(Family::Jest, &sel(name), id, passed, Ended::Exited(0)),
        Outcome::Passed
    );
    // Another title is not it.
    assert!(matches!(
        judge(
            Family::Jest,
            &sel("pool \u{203a} drains"),
            "pool.test.js::pool \u{203a} drains",
            passed,
            Ended::Exited(0)
        ),
        Outcome::NoResult { .. }
    ));
}
