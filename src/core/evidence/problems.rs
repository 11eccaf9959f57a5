//! Every problem has a stable code and a message that says exactly what to add.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub code: String,
    pub message: String,
    /// The body line the near-miss is on (1-based), when it is on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// The recommended section, shown in messages and the check summary.
pub const TEMPLATE: &str = "## Reproduction
kind: seed            # seed | interleaving | trace
test: services/pool/integration::TestPoolCheckoutUnderLoad
seed: 7311            # controls: goroutine scheduling via the test's fake scheduler
base: fails 100/100   # on the merge base
branch: passes 100/100";

fn p(code: &str, message: String) -> Problem {
    Problem {
        code: code.to_string(),
        message,
        line: None,
    }
}

impl Problem {
    /// The same problem, found on `line`.
    pub fn at(mut self, line: Option<usize>) -> Problem {
        self.line = line;
        self
    }

    pub fn no_evidence() -> Problem {
        p("no-evidence", "No deterministic reproduction found. Add a `## Reproduction` section with one of: a seed and the test it drives (`kind: seed`), a test that forces the bad interleaving and fails every time before this change (`kind: interleaving`), or a race report showing both conflicting accesses or a link to a recorded trace (`kind: trace`).".into())
    }

    pub fn trace_names_no_changed_file(detail: &str) -> Problem {
        p(
            "trace-names-no-changed-file",
            format!(
                "The race report ({detail}) names no file this PR changes, and `verify.trace: required` counts only a report whose frames reach the changed code. Paste the report of the race this PR fixes, or give a seed or a forcing test."
            ),
        )
    }

    pub fn no_test_named(form: &str, value: &str) -> Problem {
        p(
            "no-test-named",
            format!(
                "Found {form} `{value}` but no test it drives. Name the test next to the seed, e.g. `test: pkg/path::TestName` or `go test -run '^TestName$' -seed {value} ./pkg/...`."
            ),
        )
    }

    /// A seed that reproduces nothing: its run passed, it is one of a sweep with no failing
    /// seed named, or it generates data for a failure that is not about scheduling.
    pub fn seed_reproduces_nothing(value: &str, why: &str) -> Problem {
        p(
            "seed-reproduces-nothing",
            format!(
                "Seed `{value}` is not a reproduction: {why}. Give the seed of a run that fails before this change, with the test it drives."
            ),
        )
    }

    pub fn shuffle_only(value: &str) -> Problem {
        p(
            "shuffle-seed-only",
            format!(
                "`-test.shuffle {value}` fixes the ORDER in which tests run, not goroutine scheduling inside a test, so it does not reproduce a race. Add the seed that drives the scheduling (a fake scheduler, shuttle, madsim, proptest) and the test it drives, or use `kind: interleaving` or `kind: trace`."
            ),
        )
    }

    pub fn repetition_not_seed(setting: &str) -> Problem {
        p(
            "repetition-not-reproduction",
            format!(
                "`{setting}` repeats a run or changes parallelism; it does not make the failure deterministic. Add a seed with its test, a forced interleaving, or a race trace."
            ),
        )
    }

    pub fn incomplete_trace(summary: &str) -> Problem {
        p(
            "trace-incomplete",
            format!(
                "{summary}: a race trace must show both conflicting accesses (e.g. `Write at … by goroutine 7` and `Previous read at … by goroutine 6`). Paste the whole report."
            ),
        )
    }

    pub fn test_not_in_diff(test: &str) -> Problem {
        p(
            "test-not-in-diff",
            format!(
                "`{test}` is named as the forcing test, but it is not in an added line of a test file of this PR. Add the test to the PR (or name the test that the PR adds)."
            ),
        )
    }

    pub fn not_deterministic(test: &str) -> Problem {
        p(
            "not-deterministic",
            format!(
                "`{test}` is named, but the description does not say it fails every time before this change. State it, e.g. `base: fails 100/100` on the merge base."
            ),
        )
    }

    pub fn rate_not_deterministic(test: &str, rate: &str) -> Problem {
        p(
            "rate-not-deterministic",
            format!(
                "`{test}` is said to fail at a rate ({rate}), not on every run: a test that forces the ordering (or a seed that drives it) fails every time before this change. State that, e.g. `base: fails 100/100`."
            ),
        )
    }

    pub fn no_mechanism(test: &str) -> Problem {
        p(
            "no-forcing-mechanism",
            format!(
                "`{test}` is said to fail every time, but not how it forces the bad ordering. Say which hook, channel, barrier, failpoint, `loom::model`, `testing/synctest` or jcstress test it uses, or declare `kind: interleaving` in the Reproduction section."
            ),
        )
    }

    pub fn rerun_green() -> Problem {
        p("rerun-is-not-evidence", "\"Reran and it is green\" confirms nothing: a flaky test passes most reruns whatever the code does. Add a deterministic reproduction instead.".into())
    }

    pub fn no_repro() -> Problem {
        p("no-reproduction", "The description says the failure could not be reproduced. Without a reproduction there is no evidence this change fixes anything: find a seed, force the interleaving in a test, or capture a race trace.".into())
    }

    pub fn clean_race_detector() -> Problem {
        p("clean-race-detector", "A clean race-detector run is not evidence of a race or of its fix. Add a report of the race itself (both accesses), a seed, or a forcing test.".into())
    }

    pub fn hang_dump() -> Problem {
        p("hang-dump-not-trace", "A goroutine dump or `test timed out` stack shows where goroutines waited, not which accesses conflicted. Add a race report with both accesses, or a test that forces the ordering.".into())
    }

    pub fn single_stack() -> Problem {
        p("single-stack-not-trace", "A single stack trace shows one thread at one moment, not two conflicting accesses. Add a race-detector or ThreadSanitizer report, a seed, or a forcing test.".into())
    }

    pub fn ci_link(link: &str) -> Problem {
        p(
            "ci-link-not-evidence",
            format!(
                "{link} links to a CI run; a red or green run is not a reproduction. Link the recorded trace artifact itself, or paste the race report."
            ),
        )
    }

    pub fn template_unfilled(keys: &[String]) -> Problem {
        p(
            "template-unfilled",
            format!(
                "The Reproduction template still has placeholders in: {}. Fill them in; placeholders never count.",
                keys.join(", ")
            ),
        )
    }
}
