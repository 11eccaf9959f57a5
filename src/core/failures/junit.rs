//! JUnit XML (surefire incl. `flakyFailure`/`rerunFailure`, pytest, go-junit-report,
//! gotestsum, nextest, jest-junit), read as a stream of XML events.

use std::io::BufRead;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::Collector;

fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
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
}

pub fn parse<R: BufRead>(reader: R, mut c: Collector) -> std::io::Result<Collector> {
    let mut xml = Reader::from_reader(reader);
    xml.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut suites: Vec<Option<String>> = Vec::new();
    let mut case: Option<Case> = None;
    let finish = |case: Case, c: &mut Collector| {
        let (pkg, name) = (case.package.as_deref(), case.name.as_str());
        if case.failed {
            c.fail(pkg, name);
        } else if case.flaky {
            c.flaky(pkg, name);
        } else if case.skipped {
            c.skip(pkg, name);
        } else {
            c.pass(pkg, name);
        }
    };
    loop {
        let event = xml
            .read_event_into(&mut buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        match event {
            Event::Start(e) if e.name().as_ref() == b"testsuite" => {
                suites.push(attr(&e, b"name"));
            }
            Event::Empty(e) if e.name().as_ref() == b"testsuite" => {}
            Event::Start(e) if e.name().as_ref() == b"testcase" => {
                case = Some(new_case(&e, &suites));
            }
            Event::Empty(e) if e.name().as_ref() == b"testcase" => {
                // A self-closing testcase passed.
                finish(new_case(&e, &suites), &mut c);
            }
            Event::Start(e) | Event::Empty(e) => {
                if let Some(cs) = case.as_mut() {
                    match e.name().as_ref() {
                        b"failure" | b"error" => cs.failed = true,
                        b"flakyFailure" | b"flakyError" | b"rerunFailure" | b"rerunError" => {
                            cs.flaky = true
                        }
                        b"skipped" => cs.skipped = true,
                        _ => {}
                    }
                }
            }
            Event::End(e) if e.name().as_ref() == b"testcase" => {
                if let Some(cs) = case.take() {
                    finish(cs, &mut c);
                }
            }
            Event::End(e) if e.name().as_ref() == b"testsuite" => {
                suites.pop();
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(c)
}

fn new_case(e: &BytesStart<'_>, suites: &[Option<String>]) -> Case {
    let name = attr(e, b"name").unwrap_or_default();
    // The class (Java, pytest) or package (go-junit-report) names the package; else the suite.
    let package = attr(e, b"classname")
        .filter(|c| !c.is_empty() && *c != name)
        .or_else(|| suites.iter().rev().flatten().next().cloned());
    Case {
        package,
        name,
        ..Case::default()
    }
}
