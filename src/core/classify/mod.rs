//! Is a change concurrency-touching? A pure function over a PR's files and the repository
//! config, with the reasons (file, line, rule, text) for its answer.
//!
//! Only added and removed lines count, with comments and string literals blanked out by the
//! language's lexer. An Aho-Corasick prefilter over each rule's anchors picks the few candidate
//! lines and rules; only those run their regex.

use std::collections::HashMap;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::bytes::Regex;
use serde::Serialize;

use super::config::{PathMatcher, RepoConfig, TestChanges};

pub mod diff;
mod embedded;
pub mod lang;
pub mod rules;
pub mod statements;
mod test_changes;
pub mod vocabulary;
pub mod words;

use globset::GlobSet;

use diff::{FileChange, LineKind, patch_lines};
use lang::{Lang, LexState, resync, strip_line};
use rules::PATH_WORDS;
use test_changes::{Hit, Shape, changed_synchronization};

/// Why a change counts (or, for `no-patch`, what could not be read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    pub file: String,
    pub line: Option<u32>,
    pub rule: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub concurrency: bool,
    pub reasons: Vec<Reason>,
}

/// Rule name for a file matched by the config's `paths`.
pub const RULE_CONFIG_PATHS: &str = "config.paths";
/// Rule name for a patchless file whose path names a concurrency concept.
pub const RULE_PATH_NAME: &str = "path.name";
/// Rule name for an identifier the config's `primitives` name.
pub const RULE_PRIMITIVES: &str = "config.primitives";
/// Informational: a patchless file that no path rule matched (does not count).
pub const RULE_NO_PATCH: &str = "no-patch";

/// Most reasons reported for one file and in all (the verdict is settled long before).
const MAX_REASONS_PER_FILE: usize = 50;
const MAX_REASONS: usize = 1000;
const MAX_TEXT: usize = 200;

/// The compiled rule set for one language.
struct LangRules {
    prefilter: AhoCorasick,
    /// Anchor pattern id → indexes into `rules`.
    by_anchor: Vec<Vec<usize>>,
    /// (name, pattern, look-alikes that are not matches).
    rules: Vec<(&'static str, Regex, Option<Regex>)>,
}

impl LangRules {
    /// The first rule (in the anchors' order) that `subject` matches.
    fn first_rule(&self, subject: &[u8]) -> Option<&'static str> {
        self.prefilter
            .find_overlapping_iter(subject)
            .flat_map(|m| self.by_anchor[m.pattern().as_usize()].iter())
            .map(|&idx| &self.rules[idx])
            .find(|(_, re, unless)| {
                re.is_match(subject) && !unless.as_ref().is_some_and(|u| u.is_match(subject))
            })
            .map(|(name, _, _)| *name)
    }
}

fn engine() -> &'static HashMap<Lang, LangRules> {
    static ENGINE: OnceLock<HashMap<Lang, LangRules>> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let langs = Lang::ALL;
        langs
            .into_iter()
            .map(|l| {
                let mut anchors: Vec<&str> = Vec::new();
                let mut by_anchor: Vec<Vec<usize>> = Vec::new();
                let mut rules = Vec::new();
                for rule in rules::all().filter(|r| r.langs.contains(&l)) {
                    let idx = rules.len();
                    // The rule table is a constant: a pattern that does not compile is a bug
                    // caught by the unit tests, never input-dependent.
                    let re = Regex::new(rule.pattern).expect("rule patterns are valid");
                    let unless = rule
                        .unless
                        .map(|u| Regex::new(u).expect("rule patterns are valid"));
                    rules.push((rule.name, re, unless));
                    for a in rule.anchors {
                        match anchors.iter().position(|x| x == a) {
                            Some(p) => by_anchor[p].push(idx),
                            None => {
                                anchors.push(a);
                                by_anchor.push(vec![idx]);
                            }
                        }
                    }
                }
                let prefilter = AhoCorasick::new(&anchors).expect("anchors are valid");
                (
                    l,
                    LangRules {
                        prefilter,
                        by_anchor,
                        rules,
                    },
                )
            })
            .collect()
    })
}

