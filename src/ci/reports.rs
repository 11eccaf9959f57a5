//! The report files a test command wrote (`--report GLOB`), found after it ran and parsed with
//! the product's parsers, with the results of its output.

use std::io::BufReader;
use std::path::PathBuf;

use anyhow::Context as _;

use crate::core::failures::{Format, Results, parse_results};

/// Most report files read in one invocation.
pub const MAX_FILES: usize = 10_000;

/// Files matching the patterns (relative to the working directory), each once, in order.
pub fn find(patterns: &[String]) -> anyhow::Result<(Vec<PathBuf>, Vec<String>)> {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in patterns {
        let paths = glob::glob(p).with_context(|| format!("--report {p:?} is not a glob"))?;
        let before = files.len();
        for path in paths.flatten() {
            if path.is_file() && seen.insert(path.clone()) && files.len() < MAX_FILES {
                files.push(path);
            }
        }
        if files.len() == before {
            notes.push(format!("--report {p:?} matched no file"));
        }
    }
    Ok((files, notes))
}

pub use crate::core::ci::merge::Merged;

/// Parses one report file (its format sniffed).
pub fn read(path: &std::path::Path) -> anyhow::Result<Results> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    parse_results(BufReader::new(f), Format::Auto)
        .with_context(|| format!("reading the report {}", path.display()))
}
