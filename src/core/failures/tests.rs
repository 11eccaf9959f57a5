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

#[test]
fn go_parallel_failures_belong_to_their_own_package_in_a_multi_package_run() {
    // Parallel tests report at the end of their package, after other tests' output; the same
    // names pass in the next package.
    let log = "=== RUN   TestP\n=== PAUSE TestP\n=== RUN   TestQ\n--- PASS: TestQ (0.00s)\n=== CONT  TestP\n    p_test.go:3: boom\n--- FAIL: TestP (0.01s)\nFAIL\nFAIL\texample.com/a\t0.1s\n=== RUN   TestP\n=== PAUSE TestP\n=== CONT  TestP\n--- PASS: TestP (0.00s)\nok  \texample.com/b\t0.1s\n=== RUN   TestP\n=== PAUSE TestP\n=== RUN   TestR\n--- SKIP: TestR (0.00s)\n=== CONT  TestP\n--- FAIL: TestP (0.00s)\nFAIL\texample.com/c\t0.1s\n";
    let r = parse_str(log, Format::Go);
    assert_eq!(ids(&r), ["example.com/a::TestP", "example.com/c::TestP"]);
    assert!(r.flaky.is_empty(), "{:?}", r.flaky);
    let all = results_str(log, Format::Go);
    let got: Vec<(String, Outcome)> = all.tests.iter().map(|t| (t.test.id(), t.outcome)).collect();
    assert_eq!(
        got,
        [
            ("example.com/a::TestQ".to_string(), Outcome::Pass),
            ("example.com/a::TestP".to_string(), Outcome::Fail),
            ("example.com/b::TestP".to_string(), Outcome::Pass),
            ("example.com/c::TestR".to_string(), Outcome::Skip),
            ("example.com/c::TestP".to_string(), Outcome::Fail),
        ]
    );
}

#[test]
fn go_tests_still_running_when_another_panicked_are_neither_passed_nor_failed() {
    let log = "=== RUN   TestA\n=== PAUSE TestA\n=== RUN   TestB\n=== PAUSE TestB\n=== CONT  TestA\n=== CONT  TestB\n--- FAIL: TestB (0.00s)\npanic: boom [recovered]\nFAIL\texample.com/p\t0.1s\n";
    assert_eq!(ids(&parse_str(log, Format::Go)), ["example.com/p::TestB"]);
    // With nothing else to blame, the test that was running when the binary died failed.
    let log = "=== RUN   TestA\npanic: boom\nFAIL\texample.com/p\t0.1s\n";
    assert_eq!(ids(&parse_str(log, Format::Go)), ["example.com/p::TestA"]);
}

#[test]
fn go_timeout_list_without_durations_still_names_the_tests() {
    let log = "=== RUN   TestSlow\n=== RUN   TestOther\npanic: test timed out after 10m0s\n\trunning tests:\n\t\tTestSlow\n\ngoroutine 41 [semacquire]:\nFAIL\texample.com/acme/pool\t600.012s\n";
    assert_eq!(
        ids(&parse_str(log, Format::Go)),
        ["example.com/acme/pool::TestSlow"]
    );
}

fn outcomes(text: &str, format: Format) -> Vec<(String, Outcome, u32, u32)> {
    results_str(text, format)
        .tests
        .into_iter()
        .map(|t| (t.test.id(), t.outcome, t.passes, t.failures))
        .collect()
}

