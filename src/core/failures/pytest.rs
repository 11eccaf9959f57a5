//! pytest: the short summary (`FAILED path::name - reason`), verbose result lines, and
//! pytest-rerunfailures (`RERUN`).

use std::sync::OnceLock;

use regex::Regex;

use super::{Collector, LineParser};

fn summary() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"^(FAILED|ERROR|PASSED|RERUN|XPASS\(strict\)) ([^\s]+\.py::[^\s]+|[^\s]+\.py)(?:\s|$)",
        )
        .expect("valid")
    })
}

fn verbose() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^([^\s]+\.py::[^\s]+) (FAILED|ERROR|PASSED|RERUN)\b").expect("valid")
    })
}

#[derive(Default)]
pub struct Pytest {
    c: Collector,
    seen: bool,
}

fn split(node: &str) -> (Option<&str>, &str) {
    match node.split_once("::") {
        Some((file, name)) => (Some(file), name),
        None => (None, node),
    }
}

impl Pytest {
    fn record(&mut self, status: &str, node: &str) {
        self.seen = true;
        let (file, name) = split(node);
        match status {
            "FAILED" | "ERROR" | "XPASS(strict)" => self.c.fail(file, name),
            // A rerun means an earlier attempt failed; a later PASSED makes it a flake.
            "RERUN" => self.c.fail(file, name),
            "PASSED" => self.c.pass(file, name),
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
            self.record(&s, &n);
        } else if let Some(m) = verbose().captures(line) {
            let (n, s) = (m[1].to_string(), m[2].to_string());
            self.record(&s, &n);
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(self: Box<Self>) -> Collector {
        self.c
    }
}
