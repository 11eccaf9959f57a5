use super::*;

fn ids(r: &Report) -> Vec<String> {
    r.failed.iter().map(FailedTest::id).collect()
}

fn flaky_ids(r: &Report) -> Vec<String> {
    r.flaky.iter().map(FailedTest::id).collect()
}

#[test]
fn go_v_with_packages_subtests_and_panics() {
    let log = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/case_1\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/case_1 (0.00s)\n        b_test.go:9: boom\nFAIL\nFAIL\texample.com/acme/pool\t0.012s\n=== RUN   TestC\n--- FAIL: TestC (0.00s)\npanic: runtime error [recovered]\nFAIL\texample.com/acme/queue\t0.020s\nok  \texample.com/acme/other\t0.001s\n";
    let r = parse_str(log, Format::Go);
    assert_eq!(
        ids(&r),
        [
            "example.com/acme/pool::TestB/case_1",
            "example.com/acme/queue::TestC"
        ]
    );
}

#[test]
fn go_timeout_lists_the_running_tests() {
    let log = "=== RUN   TestSlow\npanic: test timed out after 10m0s\n\trunning tests:\n\t\tTestSlow (10m0s)\n\ngoroutine 41 [semacquire]:\nFAIL\texample.com/acme/pool\t600.012s\n";
    let r = parse_str(log, Format::Auto);
    assert_eq!(ids(&r), ["example.com/acme/pool::TestSlow"]);
}

#[test]
fn go_json_failures_flakes_and_missing_fail_events() {
    let log = r#"noise before the JSON
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"run","Package":"q","Test":"TestPanics"}
{"Action":"output","Package":"q","Output":"panic: boom\n"}
{"Action":"fail","Package":"q","Elapsed":0.1}
"#;
    let r = parse_str(log, Format::Auto);
    assert_eq!(ids(&r), ["p::TestB", "q::TestPanics"]);
    assert_eq!(flaky_ids(&r), ["p::TestA"]);
}

#[test]
fn cargo_human_json_and_actions_timestamps() {
    let log = "2024-05-01T10:00:00.1234567Z      Running unittests src/lib.rs (target/debug/deps/pool-0123456789abcdef)\n2024-05-01T10:00:00.2Z test tests::checkout ... FAILED\n2024-05-01T10:00:00.3Z test tests::other ... ok\n";
    assert_eq!(
        ids(&parse_str(log, Format::Auto)),
        ["pool::tests::checkout"]
    );
    let json = "{ \"type\": \"suite\", \"event\": \"started\", \"test_count\": 2 }\n{ \"type\": \"test\", \"event\": \"failed\", \"name\": \"a::b\" }\n";
    assert_eq!(ids(&parse_str(json, Format::Cargo)), ["a::b"]);
}

#[test]
fn nextest_retries_are_flaky_and_nested_libtest_lines_are_ignored() {
    let log = "\x1b[32;1m    Starting\x1b[0m 2 tests across 1 binary\n  TRY 1 FAIL [   0.003s] proj::basic test_flaky\n    test test_flaky ... FAILED\n  TRY 2 PASS [   0.002s] proj::basic test_flaky\n        FAIL [   0.004s] proj::basic test_broken\n";
    let r = parse_str(log, Format::Auto);
    assert_eq!(ids(&r), ["proj::basic::test_broken"]);
    assert_eq!(flaky_ids(&r), ["proj::basic::test_flaky"]);
}

#[test]
fn pytest_summary_and_reruns() {
    let log = "tests/test_a.py::test_ok PASSED\n=== short test summary info ===\nFAILED tests/test_a.py::test_bad - AssertionError: x\nERROR tests/test_b.py::TestK::test_setup - fixture\nRERUN tests/test_c.py::test_flaky\nPASSED tests/test_c.py::test_flaky\n";
    let r = parse_str(log, Format::Pytest);
    assert_eq!(
        ids(&r),
        [
            "tests/test_a.py::test_bad",
            "tests/test_b.py::TestK::test_setup"
        ]
    );
    assert_eq!(flaky_ids(&r), ["tests/test_c.py::test_flaky"]);
}

#[test]
fn jest_human_and_json() {
    let log = "FAIL src/pool.test.js\n  pool\n    ✕ checks out (5 ms)\n    ✓ returns\n\n  ● pool › checks out\n\nPASS src/other.test.js\n";
    assert_eq!(
        ids(&parse_str(log, Format::Auto)),
        ["src/pool.test.js::checks out"]
    );
    let json = r#"{"numFailedTests":1,"testResults":[{"name":"/r/a.test.js","status":"failed","assertionResults":[{"fullName":"a fails","status":"failed"},{"fullName":"a retried","status":"passed","invocations":2}]}]}"#;
    let r = parse_str(json, Format::Auto);
    assert_eq!(ids(&r), ["/r/a.test.js::a fails"]);
    assert_eq!(flaky_ids(&r), ["/r/a.test.js::a retried"]);
}

#[test]
fn junit_failures_errors_and_flaky_reruns() {
    let xml = r#"<?xml version="1.0"?>
<testsuites><testsuite name="pool">
  <testcase classname="com.acme.PoolTest" name="checkout"><failure message="x"/></testcase>
  <testcase classname="com.acme.PoolTest" name="close"><error>boom</error></testcase>
  <testcase classname="com.acme.PoolTest" name="flaky"><flakyFailure message="once"/></testcase>
  <testcase classname="com.acme.PoolTest" name="retried-and-failed"><failure/><rerunFailure/></testcase>
  <testcase classname="com.acme.PoolTest" name="ok"/>
</testsuite></testsuites>"#;
    let r = parse_str(xml, Format::Auto);
    assert_eq!(
        ids(&r),
        [
            "com.acme.PoolTest::checkout",
            "com.acme.PoolTest::close",
            "com.acme.PoolTest::retried-and-failed"
        ]
    );
    assert_eq!(flaky_ids(&r), ["com.acme.PoolTest::flaky"]);
}

#[test]
fn malformed_xml_is_an_error_not_a_panic() {
    assert!(
        parse(
            std::io::Cursor::new(b"<testsuite><testcase name=\"a\"><failure></testsuite>".to_vec()),
            Format::Junit
        )
        .is_err()
    );
}

#[test]
fn clean_line_strips_escapes_and_timestamps() {
    assert_eq!(clean_line("\x1b[31;1m FAIL\x1b[0m x"), " FAIL x");
    assert_eq!(
        clean_line("2024-01-02T03:04:05.1234567Z --- FAIL: TestX"),
        "--- FAIL: TestX"
    );
    assert_eq!(
        clean_line("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\"),
        "link"
    );
}

proptest::proptest! {
    #[test]
    fn no_log_makes_the_parsers_panic(log in "(?s).{0,500}") {
        for f in [Format::Auto, Format::Go, Format::GoJson, Format::Cargo, Format::Nextest, Format::Pytest, Format::Jest, Format::Junit] {
            let _ = parse(std::io::Cursor::new(log.as_bytes().to_vec()), f);
        }
    }
}