/// The rule a line of `language` code (comments and strings already blanked) matches: the
/// language's rules, then names read by their sub-words. For `vocabulary`.
pub fn line_rule(language: Lang, code: &[u8]) -> Option<&'static str> {
    engine()
        .get(&language)
        .and_then(|r| r.first_rule(code))
        .or_else(|| {
            words::primitive_word(code, !matches!(language, Lang::Go | Lang::Rust))
                .map(|_| words::RULE_WORDS)
        })
}

/// Classifies a change under `config`.
pub fn classify(files: &[FileChange], config: &RepoConfig) -> Classification {
    Classifier::new(config).classify(files)
}

/// What classification did with one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Treatment {
    Counted(Vec<Reason>),
    /// Considered; no added or removed line touches concurrency code.
    NothingFound,
    IgnoredByConfig,
    /// Lock files, vendored, generated code, documentation.
    NeverCounts,
    /// A test file in a change that touches only test files, which does not change the
    /// synchronization of existing test code (`test_changes_count: sync`), or any test file
    /// of such a change (`false`).
    TestOnlyChange,
    UnknownLanguage,
}

impl Treatment {
    pub fn why(&self) -> &'static str {
        match self {
            Treatment::Counted(_) => "counted",
            Treatment::NothingFound => "no added or removed line touches concurrency code",
            Treatment::IgnoredByConfig => "ignored by the config (`ignore`)",
            Treatment::NeverCounts => "a lock file, vendored or generated code, or documentation",
            Treatment::TestOnlyChange => {
                "a test file, and the change touches only test files without changing the synchronization of the tests already there (`test_changes_count`)"
            }
            Treatment::UnknownLanguage => "not a source language the rules read",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileNote {
    pub path: String,
    pub treatment: Treatment,
}

/// Each file's treatment, for `classify --explain`.
pub fn explain_files(files: &[FileChange], config: &RepoConfig) -> Vec<FileNote> {
    let c = Classifier::new(config);
    let test_changes: Vec<bool> = files.iter().map(is_test_change).collect();
    let tests_count = c.tests_count(files, &test_changes);
    files
        .iter()
        .zip(&test_changes)
        .map(|(f, &test_change)| {
            let path = f.path.as_str();
            let treatment = if c.ignore.is_match(path) {
                Treatment::IgnoredByConfig
            } else if never_counts(path) {
                Treatment::NeverCounts
            } else {
                let (counted, reasons) = classify_file(f, test_change, tests_count, &c);
                if counted {
                    Treatment::Counted(reasons)
                } else if test_change && tests_count != Tests::Count {
                    Treatment::TestOnlyChange
                } else if Lang::from_path(path).is_none() {
                    Treatment::UnknownLanguage
                } else {
                    Treatment::NothingFound
                }
            };
            FileNote {
                path: path.to_string(),
                treatment,
            }
        })
        .collect()
}

/// A config with its globs compiled, for classifying many changes.
pub struct Classifier<'c> {
    config: &'c RepoConfig,
    ignore: PathMatcher,
    always: PathMatcher,
    /// The config's `primitives`, compiled; `None` when it names none.
    primitives: Option<GlobSet>,
}

impl<'c> Classifier<'c> {
    pub fn new(config: &'c RepoConfig) -> Self {
        Classifier {
            config,
            ignore: PathMatcher::new(&config.ignore),
            always: PathMatcher::new(&config.paths),
            primitives: primitives_set(&config.primitives),
        }
    }

    /// How a PR's test files count. When the PR also changes code, its tests are part of the
    /// change and count like the rest (a fix with its concurrent test is a concurrency PR).
    /// When it changes ONLY test files: `true` counts them, `false` never, and `sync` (the
    /// default) counts what changes the synchronization of test code already there.
    /// `test_changes`: each file's [`is_test_change`].
    fn tests_count(&self, files: &[FileChange], test_changes: &[bool]) -> Tests {
        let code_too = files.iter().zip(test_changes).any(|(f, &test_change)| {
            let p = f.path.as_str();
            !test_change
                && !self.ignore.is_match(p)
                && !never_counts(p)
                && Lang::from_path(p).is_some()
        });
        match self.config.test_changes_count {
            _ if code_too => Tests::Count,
            TestChanges::True => Tests::Count,
            TestChanges::Sync => Tests::SyncOnly,
            TestChanges::False => Tests::Skip,
        }
    }

