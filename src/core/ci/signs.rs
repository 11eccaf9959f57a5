//! What a CI test command's output says beyond its tests' results: the build failed, a test
//! binary crashed or hung (so its other tests never ran), the runner itself broke. Read line by
//! line as the output streams by, so the work is linear and the memory one line.

use crate::core::failures::clean_line;
use crate::core::markdown::excerpt;

/// The first line of each kind of trouble the output showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signs {
    /// A build or collection error (go `[build failed]`, rustc `error[E…]`, pytest `ERROR
    /// collecting`, jest `Test suite failed to run`, javac `COMPILATION ERROR`).
    pub build: Option<String>,
    /// A process died under the tests (go `panic:`/`fatal error:`, cargo `(signal: 11, …)`,
    /// `Fatal Python error`): every test after it in that binary went unrun.
    pub crash: Option<String>,
    /// A time limit ended a test binary (go `panic: test timed out after …`, pytest-timeout).
    pub hang: Option<String>,
    /// The runner broke or was stopped (pytest `INTERNALERROR`, `Interrupted`).
    pub interrupted: Option<String>,
}

/// Whether `line` (trimmed) reports a build that failed, for any runner.
pub fn build_failure_line(l: &str) -> bool {
    // go
    l.ends_with("[build failed]")
        || l.ends_with("[setup failed]")
        // rustc / cargo
        || l.starts_with("error: could not compile")
        || l.starts_with("error[E")
        // pytest
        || l.contains("ERROR collecting")
        || l.starts_with("ImportError while")
        || l.contains("error during collection")
        || l.contains("errors during collection")
        // jest
        || l.contains("Test suite failed to run")
        // maven / gradle
        || l.contains("COMPILATION ERROR")
        || l.starts_with("Compilation failed")
}

impl Signs {
    /// Reads one line of the output (a CI's timestamp and colours are ignored).
    pub fn line(&mut self, raw: &str) {
        let cleaned = clean_line(raw);
        let l = cleaned.trim();
        if l.is_empty() {
            return;
        }
        let keep = |slot: &mut Option<String>| {
            if slot.is_none() {
                *slot = Some(excerpt(l));
            }
        };
        if build_failure_line(l) {
            keep(&mut self.build);
        } else if l.starts_with("panic: test timed out after") || l.contains("+++++ Timeout +++++")
        {
            keep(&mut self.hang);
        } else if (cleaned.starts_with("panic: ") && !cleaned.starts_with("panic: test timed out"))
            || cleaned.starts_with("fatal error: ")
            || l.starts_with("Fatal Python error:")
            || (l.contains("process didn't exit successfully") && l.contains("(signal: "))
        {
            keep(&mut self.crash);
        } else if l.starts_with("INTERNALERROR>")
            || (l.starts_with("!!!") && l.contains("Interrupted"))
        {
            keep(&mut self.interrupted);
        }
    }

    /// Reads a whole text (tests, small outputs).
    pub fn of(text: &str) -> Signs {
        let mut s = Signs::default();
        for l in text.lines() {
            s.line(l);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runner_s_build_error_is_a_build_error() {
        for text in [
            "FAIL\texample.com/acme/pool [build failed]",
            "FAIL\texample.com/acme/pool [setup failed]",
            "error[E0425]: cannot find value `x` in this scope",
            "error: could not compile `pool` (lib test) due to 1 previous error",
            "_____ ERROR collecting tests/test_pool.py _____",
            "!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!",
            "  ● Test suite failed to run",
            "[ERROR] COMPILATION ERROR : ",
        ] {
            let s = Signs::of(text);
            assert!(s.build.is_some(), "{text:?} is a build error: {s:?}");
        }
    }

    #[test]
    fn a_dead_test_binary_is_a_crash_and_a_go_timeout_a_hang() {
        let go_panic = "--- FAIL: TestX (0.00s)\npanic: runtime error: index out of range [recovered]\n\tpanic: runtime error";
        assert!(Signs::of(go_panic).crash.is_some());
        assert!(
            Signs::of("fatal error: concurrent map writes")
                .crash
                .is_some()
        );
        assert!(
            Signs::of("error: test failed, to rerun pass `--lib`\nCaused by:\n  process didn't exit successfully: `/t/deps/x-1` (signal: 11, SIGSEGV: invalid memory reference)")
                .crash
                .is_some()
        );
        assert!(
            Signs::of("Fatal Python error: Segmentation fault")
                .crash
                .is_some()
        );
        let hang =
            Signs::of("panic: test timed out after 10m0s\n\trunning tests:\n\t\tTestX (10m0s)");
        assert!(hang.hang.is_some() && hang.crash.is_none(), "{hang:?}");
        assert!(Signs::of("INTERNALERROR> Traceback").interrupted.is_some());
    }

    #[test]
    fn ordinary_failures_and_quoted_words_are_no_sign() {
        let ordinary = "=== RUN   TestX\n    x_test.go:9: want 1, got 2\n--- FAIL: TestX (0.01s)\nFAIL\nFAIL\tpkg\t0.1s\n\
                        thread 'a::b' panicked at src/a.rs:3:5:\nassertion failed\n    t.Log(\"panic: not really\")\n\
                        E   AssertionError: expected error[E0425]";
        assert_eq!(Signs::of(ordinary), Signs::default());
    }

    #[test]
    fn a_ci_timestamp_and_colours_do_not_hide_a_sign() {
        let s = Signs::of("2024-01-02T03:04:05.1234567Z \x1b[31mFAIL\tpkg [build failed]\x1b[0m");
        assert!(s.build.is_some(), "{s:?}");
    }
}
