//! `go test -v` text (with package `FAIL` lines, subtests, panics and timeout dumps) and
//! `go test -json` event streams.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::{Collector, LineParser};

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("go patterns are valid"))
}

fn result_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*--- (FAIL|PASS|SKIP): (\S+)")
}

fn package_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^(FAIL|ok)\s+([^\s]+)\s+(?:[\d.]+s|\(cached\)|\[[^\]]+\])",
    )
}

fn running_test() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"^\s+((?:Test|Fuzz|Example|Benchmark)\S*) \([\dhms.µ]+\)\s*$",
    )
}

fn dump_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^\s*([\w./-]+)\.((?:Test|Fuzz)[A-Z0-9_]\w*)\(")
}

/// `go test -v` output.
#[derive(Default)]
pub struct Text {
    c: Collector,
    /// Failures not yet attributed to a package.
    pending: Vec<String>,
    seen: bool,
    in_timeout: bool,
    in_running_list: bool,
    /// `=== RUN` without a result yet: a panic or timeout takes these down with the package.
    running: Vec<String>,
}

impl LineParser for Text {
    fn line(&mut self, line: &str) {
        // Cheap prefilter: most lines of a log are none of these.
        if !(self.in_timeout
            || line.contains("--- ")
            || line.starts_with("=== RUN")
            || line.starts_with("FAIL")
            || line.starts_with("ok")
            || line.starts_with("panic: "))
        {
            return;
        }
        if let Some(m) = result_line().captures(line) {
            self.seen = true;
            if let Some(i) = self.running.iter().position(|t| *t == m[2]) {
                self.running.swap_remove(i);
            }
            match &m[1] {
                "FAIL" => {
                    self.c.fail(None, &m[2]);
                    self.pending.push(m[2].to_string());
                }
                "PASS" => self.c.pass(None, &m[2]),
                _ => {}
            }
            return;
        }
        if let Some(name) = line.strip_prefix("=== RUN") {
            self.seen = true;
            let name = name.trim();
            if !name.is_empty() && self.running.len() < 10_000 {
                self.running.push(name.to_string());
            }
            return;
        }
        if let Some(m) = package_line().captures(line) {
            let pkg = m[2].to_string();
            if &m[1] == "FAIL" {
                // Still running when the package failed: the panic or timeout was theirs.
                let running = std::mem::take(&mut self.running);
                let leaves: Vec<&String> = running
                    .iter()
                    .filter(|t| !running.iter().any(|o| o.starts_with(&format!("{t}/"))))
                    .collect();
                for t in leaves {
                    self.c.fail(Some(&pkg), t);
                }
            }
            self.running.clear();
            for name in self.pending.drain(..) {
                self.c.fail(Some(&pkg), &name);
            }
            self.in_timeout = false;
            self.in_running_list = false;
            return;
        }
        if line.starts_with("panic: test timed out") {
            self.in_timeout = true;
            self.seen = true;
            return;
        }
        if self.in_timeout {
            if line.trim_start().starts_with("running tests:") {
                self.in_running_list = true;
                return;
            }
            if self.in_running_list {
                if let Some(m) = running_test().captures(line) {
                    self.c.fail(None, &m[1]);
                    self.pending.push(m[1].to_string());
                    return;
                }
                self.in_running_list = false;
            }
            // Older Go has no list: the test functions in the goroutine dump name them.
            if let Some(m) = dump_frame().captures(line) {
                let pkg = m[1].to_string();
                self.c.fail(Some(&pkg), &m[2]);
            }
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(mut self: Box<Self>) -> Collector {
        self.c.drop_failed_parents();
        self.c
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "Action")]
    action: &'a str,
    #[serde(rename = "Package", default)]
    package: Option<&'a str>,
    #[serde(rename = "Test", default)]
    test: Option<&'a str>,
}

/// `go test -json` (test2json) events, one per line; other lines are ignored.
#[derive(Default)]
pub struct Json {
    c: Collector,
    /// Tests started and not finished, per package: the ones a package failure takes down.
    running: HashMap<String, Vec<String>>,
    seen: bool,
}

impl LineParser for Json {
    fn line(&mut self, line: &str) {
        let t = line.trim_start();
        if !t.starts_with('{') || !t.contains("\"Action\"") {
            return;
        }
        let Ok(e) = serde_json::from_str::<Event>(t) else {
            return;
        };
        self.seen = true;
        let pkg = e.package.unwrap_or("");
        match (e.action, e.test) {
            ("run", Some(test)) => self
                .running
                .entry(pkg.to_string())
                .or_default()
                .push(test.to_string()),
            ("fail", Some(test)) => {
                self.finish_test(pkg, test);
                self.c.fail(Some(pkg), test);
            }
            ("pass", Some(test)) => {
                self.finish_test(pkg, test);
                self.c.pass(Some(pkg), test);
            }
            ("skip", Some(test)) => self.finish_test(pkg, test),
            ("fail", None) => {
                // A package that failed with tests still running (a panic or a timeout that
                // never reported them): those tests failed.
                if let Some(left) = self.running.remove(pkg) {
                    for t in left {
                        self.c.fail(Some(pkg), &t);
                    }
                }
            }
            ("pass" | "skip", None) => {
                self.running.remove(pkg);
            }
            _ => {}
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(mut self: Box<Self>) -> Collector {
        self.c.drop_failed_parents();
        self.c
    }
}

impl Json {
    fn finish_test(&mut self, pkg: &str, test: &str) {
        if let Some(list) = self.running.get_mut(pkg)
            && let Some(i) = list.iter().position(|t| t == test)
        {
            list.swap_remove(i);
        }
    }
}