#[test]
fn results_of_every_format_include_passes_skips_and_flakes() {
    let json = "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"skip\",\"Package\":\"p\",\"Test\":\"TestS\"}\n{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"TestF\"}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestF\"}\n";
    assert_eq!(
        outcomes(json, Format::Auto),
        [
            ("p::TestA".into(), Outcome::Pass, 1, 0),
            ("p::TestS".into(), Outcome::Skip, 0, 0),
            ("p::TestF".into(), Outcome::Flaky, 1, 1),
        ]
    );
    let cargo = "     Running unittests src/lib.rs (target/debug/deps/pool-0123456789abcdef)\ntest a ... ok\ntest b ... ignored\ntest c ... FAILED\n\nfailures:\n\n---- c stdout ----\nboom\n\nfailures:\n    c\n";
    assert_eq!(
        outcomes(cargo, Format::Cargo),
        [
            ("pool::a".into(), Outcome::Pass, 1, 0),
            ("pool::b".into(), Outcome::Skip, 0, 0),
            ("pool::c".into(), Outcome::Fail, 0, 1),
        ]
    );
    let nextest = "    Starting 3 tests across 1 binary\n        PASS [   0.001s] proj::basic ok_test\n        SKIP [   0.000s] proj::basic skipped_test\n  TRY 1 FAIL [   0.003s] proj::basic flaky_test\n  TRY 2 PASS [   0.002s] proj::basic flaky_test\n";
    assert_eq!(
        outcomes(nextest, Format::Nextest),
        [
            ("proj::basic::ok_test".into(), Outcome::Pass, 1, 0),
            ("proj::basic::skipped_test".into(), Outcome::Skip, 0, 0),
            ("proj::basic::flaky_test".into(), Outcome::Flaky, 1, 1),
        ]
    );
    let pytest = "t.py::test_ok PASSED\nt.py::test_skip SKIPPED (no db)\nt.py::test_x XFAIL\nt.py::test_f RERUN\nt.py::test_f PASSED\n=== short test summary info ===\nPASSED t.py::test_ok\n";
    assert_eq!(
        outcomes(pytest, Format::Pytest),
        [
            ("t.py::test_ok".into(), Outcome::Pass, 1, 0),
            ("t.py::test_skip".into(), Outcome::Skip, 0, 0),
            ("t.py::test_x".into(), Outcome::Skip, 0, 0),
            ("t.py::test_f".into(), Outcome::Flaky, 1, 1),
        ]
    );
    let jest = "PASS src/a.test.js\n  a\n    ✓ works (3 ms)\n    ○ skipped later\n    ✎ todo someday\nFAIL src/b.test.js\n  b\n    ✓ fine\n    ✕ breaks (5 ms)\n";
    assert_eq!(
        outcomes(jest, Format::Jest),
        [
            ("src/a.test.js::works".into(), Outcome::Pass, 1, 0),
            ("src/a.test.js::later".into(), Outcome::Skip, 0, 0),
            ("src/a.test.js::someday".into(), Outcome::Skip, 0, 0),
            ("src/b.test.js::fine".into(), Outcome::Pass, 1, 0),
            ("src/b.test.js::breaks".into(), Outcome::Fail, 0, 1),
        ]
    );
    let xml = r#"<testsuite name="s"><testcase classname="k" name="a"/><testcase classname="k" name="s"><skipped/></testcase><testcase classname="k" name="f"><flakyFailure/></testcase><testcase classname="k" name="x"><failure/></testcase></testsuite>"#;
    assert_eq!(
        outcomes(xml, Format::Auto),
        [
            ("k::a".into(), Outcome::Pass, 1, 0),
            ("k::s".into(), Outcome::Skip, 0, 0),
            ("k::f".into(), Outcome::Flaky, 1, 1),
            ("k::x".into(), Outcome::Fail, 0, 1),
        ]
    );
}

#[test]
fn a_test_reported_twenty_times_counts_twenty_runs() {
    let mut xml = String::from("<testsuite name=\"s\">");
    for i in 0..20 {
        if i % 7 == 0 {
            xml.push_str("<testcase classname=\"p\" name=\"TestX\"><failure/></testcase>");
        } else {
            xml.push_str("<testcase classname=\"p\" name=\"TestX\"/>");
        }
    }
    xml.push_str("</testsuite>");
    assert_eq!(
        outcomes(&xml, Format::Junit),
        [("p::TestX".into(), Outcome::Flaky, 17, 3)]
    );
}

#[test]
fn forty_thousand_go_failures_parse_in_linear_time() {
    // The whole log is parsed in the suite: a quadratic step shows as a slow test run.
    let mut log = String::new();
    for i in 0..40_000 {
        log.push_str(&format!(
            "=== RUN   TestCase{i}\n--- FAIL: TestCase{i} (0.00s)\n"
        ));
    }
    log.push_str("FAIL\texample.com/big\t1.0s\n");
    let r = parse_str(&log, Format::Go);
    assert_eq!(r.failed.len(), 40_000);
    assert_eq!(r.failed[39_999].id(), "example.com/big::TestCase39999");
}

