//! The gate's find round (docs/verification.md#found-in-the-prs-tests), pure: whether the
//! rerun workflow runs it, the tests the PR's diff declares, each side's report read as one
//! result per test, the round's table, and where the whole search stands (running, its
//! candidates' verifications, or the verdict without a candidate).

use serde::{Deserialize, Serialize};

use super::discover::{self, Found, Seen};
use super::{Claim, Outcome, SessionView, SideState, Verdict};
use crate::core::classify::diff::{FileChange, FileStatus, LineKind, patch_lines};
use crate::core::classify::lang::is_test_file;
use crate::core::evidence::EvidenceKind;
use crate::core::failures::{Outcome as TestOutcome, TestResult};
use crate::core::test_ids::same_test;

/// The line a rerun workflow that runs the find round carries (deploy/repro-gate-rerun.yml).
pub const MARKER: &str = "repro-gate: find mode";

/// The stored claim key and kind of a find session (no claim's key has no `\u{1f}`).
pub const KEY: &str = "find";

/// Whether the rerun workflow runs every test of `tests` when `test` is empty: a copy of
/// repro-gate's template says so by its marker (an older copy has none and runs one named test
/// only); a workflow of the repository's own is taken at its inputs.
pub fn workflow_finds(text: &str) -> bool {
    text.contains(MARKER) || !text.contains("repro-gate's rerun workflow")
}

/// One test's result on one side of the find round, as stored with the side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideResult {
    pub test: String,
    pub seen: Seen,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A build failure's entry in a report (`go test`'s `[build failed]`, a collection error).
fn is_build_entry(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("[build failed]") || n.contains("[setup failed]") || n == "collection error"
}

/// A side's report as the find round's results: each test once (failed if any run of it
/// failed), and a build failure as one `did not build` entry with its first error line.
pub fn side_results(results: &[TestResult]) -> Vec<SideResult> {
    let mut out: Vec<SideResult> = Vec::new();
    for r in results {
        let id = r.test.id();
        if is_build_entry(&r.test.name) {
            let message = r.message.as_deref().unwrap_or("");
            out.push(SideResult {
                test: id,
                seen: Seen::DidNotBuild,
                reason: Some(
                    crate::core::runs::first_error_line(message)
                        .unwrap_or_else(|| "the build failed".into()),
                ),
            });
            continue;
        }
        let seen = match r.outcome {
            TestOutcome::Pass => Seen::Passed,
            TestOutcome::Fail | TestOutcome::Flaky => Seen::Failed,
            TestOutcome::Skip => continue,
        };
        match out.iter_mut().find(|o| o.test == id) {
            Some(o) if seen == Seen::Failed => o.seen = Seen::Failed,
            Some(_) => {}
            None => out.push(SideResult {
                test: id,
                seen,
                reason: None,
            }),
        }
    }
    out
}

/// The tests the diff's test files (and the test modules of changed Rust sources) declare, with
/// whether the diff declares or changes each: read from the hunks alone, each line at its
/// number in the head's file (what lies between hunks is unknown and left blank).
pub fn declared_in_diff(files: &[FileChange]) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for f in files {
        let rust_source = f.path.ends_with(".rs") && !is_test_file(&f.path);
        if f.status == FileStatus::Removed || (!is_test_file(&f.path) && !rust_source) {
            continue;
        }
        let Some(patch) = &f.patch else { continue };
        let mut lines: Vec<&str> = Vec::new();
        let mut added = Vec::new();
        for l in patch_lines(patch) {
            let (Some(n), true) = (l.line, l.kind != LineKind::Removed) else {
                continue;
            };
            let at = usize::try_from(n).unwrap_or(usize::MAX).saturating_sub(1);
            if at >= 1_000_000 {
                continue;
            }
            if lines.len() <= at {
                lines.resize(at + 1, "");
            }
            lines[at] = l.text;
            if l.kind == LineKind::Added {
                added.push(n);
            }
        }
        let text = lines.join("\n");
        let tests = discover::declared_tests(&f.path, &text);
        let flags = discover::changed(&tests, &added);
        for (t, c) in tests.into_iter().zip(flags) {
            if (rust_source && !c) || super::claim::safe_test(&t.id).is_err() {
                continue;
            }
            if out.len() < discover::MAX_FOUND && !out.iter().any(|(id, _)| *id == t.id) {
                out.push((t.id, c));
            }
        }
    }
    out
}

