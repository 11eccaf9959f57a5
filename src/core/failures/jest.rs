//! jest: human output (`FAIL file`, `✕ name`, `● Suite › name`) and `jest --json`.

use std::sync::OnceLock;

use regex::Regex;

use super::{Collector, LineParser};

fn file_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\s*(FAIL|PASS)\s+(\S+\.[cm]?[jt]sx?)\b").expect("valid"))
}

fn cross() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^\s*[✕×]\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$").expect("valid")
    })
}

fn tick() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"^\s*([✓√○✎])\s+(?:(?:skipped|todo)\s+)?(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$",
        )
        .expect("valid")
    })
}

fn bullet() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\s*●\s+(.+›.+|[^›]+?)\s*$").expect("valid"))
}

pub struct Text {
    c: Collector,
    /// The file whose results follow, and whether it failed.
    file: Option<(String, bool)>,
    seen: bool,
}

impl Text {
    pub fn new(c: Collector) -> Self {
        Text {
            c,
            file: None,
            seen: false,
        }
    }
}

impl LineParser for Text {
    fn line(&mut self, line: &str) {
        let marked = line.contains("FAIL") || line.contains("PASS");
        if !marked && (self.file.is_none() || !line.contains(['✕', '×', '●', '✓', '√', '○', '✎']))
        {
            return;
        }
        if let Some(m) = file_line().captures(line) {
            self.seen = true;
            self.file = Some((m[2].to_string(), &m[1] == "FAIL"));
            return;
        }
        let Some((file, failed_file)) = self.file.clone() else {
            return;
        };
        if let Some(m) = tick().captures(line) {
            match &m[1] {
                "✓" | "√" => self.c.pass(Some(&file), &m[2]),
                _ => self.c.skip(Some(&file), &m[2]),
            }
            return;
        }
        if !failed_file {
            return;
        }
        if let Some(m) = cross().captures(line) {
            self.c.fail(Some(&file), &m[1]);
        } else if let Some(m) = bullet().captures(line) {
            let name = m[1].trim();
            if name == "Test suite failed to run" {
                // The whole file failed before any test ran.
                self.c.fail(None, &file);
            } else {
                // `● Suite › test` names the test by its full path; keep it as one name.
                let flat = name.replace(" › ", " ");
                let short = name.rsplit(" › ").next().unwrap_or(name);
                // Prefer the ✕ line's title when both appear.
                if !self.c.has_failure(short) && !self.c.has_failure(&flat) {
                    self.c.fail(Some(&file), &flat);
                }
            }
        }
    }

    fn recognised(&self) -> bool {
        self.seen
    }

    fn finish(self: Box<Self>) -> Collector {
        self.c
    }
}
