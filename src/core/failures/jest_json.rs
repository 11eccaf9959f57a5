//! `jest --json`, read as a stream: each suite's assertions go to the collector as the suite
//! ends, never the whole document in memory. A suite's `name` may come after its assertions
//! (jest writes `assertionResults` first), so one suite's assertions wait in a compact list,
//! bounded like the collector. Every string is at most [`MAX_STRING`] bytes (an error past it),
//! so no one value costs more.

use std::fmt;
use std::io::{BufRead, Read};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Collector, MAX_ID_BYTES, RESULTS_MEMORY};

/// Longest JSON string accepted (a failure message with its stack is far shorter).
pub const MAX_STRING: usize = 1 << 20;

/// `jest --json`: one document.
pub fn parse_json<R: BufRead>(reader: R, mut c: Collector) -> std::io::Result<Collector> {
    let guarded = std::io::BufReader::new(StringGuard::new(reader));
    let mut de = serde_json::Deserializer::from_reader(guarded);
    Report { c: &mut c }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| {
            // The guard's own error, not serde's wrapping of it.
            match e.io_error_kind() {
                Some(_) => std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
                None => std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            }
        })?;
    Ok(c)
}

#[derive(Clone, Copy)]
enum Status {
    Failed,
    Passed,
    Retried,
    Skipped,
    Other,
}

/// The top level: `testResults` is read suite by suite; the rest is skipped.
struct Report<'a> {
    c: &'a mut Collector,
}

impl<'de> DeserializeSeed<'de> for Report<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Report<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a jest --json report")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "testResults" {
                map.next_value_seed(Suites { c: &mut *self.c })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Suites<'a> {
    c: &'a mut Collector,
}

impl<'de> DeserializeSeed<'de> for Suites<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Suites<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of suites")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Suite { c: &mut *self.c })?.is_some() {}
        Ok(())
    }
}

struct Suite<'a> {
    c: &'a mut Collector,
}

impl<'de> DeserializeSeed<'de> for Suite<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Suite<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a suite")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut name: Option<String> = None;
        let mut status: Option<String> = None;
        let mut exec_error = false;
        let mut failed_to_run = false;
        let mut pending = Pending::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "name" | "testFilePath" => {
                    let v: Option<String> = map.next_value()?;
                    if name.is_none() {
                        name = v;
                    }
                }
                "assertionResults" | "testResults" => {
                    map.next_value_seed(Assertions {
                        pending: &mut pending,
                    })?;
                }
                "status" => status = map.next_value()?,
                "testExecError" => {
                    exec_error = map.next_value::<Option<IgnoredAny>>()?.is_some();
                }
                "failureMessage" => {
                    let m: Option<String> = map.next_value()?;
                    failed_to_run = m.is_some_and(|m| m.contains("Test suite failed to run"));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let c = self.c;
        let file = name.as_deref();
        c.dropped += pending.dropped;
        let any = !pending.tests.is_empty();
        for (test, status) in pending.tests {
            match status {
                Status::Failed => c.fail(file, &test),
                Status::Retried => c.flaky(file, &test),
                Status::Passed => c.pass(file, &test),
                Status::Skipped => c.skip(file, &test),
                Status::Other => {}
            }
        }
        // A suite that failed to run has no assertions: the file itself failed.
        let suite_failed = status.as_deref() == Some("failed") || exec_error || failed_to_run;
        if !any
            && suite_failed
            && let Some(f) = file
        {
            c.fail(None, f);
        }
        Ok(())
    }
}

/// One suite's assertions until its name is known, within [`RESULTS_MEMORY`] bytes.
#[derive(Default)]
struct Pending {
    tests: Vec<(String, Status)>,
    bytes: usize,
    dropped: usize,
}

struct Assertions<'a> {
    pending: &'a mut Pending,
}

