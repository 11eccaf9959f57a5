//! Failing tests found in CI output, as a streaming parser: lines (or XML events) go in one at
//! a time, and only failing tests are remembered, so memory does not grow with the log.
//!
//! One file per runner format. In `auto` mode every line goes to every line parser; the most
//! specific one that recognised the log wins where runners nest (nextest prints libtest's
//! output; `go test -json` carries `go test -v` text).

mod cargo;
mod go;
mod jest;
mod junit;
mod pytest;

use std::io::BufRead;

use serde::Serialize;

/// Runner output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Auto,
    Go,
    GoJson,
    Cargo,
    Nextest,
    Pytest,
    Jest,
    Junit,
}

/// A test that failed (or, with `flaky`, failed and then passed on a retry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailedTest {
    pub name: String,
    pub package: Option<String>,
}

impl FailedTest {
    /// `package::name`, or the name alone.
    pub fn id(&self) -> String {
        match &self.package {
            Some(p) => format!("{p}::{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// What a log held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub failed: Vec<FailedTest>,
    /// Failed, then passed on a retry.
    pub flaky: Vec<FailedTest>,
}

/// Collects fail/pass events, keeping only tests that failed at some point.
#[derive(Debug, Default)]
pub struct Collector {
    tests: Vec<(FailedTest, bool)>,
    /// Name → positions in `tests`: passes of the many tests that never failed cost one lookup.
    by_name: std::collections::HashMap<String, Vec<usize>>,
}

impl Collector {
    pub fn fail(&mut self, package: Option<&str>, name: &str) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        let package = package.map(str::trim).filter(|p| !p.is_empty());
        // A failure known without its package is the same test once the package is known.
        if let Some(p) = package
            && let Some(i) = self
                .tests
                .iter()
                .position(|(t, _)| t.package.is_none() && t.name == name)
        {
            self.tests[i].0.package = Some(p.to_string());
            return;
        }
        // Seen before: a later failure of a test that passed on a retry is still a flake.
        if self.index(package, name).is_some() {
            return;
        }
        self.by_name
            .entry(name.to_string())
            .or_default()
            .push(self.tests.len());
        self.tests.push((
            FailedTest {
                name: name.to_string(),
                package: package.map(str::to_string),
            },
            false,
        ));
    }

    /// A pass after a failure marks the test flaky; a pass of an unknown test is forgotten.
    pub fn pass(&mut self, package: Option<&str>, name: &str) {
        if let Some(i) = self.index(package.map(str::trim), name.trim()) {
            self.tests[i].1 = true;
        }
    }

    /// Marks a known failure flaky directly (JUnit `flakyFailure`, nextest `FLAKY`).
    pub fn flaky(&mut self, package: Option<&str>, name: &str) {
        self.fail(package, name);
        self.pass(package, name);
    }

    fn index(&self, package: Option<&str>, name: &str) -> Option<usize> {
        self.tests.iter().position(|(t, _)| {
            t.name == name
                && (package.is_none() || t.package.is_none() || t.package.as_deref() == package)
        })
    }

    /// Drops failed parents whose subtests (`Parent/child`) failed: the leaves say more.
    pub fn drop_failed_parents(&mut self) {
        let names: Vec<(Option<String>, String)> = self
            .tests
            .iter()
            .map(|(t, _)| (t.package.clone(), t.name.clone()))
            .collect();
        self.tests.retain(|(t, _)| {
            let prefix = format!("{}/", t.name);
            !names
                .iter()
                .any(|(p, n)| *p == t.package && n.starts_with(&prefix))
        });
        self.reindex();
    }

    fn reindex(&mut self) {
        self.by_name.clear();
        for (i, (t, _)) in self.tests.iter().enumerate() {
            self.by_name.entry(t.name.clone()).or_default().push(i);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    pub fn finish(self) -> Report {
        let mut r = Report::default();
        for (t, flaky) in self.tests {
            if flaky {
                r.flaky.push(t);
            } else {
                r.failed.push(t);
            }
        }
        r
    }
}

/// A line parser.
trait LineParser {
    fn line(&mut self, line: &str);
    /// True once the parser has seen lines only its format produces.
    fn recognised(&self) -> bool;
    fn finish(self: Box<Self>) -> Collector;
}

/// Strips ANSI escapes, carriage returns and the timestamp GitHub Actions puts on job-log lines.
pub fn clean_line(raw: &str) -> std::borrow::Cow<'_, str> {
    let mut s = raw.trim_end_matches(['\r', '\n']);
    // `2024-01-02T03:04:05.1234567Z ` (Actions job logs).
    if s.len() > 20
        && s.as_bytes()[4] == b'-'
        && s.as_bytes()[10] == b'T'
        && let Some((stamp, rest)) = s.split_once(' ')
        && stamp.len() >= 20
        && stamp.ends_with('Z')
        && stamp.as_bytes()[..4].iter().all(u8::is_ascii_digit)
    {
        s = rest;
    }
    if !s.contains('\x1b') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters then one final byte in @..~
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Parses a log or report from `reader`.
pub fn parse<R: BufRead>(mut reader: R, format: Format) -> std::io::Result<Report> {
    let format = if format == Format::Auto {
        sniff(&mut reader)?
    } else {
        format
    };
    match format {
        Format::Junit => return junit::parse(reader),
        Format::Jest => {
            // `jest --json` is one JSON document; the human output is lines.
            let head = reader.fill_buf()?;
            if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
                return jest::parse_json(reader);
            }
        }
        _ => {}
    }
    let mut parsers: Vec<(Format, Box<dyn LineParser>)> = match format {
        Format::Go => vec![(Format::Go, Box::new(go::Text::default()))],
        Format::GoJson => vec![(Format::GoJson, Box::new(go::Json::default()))],
        Format::Cargo => vec![(Format::Cargo, Box::new(cargo::Libtest::default()))],
        Format::Nextest => vec![(Format::Nextest, Box::new(cargo::Nextest::default()))],
        Format::Pytest => vec![(Format::Pytest, Box::new(pytest::Pytest::default()))],
        Format::Jest => vec![(Format::Jest, Box::new(jest::Text::default()))],
        _ => vec![
            (Format::GoJson, Box::new(go::Json::default())),
            (Format::Nextest, Box::new(cargo::Nextest::default())),
            (Format::Go, Box::new(go::Text::default())),
            (Format::Cargo, Box::new(cargo::Libtest::default())),
            (Format::Pytest, Box::new(pytest::Pytest::default())),
            (Format::Jest, Box::new(jest::Text::default())),
        ],
    };
    let mut buf = Vec::with_capacity(1024);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let raw = String::from_utf8_lossy(&buf);
        let line = clean_line(&raw);
        for (_, p) in parsers.iter_mut() {
            p.line(&line);
        }
    }
    // Nested formats: a recognised outer runner hides the inner one's lines.
    let recognised: Vec<Format> = parsers
        .iter()
        .filter(|(_, p)| p.recognised())
        .map(|(f, _)| *f)
        .collect();
    let mut merged = Collector::default();
    for (f, p) in parsers {
        let hidden = (f == Format::Cargo && recognised.contains(&Format::Nextest))
            || (f == Format::Go && recognised.contains(&Format::GoJson));
        if hidden {
            continue;
        }
        let c = p.finish();
        for (t, flaky) in c.tests {
            merged.fail(t.package.as_deref(), &t.name);
            if flaky {
                merged.pass(t.package.as_deref(), &t.name);
            }
        }
    }
    Ok(merged.finish())
}

/// XML or `jest --json` by their first bytes; everything else is lines for every parser.
fn sniff<R: BufRead>(reader: &mut R) -> std::io::Result<Format> {
    let head = reader.fill_buf()?;
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("<?xml") || t.starts_with("<testsuite") {
        return Ok(Format::Junit);
    }
    if t.starts_with('{') && (t.contains("\"testResults\"") || t.contains("\"numFailedTests\"")) {
        return Ok(Format::Jest);
    }
    Ok(Format::Auto)
}

/// Parses text held in memory.
pub fn parse_str(text: &str, format: Format) -> Report {
    parse(std::io::Cursor::new(text.as_bytes()), format).unwrap_or_default()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fixture_tests;
