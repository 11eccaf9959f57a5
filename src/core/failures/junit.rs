//! JUnit XML (surefire incl. `flakyFailure`/`rerunFailure`, pytest, go-junit-report,
//! gotestsum, nextest, jest-junit), read as a stream of XML events.

use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Collector, append_message, push_capped};

/// An attribute's value. quick-xml's duplicate check compares each attribute with every one
/// before it (quadratic in a hostile element's attributes): off; the first one named wins.
fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

#[derive(Default)]
struct Case {
    package: Option<String>,
    name: String,
    failed: bool,
    flaky: bool,
    skipped: bool,
    /// The failure's `message` and text, capped.
    message: String,
    /// Inside a failure element: its text is the message.
    in_failure: bool,
    /// The text of the failure element read so far (entities come as separate events).
    text: String,
    /// Its `time` attribute, in milliseconds.
    ms: Option<u64>,
}

/// The character an entity reference stands for (the five XML names and `&#…;`).
fn entity(e: &quick_xml::events::BytesRef<'_>) -> Option<char> {
    if let Ok(Some(c)) = e.resolve_char_ref() {
        return Some(c);
    }
    let name: &[u8] = e;
    match name {
        b"lt" => Some('<'),
        b"gt" => Some('>'),
        b"amp" => Some('&'),
        b"quot" => Some('"'),
        b"apos" => Some('\''),
        _ => None,
    }
}

