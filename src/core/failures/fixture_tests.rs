//! Every real runner output under `../shared/fixtures/test-output/` parses to the failing tests
//! it contains. Each expectation was checked against the file by reading it. Skipped, with a
//! message, when the folder is absent.

use super::*;

/// (file, failed ids, flaky ids)
const EXPECTED: &[(&str, &[&str], &[&str])] = &[
    ("cargo-test/amethyst-tools-21-old-libtest-format-2016.txt", &["amethyst::cli"], &[]),
    ("cargo-test/enarx-952-integration-tests-20-failed-TAIL.txt", &["socket", "unix_echo", "write_stderr", "write_stdout", "bind", "clock_gettime", "close", "echo", "exit_zero", "get_att", "getegid", "geteuid", "getgid", "getuid", "listen", "memory_stress_test", "memspike", "read", "read_udp", "readv"], &[]),
    ("cargo-test/libtest-panic-abort-2-failures-normalized.txt", &["it_exits", "it_fails"], &[]),
    ("cargo-test/libtest-thread-capture-1-failure-normalized.txt", &["thready_fail"], &[]),
    ("cargo-test/prmt-18-nix-build-log-prefixed-1-failed-TAIL.txt", &["test_git_module"], &[]),
    ("cargo-test/sailfish-105-test-lines-4-failed.txt", &["continue_break", "test_rm_whitespace", "test_rust_macro", "test_techempower"], &[]),
    ("go-race/decred-dcrwallet-711-race-in-testing-pkg-travis-go1.8.txt", &[], &[]),
    ("go-race/go-junit-report-race-go-test-v.txt", &["package/race::TestRace"], &[]),
    ("go-race/go-junit-report-race-multipkg.gojson", &["package/name/race::TestRace"], &[]),
    ("go-race/syncthing-2394-race-then-test-fail-windows.txt", &["TestDeregisterOnFailInPull"], &[]),
    ("go-race/tparse-race-in-testmain-no-test.gojson", &[], &[]),
    ("go-race/tparse-race-nested-subtests.gojson", &["github.com/mfridman/debug-go/testing::TestWhatever/foo/baz/inner-baz", "github.com/mfridman/debug-go/testing::TestWhatever/foo/bar/inner-bar"], &[]),
    ("go-race/tparse-race-real-package-many-tests.gojson", &["github.com/mfridman/tparse/parse::TestSingleFailStack/input01", "github.com/mfridman/tparse/parse::TestElapsed", "github.com/mfridman/tparse/parse::TestPrescan", "github.com/mfridman/tparse/parse::TestNewEvent", "github.com/mfridman/tparse/parse::TestPackageCover", "github.com/mfridman/tparse/parse::TestPackageCache"], &[]),
    ("go-race/tparse-race-single-test.gojson", &["command-line-arguments::TestRace1"], &[]),
    ("go-race/tparse-race-with-testify-assertion-go1.18.gojson", &["github.com/mfridman/debug-go/testing::TestRace"], &[]),
    ("go-race/weaveworks-weave-1489-race-reported-but-package-ok-go1.5.txt", &[], &[]),
    ("go-test-json/dorny-golang-fail-panic.json", &["_/home/james_t/git/test-reporter/reports/go::TestFailing", "_/home/james_t/git/test-reporter/reports/go::TestPanicInsideFunction", "_/home/james_t/git/test-reporter/reports/go::TestPanicInsideTest", "_/home/james_t/git/test-reporter/reports/go::TestCases/2_+_3_=_4", "_/home/james_t/git/test-reporter/reports/go::TestCases/1_/_2_=_1"], &[]),
    ("go-test-json/go-junit-report-fail.json", &["package/name/fail::TestOne"], &[]),
    ("go-test-json/go-junit-report-skip.json", &[], &[]),
    ("go-test-json/go-junit-report-subtests.json", &["package/name/subtest::TestMultiple/Single"], &[]),
    ("go-test-json/gotestsum-multipkg-fail-skip-nested.json", &["gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/a", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/d", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/c", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/b", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheFirst", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheThird", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheSecond", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailed", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailedWithStderr", "gotest.tools/gotestsum/testjson/internal/withfails::TestNestedWithFailure/c"], &[]),
    ("go-test-json/gotestsum-panic-missing-fail-event.json", &["gotest.tools/v3/poll::TestWaitOn_WithCompare"], &[]),
    ("go-test-json/gotestsum-parallel-nested-failures.json", &["gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/a", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/d", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/c", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/b", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheFirst", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheThird", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheSecond"], &[]),
    ("go-test-json/tparse-deeply-nested-subtests.json", &["command-line-arguments::TestWhatever/foo/bar/inner-bar", "command-line-arguments::TestWhatever/foo/baz/inner-baz"], &[]),
    ("go-test-json/tparse-goose-e2e-6-failures-parallel.json", &["github.com/pressly/goose/v3/tests/e2e::TestAllowMissingUpByOne", "github.com/pressly/goose/v3/tests/e2e::TestNotAllowMissing", "github.com/pressly/goose/v3/tests/e2e::TestAllowMissingUpWithReset", "github.com/pressly/goose/v3/tests/e2e::TestMigrateAllowMissingDown", "github.com/pressly/goose/v3/tests/e2e::TestAllowMissingUpWithRedo", "github.com/pressly/goose/v3/tests/e2e::TestNowAllowMissingUpByOne"], &[]),
    ("go-test-json/tparse-multipkg-nested-failures-pkg-skip.json", &["github.com/mfridman/tparse/parse::TestRaceReplay/input01", "github.com/mfridman/tparse/parse::TestRaceReplay/input02", "github.com/mfridman/tparse/parse::TestRaceReplay/input03", "github.com/mfridman/tparse/parse::TestPrescan/input03.txt", "github.com/mfridman/tparse/parse::TestPrescan/input02.txt"], &[]),
    ("go-test-json/tparse-panic-in-test.json", &["github.com/pressly/goose/v3/tests/e2e::TestNowAllowMissingUpByOne", "github.com/pressly/goose/v3/tests/e2e::TestNotAllowMissing", "github.com/pressly/goose/v3/tests/e2e::TestAllowMissingUpByOne", "github.com/pressly/goose/v3/tests/e2e::TestMigrateFull"], &[]),
    ("go-test-json/tparse-travis-log-noise-then-json.txt", &[], &[]),
    ("go-test-v/golang-11443-multi-package-fail-spaces-not-tabs.txt", &["sync::TestWaitGroupMisuse2"], &[]),
    ("go-test-v/golang-test2json-panic-recovered.txt", &["command-line-arguments::TestPanic"], &[]),
    ("go-test-v/gotestsum-standard-quiet-package-lines.txt", &[], &[]),
    ("go-test-v/gotestsum-standard-verbose-multipkg.txt", &["gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/a", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/d", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/c", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/b", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailed", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailedWithStderr", "gotest.tools/gotestsum/testjson/internal/withfails::TestNestedWithFailure/c"], &["gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheFirst", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheThird", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheSecond"]),
    ("go-test-v/kubernetes-25825-flake-timeout-assertion.txt", &["k8s.io/kubernetes/pkg/util/goroutinemap::Test_NewGoRoutineMap_Positive_WaitEmpty"], &[]),
    ("go-test-v/multi-package-pass-fail-skip.txt", &["package/fail::TestOne"], &[]),
    ("go-test-v/nested-subtests-failures.txt", &["package/subtests::TestSubtests/Subtest#01", "package/subtests::TestFailingSubtestWithNestedSubtest/Subtest"], &[]),
    ("go-test-v/parallel-tests.txt", &["package/parallel::TestP2", "package/parallel::TestP3", "package/parallel::TestP1"], &[]),
    ("go-test-v/relab-hotstuff-236-panic-negative-waitgroup-subtest.txt", &["github.com/relab/hotstuff/server::TestTimeout/NoTLS"], &[]),
    ("go-test-v/stdout-interleaved.txt", &["package/stdout::TestFailWithStdoutAndTestOutput", "package/stdout::TestFailWithStdoutAndNoTestOutput", "package/stdout::TestFailWithTestOutput", "package/stdout::TestFailWithNoTestOutput", "package/stdout::TestSubtests/TestFailWithStdoutAndTestOutput", "package/stdout::TestSubtests/TestFailWithStdoutAndNoTestOutput", "package/stdout::TestSubtests/TestFailWithTestOutput", "package/stdout::TestSubtests/TestFailWithNoTestOutput"], &[]),
    ("go-timeout/cilium-25666-timeout-10m-package-fail-line.txt", &["github.com/cilium/cilium/pkg/fswatcher::Test"], &[]),
    ("go-timeout/golang-test2json-timeout.test.txt", &["p::Test"], &[]),
    ("go-timeout/gotestsum-test-timed-out-1s.gojson", &[], &[]),
    ("go-timeout/gotestsum-test-timed-out-2s.gojson", &["gotest.tools/gotestsum/example::TestSleepsTooLong"], &[]),
    ("go-timeout/pingcap-tiproxy-1192-timeout-prow-log-no-blank-lines.EXCERPT.txt", &["TestForwardUntilError"], &[]),
    ("go-timeout/scylladb-gocql-341-timeout-indented-running-tests-go1.23.EXCERPT.txt", &["TestSimpleDebouncer/Case_2"], &[]),
    ("go-timeout/spacemesh-5681-gotestsum-fail-timeout-running-tests.txt", &["TestSyncer/terminate_empty_epoch"], &[]),
    ("go-timeout/tikv-client-go-1884-timeout-subtest-goleak-go1.25.EXCERPT.txt", &["TestBackgroundRunner/ScheduleWithTrigger"], &[]),
    ("jest/assertion-count-4-failures.txt", &["__tests__/assertionCount.test.js::throws", "__tests__/assertionCount.test.js::throws on redeclare of assertion count", "__tests__/assertionCount.test.js::throws on assertion", "__tests__/assertionCount.test.js::throws when there are not assertions"], &[]),
    ("jest/async-failures.txt", &["__tests__/asyncFailures.test.js::resolve, but fail", "__tests__/asyncFailures.test.js::reject, but fail", "__tests__/asyncFailures.test.js::expect reject", "__tests__/asyncFailures.test.js::expect resolve", "__tests__/asyncFailures.test.js::timeout"], &[]),
    ("jest/each-table-failures.txt", &["__tests__/failure.test.js::array table fails on one row: expected true == false", "__tests__/failure.test.js::array table fails on all rows expected 1 == 2", "__tests__/failure.test.js::array table fails on all rows expected 3 == 4", "__tests__/failure.test.js::template table fails on one row expected: true == false", "__tests__/failure.test.js::template table fails on all rows expected: 1 == 2", "__tests__/failure.test.js::template table fails on all rows expected: 3 == 4", "__tests__/failure.test.js::The word red contains the letter 'z'", "__tests__/failure.test.js::The word green contains the letter 'z'", "__tests__/failure.test.js::The word bean contains the letter 'z'", "__tests__/failure.test.js::fails"], &[]),
    ("jest/jest-json-failing-compilation.json", &["/path/to/spec/test.spec.ts"], &[]),
    ("jest/jest-json-failing-tests-with-failure-details.json", &["/path/to/failing.test.js::Sample Failing Test Inner Inner Inner Should fail"], &[]),
    ("jest/jest-json-failing-tests.json", &["/path/to/failing.test.js::Sample Failing Test Inner Inner Inner Should fail"], &[]),
    ("jest/jest-json-retried-tests.json", &[], &["/path/to/test/__tests__/foo.test.js::foo baz should bar"]),
    ("jest/suite-failed-to-run.txt", &["__tests__/throwNumber.test.js"], &[]),
    ("jest/summary-stacktrace-1-failed.txt", &[], &[]),
    ("jest/summary-timeout-1-failed.txt", &[], &[]),
    ("jest/test-failing-all-statuses-skipped-todo.txt", &["__tests__/statuses.test.js::fails", "__tests__/statuses.test.js::.add(1, 1)", "__tests__/statuses.test.js::.add(1, 2)", "__tests__/statuses.test.js::.add(2, 1)", "__tests__/statuses.test.js::failing passes = fails"], &[]),
    ("junit-xml/go-junit-report-pass-fail-skip.xml", &["package/fail::TestOne"], &[]),
    ("junit-xml/go-junit-report-race.xml", &["package/race::TestRace"], &[]),
    ("junit-xml/go-junit-report-subtests.xml", &["package/subtests::TestSubtests/Subtest#01", "package/subtests::TestFailingSubtestWithNestedSubtest/Subtest"], &[]),
    ("junit-xml/gotestsum-junitxml-multipkg.xml", &["gotest.tools/gotestsum/testjson/internal/badmain::TestMain", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/a", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/d", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/c", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestNestedParallelFailures/b", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheFirst", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheThird", "gotest.tools/gotestsum/testjson/internal/parallelfails::TestParallelTheSecond", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailed", "gotest.tools/gotestsum/testjson/internal/withfails::TestFailedWithStderr", "gotest.tools/gotestsum/testjson/internal/withfails::TestNestedWithFailure/c"], &[]),
    ("junit-xml/jest-junit-multiple-failures.xml", &["Test 1 \u203a Test 1.1::Failing test", "Test 1 \u203a Test 1.1::Exception in target unit", "Test 2::Exception in test", "__tests__\\second.test.js::Timeout test"], &[]),
    ("junit-xml/nested-testsuites.xml", &["TestA::A", "TestB::B", "packet::A"], &[]),
    ("junit-xml/nextest-basic-one-failure.xml", &["oxidized_navigation::parry3d::test_failure"], &[]),
    ("junit-xml/nextest-fixture-project-retries.xml", &["fixture-project::basic::test_failure_assert"], &["fixture-project::basic::test_flaky_mod_4"]),
    ("junit-xml/nextest-stress-test.xml", &[], &[]),
    ("junit-xml/pytest-97-tests-17-skipped.xml", &[], &[]),
    ("junit-xml/pytest-fail-skip-horovod.xml", &["test.test_spark.SparkTests::test_rsh_events"], &[]),
    ("junit-xml/pytest-failures-skips-xfail.xml", &["tests.test_lib::test_always_fail", "tests.test_lib::test_error"], &[]),
    ("junit-xml/pytest-two-failures.xml", &["python.test_sample::test_which_fails", "python.test_sample::test_with_error"], &[]),
    ("junit-xml/surefire-email-errors-failures.xml", &["action.surefire.report.email.EmailAddressTest::shouldNotContainInternationalizedHostNames", "action.surefire.report.email.EmailAddressTest::shouldBeStricterThanRfc2821", "action.surefire.report.email.EmailAddressTest::shouldBeStricterThanRfc2822", "action.surefire.report.email.EmailAddressTest::shouldNotBeBlank", "action.surefire.report.email.EmailAddressTest::shouldNotContainLocalHosts", "action.surefire.report.email.EmailAddressTest::shouldNotMissComponents", "action.surefire.report.email.EmailAddressTest::shouldNotAllowDotsInWeirdPlaces"], &[]),
    ("junit-xml/surefire-flakyFailure.xml", &[], &["io.sodadata.dependson.soda.integrations.msteams.MicrosoftTeamsCrudTest::createWebhook"]),
    ("junit-xml/surefire-stringutils.xml", &["action.surefire.report.calc.StringUtilsTest::require_fail", "action.surefire.report.calc.StringUtilsTest::require"], &[]),
    ("libtest-json/cargo-repo-testsuite-2-failures-ignored-noise.jsonl", &["aaa_trigger_cross_compile_disabled_check", "build_auth::http_auth_offered"], &[]),
    ("libtest-json/doctests-failure-exec-time-report.jsonl", &["src/lib.rs - foo (line 7)"], &[]),
    ("libtest-json/interleaved-tracing-json-noise.jsonl", &[], &[]),
    ("libtest-json/rust-run-make-libtest-json-output-default-normalized.jsonl", &["b"], &[]),
    ("libtest-json/single-suite-one-failure-stderr.jsonl", &["tests::fails"], &[]),
    ("libtest-json/single-suite-one-failure-stdout.jsonl", &["tests::fails"], &[]),
    ("libtest-json/timeout-event.jsonl", &[], &[]),
    ("nextest/nextest-site-flaky-output.ansi", &[], &["fixture-project::basic::test_flaky_mod_2"]),
    ("nextest/nextest-site-leak-fail.ansi", &["fixture-project::basic::test_subprocess_doesnt_exit_leak_fail"], &[]),
    ("nextest/nextest-site-rerun-latest.ansi", &[], &[]),
    ("nextest/nextest-site-run-output.ansi", &[], &[]),
    ("nextest/nextest-site-slow-output.ansi", &[], &[]),
    ("nextest/nextest-site-timeout-output.ansi", &["fixture-project::basic::tests::test_slow_timeout"], &[]),
    ("nextest/nextest-status-line-catalog.snap.txt", &[], &["my-binary-id::test_name"]),
    ("nextest/rustaceanvim-460-nextest-0.9.72-two-failures.EXCERPT.txt", &["server::organization::test_authorization", "server::organization::test_create_domain_already_taken"], &[]),
    ("pytest/fixtures-parametrized-4-failures-quiet.txt", &["test_module.py::test_ehlo[smtp.gmail.com]", "test_module.py::test_noop[smtp.gmail.com]", "test_module.py::test_ehlo[mail.python.org]", "test_module.py::test_noop[mail.python.org]"], &[]),
    ("pytest/hypothesis-3041-FAILED-tests-paths-truncated-reasons.EXCERPT.txt", &["tests/cover/test_phases.py::test_this_would_fail_if_you_ran_it", "tests/cover/test_testdecorators.py::test_can_find_large_sum_frozenset", "tests/cover/test_lookup.py::test_resolve_typing_module[typing.DefaultDict]", "tests/cover/test_testdecorators.py::test_can_mix_sampling_with_generating", "tests/cover/test_testdecorators.py::test_empty_text", "tests/cover/test_testdecorators.py::test_is_ascii", "tests/cover/test_lookup.py::test_resolves_forward_references_outside_annotations"], &[]),
    ("pytest/incremental-3-failed-1-error.txt", &["a/test_db.py::test_a1", "a/test_db2.py::test_a2", "test_step.py::TestUserHandling::test_modification", "b/test_error.py::test_root"], &[]),
    ("pytest/output-ra-failed-error-skipped-xfail-xpass.txt", &["test_example.py::test_error", "test_example.py::test_fail"], &[]),
    ("pytest/output-verbose-3-failures.txt", &["test_verbosity_example.py::test_words_fail", "test_verbosity_example.py::test_numbers_fail", "test_verbosity_example.py::test_long_text_fail"], &[]),
    ("pytest/pytest-check-150-80col-short-summary.txt", &["test_example_short_test_summary_info.py::test_message"], &[]),
    ("pytest/reportingdemo-44-failures.txt", &["failure_demo.py::test_generative[3-6]", "failure_demo.py::TestFailing::test_simple", "failure_demo.py::TestFailing::test_simple_multiline", "failure_demo.py::TestFailing::test_not", "failure_demo.py::TestSpecialisedExplanations::test_eq_text", "failure_demo.py::TestSpecialisedExplanations::test_eq_similar_text", "failure_demo.py::TestSpecialisedExplanations::test_eq_multiline_text", "failure_demo.py::TestSpecialisedExplanations::test_eq_long_text", "failure_demo.py::TestSpecialisedExplanations::test_eq_long_text_multiline", "failure_demo.py::TestSpecialisedExplanations::test_eq_list", "failure_demo.py::TestSpecialisedExplanations::test_eq_list_long", "failure_demo.py::TestSpecialisedExplanations::test_eq_dict", "failure_demo.py::TestSpecialisedExplanations::test_eq_set", "failure_demo.py::TestSpecialisedExplanations::test_eq_longer_list", "failure_demo.py::TestSpecialisedExplanations::test_in_list", "failure_demo.py::TestSpecialisedExplanations::test_not_in_text_multiline", "failure_demo.py::TestSpecialisedExplanations::test_not_in_text_single", "failure_demo.py::TestSpecialisedExplanations::test_not_in_text_single_long", "failure_demo.py::TestSpecialisedExplanations::test_not_in_text_single_long_term", "failure_demo.py::TestSpecialisedExplanations::test_eq_dataclass", "failure_demo.py::TestSpecialisedExplanations::test_eq_attrs", "failure_demo.py::test_attribute", "failure_demo.py::test_attribute_instance", "failure_demo.py::test_attribute_failure", "failure_demo.py::test_attribute_multiple", "failure_demo.py::TestRaises::test_raises", "failure_demo.py::TestRaises::test_raises_doesnt", "failure_demo.py::TestRaises::test_raise", "failure_demo.py::TestRaises::test_tupleerror", "failure_demo.py::TestRaises::test_reinterpret_fails_with_print_for_the_fun_of_it", "failure_demo.py::TestRaises::test_some_error", "failure_demo.py::test_dynamic_compile_shows_nicely", "failure_demo.py::TestMoreErrors::test_complex_error", "failure_demo.py::TestMoreErrors::test_z1_unpack_error", "failure_demo.py::TestMoreErrors::test_z2_type_error", "failure_demo.py::TestMoreErrors::test_startswith", "failure_demo.py::TestMoreErrors::test_startswith_nested", "failure_demo.py::TestMoreErrors::test_global_func", "failure_demo.py::TestMoreErrors::test_instance", "failure_demo.py::TestMoreErrors::test_compare", "failure_demo.py::TestMoreErrors::test_try_finally", "failure_demo.py::TestCustomAssertMsg::test_single_line", "failure_demo.py::TestCustomAssertMsg::test_multiline", "failure_demo.py::TestCustomAssertMsg::test_custom_repr"], &[]),
    ("pytest/unittest-class-2-failures.txt", &["test_unittest_db.py::MyTest::test_method1", "test_unittest_db.py::MyTest::test_method2"], &[]),
];

#[test]
fn every_real_fixture_parses_to_its_failing_tests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/test-output");
    if !root.is_dir() {
        eprintln!("skipped: ../shared/fixtures/test-output is absent");
        return;
    }
    for (file, failed, flaky) in EXPECTED {
        let f = std::fs::File::open(root.join(file)).expect("fixture exists");
        let report = parse(std::io::BufReader::new(f), Format::Auto).expect("fixture parses");
        let got: Vec<String> = report.failed.iter().map(FailedTest::id).collect();
        let got_flaky: Vec<String> = report.flaky.iter().map(FailedTest::id).collect();
        assert_eq!(got, *failed, "{file}: failed");
        assert_eq!(got_flaky, *flaky, "{file}: flaky");
    }
}