/// The Rust source files the find round runs the test modules of (each side its own copy,
/// never laid over the merge base: the file holds the change): the `src/` files of the tests
/// [`declared_in_diff`] found declared or changed, with a path the workflow can take, at most
/// [`super::claim::MAX_TEST_FILES`].
pub fn sources_to_run(declared: &[(String, bool)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (id, changed) in declared {
        let Some((path, _)) = id.split_once("::") else {
            continue;
        };
        if *changed
            && path.starts_with("src/")
            && path.ends_with(".rs")
            && !is_test_file(path)
            && super::claim::safe_path(path)
            && !out.iter().any(|p| p == path)
            && out.len() < super::claim::MAX_TEST_FILES
        {
            out.push(path.to_string());
        }
    }
    out
}

/// The find round's table: each test the diff declares or a side reported, with what it did on
/// each side. A test a side has no result for is `did not build` there when that side's build
/// failed (with its first error line), else `no result`.
pub fn combine(
    declared: &[(String, bool)],
    head: &[SideResult],
    base: &[SideResult],
) -> Vec<Found> {
    let mut ids: Vec<(String, bool)> = declared.to_vec();
    for r in head.iter().chain(base) {
        if r.seen == Seen::DidNotBuild || ids.iter().any(|(id, _)| same_test(id, &r.test)) {
            continue;
        }
        if ids.len() < discover::MAX_FOUND {
            ids.push((r.test.clone(), false));
        }
    }
    let on = |side: &[SideResult], id: &str| -> (Seen, Option<String>) {
        if let Some(r) = side
            .iter()
            .find(|r| r.seen != Seen::DidNotBuild && same_test(id, &r.test))
        {
            return (r.seen, r.reason.clone());
        }
        match side.iter().find(|r| r.seen == Seen::DidNotBuild) {
            Some(b) => (Seen::DidNotBuild, b.reason.clone()),
            None => (
                Seen::NoResult,
                Some("the run's report holds no result of it".into()),
            ),
        }
    };
    ids.into_iter()
        .map(|(test, changed)| {
            let (base, base_reason) = on(base, &test);
            let (head, head_reason) = on(head, &test);
            Found {
                test,
                base,
                head,
                changed,
                base_reason,
                head_reason,
            }
        })
        .collect()
}

/// The claim a candidate is verified as: the test, forced (no seed).
pub fn claim_for(test: &str) -> Claim {
    Claim {
        kind: EvidenceKind::Interleaving,
        test: Some(test.to_string()),
        seed: None,
    }
}

/// A candidate of the find round and its verification, once started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub claim: Claim,
    pub session: Option<SessionView>,
}

/// The search for a reproduction among the PR's tests, as the gate shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindView {
    /// The find session (runs 1, an empty test, the PR's test files).
    pub session: SessionView,
    /// Each test of the round, once both sides are in.
    pub found: Option<Vec<Found>>,
    /// The candidates (failed on the merge base, passed on the head), at most `discover_max`.
    pub candidates: Vec<Candidate>,
}

