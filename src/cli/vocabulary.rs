//! `repro-gate vocabulary [DIR]`: reads a checkout and prints the `primitives:` block for
//! `.github/repro-gate.yml` (the macros, types and functions the repository defines over
//! concurrency primitives, each with where). The reading is `core::classify::vocabulary`;
//! this walks the tree: source files in the languages the rules read, no test, vendored,
//! generated or hidden files, no symbolic links, bounded in count and size.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::core::classify::lang::{self, Lang};
use crate::core::classify::vocabulary::{Definition, block, definitions};

/// Most files read, and the largest one (a bigger file is generated or data).
const MAX_FILES: usize = 50_000;
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Build outputs and caches, never the repository's source.
const SKIP_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "build",
    "_build",
    "dist",
    "out",
    "zig-cache",
    "zig-out",
    "__pycache__",
    "venv",
];

#[derive(Debug, clap::Args)]
pub struct VocabularyArgs {
    /// The checkout to read (default: the current directory).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Print the definitions as JSON instead of the YAML block.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: VocabularyArgs) -> ExitCode {
    if !args.dir.is_dir() {
        eprintln!("error: {} is not a directory", args.dir.display());
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    let truncated = walk(&args.dir, &args.dir, &mut files);
    files.sort();
    // Two passes: a wrapper over a wrapper is found once the first is known.
    let mut known: BTreeMap<String, ()> = BTreeMap::new();
    let mut defs: Vec<Definition> = Vec::new();
    for _ in 0..2 {
        let before = defs.len();
        for (rel, path) in &files {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            for d in definitions(rel, &text, &known) {
                if !defs.iter().any(|x| x.name == d.name) {
                    defs.push(d);
                }
            }
        }
        for d in &defs[before..] {
            known.insert(d.name.clone(), ());
        }
        if defs.len() == before {
            break;
        }
    }
    if truncated {
        eprintln!("note: read the first {MAX_FILES} source files only");
    }
    if args.json {
        match serde_json::to_string_pretty(&defs) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        print!("{}", block(&defs, &args.dir.display().to_string()));
    }
    ExitCode::SUCCESS
}

/// Source files under `dir`, with their path relative to `root` (`/`-separated). True when
/// the walk stopped at `MAX_FILES`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= MAX_FILES {
            return true;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if name.starts_with('.') || kind.is_symlink() {
            continue;
        }
        let path = e.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if kind.is_dir() {
            if SKIP_DIRS.contains(&name.as_str()) || lang::is_vendored(&format!("{rel}/x")) {
                continue;
            }
            if walk(root, &path, out) {
                return true;
            }
        } else if kind.is_file()
            && Lang::from_path(&rel).is_some()
            && !lang::is_test_file(&rel)
            && !lang::is_generated_path(&rel)
            && e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES)
        {
            out.push((rel, path));
        }
    }
    false
}
