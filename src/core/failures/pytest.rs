//! pytest: the short summary (`FAILED path::name - reason`), verbose result lines, and
//! pytest-rerunfailures (`RERUN`).

use std::sync::OnceLock;

use regex::Regex;

use super::{Collector, LineParser};

fn summary() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"^(FAILED|ERROR|PASSED|RERUN|SKIPPED|XFAIL|XPASS\(strict\)|XPASS) ([^\s]+\.py::[^\s]+|[^\s]+\.py)(?:\s|$)",
        )
        .expect("valid")
    })
}

fn verbose() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^([^\s]+\.py::[^\s]+) (FAILED|ERROR|PASSED|RERUN|SKIPPED|XFAIL|XPASS)\b")
            .expect("valid")
    })
}

pub struct Pytest {
    c: Collector,
    seen: bool,
    /// (node, status) already counted: `-rA` summaries repeat the verbose lines.
    counted: std::collections::HashSet<(String, String)>,
}

fn split(node: &str) -> (Option<&str>, &str) {
    match node.split_once("::") {
        Some((file, name)) => (Some(file), name),
        None => (None, node),
    }
}

impl Pytest {
    pub fn new(c: Collector) -> Self {
        Pytest {
            c,
            seen: false,
            counted: Default::default(),
        }
    }

    fn record(&mut self, status: &str, node: &str, summary: bool) {
        self.seen = true;
        // The short summary repeats what the verbose lines said: count a result once. RERUN
        // lines repeat for each rerun, so they always count.
        if status != "RERUN" {
            let key = (node.to_string(), status.to_string());
            if summary && self.counted.contains(&key) {
                return;
            }
            // Charged to the report's budget (and never given back while it is read).
            if !summary
                && node.len() <= super::MAX_ID_BYTES
                && self.counted.len() < super::MAX_TESTS
                && !self.counted.contains(&key)
                && self.c.budget().take(node.len() + super::SLOT)
            {
                self.counted.insert(key);
            }
        }
        let (file, name) = split(node);
        match status {
            "FAILED" | "ERROR" | "XPASS(strict)" => self.c.fail(file, name),
            // A rerun means an earlier attempt failed; a later PASSED makes it a flake.
            "RERUN" => self.c.fail(file, name),
            "PASSED" | "XPASS" => self.c.pass(file, name),
            // An expected failure is not a run of the test's claim; like a skip.
            "SKIPPED" | "XFAIL" => self.c.skip(file, name),
            _ => {}
        }
    }
}

impl LineParser for Pytest {
    fn line(&mut self, line: &str) {
        if !line.contains(".py") {
            return;
        }
        if let Some(m) = summary().captures(line) {
            let (s, n) = (m[1].to_string(), m[2].to_string());
            self.record(&s, &n, true);
            // `FAILED path::name - AssertionError: …`: the reason is its message.
            if matches!(s.as_str(), "FAILED" | "ERROR")
                && let Some(reason) = line[m.get(0).map_or(0, |g| g.end())..]
                    .trim_start()
                    .strip_prefix("- ")
            {
                let (file, name) = split(&n);
                self.c.message(file, name, reason);
            }
        } else if let Some(m) = verbose().captures(line) {
            let (n, s) = (m[1].to_string(), m[2].to_string());
            self.record(&s, &n, false);
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(self: Box<Self>) -> Collector {
        self.c
    }
}