#[test]
fn fifty_thousand_failing_junit_testcases_parse_in_linear_time() {
    let mut xml = String::from("<testsuites><testsuite name=\"s\">");
    for i in 0..50_000 {
        xml.push_str(&format!(
            "<testcase classname=\"k\" name=\"t{i}\"><failure/></testcase>"
        ));
    }
    xml.push_str("</testsuite></testsuites>");
    assert_eq!(parse_str(&xml, Format::Junit).failed.len(), 50_000);
}

#[test]
fn a_timeout_list_under_a_ci_timestamp_on_every_line_names_its_tests() {
    for stamp in [
        "2026-11-29T10:00:00.1234567Z ",
        "[2026-11-29 10:00:00.123] ",
        "2026-11-29 10:00:00,123+00:00 ",
        "[10:00:00] ",
    ] {
        let log: String = [
            "=== RUN   TestSlow",
            "=== RUN   TestOther",
            "--- PASS: TestOther (0.01s)",
            "panic: test timed out after 10m0s",
            "\trunning tests:",
            "\t\tTestSlow (10m0s)",
            "",
            "goroutine 41 [semacquire]:",
            "FAIL\texample.com/acme/pool\t600.012s",
        ]
        .iter()
        .map(|l| format!("{stamp}{l}\n"))
        .collect();
        let r = parse_str(&log, Format::Auto);
        let failed: Vec<String> = r.failed.iter().map(|t| t.name.clone()).collect();
        assert_eq!(failed, ["TestSlow"], "{stamp:?}");
    }
}

#[test]
fn an_old_go_timeout_without_a_list_blames_the_test_that_started_last() {
    let log = "=== RUN   TestFirst\n--- PASS: TestFirst (0.01s)\n=== RUN   TestSecond\n=== RUN   TestThird\npanic: test timed out after 10m0s\n\ngoroutine 7 [running]:\ntesting.(*M).startAlarm.func1()\n\ngoroutine 9 [chan receive]:\nexample.com/acme/pool.TestSecond(0xc000)\n\ngoroutine 10 [select]:\nexample.com/acme/pool.TestThird(0xc000)\nFAIL\texample.com/acme/pool\t600.012s\n";
    let r = parse_str(log, Format::Auto);
    let failed: Vec<String> = r.failed.iter().map(|t| t.name.clone()).collect();
    assert_eq!(failed, ["TestThird"]);
}

#[test]
fn sequential_subtests_cut_off_by_a_timeout_are_not_failures() {
    let log = "=== RUN   TestSuite\n=== RUN   TestSuite/first\n--- PASS: TestSuite/first (0.01s)\n=== RUN   TestSuite/second\npanic: test timed out after 10m0s\n\trunning tests:\n\t\tTestSuite (10m0s)\n\ngoroutine 7 [running]:\nFAIL\texample.com/acme/pool\t600.012s\n";
    let r = parse_str(log, Format::Auto);
    let failed: Vec<String> = r.failed.iter().map(|t| t.name.clone()).collect();
    assert_eq!(
        failed,
        ["TestSuite"],
        "the subtest it cut off has no result"
    );
}

/// Each failing test's message, by id.
fn messages(text: &str, format: Format) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = results_str(text, format)
        .tests
        .into_iter()
        .filter_map(|t| Some((t.test.id(), t.message?)))
        .collect();
    out.sort();
    out
}

#[test]
fn junit_failure_messages_keep_the_attribute_and_the_text_with_entities() {
    let xml = r#"<testsuite name="pool"><testcase classname="pool" name="TestA"><failure message="deadline &quot;50ms&quot; exceeded">a_test.go:9: waited &lt;61ms&gt; &amp; gave up&#10;second line</failure></testcase><testcase classname="pool" name="TestB"><flakyFailure message="first try"/></testcase><testcase classname="pool" name="TestC"/><testcase classname="pool" name="TestD"><error><![CDATA[panic: <nil> map]]></error></testcase></testsuite>"#;
    assert_eq!(
        messages(xml, Format::Junit),
        [
            (
                "pool::TestA".to_string(),
                "deadline \"50ms\" exceeded\na_test.go:9: waited <61ms> & gave up\nsecond line"
                    .to_string()
            ),
            ("pool::TestB".to_string(), "first try".to_string()),
            ("pool::TestD".to_string(), "panic: <nil> map".to_string()),
        ]
    );
}

