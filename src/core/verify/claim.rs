//! The claim a description makes, checked before anything is dispatched: a test id and a seed
//! travel as workflow inputs and reach a shell (quoted) and a test runner's command line, so only
//! what can be passed as plain data is accepted; anything else is `could not run` with the reason.

use serde::Serialize;

use crate::core::classify::diff::{FileChange, FileStatus};
use crate::core::classify::lang::is_test_file;
use crate::core::evidence::{EvidenceKind, EvidenceVerdict};

/// Longest test id passed to the workflow.
pub const MAX_TEST_LEN: usize = 300;
/// Longest seed passed to the workflow.
pub const MAX_SEED_LEN: usize = 64;
/// Most test files laid over the merge base (docs/verification.md).
pub const MAX_TEST_FILES: usize = 100;

/// What the description says reproduces the bug.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Claim {
    pub kind: EvidenceKind,
    /// The test named (none: a seed alone, run by `verify.command`).
    pub test: Option<String>,
    pub seed: Option<String>,
}

impl Claim {
    /// The `test` input: the test, or for a seed alone a name for the command's runs.
    pub fn test_input(&self) -> String {
        match (&self.test, &self.seed) {
            (Some(t), _) => t.clone(),
            (None, Some(s)) => format!("seed-{s}"),
            (None, None) => "reproduction".into(),
        }
    }

    /// Identifies the claim among a PR's sessions: an edit that changes it starts a new one.
    pub fn key(&self) -> String {
        format!(
            "{}\u{1f}{}",
            self.test.as_deref().unwrap_or(""),
            self.seed.as_deref().unwrap_or("")
        )
    }

    /// Whether the claim can be passed to the workflow as plain data; the reason when not.
    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = &self.test {
            safe_test(t)?;
        }
        if let Some(s) = &self.seed {
            safe_seed(s)?;
        }
        Ok(())
    }
}

/// The claim to verify: a seed with its test first (the most precise), else a forcing test, else
/// with `verify.command` set a seed alone. `None`: the description claims nothing runnable (a
/// trace, or no evidence).
pub fn claim_of(evidence: &EvidenceVerdict, command_set: bool) -> Option<Claim> {
    let seeded = evidence
        .evidence
        .iter()
        .find(|e| e.kind == EvidenceKind::Seed && e.test.is_some() && e.seed.is_some());
    if let Some(e) = seeded {
        return Some(Claim {
            kind: EvidenceKind::Seed,
            test: e.test.clone(),
            seed: e.seed.clone(),
        });
    }
    if let Some(e) = evidence
        .evidence
        .iter()
        .find(|e| e.kind == EvidenceKind::Interleaving && e.test.is_some())
    {
        return Some(Claim {
            kind: EvidenceKind::Interleaving,
            test: e.test.clone(),
            seed: None,
        });
    }
    if command_set {
        let seed = evidence
            .evidence
            .iter()
            .find(|e| e.kind == EvidenceKind::Seed)
            .and_then(|e| e.seed.clone())
            .or_else(|| evidence.lone_seeds.first().cloned())?;
        return Some(Claim {
            kind: EvidenceKind::Seed,
            test: None,
            seed: Some(seed),
        });
    }
    None
}

/// A character named in a reason: a safe code span (reasons are shown on GitHub as markdown).
fn describe(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("the character U+{:04X}", c as u32)
    } else {
        crate::core::markdown::code(&c.to_string())
    }
}

/// A test id that reaches a runner as one argument: letters, digits, spaces inside, and the
/// punctuation test ids are made of (`_ . / : @ + - = , # [ ] ( )` and jest's `›`); not
/// starting with `-` (it would read as an option).
pub fn safe_test(t: &str) -> Result<(), String> {
    if t.trim().is_empty() {
        return Err("the test id is empty".into());
    }
    if t.len() > MAX_TEST_LEN {
        return Err(format!(
            "the test id is longer than {MAX_TEST_LEN} characters"
        ));
    }
    if t.starts_with('-') {
        return Err("the test id starts with `-`, which a runner reads as an option".into());
    }
    // The workflow hands a runner the part after `path::` (cargo, Go) or after `›` (jest):
    // none of the parts may read as an option either.
    if after_separators(t).any(|rest| rest.trim_start_matches(' ').starts_with('-')) {
        return Err(
            "a part of the test id after `::` or `›` starts with `-`, which a runner reads as an option"
                .into(),
        );
    }
    if t != t.trim() {
        return Err("the test id starts or ends with a space".into());
    }
    // A path segment `..` would name a folder outside the checkout.
    if std::iter::once(t)
        .chain(after_separators(t))
        .chain(t.match_indices('/').map(|(i, _)| &t[i + 1..]))
        .any(|rest| {
            let rest = rest.trim_start_matches(' ');
            rest.strip_prefix("..").is_some_and(|tail| {
                let tail = tail.trim_start_matches(' ');
                tail.is_empty() || tail.starts_with("::") || tail.starts_with('/')
            })
        })
    {
        return Err("the test id holds a `..` path segment".into());
    }
    if let Some(c) = t
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || " _./:@+-=,#[]()›".contains(c)))
    {
        return Err(format!(
            "the test id holds {}, which cannot be passed to the workflow as plain data",
            describe(c)
        ));
    }
    Ok(())
}

