//! The results of one run from several sources (the command's output, its report files),
//! merged so that one test is one entry: pytest names a test `tests/test_x.py::TestC::test_a`
//! in its output and `tests.test_x.TestC` / `test_a` in its own JUnit file, and both are the
//! same run of the same test.

use std::collections::HashMap;

use crate::core::failures::{Outcome, Results, TestResult};

/// The key two sources' names of one test share: `.py` before `::` dropped, and `/`, `\` and
/// `::` read as `.` (a Go package path keeps its `/` in both, so its key is its own).
pub fn same_test(r: &TestResult) -> String {
    let id = r.test.id();
    let mut key = String::with_capacity(id.len());
    let mut rest = id.as_str();
    while let Some(i) = rest.find("::") {
        let part = &rest[..i];
        key.push_str(part.strip_suffix(".py").unwrap_or(part));
        key.push('.');
        rest = &rest[i + 2..];
    }
    key.push_str(rest);
    key.replace(['/', '\\'], ".")
}

/// Results merged by test: the first source's name is kept; a test another source reports
/// again is the same run of it (its counts are the larger of the two, its outcomes combine as
/// in one run, the longer message is kept).
#[derive(Default)]
pub struct Merged {
    pub tests: Vec<TestResult>,
    pub dropped: usize,
    index: HashMap<String, usize>,
}

impl Merged {
    pub fn add(&mut self, results: Results) {
        self.dropped += results.dropped;
        for r in results.tests {
            let key = same_test(&r);
            match self.index.get(&key) {
                Some(&i) => {
                    let t = &mut self.tests[i];
                    t.outcome = Outcome::combine(t.outcome, r.outcome);
                    t.passes = t.passes.max(r.passes);
                    t.failures = t.failures.max(r.failures);
                    // A terminal's summary cuts a message a report keeps whole.
                    if r.message.as_ref().map_or(0, String::len)
                        > t.message.as_ref().map_or(0, String::len)
                    {
                        t.message = r.message;
                    }
                }
                None if self.tests.len() < crate::core::failures::MAX_TESTS => {
                    self.index.insert(key, self.tests.len());
                    self.tests.push(r);
                }
                None => self.dropped += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::failures::{Format, results_str};

    #[test]
    fn a_pytest_test_in_the_output_and_its_junit_file_is_one_test() {
        let out = "FAILED tests/test_x.py::test_q - AssertionError: dead...\nPASSED tests/test_x.py::test_ok\nPASSED tests/test_x.py::TestC::test_m\n1 failed, 2 passed in 0.01s\n";
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3"><testcase classname="tests.test_x" name="test_q"><failure message="AssertionError: deadline exceeded">tests/test_x.py:3: AssertionError</failure></testcase><testcase classname="tests.test_x" name="test_ok" /><testcase classname="tests.test_x.TestC" name="test_m" /></testsuite></testsuites>"#;
        let mut m = Merged::default();
        m.add(results_str(out, Format::Auto));
        m.add(results_str(xml, Format::Junit));
        let mut ids: Vec<(String, Outcome, u32)> = m
            .tests
            .iter()
            .map(|t| (t.test.id(), t.outcome, t.failures))
            .collect();
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            ids,
            vec![
                ("tests/test_x.py::TestC::test_m".into(), Outcome::Pass, 0),
                ("tests/test_x.py::test_ok".into(), Outcome::Pass, 0),
                ("tests/test_x.py::test_q".into(), Outcome::Fail, 1),
            ]
        );
        let q = m.tests.iter().find(|t| t.test.name == "test_q");
        assert!(
            q.and_then(|t| t.message.as_deref())
                .is_some_and(|msg| msg.contains("deadline exceeded")),
            "{q:?}"
        );
    }

    #[test]
    fn go_packages_and_different_tests_stay_apart() {
        let mut m = Merged::default();
        m.add(results_str(
            "--- FAIL: TestA (0.1s)\nFAIL\nFAIL\texample.com/a\t0.1s\n--- FAIL: TestA (0.1s)\nFAIL\nFAIL\texample.com/b\t0.1s\n",
            Format::Auto,
        ));
        m.add(results_str(
            r#"<testsuites><testsuite><testcase classname="example.com/a" name="TestA"><failure/></testcase></testsuite></testsuites>"#,
            Format::Junit,
        ));
        assert_eq!(m.tests.len(), 2, "{:?}", m.tests);
        assert!(m.tests.iter().all(|t| t.failures == 1));
    }
}