#[test]
fn a_failure_message_is_capped_at_a_character_boundary() {
    let body = "é".repeat(5000);
    let xml = format!(
        r#"<testsuite><testcase classname="p" name="T"><failure message="m">{body}</failure></testcase></testsuite>"#
    );
    let m = messages(&xml, Format::Junit);
    assert_eq!(m.len(), 1);
    assert!(m[0].1.len() <= MESSAGE_CAP && m[0].1.len() > MESSAGE_CAP - 4);
    assert!(m[0].1.starts_with("m\né"));
}

#[test]
fn go_v_messages_from_streamed_and_trailing_log_lines() {
    // Go 1.14+ streams t.Log under `=== RUN`/`=== CONT`; older Go prints it after `--- FAIL`.
    let log = "=== RUN   TestNew\n    new_test.go:7: ok so far\n=== RUN   TestOther\n=== CONT  TestNew\n    new_test.go:9: boom: 3 != 4\n--- FAIL: TestNew (0.00s)\n--- PASS: TestOther (0.00s)\n--- FAIL: TestOld (0.01s)\n\told_test.go:12: timeout after 50ms\nFAIL\nFAIL\texample.com/acme/pool\t0.012s\n";
    assert_eq!(
        messages(log, Format::Go),
        [
            (
                "example.com/acme/pool::TestNew".to_string(),
                "new_test.go:7: ok so far\nnew_test.go:9: boom: 3 != 4".to_string()
            ),
            (
                "example.com/acme/pool::TestOld".to_string(),
                "old_test.go:12: timeout after 50ms".to_string()
            ),
        ]
    );
}

#[test]
fn go_json_messages_from_the_tests_output_events() {
    let log = r#"{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:5: lost wakeup\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:5: fine\n"}
{"Action":"pass","Package":"p","Test":"TestB"}
"#;
    assert_eq!(
        messages(log, Format::GoJson),
        [(
            "p::TestA".to_string(),
            "a_test.go:5: lost wakeup".to_string()
        )]
    );
}

#[test]
fn a_line_longer_than_the_cap_keeps_its_first_bytes_and_the_next_line_is_read_whole() {
    let text = format!("{}\nnext line\n", "x".repeat(3 * MAX_LINE));
    let mut r = std::io::BufReader::with_capacity(8192, text.as_bytes());
    let mut buf = Vec::new();
    let n = read_line_capped(&mut r, &mut buf, MAX_LINE).expect("read");
    assert_eq!(n, 3 * MAX_LINE + 1, "the whole line is consumed");
    assert_eq!(buf.len(), MAX_LINE, "only the cap is kept");
    buf.clear();
    read_line_capped(&mut r, &mut buf, MAX_LINE).expect("read");
    assert_eq!(buf, b"next line\n");
    buf.clear();
    assert_eq!(
        read_line_capped(&mut r, &mut buf, MAX_LINE).expect("eof"),
        0
    );
    // Through the parser: the failure after a long line is still found.
    let log = format!(
        "=== RUN   TestA\n{}\n--- FAIL: TestA (0.00s)\nFAIL\texample.com/acme/pool\t0.1s\n",
        "x".repeat(2 * MAX_LINE)
    );
    assert_eq!(
        ids(&parse_str(&log, Format::Go)),
        ["example.com/acme/pool::TestA"]
    );
}

#[test]
fn a_repeated_attribute_is_read_and_the_first_one_named_wins() {
    let xml = r#"<testsuite name="s"><testcase classname="p" name="TestFirst" name="TestSecond"><failure/></testcase></testsuite>"#;
    let r = parse(std::io::Cursor::new(xml), Format::Junit).expect("read");
    assert_eq!(ids(&r), ["p::TestFirst"]);
}

