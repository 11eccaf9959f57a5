//! Quarantine tickets as issues (docs/rerun.md, `rerun.tickets: issue`): one issue per test, found again by
//! its marker, with the ticket text of the latest `not this change` session.

use super::super::markdown::{code, fenced};

/// The label every quarantine issue carries.
pub const LABEL: &str = "flaky-test";
pub const LABEL_COLOR: &str = "fbca04";
pub const LABEL_DESCRIPTION: &str =
    "Flaky without the change that saw it fail: quarantine, fix the nondeterminism";

/// The issue's title.
pub fn title(test: &str) -> String {
    format!("Quarantine: {}", test.replace(['\n', '\r'], " "))
}

/// The marker that finds a test's issue again (`--` cannot end the HTML comment early).
pub fn marker(test: &str) -> String {
    format!(
        "<!-- repro-gate:quarantine:{} -->",
        test.replace(['\n', '\r'], " ").replace("--", "- -")
    )
}

/// Jobs filing one test's ticket run one at a time, on every replica.
pub fn serial_key(repo: &str, test: &str) -> String {
    format!("quarantine:{repo}:{test}")
}

/// The issue's body: the marker, what it is, and the ticket text of the latest session.
pub fn body(test: &str, ticket: &str, session_link: Option<&str>, pr: u64) -> String {
    let mut s = format!(
        "{}\nrepro-gate reran {} alone on a pull request's head and on its merge base, and it failed on both: it is flaky without the change that saw it fail (`not this change`). Quarantine it in `.ci/test-reliability.yaml`, and fix its nondeterminism; do not change production code to make it pass.\n\n",
        marker(test),
        code(test)
    );
    s.push_str(&format!(
        "Latest session: PR #{pr}{}.\n\n",
        session_link
            .map(|l| format!(" ([the rerun comment]({l}))"))
            .unwrap_or_default()
    ));
    s.push_str(&fenced("text", ticket));
    s.push('\n');
    s
}

/// Whether an issue's body is a test's ticket.
pub fn is_ticket_of(body: &str, test: &str) -> bool {
    body.contains(&marker(test))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_finds_the_issue_and_cannot_close_its_comment_early() {
        let b = body(
            "pkg::TestX",
            "Quarantine pkg::TestX\nBranch: 3/20",
            Some("https://x/1#c"),
            4,
        );
        assert!(b.starts_with("<!-- repro-gate:quarantine:pkg::TestX -->"));
        assert!(is_ticket_of(&b, "pkg::TestX"));
        assert!(!is_ticket_of(&b, "pkg::TestY"));
        assert!(
            b.contains("```text\nQuarantine pkg::TestX\nBranch: 3/20\n```"),
            "{b}"
        );
        assert_eq!(marker("a-->b"), "<!-- repro-gate:quarantine:a- ->b -->");
        assert_eq!(title("pkg::TestX"), "Quarantine: pkg::TestX");
    }
}
