//! Every real runner output under `../shared/fixtures/test-output/` gives every test it shows
//! with its outcome (passed, skipped, flaky, failed), pinned in `fixture_results.tsv`; the
//! `failures` report stays a filter of those results. Skipped, with a message, when the folder
//! is absent.

use super::*;

/// One pinned file.
struct Pin<'a> {
    file: &'a str,
    counts: (usize, usize, usize, usize),
    passing: Vec<&'a str>,
    skipped: Vec<&'a str>,
}

fn pins() -> Vec<Pin<'static>> {
    let names = |s: &'static str| -> Vec<&'static str> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split('|').collect()
        }
    };
    include_str!("fixture_results.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 7, "a pin has 7 fields: {l}");
            let n = |i: usize| f[i].parse::<usize>().expect("a count");
            Pin {
                file: f[0],
                counts: (n(1), n(2), n(3), n(4)),
                passing: names(f[5]),
                skipped: names(f[6]),
            }
        })
        .collect()
}

fn files_under(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable").flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_real_fixture_gives_its_passing_skipped_and_flaky_tests() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/test-output");
    if !root.is_dir() {
        eprintln!("skipped: ../shared/fixtures/test-output is absent");
        return;
    }
    let pins = pins();
    let files = files_under(&root);
    assert!(
        files.len() >= 100,
        "the fixture folder holds {} files",
        files.len()
    );
    let mut wrong = Vec::new();
    for f in &files {
        let name = f
            .strip_prefix(&root)
            .expect("under root")
            .display()
            .to_string();
        let Some(pin) = pins.iter().find(|p| p.file == name) else {
            wrong.push(format!("{name}: not pinned in fixture_results.tsv"));
            continue;
        };
        let open = || std::io::BufReader::new(std::fs::File::open(f).expect("fixture opens"));
        let r = parse_results(open(), Format::Auto).expect("fixture parses");
        let of = |o: Outcome| -> Vec<String> {
            r.tests
                .iter()
                .filter(|t| t.outcome == o)
                .map(|t| t.test.id())
                .collect()
        };
        let (pass, skip, flaky, fail) = (
            of(Outcome::Pass),
            of(Outcome::Skip),
            of(Outcome::Flaky),
            of(Outcome::Fail),
        );
        let counts = (pass.len(), skip.len(), flaky.len(), fail.len());
        let starts = |got: &[String], want: &[&str]| {
            got.iter()
                .take(want.len())
                .map(String::as_str)
                .eq(want.iter().copied())
        };
        if counts != pin.counts || !starts(&pass, &pin.passing) || !starts(&skip, &pin.skipped) {
            wrong.push(format!(
                "{name}: pass/skip/flaky/fail {counts:?}, want {:?}; first passing {:?}; first skipped {:?}",
                pin.counts,
                &pass[..pass.len().min(2)],
                &skip[..skip.len().min(2)]
            ));
        }
        // `failures` is a filter of the results: its failing tests fail here, and a failing
        // result it leaves out is the parent of one it names (Go subtests).
        let report = parse(open(), Format::Auto).expect("fixture parses");
        let reported: Vec<String> = report.failed.iter().map(FailedTest::id).collect();
        let flaky_reported: Vec<String> = report.flaky.iter().map(FailedTest::id).collect();
        for t in &reported {
            if !fail.contains(t) {
                wrong.push(format!(
                    "{name}: {t} is reported failing but is not a failing result"
                ));
            }
        }
        for t in &fail {
            if !reported.contains(t) && !reported.iter().any(|r| r.starts_with(&format!("{t}/"))) {
                wrong.push(format!(
                    "{name}: {t} fails in the results but not in the failures"
                ));
            }
        }
        if flaky_reported != flaky {
            wrong.push(format!(
                "{name}: flaky {flaky_reported:?} in the failures, {flaky:?} in the results"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