#[test]
fn an_id_longer_than_the_cap_is_an_error_in_a_structured_report_and_skipped_in_a_log() {
    let long = format!("Test{}", "x".repeat(MAX_ID_BYTES));
    let junit =
        format!(r#"<testsuite name="s"><testcase name="{long}"><failure/></testcase></testsuite>"#);
    let e = parse(std::io::Cursor::new(junit), Format::Junit).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    assert!(e.to_string().contains("1000 bytes"), "{e}");

    let json = format!("{{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"{long}\"}}\n");
    assert!(parse(std::io::Cursor::new(json), Format::GoJson).is_err());

    // A log is prose: the long line is not a test, and the others still are.
    let log = format!("--- FAIL: {long} (0.00s)\n--- FAIL: TestShort (0.00s)\nFAIL\tp\t0.1s\n");
    let r = parse(std::io::Cursor::new(log), Format::Go).expect("read");
    assert_eq!(ids(&r), ["p::TestShort"]);
    // An id of exactly the cap is an id.
    let exact = "T".repeat(MAX_ID_BYTES - "p::".len());
    let log = format!("--- FAIL: {exact} (0.00s)\nFAIL\tp\t0.1s\n");
    let r = parse(std::io::Cursor::new(log), Format::Go).expect("read");
    assert_eq!(ids(&r), [format!("p::{exact}")]);
}

#[test]
fn one_name_in_many_packages_is_one_test_per_package() {
    let mut log = String::new();
    for p in 0..2_000 {
        log.push_str(&format!(
            "--- FAIL: TestSame (0.00s)\nFAIL\texample.com/p{p}\t0.1s\n"
        ));
    }
    // The same name with no package (a log cut short) is the first test of that name.
    log.push_str("--- FAIL: TestSame (0.00s)\n");
    let r = results_str(&log, Format::Go);
    assert_eq!(r.tests.len(), 2_000);
    assert_eq!(r.tests[1999].test.id(), "example.com/p1999::TestSame");
    assert_eq!(r.tests[0].failures, 2);
    assert!(r.tests[1..].iter().all(|t| t.failures == 1));
}

#[test]
fn results_past_the_memory_budget_are_dropped_and_counted() {
    // 1,000-byte names: the 20 MiB budget holds some thousands of them, fewer than given.
    let n = RESULTS_MEMORY / 1_000 + 1_000;
    let mut log = String::new();
    for i in 0..n {
        log.push_str(&format!("--- FAIL: Test{i:0>996} (0.00s)\n"));
    }
    let r = results_str(&log, Format::Go);
    assert!(!r.tests.is_empty());
    assert!(
        r.dropped > 0,
        "{} kept, {} dropped",
        r.tests.len(),
        r.dropped
    );
    assert_eq!(r.tests.len() + r.dropped, n);
}

#[test]
fn durations_come_from_junit_time_and_go_json_elapsed() {
    let durations = |text: &str, f: Format| -> Vec<(String, Option<u64>)> {
        results_str(text, f)
            .tests
            .into_iter()
            .map(|t| (t.test.id(), t.duration_ms))
            .collect()
    };
    let junit = r#"<testsuite name="p"><testcase classname="p" name="A" time="0.145"/><testcase classname="p" name="B" time="1,234.5"><failure message="x">x</failure></testcase><testcase classname="p" name="S" time="0"><skipped/></testcase><testcase classname="p" name="N"/><testcase classname="p" name="Bad" time="-3"/></testsuite>"#;
    assert_eq!(
        durations(junit, Format::Junit),
        [
            ("p::A".to_string(), Some(145)),
            ("p::B".to_string(), Some(1_234_500)),
            ("p::S".to_string(), None),
            ("p::N".to_string(), None),
            ("p::Bad".to_string(), None),
        ]
    );
    let json = "{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\",\"Elapsed\":0.12}\n{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"TestF\",\"Elapsed\":2}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestF\",\"Elapsed\":1.5}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestN\",\"Elapsed\":1e300}\n";
    assert_eq!(
        durations(json, Format::GoJson),
        [
            ("p::TestA".to_string(), Some(120)),
            ("p::TestF".to_string(), Some(3500)),
            ("p::TestN".to_string(), None),
        ]
    );
}
