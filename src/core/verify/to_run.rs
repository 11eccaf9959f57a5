//! What the find round would run for a diff whose description holds no evidence
//! (docs/verification.md, "Found in the PR's tests"), told by `check-body --diff`: the words do
//! not decide a forcing test that comes with the PR, its runs do. Pure: the same functions the
//! App's find round dispatches with.

use crate::core::classify::diff::FileChange;
use crate::core::classify::lang::is_test_file;

use super::find;

/// What the find round runs for a PR whose words hold no evidence: the PR's test files of the
/// runners the workflow reads, on the merge base and the head, the changed test modules of its Rust sources, and the tests the
/// diff declares among them (the first candidates). The runs decide, not this text.
#[derive(Debug, serde::Serialize)]
pub struct RunsDecide {
    pub test_files: Vec<String>,
    pub sources: Vec<String>,
    pub tests: Vec<String>,
    pub message: String,
}

/// Whether the workflow's find mode runs the test file `path`: Go packages, pytest and jest
/// files anywhere, and cargo's test targets of the top-level crate (`tests/x.rs`,
/// `tests/x/main.rs`; a workspace member's own `tests/` folder is not run yet).
fn workflow_runs(path: &str) -> bool {
    if let Some(rest) = path.strip_suffix(".rs") {
        return rest.strip_prefix("tests/").is_some_and(|t| {
            let t = t.strip_suffix("/main").unwrap_or(t);
            !t.is_empty() && !t.contains('/')
        });
    }
    [
        ".go", ".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts",
    ]
    .iter()
    .any(|e| path.ends_with(e))
}

pub fn runs_decide(files: &[FileChange]) -> Option<RunsDecide> {
    // The files of the runners the workflow's find mode runs (Go, cargo, pytest, jest).
    let mut test_files = super::test_files_for_base(files).ok()?;
    test_files.retain(|p| workflow_runs(p));
    let declared = find::declared_in_diff(files);
    let sources = find::sources_to_run(&declared);
    if test_files.is_empty() && sources.is_empty() {
        return None;
    }
    let tests: Vec<String> = declared
        .into_iter()
        .map(|(id, _)| id)
        .filter(|id| match id.split_once("::") {
            Some((path, _)) if path.ends_with(".rs") && !is_test_file(path) => {
                sources.iter().any(|s| s == path)
            }
            _ => true,
        })
        .collect();
    let message = format!(
        "with the rerun workflow installed, the App runs the PR's tests ({} test files, {} sources) on the merge base and the head, and the runs decide{}",
        test_files.len(),
        sources.len(),
        if tests.is_empty() {
            String::new()
        } else {
            format!("; first candidates: {}", tests.join(", "))
        }
    );
    Some(RunsDecide {
        test_files,
        sources,
        tests,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::classify::diff::parse_unified;

    fn diff(path: &str, body: &str) -> Vec<FileChange> {
        let lines: Vec<String> = body.lines().map(|l| format!("+{l}")).collect();
        let text = format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n{}\n",
            lines.len(),
            lines.join("\n")
        );
        parse_unified(&text).expect("a diff")
    }

    #[test]
    fn a_go_test_file_is_run_and_its_declared_tests_come_first() {
        let r = runs_decide(&diff(
            "pool/wake_test.go",
            "package pool\n\nfunc TestWake(t *testing.T) {\n}\n",
        ))
        .expect("runs");
        assert_eq!(r.test_files, vec!["pool/wake_test.go"]);
        assert_eq!(r.tests, vec!["pool::TestWake"]);
        assert!(r.message.contains("pool::TestWake"), "{}", r.message);
    }

    #[test]
    fn the_top_level_crate_s_test_targets_are_run() {
        for path in ["tests/notify.rs", "tests/loom/main.rs"] {
            assert!(
                runs_decide(&diff(path, "#[test]\nfn wakes() {}\n")).is_some(),
                "{path}"
            );
        }
    }

    #[test]
    fn a_test_file_no_runner_of_the_workflow_reads_is_not_run() {
        for path in [
            "test/pool_tests.erl",
            "tests/run/dealloc_T1.pyx",
            "Tests/PoolTests.swift",
        ] {
            assert!(runs_decide(&diff(path, "x\n")).is_none(), "{path}");
        }
        // Code alone has no test to run.
        assert!(runs_decide(&diff("pool/pool.go", "package pool\n")).is_none());
    }
}