    pub fn classify(&self, files: &[FileChange]) -> Classification {
        let mut reasons = Vec::new();
        let mut concurrency = false;
        let test_changes: Vec<bool> = files.iter().map(is_test_change).collect();
        let tests_count = self.tests_count(files, &test_changes);
        for (file, &test_change) in files.iter().zip(&test_changes) {
            if reasons.len() >= MAX_REASONS {
                break;
            }
            let (counted, found) = classify_file(file, test_change, tests_count, self);
            concurrency |= counted;
            reasons.extend(found);
        }
        reasons.truncate(MAX_REASONS);
        Classification {
            concurrency,
            reasons,
        }
    }
}

/// A test file, or a source file whose change lies inside its own test blocks only (Zig
/// `test "…" {}`, Rust `#[cfg(test)] mod tests`): both are judged as tests are.
fn is_test_change(f: &FileChange) -> bool {
    let path = f.path.as_str();
    lang::is_test_file(path)
        || Lang::from_path(path).is_some_and(|l| {
            f.patch
                .as_deref()
                .is_some_and(|p| embedded::only_embedded_tests(l, p))
        })
}

/// How the test files of a change count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tests {
    /// Like any other code.
    Count,
    /// Only what changes the synchronization of existing test code.
    SyncOnly,
    Skip,
}

/// Files that are never considered, whatever the config says.
pub fn never_counts(path: &str) -> bool {
    lang::is_lock_file(path)
        || lang::is_vendored(path)
        || lang::is_documentation(path)
        || lang::is_generated_path(path)
}

/// The `primitives` names and globs as one set over identifiers (a glob's `*` spans any
/// characters). Names that do not compile were refused when the config was read.
fn primitives_set(names: &[String]) -> Option<GlobSet> {
    if names.is_empty() {
        return None;
    }
    let mut b = globset::GlobSetBuilder::new();
    for n in names {
        if let Ok(g) = globset::GlobBuilder::new(n)
            .literal_separator(false)
            .build()
        {
            b.add(g);
        }
    }
    b.build().ok()
}

/// `test_change`: the file's [`is_test_change`].
fn classify_file(
    file: &FileChange,
    test_change: bool,
    tests_count: Tests,
    c: &Classifier,
) -> (bool, Vec<Reason>) {
    let (ignore, always) = (&c.ignore, &c.always);
    let path = file.path.as_str();
    if ignore.is_match(path) || never_counts(path) {
        return (false, Vec::new());
    }
    let mut reasons = Vec::new();
    if always.is_match(path) {
        reasons.push(Reason {
            file: path.to_string(),
            line: None,
            rule: RULE_CONFIG_PATHS.into(),
            text: "matches a `paths` glob in .github/repro-gate.yml".into(),
        });
    }
    let sync_only = test_change && tests_count == Tests::SyncOnly;
    if test_change && tests_count == Tests::Skip {
        let counted = !reasons.is_empty();
        return (counted, reasons);
    }
    let Some(language) = Lang::from_path(path) else {
        let counted = !reasons.is_empty();
        return (counted, reasons);
    };
    match file.patch.as_deref() {
        None if sync_only => {
            let counted = !reasons.is_empty();
            (counted, reasons)
        }
        None => {
            if let Some(word) = concurrency_path_word(path) {
                reasons.push(Reason {
                    file: path.to_string(),
                    line: None,
                    rule: RULE_PATH_NAME.into(),
                    text: format!(
                        "no patch available (binary or too large); the path names `{word}`"
                    ),
                });
            } else if reasons.is_empty() {
                reasons.push(Reason {
                    file: path.to_string(),
                    line: None,
                    rule: RULE_NO_PATCH.into(),
                    text: "no patch available (binary or too large); no path rule matched".into(),
                });
                return (false, reasons);
            }
            (true, reasons)
        }
        Some(patch) => {
            if lang::patch_says_generated(patch) {
                return (false, Vec::new());
            }
            scan_patch(
                path,
                language,
                patch,
                sync_only,
                c.primitives.as_ref(),
                &mut reasons,
            );
            if reasons.is_empty() {
                moved_across_sync(path, language, patch, &mut reasons);
            }
            let counted = reasons.iter().any(|r| r.rule != RULE_NO_PATCH);
            (counted, reasons)
        }
    }
}