pub fn parse<R: BufRead>(reader: R, mut c: Collector) -> std::io::Result<Collector> {
    // Every event bounded before quick-xml buffers it (see `xml_guard`).
    let guarded = std::io::BufReader::new(super::xml_guard::XmlGuard::new(reader));
    let mut xml = Reader::from_reader(guarded);
    // Not trimmed: a failure's text keeps its spaces around entities (it is trimmed whole).
    xml.config_mut().trim_text(false);
    let mut buf = Vec::new();
    let mut suites = Suites::default();
    let mut case: Option<Case> = None;
    let finish = |case: Case, c: &mut Collector| {
        let (pkg, name) = (case.package.as_deref(), case.name.as_str());
        if case.failed {
            c.fail(pkg, name);
            c.message(pkg, name, &case.message);
        } else if case.flaky {
            c.flaky(pkg, name);
            c.message(pkg, name, &case.message);
        } else if case.skipped {
            c.skip(pkg, name);
        } else {
            c.pass(pkg, name);
        }
        if let Some(ms) = case
            .ms
            .filter(|_| !case.skipped || case.failed || case.flaky)
        {
            c.duration(pkg, name, ms);
        }
    };
    loop {
        let event = xml
            .read_event_into(&mut buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        match event {
            Event::Start(e) if e.name().as_ref() == b"testsuite" => {
                suites.open(attr(&e, b"name"));
            }
            Event::Empty(e) if e.name().as_ref() == b"testsuite" => {}
            Event::Start(e) if e.name().as_ref() == b"testcase" => {
                case = Some(new_case(&e, &suites));
            }
            Event::Empty(e) if e.name().as_ref() == b"testcase" => {
                // A self-closing testcase passed.
                finish(new_case(&e, &suites), &mut c);
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                let open = matches!(event, Event::Start(_));
                if let Some(cs) = case.as_mut() {
                    let failure = match e.name().as_ref() {
                        b"failure" | b"error" => {
                            cs.failed = true;
                            true
                        }
                        b"flakyFailure" | b"flakyError" | b"rerunFailure" | b"rerunError" => {
                            cs.flaky = true;
                            true
                        }
                        b"skipped" => {
                            cs.skipped = true;
                            false
                        }
                        _ => false,
                    };
                    if failure {
                        if let Some(m) = attr(e, b"message") {
                            append_message(&mut cs.message, &m);
                        }
                        cs.in_failure = open;
                    }
                }
            }
            Event::Text(t) => {
                if let Some(cs) = case.as_mut().filter(|cs| cs.in_failure) {
                    push_capped(&mut cs.text, &String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some((cs, c)) = case.as_mut().filter(|cs| cs.in_failure).zip(entity(&r)) {
                    push_capped(&mut cs.text, c.encode_utf8(&mut [0; 4]));
                }
            }
            Event::CData(t) => {
                if let Some(cs) = case.as_mut().filter(|cs| cs.in_failure) {
                    push_capped(&mut cs.text, &String::from_utf8_lossy(&t));
                }
            }
            Event::End(e)
                if matches!(
                    e.name().as_ref(),
                    b"failure"
                        | b"error"
                        | b"flakyFailure"
                        | b"flakyError"
                        | b"rerunFailure"
                        | b"rerunError"
                ) =>
            {
                if let Some(cs) = case.as_mut() {
                    cs.in_failure = false;
                    let text = std::mem::take(&mut cs.text);
                    append_message(&mut cs.message, text.trim());
                }
            }
            Event::End(e) if e.name().as_ref() == b"testcase" => {
                if let Some(cs) = case.take() {
                    finish(cs, &mut c);
                }
            }
            Event::End(e) if e.name().as_ref() == b"testsuite" => {
                suites.close();
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(c)
}

/// The open `<testsuite>` elements, for the innermost one with a name: O(1) per element and per
/// test case, however deep the nesting (walking every open suite for each case was quadratic).
#[derive(Default)]
struct Suites {
    /// The names of the open suites that have one, innermost last, with their depth.
    named: Vec<(usize, String)>,
    depth: usize,
}

impl Suites {
    fn open(&mut self, name: Option<String>) {
        self.depth += 1;
        if let Some(n) = name {
            self.named.push((self.depth, n));
        }
    }

    fn close(&mut self) {
        if self.named.last().is_some_and(|(d, _)| *d == self.depth) {
            self.named.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn innermost(&self) -> Option<&String> {
        self.named.last().map(|(_, n)| n)
    }
}

fn new_case(e: &BytesStart<'_>, suites: &Suites) -> Case {
    let name = attr(e, b"name").unwrap_or_default();
    // The class (Java, pytest) or package (go-junit-report) names the package; else the suite.
    let package = attr(e, b"classname")
        .filter(|c| !c.is_empty() && *c != name)
        .or_else(|| suites.innermost().cloned());
    Case {
        package,
        name,
        ms: attr(e, b"time").as_deref().and_then(super::seconds_ms),
        ..Case::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_named_suite_is_found_without_walking_the_open_ones() {
        let mut s = Suites::default();
        s.open(Some("outer".into()));
        for _ in 0..10_000 {
            s.open(None);
        }
        assert_eq!(s.innermost().map(String::as_str), Some("outer"));
        // Unnamed suites hold nothing: the work per case does not grow with the nesting.
        assert_eq!(s.named.len(), 1);
        s.open(Some("inner".into()));
        assert_eq!(s.innermost().map(String::as_str), Some("inner"));
        s.close();
        for _ in 0..10_000 {
            s.close();
        }
        assert_eq!(s.innermost().map(String::as_str), Some("outer"));
        s.close();
        assert_eq!(s.innermost(), None);
        s.close(); // a stray end tag
        assert_eq!(s.depth, 0);
    }

    #[test]
    fn deeply_nested_unnamed_suites_give_each_case_the_outer_suites_name() {
        let n = 2_000;
        let xml = format!(
            "<testsuite name=\"pkg\">{}</testsuite>",
            "<testsuite><testcase name=\"T\"><failure/></testcase>".repeat(n)
                + &"</testsuite>".repeat(n)
        );
        let r = parse(xml.as_bytes(), Collector::all())
            .expect("parse")
            .finish_results();
        assert_eq!(r.tests.len(), 1, "{:?}", r.tests);
        assert_eq!(r.tests[0].test.package.as_deref(), Some("pkg"));
        assert_eq!(r.tests[0].failures as usize, n);
    }
}
