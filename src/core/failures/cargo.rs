//! cargo test (libtest's human and JSON output) and cargo nextest.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::{Collector, LineParser};

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("cargo patterns are valid"))
}

fn test_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?:^|\s)test (\S+)(?: - should panic)? \.\.\. (FAILED|ok|ignored|FAILED \(allowed\))\s*$",
    )
}

fn running_binary() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // `Running unittests src/lib.rs (target/debug/deps/pool-1a2b3c)`, old `Running
    // target/debug/pool-1a2b`, and either under a target folder anywhere (`CARGO_TARGET_DIR`:
    // `(/tmp/t/target/debug/deps/pool-1a2b3c)`).
    re(
        &R,
        r"^\s*Running (?:(?:unittests|tests|benches)\s+)?\S*?(?:\s*\()?(?:[^\s)]*/)?([A-Za-z0-9_]+)-[0-9a-f]{8,}\)?\s*$",
    )
}

fn doc_tests() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*Doc-tests (\S+)")
}

#[derive(Deserialize)]
struct JsonEvent<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    event: &'a str,
    #[serde(default)]
    name: Option<&'a str>,
}

fn stdout_header() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^---- (\S+) std(?:out|err) ----\s*$")
}

fn listed_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^ {4}([A-Za-z_][\w:]*(?: - should panic)?)\s*$")
}

/// libtest human output (`test x ... FAILED`, the `failures:` list) and JSON events.
pub struct Libtest {
    c: Collector,
    binary: Option<String>,
    seen: bool,
    /// Inside the closing `failures:` list (after the `---- x stdout ----` blocks).
    in_list: bool,
    /// Inside a failed test's `---- x stdout ----` block: its name and what it printed (the
    /// panic message), capped.
    printed: Option<(String, String)>,
}

impl Libtest {
    pub fn new(c: Collector) -> Self {
        Libtest {
            c,
            binary: None,
            seen: false,
            in_list: false,
            printed: None,
        }
    }

    /// The end of a `---- x stdout ----` block: what it printed is the failure's message.
    fn end_printed(&mut self) {
        if let Some((name, text)) = self.printed.take() {
            self.c.message(self.binary.as_deref(), &name, &text);
        }
    }

    /// The closing list and `---- x stdout ----` blocks repeat failures already counted by
    /// their `test x ... FAILED` line: only a test not seen failing yet is added.
    fn listed_failure(&mut self, name: &str) {
        if !self.c.has_failure(name) {
            self.c.fail(self.binary.as_deref(), name);
        }
    }
}

impl LineParser for Libtest {
    fn line(&mut self, line: &str) {
        let t = line.trim_start();
        if let Some((_, text)) = self.printed.as_mut()
            && !t.starts_with("----")
            && line.trim() != "failures:"
            && line.trim() != "successes:"
        {
            if !line.trim().is_empty() && !t.starts_with("note: run with `RUST_BACKTRACE") {
                super::append_message(text, line);
            }
            return;
        }
        self.end_printed();
        if !(self.in_list
            || t.starts_with('{')
            || t.starts_with("----")
            || t.starts_with("failures:")
            || line.contains(" ... ")
            || line.contains("Running")
            || line.contains("Doc-tests"))
        {
            return;
        }
        if t.starts_with('{') {
            if let Ok(e) = serde_json::from_str::<JsonEvent>(t)
                && e.kind == "test"
            {
                self.seen = true;
                if let Some(name) = e.name {
                    match e.event {
                        // `timeout` is libtest's "running over 60 s" warning, not a result.
                        "failed" => self.c.fail(self.binary.as_deref(), name),
                        "ok" => self.c.pass(self.binary.as_deref(), name),
                        "ignored" => self.c.skip(self.binary.as_deref(), name),
                        _ => {}
                    }
                }
            }
            return;
        }
        if let Some(m) = running_binary().captures(line) {
            self.binary = Some(m[1].to_string());
            return;
        }
        if let Some(m) = doc_tests().captures(line) {
            self.binary = Some(m[1].to_string());
            return;
        }
        if let Some(m) = stdout_header().captures(line) {
            self.seen = true;
            self.in_list = false;
            let name = m[1].to_string();
            self.listed_failure(&name);
            self.printed = Some((name, String::new()));
            return;
        }
        if line.trim() == "failures:" {
            self.in_list = true;
            return;
        }
        if self.in_list {
            match listed_name().captures(line) {
                Some(m) => {
                    self.seen = true;
                    let name = m[1].trim_end_matches(" - should panic").to_string();
                    self.listed_failure(&name);
                    return;
                }
                None if line.trim().is_empty() => return,
                None => self.in_list = false,
            }
        }
        if let Some(m) = test_line().captures(line) {
            self.seen = true;
            match &m[2] {
                "FAILED" => self.c.fail(self.binary.as_deref(), &m[1]),
                "ok" => self.c.pass(self.binary.as_deref(), &m[1]),
                "ignored" => self.c.skip(self.binary.as_deref(), &m[1]),
                _ => {}
            }
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(mut self: Box<Self>) -> Collector {
        self.end_printed();
        self.c
    }
}

fn nextest_status() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // `  TRY 2 PASS [   0.002s] crate::bin test_name`, `FAIL [ 0.1s] (3/10) crate test`,
    // `FLAKY 2/3 [ 0.1s] crate test`, `LEAK-FAIL`, `TIMEOUT`, `SIGSEGV`, `ABORT`.
    re(
        &R,
        r"^\s*(?:TRY \d+ )?(PASS|FAIL|FLAKY(?: \d+/\d+)?|LEAK-FAIL|LEAK|TIMEOUT|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|ABORT|CRASH|SLOW|TERMINATING|SKIP|RETRY \d+/\d+|EXC-FAIL)\s+\[[^\]]*\](?:\s+\(\s*\d+/\d+\))?\s+(\S+)\s+(\S+)\s*$",
    )
}

/// cargo nextest's status lines (`PASS`, `FAIL`, `TRY n FAIL`, `FLAKY`, recaps).
pub struct Nextest {
    c: Collector,
    seen: bool,
}

impl Nextest {
    pub fn new(c: Collector) -> Self {
        Nextest { c, seen: false }
    }
}

impl LineParser for Nextest {
    fn line(&mut self, line: &str) {
        if !line.contains('[') && !line.contains("Nextest run") && !line.contains("Starting") {
            return;
        }
        let Some(m) = nextest_status().captures(line) else {
            if line.trim_start().starts_with("Nextest run ID")
                || line.contains("Starting ") && line.contains(" binar")
            {
                self.seen = true;
            }
            return;
        };
        self.seen = true;
        let (status, binary, name) = (&m[1], &m[2], &m[3]);
        if status.starts_with("FLAKY") {
            self.c.flaky(Some(binary), name);
        } else if status == "PASS" || status == "LEAK" {
            // After `TRY 1 FAIL`, `TRY 2 PASS` makes the test flaky.
            self.c.pass(Some(binary), name);
        } else if status == "SKIP" {
            self.c.skip(Some(binary), name);
        } else if matches!(
            status,
            "FAIL"
                | "LEAK-FAIL"
                | "TIMEOUT"
                | "SIGSEGV"
                | "SIGABRT"
                | "SIGKILL"
                | "SIGBUS"
                | "ABORT"
                | "CRASH"
                | "EXC-FAIL"
        ) {
            self.c.fail(Some(binary), name);
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(self: Box<Self>) -> Collector {
        self.c
    }
}