impl FindView {
    /// The find round with its results read: the candidates' claims come from `found`.
    pub fn new(session: SessionView, found: Option<Vec<Found>>, max: u32) -> FindView {
        let candidates = found
            .as_deref()
            .map(|f| {
                discover::candidates(f, max)
                    .into_iter()
                    .map(|c| Candidate {
                        claim: claim_for(&c.test),
                        session: None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        FindView {
            session,
            found,
            candidates,
        }
    }

    /// Candidates whose verification has not started.
    pub fn to_start(&self) -> Vec<&Claim> {
        self.candidates
            .iter()
            .filter(|c| c.session.is_none())
            .map(|c| &c.claim)
            .collect()
    }

    /// The first verified candidate.
    pub fn verified(&self) -> Option<&SessionView> {
        self.candidates
            .iter()
            .filter_map(|c| c.session.as_ref())
            .find(|s| s.outcome().is_some_and(|o| o.verdict == Verdict::Verified))
    }

    /// The search's verdict: the first verified candidate's; with none verified, the first
    /// candidate's once every candidate has one; without a candidate, the round's.
    pub fn outcome(&self) -> Option<Outcome> {
        let could_not = |reason: &str| Outcome {
            verdict: Verdict::CouldNotRun,
            reason: Some(reason.to_string()),
        };
        for side in [&self.session.base, &self.session.branch] {
            if let SideState::NotStarted { reason } = side {
                return Some(could_not(reason));
            }
        }
        let Some(found) = &self.found else {
            return self.session.timed_out.then_some(Outcome {
                verdict: Verdict::TimedOut,
                reason: None,
            });
        };
        if self.candidates.is_empty() {
            return Some(discover::without_candidate(found));
        }
        if let Some(v) = self.verified() {
            return v.outcome();
        }
        let mut outcomes = Vec::new();
        for c in &self.candidates {
            outcomes.push(c.session.as_ref()?.outcome()?);
        }
        outcomes.into_iter().next()
    }
}

/// The candidates' sessions that decide the summary: the verified one, else each one's.
pub fn shown(view: &FindView) -> Vec<&SessionView> {
    match view.verified() {
        Some(v) => vec![v],
        None => view
            .candidates
            .iter()
            .filter_map(|c| c.session.as_ref())
            .collect(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::failures::FailedTest;
    use crate::core::rerun::verdict::Count;
    use crate::core::verify::RunDetail;

    fn result(
        package: &str,
        name: &str,
        outcome: TestOutcome,
        message: Option<&str>,
    ) -> TestResult {
        TestResult {
            test: FailedTest {
                name: name.into(),
                package: Some(package.into()),
            },
            outcome,
            passes: u32::from(outcome == TestOutcome::Pass),
            failures: u32::from(outcome == TestOutcome::Fail),
            message: message.map(str::to_string),
            duration_ms: None,
        }
    }

    const PKG: &str = "example.com/acme/services/pool";

    fn added_file(path: &str, text: &str) -> FileChange {
        let n = text.lines().count();
        let mut patch = format!("@@ -0,0 +1,{n} @@\n");
        for l in text.lines() {
            patch.push('+');
            patch.push_str(l);
            patch.push('\n');
        }
        FileChange {
            path: path.into(),
            previous_path: None,
            status: FileStatus::Added,
            patch: Some(patch),
        }
    }

    const GO_TESTS: &str = "package pool\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tx := 1\n}\n\nfunc TestB(t *testing.T) {\n}\n";

    #[test]
    fn the_template_without_the_marker_is_an_older_copy() {
        assert!(workflow_finds(&format!(
            "# repro-gate's rerun workflow: ...\n# {MARKER}: an empty test runs every test\n"
        )));
        assert!(!workflow_finds(
            "# repro-gate's rerun workflow: run ONE test alone\non: workflow_dispatch"
        ));
        assert!(workflow_finds(
            "name: our own rerun\non:\n  workflow_dispatch:\n"
        ));
    }

    #[test]
    fn a_report_gives_one_result_per_test_and_a_build_failure_its_first_error_line() {
        let r = side_results(&[
            result(PKG, "TestA", TestOutcome::Pass, None),
            result(PKG, "TestB", TestOutcome::Fail, Some("boom")),
            result(PKG, "TestB", TestOutcome::Pass, None),
            result(PKG, "TestC", TestOutcome::Skip, None),
        ]);
        let got: Vec<(String, Seen)> = r.into_iter().map(|r| (r.test, r.seen)).collect();
        assert_eq!(
            got,
            vec![
                (format!("{PKG}::TestA"), Seen::Passed),
                (format!("{PKG}::TestB"), Seen::Failed),
            ]
        );
        let b = side_results(&[result(
            PKG,
            "[build failed]",
            TestOutcome::Fail,
            Some(
                "services/pool/wakeup_test.go:17:4: p.beforeWait undefined (type *Pool has no field or method beforeWait)",
            ),
        )]);
        assert_eq!(b[0].seen, Seen::DidNotBuild);
        assert!(b[0].reason.as_deref().is_some_and(|r| {
            r.starts_with("services/pool/wakeup_test.go:17:4: p.beforeWait undefined")
        }));
    }

    #[test]
    fn a_rust_source_whose_diff_changes_a_test_is_run_in_place_not_laid_over() {
        let with_test = added_file(
            "src/pool.rs",
            "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn wakes() {}\n}\n",
        );
        let no_test = added_file("src/lib.rs", "pub mod pool;\n");
        let under_tests = added_file("tests/pool.rs", "#[test]\nfn wakes() {}\n");
        let odd_path = added_file(
            "src/po ol.rs",
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn wakes() {}\n}\n",
        );
        let mut removed = with_test.clone();
        removed.path = "src/gone.rs".into();
        removed.status = FileStatus::Removed;
        let files = [with_test.clone(), no_test, under_tests, odd_path, removed];
        assert_eq!(
            sources_to_run(&declared_in_diff(&files)),
            vec!["src/pool.rs".to_string()]
        );
        // A source changed outside its tests: nothing to run there.
        let mut outside = with_test;
        outside.status = FileStatus::Modified;
        outside.patch = Some("@@ -1,1 +1,1 @@\n-pub fn f() {}\n+pub fn f() { g() }\n".into());
        assert!(sources_to_run(&declared_in_diff(&[outside])).is_empty());
    }

    #[test]
    fn the_diff_declares_the_tests_of_an_added_file_and_of_a_changed_hunk() {
        let d = declared_in_diff(&[added_file("services/pool/wake_test.go", GO_TESTS)]);
        assert_eq!(
            d,
            vec![
                ("services/pool::TestA".to_string(), true),
                ("services/pool::TestB".to_string(), true)
            ]
        );
        let changed = FileChange {
            path: "services/pool/pool_test.go".into(),
            previous_path: None,
            status: FileStatus::Modified,
            patch: Some("@@ -40,3 +40,4 @@ func helper() {\n func TestOld(t *testing.T) {\n+\tcheck(t)\n \tx := 2\n }\n".into()),
        };
        assert_eq!(
            declared_in_diff(&[changed]),
            vec![("services/pool::TestOld".to_string(), true)]
        );
        let source = FileChange {
            path: "services/pool/pool.go".into(),
            previous_path: None,
            status: FileStatus::Modified,
            patch: Some("@@ -1,1 +1,2 @@\n package pool\n+func TestNot(t *testing.T) {}\n".into()),
        };
        assert!(declared_in_diff(&[source]).is_empty());
    }

    fn side(test: &str, seen: Seen) -> SideResult {
        SideResult {
            test: format!("{PKG}::{test}"),
            seen,
            reason: None,
        }
    }

    #[test]
    fn the_round_names_declared_tests_by_their_ids_and_a_failed_build_for_each() {
        let declared = vec![
            ("services/pool::TestA".to_string(), true),
            ("services/pool::TestB".to_string(), true),
        ];
        let head = vec![
            side("TestA", Seen::Passed),
            side("TestB", Seen::Passed),
            side("TestOther", Seen::Passed),
        ];
        let base = vec![side("TestA", Seen::Failed), side("TestB", Seen::Passed)];
        let found = combine(&declared, &head, &base);
        let rows: Vec<(&str, Seen, Seen, bool)> = found
            .iter()
            .map(|f| (f.test.as_str(), f.base, f.head, f.changed))
            .collect();
        let other = format!("{PKG}::TestOther");
        assert_eq!(
            rows,
            vec![
                ("services/pool::TestA", Seen::Failed, Seen::Passed, true),
                ("services/pool::TestB", Seen::Passed, Seen::Passed, true),
                (other.as_str(), Seen::NoResult, Seen::Passed, false),
            ]
        );
        let broken = vec![SideResult {
            test: format!("{PKG}::[build failed]"),
            seen: Seen::DidNotBuild,
            reason: Some("wakeup_test.go:17:4: p.beforeWait undefined".into()),
        }];
        let found = combine(&declared, &head[..2], &broken);
        assert!(found.iter().all(|f| f.base == Seen::DidNotBuild));
        let o = discover::without_candidate(&found);
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert!(
            o.reason
                .is_some_and(|r| r.contains("p.beforeWait undefined"))
        );
    }

    pub fn session(base: Option<(u32, u32)>, head: Option<(u32, u32)>) -> SessionView {
        let side = |c: Option<(u32, u32)>, url: &str| match c {
            Some((failures, runs)) => SideState::Done {
                count: Count { failures, runs },
                run_url: Some(url.into()),
                detail: RunDetail::default(),
            },
            None => SideState::Waiting { run_url: None },
        };
        SessionView {
            id: "vf-1".into(),
            claim: Claim {
                kind: EvidenceKind::Interleaving,
                test: None,
                seed: None,
            },
            head_sha: "b".repeat(40),
            base_sha: "a".repeat(40),
            runs: 1,
            tests: vec!["services/pool/wake_test.go".into()],
            branch: side(head, "https://github.com/acme/pool/actions/runs/902"),
            base: side(base, "https://github.com/acme/pool/actions/runs/901"),
            timed_out: false,
            requested_by: None,
        }
    }

    fn found(test: &str, base: Seen, head: Seen) -> Found {
        Found {
            test: test.into(),
            base,
            head,
            changed: true,
            base_reason: None,
            head_reason: None,
        }
    }

    #[test]
    fn the_search_waits_for_the_round_then_for_every_candidate_and_the_first_verified_passes() {
        let running = FindView::new(session(None, None), None, 3);
        assert_eq!(running.outcome(), None);
        let rows = vec![
            found("p::TestA", Seen::Failed, Seen::Passed),
            found("p::TestB", Seen::Failed, Seen::Passed),
            found("p::TestC", Seen::Passed, Seen::Passed),
        ];
        let mut v = FindView::new(session(Some((2, 3)), Some((0, 3))), Some(rows), 3);
        assert_eq!(v.to_start().len(), 2);
        assert_eq!(v.outcome(), None);
        let verify = |b, h| {
            let mut s = session(Some(b), Some(h));
            s.runs = 20;
            Some(s)
        };
        v.candidates[0].session = verify((3, 20), (0, 20));
        assert_eq!(v.outcome(), None, "a candidate is still to be verified");
        v.candidates[1].session = verify((20, 20), (0, 20));
        assert_eq!(v.outcome().map(|o| o.verdict), Some(Verdict::Verified));
        assert_eq!(shown(&v).len(), 1);
        v.candidates[1].session = verify((0, 20), (0, 20));
        assert_eq!(
            v.outcome().map(|o| o.verdict),
            Some(Verdict::NotDeterministic),
            "none verified: the first candidate's verdict"
        );
        let none = FindView::new(
            session(Some((0, 1)), Some((0, 1))),
            Some(vec![found("p::TestC", Seen::Passed, Seen::Passed)]),
            3,
        );
        assert!(none.candidates.is_empty());
        assert_eq!(
            none.outcome().map(|o| o.verdict),
            Some(Verdict::DoesNotFail)
        );
    }
}