/// What follows each `::` and each `›` of `t`, every occurrence counted (`:::` holds two
/// `::`), as the rerun workflow's regular expressions find them: the two checks stay one.
fn after_separators(t: &str) -> impl Iterator<Item = &str> {
    t.char_indices().filter_map(move |(i, _)| {
        let rest = &t[i..];
        rest.strip_prefix("::").or_else(|| rest.strip_prefix('›'))
    })
}

/// A seed: 1 to 64 letters, digits or `_` (decimal, `0x…` hex, a named seed).
pub fn safe_seed(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the seed is empty".into());
    }
    if s.len() > MAX_SEED_LEN {
        return Err(format!("the seed is longer than {MAX_SEED_LEN} characters"));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(format!(
            "the seed holds {}: a seed is letters, digits and `_`",
            describe(c)
        ));
    }
    Ok(())
}

/// A repository path the `tests` input may carry: `[A-Za-z0-9._/@+-]`, no `..`, not absolute.
pub fn safe_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 255
        && !p.starts_with('/')
        && !p.starts_with('-')
        && !p.split('/').any(|c| c == ".." || c.is_empty())
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/@+-".contains(&b))
}

/// The PR's test files (by the classifier's rule) that it adds or changes: laid over the merge
/// base as they are at the head, so the base side runs the PR's tests against the code without
/// the change. A removed test file stays as the base has it. Refused, with the reason, when a
/// path cannot be passed as data or there are more than [`MAX_TEST_FILES`].
pub fn test_files_for_base(files: &[FileChange]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for f in files {
        if f.status == FileStatus::Removed || !is_test_file(&f.path) {
            continue;
        }
        if !safe_path(&f.path) {
            return Err(format!(
                "the test file {} has a path the workflow cannot take (only letters, digits and `._/@+-`, no `..`)",
                crate::core::markdown::code(&f.path.chars().take(120).collect::<String>())
            ));
        }
        if !out.contains(&f.path) {
            out.push(f.path.clone());
        }
    }
    if out.len() > MAX_TEST_FILES {
        return Err(format!(
            "the PR changes {} test files; at most {MAX_TEST_FILES} can be laid over the merge base",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evidence::check_body;

    fn file(path: &str, status: FileStatus) -> FileChange {
        FileChange {
            path: path.into(),
            previous_path: None,
            status,
            patch: None,
        }
    }

    #[test]
    fn a_seed_with_its_test_is_the_claim() {
        let v = check_body(
            "## Reproduction\nkind: seed\ntest: services/pool/integration::TestPoolCheckoutUnderLoad\nseed: 7311\nbase: fails 100/100\n",
            None,
        );
        let c = claim_of(&v, false).expect("a claim");
        assert_eq!(c.kind, EvidenceKind::Seed);
        assert_eq!(c.seed.as_deref(), Some("7311"));
        assert!(
            c.test
                .as_deref()
                .unwrap()
                .ends_with("TestPoolCheckoutUnderLoad")
        );
        assert_eq!(c.check(), Ok(()));
    }

    #[test]
    fn a_seed_alone_is_a_claim_only_with_a_command() {
        let v = check_body(
            "The simulator fails with seed 424242 before this change.\n",
            None,
        );
        assert!(!v.satisfied, "{v:?}");
        assert_eq!(claim_of(&v, false), None);
        let c = claim_of(&v, true).expect("a claim for the command");
        assert_eq!(
            (c.test.as_deref(), c.seed.as_deref()),
            (None, Some("424242"))
        );
        assert_eq!(c.test_input(), "seed-424242");
    }

    #[test]
    fn a_trace_is_no_claim_to_rerun() {
        let v = check_body(
            "```\nWARNING: DATA RACE\nWrite at 0x01 by goroutine 7:\n  pkg.f()\n      /x/a.go:3\nPrevious read at 0x01 by goroutine 8:\n  pkg.g()\n      /x/a.go:9\n```\n",
            None,
        );
        assert!(v.satisfied);
        assert_eq!(claim_of(&v, true), None);
    }

    #[test]
    fn the_key_changes_with_the_test_or_the_seed() {
        let a = Claim {
            kind: EvidenceKind::Seed,
            test: Some("T".into()),
            seed: Some("1".into()),
        };
        let b = Claim {
            seed: Some("2".into()),
            ..a.clone()
        };
        let c = Claim {
            test: Some("U".into()),
            ..a.clone()
        };
        assert_ne!(a.key(), b.key());
        assert_ne!(a.key(), c.key());
        assert_eq!(a.key(), a.clone().key());
    }

    #[test]
    fn test_ids_that_are_not_plain_data_are_refused_with_the_reason() {
        for ok in [
            "services/pool::TestCheckoutWakeupOrdering",
            "tests/test_pool.py::test_checkout[slow-2]",
            "src/pool.test.ts › Pool › wakes a waiter",
            "pool::tests::wakeup_ordering",
            "com.acme.PoolTest#wakeup()",
            "src/math.test.ts › returns -1 for an empty list",
            "pool::TestRange/-1",
            "pool::TestRange/..x",
            "pool::x..y",
        ] {
            assert_eq!(safe_test(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("-run=.*", "option"),
            ("services/x::--logfile=/tmp/x", "option"),
            ("tests/a.rs::mod::-q", "option"),
            ("src/a.test.ts › --watch", "option"),
            ("TestX$(touch /tmp/p)", "`$`"),
            ("TestX; rm -rf /", "`;`"),
            ("Test`id`", "`"),
            ("TestX\nTestY", "U+000A"),
            ("TestX'", "`'`"),
            ("", "empty"),
            (" TestX", "space"),
            ("../../etc::TestA", "`..`"),
            ("pool/../../x::TestA", "`..`"),
            ("-exec=sh -c \"touch CANARY\"::TestX", "option"),
            ("pool::--include-ignored", "option"),
            // Every `::` counts, as the workflow's regular expression finds them.
            ("pool:::-q", "option"),
            ("pool:::..", "`..`"),
            ("pool:: .. ::TestA", "`..`"),
        ] {
            let e = safe_test(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        assert!(safe_test(&"T".repeat(301)).is_err());
    }

    #[test]
    fn seeds_are_letters_digits_and_underscores() {
        for ok in ["7311", "0x5eed", "seed_1", "18446744073709551615"] {
            assert_eq!(safe_seed(ok), Ok(()), "{ok}");
        }
        for bad in ["-1", "1;2", "$(x)", "", "1 2"] {
            assert!(safe_seed(bad).is_err(), "{bad:?}");
        }
        assert!(safe_seed(&"9".repeat(65)).is_err());
    }

    #[test]
    fn the_base_side_gets_the_prs_added_and_changed_test_files() {
        let files = [
            file("services/pool/pool.go", FileStatus::Modified),
            file("services/pool/wakeup_test.go", FileStatus::Added),
            file("services/pool/old_test.go", FileStatus::Removed),
            file("tests/test_pool.py", FileStatus::Modified),
            file("src/pool.test.ts", FileStatus::Renamed),
        ];
        assert_eq!(
            test_files_for_base(&files).unwrap(),
            [
                "services/pool/wakeup_test.go",
                "tests/test_pool.py",
                "src/pool.test.ts"
            ]
        );
        assert!(test_files_for_base(&[file("a b/x_test.go", FileStatus::Added)]).is_err());
        assert!(test_files_for_base(&[file("../x_test.go", FileStatus::Added)]).is_err());
        let many: Vec<FileChange> = (0..101)
            .map(|i| file(&format!("pkg/t{i}_test.go"), FileStatus::Added))
            .collect();
        assert!(test_files_for_base(&many).unwrap_err().contains("101"));
        assert_eq!(test_files_for_base(&many[..100]).unwrap().len(), 100);
    }
}
