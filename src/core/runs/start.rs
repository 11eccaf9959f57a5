//! Whether a run's test started: the line each runner prints when a test begins (before its
//! result), so that a run that dies or hangs after it is the test's failure and one that dies
//! before it is no result.

use serde::Serialize;

/// The runners whose output the product reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Go,
    Cargo,
    Nextest,
    Pytest,
    Jest,
    /// A command template: its exit status is the result.
    Command,
}

impl Family {
    pub fn parse(s: &str) -> Option<Family> {
        Some(match s.trim() {
            "go" => Family::Go,
            "cargo" => Family::Cargo,
            "nextest" => Family::Nextest,
            "pytest" => Family::Pytest,
            "jest" => Family::Jest,
            "command" => Family::Command,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Go => "go",
            Family::Cargo => "cargo",
            Family::Nextest => "nextest",
            Family::Pytest => "pytest",
            Family::Jest => "jest",
            Family::Command => "command",
        }
    }
}

/// `Some(true)` when the output shows the test `name` (the exact name the runner was given)
/// starting, `Some(false)` when the runner would have shown it and did not, `None` when the
/// runner shows no start (jest, a command).
pub fn started(family: Family, name: &str, output: &str) -> Option<bool> {
    if name.is_empty() {
        return None;
    }
    match family {
        // libtest with one thread prints `test NAME ... ` when the test starts.
        Family::Cargo => Some(output.contains(&format!("test {name} ..."))),
        Family::Nextest => Some(output.contains(name)),
        // `=== RUN   TestX` (the top-level test: a subtest's parent starts first).
        Family::Go => {
            let top = name.split('/').next().unwrap_or(name);
            Some(output.lines().any(|l| {
                l.trim_start()
                    .strip_prefix("=== RUN")
                    .is_some_and(|r| r.trim() == top || r.trim().starts_with(&format!("{top}/")))
            }))
        }
        // `pytest -v` prints the node id when the test starts (its result follows on the line).
        Family::Pytest => Some(output.lines().any(|l| l.trim_start().starts_with(name))),
        Family::Jest | Family::Command => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runner_shows_a_start_its_own_way() {
        assert_eq!(
            started(
                Family::Cargo,
                "cancellation",
                "running 1 test\ntest cancellation ... "
            ),
            Some(true)
        );
        assert_eq!(
            started(Family::Cargo, "cancellation", "running 0 tests\n"),
            Some(false)
        );
        assert_eq!(
            started(
                Family::Go,
                "TestA/sub",
                "=== RUN   TestA\n=== RUN   TestA/sub\n"
            ),
            Some(true)
        );
        assert_eq!(
            started(Family::Go, "TestA", "=== RUN   TestAB\n"),
            Some(false)
        );
        assert_eq!(
            started(
                Family::Pytest,
                "tests/t.py::test_x",
                "tests/t.py::test_x PASSED\n"
            ),
            Some(true)
        );
        assert_eq!(started(Family::Jest, "x", "anything"), None);
        assert_eq!(
            Family::parse(Family::Nextest.as_str()),
            Some(Family::Nextest)
        );
    }
}
