//! A run's results as JUnit XML: what `repro-gate test` uploads and writes with `--out`, read
//! back by the same JUnit parser as every other report (the package as `classname`, no suite
//! name, so ids round-trip).

use std::fmt::Write as _;

use quick_xml::escape::escape;

use crate::core::failures::{Outcome, TestResult};

/// XML 1.0 forbids most control characters even as references: they become spaces.
fn attr(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect();
    escape(clean.as_str())
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

pub fn write(results: &[TestResult]) -> String {
    let failures = results
        .iter()
        .filter(|r| r.outcome == Outcome::Fail)
        .count();
    let skipped = results
        .iter()
        .filter(|r| r.outcome == Outcome::Skip)
        .count();
    let mut s = String::with_capacity(64 + results.len() * 96);
    let _ = writeln!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        results.len()
    );
    for r in results {
        let class = r
            .test
            .package
            .as_deref()
            .map(|p| format!(" classname=\"{}\"", attr(p)))
            .unwrap_or_default();
        let name = attr(&r.test.name);
        let message = r
            .message
            .as_deref()
            .map(|m| format!(" message=\"{}\"", attr(m)))
            .unwrap_or_default();
        let inner = match r.outcome {
            Outcome::Pass => String::new(),
            Outcome::Fail => format!("<failure{message}/>"),
            Outcome::Skip => "<skipped/>".to_string(),
            Outcome::Flaky => format!("<flakyFailure{message}/>"),
        };
        if inner.is_empty() {
            let _ = writeln!(s, "    <testcase{class} name=\"{name}\"/>");
        } else {
            let _ = writeln!(s, "    <testcase{class} name=\"{name}\">{inner}</testcase>");
        }
    }
    s.push_str("  </testsuite>\n</testsuites>\n");
    s
}