impl<'de> DeserializeSeed<'de> for Assertions<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Assertions<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of assertions")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(a) = seq.next_element::<Assertion>()? {
            let Some(name) = a.full_name.or(a.title) else {
                continue;
            };
            let status = match a.status.as_deref() {
                Some("failed") => Status::Failed,
                Some("passed") if a.invocations.unwrap_or(1) > 1 => Status::Retried,
                Some("passed") => Status::Passed,
                Some("pending" | "skipped" | "todo" | "disabled" | "focused") => Status::Skipped,
                _ => Status::Other,
            };
            let p = &mut *self.pending;
            let cost = name.len() + std::mem::size_of::<(String, Status)>() * 2;
            if name.len() > MAX_ID_BYTES {
                // The collector refuses it (and the report with it) by its length.
                p.tests.push((name, status));
            } else if p.bytes + cost <= RESULTS_MEMORY {
                p.bytes += cost;
                p.tests.push((name, status));
            } else {
                p.dropped += 1;
            }
        }
        Ok(())
    }
}

#[derive(serde::Deserialize)]
struct Assertion {
    #[serde(rename = "fullName", default)]
    full_name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    invocations: Option<u32>,
}

/// Passes JSON through, with an error at a string longer than [`MAX_STRING`] bytes (serde
/// would hold all of it before anyone could look at its length). Linear, one state per byte.
struct StringGuard<R> {
    inner: R,
    in_string: bool,
    escaped: bool,
    len: usize,
}

impl<R: BufRead> StringGuard<R> {
    fn new(inner: R) -> Self {
        StringGuard {
            inner,
            in_string: false,
            escaped: false,
            len: 0,
        }
    }
}

impl<R: BufRead> Read for StringGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if !self.in_string {
                if b == b'"' {
                    self.in_string = true;
                    self.len = 0;
                }
                continue;
            }
            self.len += 1;
            if self.len > MAX_STRING {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "the report has a string longer than {} MiB",
                        MAX_STRING >> 20
                    ),
                ));
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::failures::Outcome;

    fn outcomes(doc: &str) -> std::io::Result<Vec<(String, Outcome)>> {
        let c = parse_json(std::io::Cursor::new(doc.as_bytes()), Collector::all())?;
        Ok(c.finish_results()
            .tests
            .into_iter()
            .map(|t| (t.test.id(), t.outcome))
            .collect())
    }

    #[test]
    fn the_suite_name_after_its_assertions_still_names_them() {
        let doc = r#"{"numFailedTests":1,"testResults":[{"assertionResults":[
            {"fullName":"a works","status":"passed","failureMessages":["x \" y"]},
            {"fullName":"a breaks","status":"failed"},
            {"title":"retried","status":"passed","invocations":2},
            {"fullName":"later","status":"todo"}],
          "name":"src/a.test.js","status":"failed"},
          {"name":"src/b.test.js","status":"failed","assertionResults":[],
           "failureMessage":"Test suite failed to run"}]}"#;
        assert_eq!(
            outcomes(doc).unwrap(),
            vec![
                ("src/a.test.js::a works".into(), Outcome::Pass),
                ("src/a.test.js::a breaks".into(), Outcome::Fail),
                ("src/a.test.js::retried".into(), Outcome::Flaky),
                ("src/a.test.js::later".into(), Outcome::Skip),
                ("src/b.test.js".into(), Outcome::Fail),
            ]
        );
    }

    #[test]
    fn a_string_longer_than_the_cap_is_an_error() {
        let doc = format!(
            r#"{{"testResults":[{{"name":"f","assertionResults":[{{"fullName":"t","status":"failed","failureMessages":["{}"]}}]}}]}}"#,
            "\\\"".repeat(MAX_STRING / 2 + 1)
        );
        let e = outcomes(&doc).unwrap_err();
        assert!(e.to_string().contains("a string longer than 1 MiB"), "{e}");
        let fits = doc.replace(&"\\\"".repeat(MAX_STRING / 2 + 1), "ok");
        assert_eq!(outcomes(&fits).unwrap().len(), 1);
    }

    #[test]
    fn a_document_that_is_not_a_report_is_an_error() {
        assert!(outcomes(r#"{"testResults": 3}"#).is_err());
        assert!(outcomes(r#"{"testResults": [] } trailing"#).is_err());
    }
}