fn concurrency_path_word(path: &str) -> Option<&'static str> {
    let lower = path.to_ascii_lowercase();
    let stem = lower.rsplit_once('.').map(|(s, _)| s).unwrap_or(&lower);
    stem.split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|w| PATH_WORDS.iter().find(|p| **p == w).copied())
}

fn scan_patch(
    path: &str,
    language: Lang,
    patch: &str,
    sync_only: bool,
    primitives: Option<&GlobSet>,
    reasons: &mut Vec<Reason>,
) {
    let Some(rules) = engine().get(&language) else {
        return;
    };
    let mut new_state = LexState::Code;
    let mut old_state = LexState::Code;
    let mut code = Vec::with_capacity(256);
    let mut candidates: Vec<usize> = Vec::new();
    let mut matched: Vec<&'static str> = Vec::new();
    let start = reasons.len();
    // With `sync_only`, every line's kind and hunk, and the matches on context lines too.
    let mut kinds: Vec<(LineKind, usize)> = Vec::new();
    let mut shapes: Vec<Shape> = Vec::new();
    let mut hits: Vec<Hit> = Vec::new();
    let mut hunk = 0usize;
    for (at, line) in patch_lines(patch).enumerate() {
        if line.hunk_start {
            new_state = LexState::Code;
            old_state = LexState::Code;
            hunk += 1;
        }
        if sync_only {
            kinds.push((line.kind, hunk));
            shapes.push(Shape::of(line.text));
        }
        // Each side resyncs on the lines it reads.
        new_state = if line.kind == LineKind::Removed {
            new_state
        } else {
            resync(language, line.text, new_state)
        };
        old_state = if line.kind == LineKind::Added {
            old_state
        } else {
            resync(language, line.text, old_state)
        };
        match line.kind {
            LineKind::Context => {
                // Context advances both sides; one lexing serves both when they agree.
                let before = new_state;
                new_state = strip_line(language, line.text, new_state, &mut code);
                old_state = if old_state == before {
                    new_state
                } else {
                    strip_line(language, line.text, old_state, &mut code)
                };
                if !sync_only {
                    continue;
                }
            }
            LineKind::Added => new_state = strip_line(language, line.text, new_state, &mut code),
            LineKind::Removed => old_state = strip_line(language, line.text, old_state, &mut code),
        }
        // Import paths are string literals (Go `"sync/atomic"`, JS `from "worker_threads"`):
        // on an import line the raw text is what names the package.
        let subject: &[u8] = if is_import_line(language, &code) {
            line.text.as_bytes()
        } else {
            &code
        };
        candidates.clear();
        for m in rules.prefilter.find_overlapping_iter(subject) {
            candidates.extend_from_slice(&rules.by_anchor[m.pattern().as_usize()]);
        }
        candidates.sort_unstable();
        candidates.dedup();

        matched.clear();
        // The name a sub-word or `primitives` hit is on (a language rule's shape has none: a
        // change beside it, `make(chan T)` → `make(chan T, n)`, may be the change).
        let mut key: &[u8] = &[];
        for &idx in &candidates {
            let (name, re, unless) = &rules.rules[idx];
            if re.is_match(subject) && !unless.as_ref().is_some_and(|u| u.is_match(subject)) {
                matched.push(name);
                if sync_only {
                    break;
                }
            }
        }
        // The repository's own words, and names read by their sub-words, where no rule of the
        // language spoke (docs/classification.md).
        if matched.is_empty() && !names_a_module(subject) {
            if let Some(set) = primitives
                && let Some(id) = words::identifiers(subject)
                    .find(|id| std::str::from_utf8(id).is_ok_and(|id| set.is_match(id)))
            {
                matched.push(RULE_PRIMITIVES);
                key = id;
            } else if let Some(word) =
                words::primitive_word(subject, !matches!(language, Lang::Go | Lang::Rust))
            {
                matched.push(words::RULE_WORDS);
                key = word.as_bytes();
            }
        }
        for &name in &matched {
            if sync_only {
                // One hit per line is enough to place it.
                hits.push(Hit {
                    at,
                    kind: line.kind,
                    rule: name,
                    line: line.line,
                    text: clip(line.text.trim()),
                    key: String::from_utf8_lossy(key).into_owned(),
                });
                break;
            }
            reasons.push(Reason {
                file: path.to_string(),
                line: line.line,
                rule: name.to_string(),
                text: clip(line.text.trim()),
            });
            if reasons.len() - start >= MAX_REASONS_PER_FILE {
                return;
            }
        }
    }
    if sync_only {
        for h in changed_synchronization(&kinds, &shapes, &hits) {
            reasons.push(Reason {
                file: path.to_string(),
                line: h.line,
                rule: h.rule.to_string(),
                text: h.text.clone(),
            });
            if reasons.len() - start >= MAX_REASONS_PER_FILE {
                return;
            }
        }
    }
}

