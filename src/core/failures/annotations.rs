//! Failing tests named by a check run's own words: its output text and its annotations.

use super::{Collector, Format, parse_str};

/// An annotation as plain data.
#[derive(Clone, Copy, Debug)]
pub struct AnnotationText<'a> {
    pub path: &'a str,
    pub title: Option<&'a str>,
    pub message: &'a str,
    pub raw_details: Option<&'a str>,
    /// `annotation_level: failure`.
    pub failure: bool,
}

/// Adds the failing and flaky tests a piece of runner output shows.
pub fn add_text(c: &mut Collector, text: &str) {
    let r = parse_str(text, Format::Auto);
    for t in r.failed {
        c.fail(t.package.as_deref(), &t.name);
    }
    for t in r.flaky {
        c.flaky(t.package.as_deref(), &t.name);
    }
}

/// Adds the failing and flaky tests of a log read from `reader` (streamed: memory follows the
/// failures, not the log).
pub fn add_log<R: std::io::BufRead>(c: &mut Collector, reader: R) {
    if let Ok(r) = super::parse(reader, Format::Auto) {
        for t in r.failed {
            c.fail(t.package.as_deref(), &t.name);
        }
        for t in r.flaky {
            c.flaky(t.package.as_deref(), &t.name);
        }
    }
}

/// Adds the tests an annotation names: from its text, and from its title where test-reporter
/// actions put the test's name (dorny/test-reporter, mikepenz/action-junit-report and
/// publish-unit-test-result: `TestX`, `pkg.Class ‣ test`, `test (Class) failed`).
pub fn add_annotation(c: &mut Collector, a: &AnnotationText<'_>) {
    let text = format!(
        "{}\n{}\n{}",
        a.title.unwrap_or(""),
        a.message,
        a.raw_details.unwrap_or("")
    );
    add_text(c, &text);
    if let Some(title) = a.title
        && a.failure
    {
        let name = title
            .trim()
            .trim_end_matches(" failed")
            .rsplit(['‣', '›'])
            .next()
            .unwrap_or(title)
            .trim();
        if !name.is_empty() && !name.contains(' ') {
            let pkg = (!a.path.is_empty() && a.path != ".github").then_some(a.path);
            c.fail(pkg, name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reporter_titles_name_the_test_and_notices_do_not() {
        let mut c = Collector::default();
        add_annotation(
            &mut c,
            &AnnotationText {
                path: "pool/pool_test.go",
                title: Some("pool.PoolTest ‣ TestCheckout"),
                message: "expected 1, got 2",
                raw_details: None,
                failure: true,
            },
        );
        add_annotation(
            &mut c,
            &AnnotationText {
                path: ".github",
                title: Some("TestIgnored"),
                message: "a notice",
                raw_details: None,
                failure: false,
            },
        );
        add_annotation(
            &mut c,
            &AnnotationText {
                path: ".github",
                title: Some("Process completed with exit code 1"),
                message: "",
                raw_details: None,
                failure: true,
            },
        );
        let r = c.finish();
        let ids: Vec<String> = r.failed.iter().map(|t| t.id()).collect();
        assert_eq!(ids, ["pool/pool_test.go::TestCheckout"]);
    }

    #[test]
    fn runner_output_in_an_annotation_is_parsed() {
        let mut c = Collector::default();
        add_annotation(
            &mut c,
            &AnnotationText {
                path: ".github",
                title: None,
                message: "--- FAIL: TestA (0.00s)\nFAIL\texample.com/p\t0.1s\n",
                raw_details: None,
                failure: true,
            },
        );
        assert_eq!(c.finish().failed[0].id(), "example.com/p::TestA");
    }
}