/// Statements moved across a synchronization point that stands on a context line (a lock
/// taken, a guard's scope): the moved code changed which side of it it runs on.
fn moved_across_sync(path: &str, language: Lang, patch: &str, reasons: &mut Vec<Reason>) {
    let Some(rules) = engine().get(&language) else {
        return;
    };
    let sync_point = |text: &str| rules.first_rule(text.as_bytes());
    let moved = statements::moved_across_sync(patch_lines(patch), sync_point)
        .into_iter()
        .map(|m| (format!("{}.moved-across", m.rule), m));
    let orderings = if language == Lang::Rust {
        statements::orderings_in_atomic_calls(patch_lines(patch))
    } else {
        Vec::new()
    };
    let orderings = orderings.into_iter().map(|m| (m.rule.to_string(), m));
    for (rule, m) in moved.chain(orderings) {
        reasons.push(Reason {
            file: path.to_string(),
            line: m.line,
            rule,
            text: clip(m.text),
        });
        if reasons.len() >= MAX_REASONS_PER_FILE {
            return;
        }
    }
}

/// A line that only names modules (`use thread_pool::Registry;`, `import lock_utils`,
/// `#include "mutex_utils.h"`, `mod atomic_ops;`): a module's name is no use of a primitive, so
/// the sub-word reading skips it (a rename of `thread_pool.rs` changes such lines only).
fn names_a_module(code: &[u8]) -> bool {
    let t = code.trim_ascii_start();
    let t = t.strip_prefix(b"pub ").unwrap_or(t);
    [
        &b"use "[..],
        b"mod ",
        b"import ",
        b"from ",
        b"#include",
        b"# include",
        b"package ",
        b"@import",
        b"-include",
        b"alias ",
        b"require ",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

fn is_import_line(language: Lang, code: &[u8]) -> bool {
    static GO: OnceLock<Regex> = OnceLock::new();
    static JS: OnceLock<Regex> = OnceLock::new();
    let re = match language {
        Lang::Go => GO.get_or_init(|| {
            Regex::new(r#"^\s*(?:import\s*\(?\s*)?(?:[\w.]+\s+)?""\s*\)?\s*;?\s*$"#).expect("valid")
        }),
        Lang::JavaScript => JS.get_or_init(|| {
            Regex::new(r#"\bfrom\s*""|\brequire\s*\(\s*""\s*\)|^\s*import\s*(?:\(\s*)?"""#)
                .expect("valid")
        }),
        _ => return false,
    };
    re.is_match(code)
}

fn clip(s: &str) -> String {
    if s.len() <= MAX_TEXT {
        return s.to_string();
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests;
