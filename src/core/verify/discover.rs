//! Found in the PR's tests (docs/verification.md#found-in-the-prs-tests), pure: the tests a
//! changed test file declares (Go `func TestX`, pytest `def test_x` and `class TestX`, Rust
//! `#[test] fn x` in its modules), which of them the diff declares or changes, what each did
//! on each side of the find round, the candidates verified as claims, and the verdict when
//! there is none. Every scan here is one pass over the file's lines.

use serde::Serialize;

use super::verdict::{Outcome, Verdict};

/// Most tests one find round runs (all the changed files together).
pub const MAX_FOUND: usize = 200;

/// Candidates verified at most when the config says nothing (`verify.discover_max`).
pub const DEFAULT_MAX: u32 = 3;

/// A test a file declares, and the lines of the file it spans (1-based, inclusive): its
/// declaration (attributes included) to its body's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub id: String,
    pub first: u32,
    pub last: u32,
}

/// The tests `text` (the file at `path`, as the head has it) declares, in file order; none for
/// a language this does not read (jest's titles are not names a runner selects reliably).
pub fn declared_tests(path: &str, text: &str) -> Vec<Declared> {
    let mut out = if path.ends_with(".go") {
        go_tests(path, text)
    } else if path.ends_with(".py") {
        python_tests(path, text)
    } else if path.ends_with(".rs") {
        rust_tests(path, text)
    } else {
        Vec::new()
    };
    out.truncate(MAX_FOUND);
    out
}

/// The folder of `path` (`.` at the top).
fn folder(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some((dir, _)) if !dir.is_empty() => dir,
        _ => ".",
    }
}

/// An identifier's characters.
fn ident(s: &str) -> &str {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(s.len(), |(i, _)| i);
    &s[..end]
}

fn line_no(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// `func TestX(t *testing.T)` at the top level: `dir::TestX`; its body ends at the next `}` in
/// the first column (gofmt's layout), else before the next top-level declaration.
fn go_tests(path: &str, text: &str) -> Vec<Declared> {
    let dir = folder(path);
    let mut out: Vec<Declared> = Vec::new();
    let mut open: Option<usize> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("func Test") {
            let suffix = ident(rest);
            let name_ok = !suffix.starts_with(|c: char| c.is_lowercase())
                && rest[suffix.len()..].starts_with('(')
                && rest.contains("*testing.T");
            if name_ok {
                if let Some(o) = open.take()
                    && let Some(d) = out.get_mut(o)
                {
                    d.last = line_no(i.saturating_sub(1));
                }
                out.push(Declared {
                    id: format!("{dir}::Test{suffix}"),
                    first: line_no(i),
                    last: line_no(lines.len().saturating_sub(1)),
                });
                open = Some(out.len() - 1);
                continue;
            }
        }
        if let Some(o) = open {
            let ends = line.starts_with('}');
            let next_decl = ["func ", "type ", "var ", "const "]
                .iter()
                .any(|k| line.starts_with(k));
            if ends || next_decl {
                if let Some(d) = out.get_mut(o) {
                    d.last = line_no(if ends { i } else { i.saturating_sub(1) });
                }
                open = None;
            }
        }
    }
    out
}

/// Leading spaces (a tab counts as one: only comparisons within one file matter).
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `def test_x` at the top level (`file::test_x`) and inside a top-level `class TestX`
/// (`file::TestX::test_x`); a body ends at the next line indented no deeper than its `def`.
fn python_tests(path: &str, text: &str) -> Vec<Declared> {
    let mut out: Vec<Declared> = Vec::new();
    // The test class the lines are in, and the open test with its `def`'s indentation.
    let mut class: Option<String> = None;
    let mut open: Option<(usize, usize)> = None;
    let mut decorators_from: Option<usize> = None;
    // The last line of code before this one: where an open test's body ends.
    let mut prev_code = 0usize;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let ind = indent(line);
        if let Some((o, def_ind)) = open
            && ind <= def_ind
        {
            if let Some(d) = out.get_mut(o) {
                d.last = line_no(prev_code);
            }
            open = None;
        }
        prev_code = i;
        if ind == 0 {
            class = t
                .strip_prefix("class ")
                .map(ident)
                .filter(|n| n.starts_with("Test"))
                .map(str::to_string);
        }
        if t.starts_with('@') {
            decorators_from.get_or_insert(i);
            continue;
        }
        let def = t
            .strip_prefix("async def ")
            .or_else(|| t.strip_prefix("def "));
        if let Some(name) = def.map(ident).filter(|n| n.starts_with("test"))
            && (ind == 0 || class.is_some())
            && open.is_none()
        {
            let id = match (&class, ind) {
                (Some(c), n) if n > 0 => format!("{path}::{c}::{name}"),
                _ => format!("{path}::{name}"),
            };
            out.push(Declared {
                id,
                first: line_no(decorators_from.unwrap_or(i)),
                last: line_no(lines.len().saturating_sub(1)),
            });
            open = Some((out.len() - 1, ind));
        }
        decorators_from = None;
    }
    out
}

/// Whether an attribute line marks a test: `#[test]`, `#[tokio::test]`, `#[rstest]`, …
fn test_attribute(t: &str) -> bool {
    let Some(inner) = t.strip_prefix("#[") else {
        return false;
    };
    let path = inner.split([']', '(']).next().unwrap_or("").trim();
    path == "test" || path.ends_with("::test") || path == "rstest"
}

/// The id prefix of a Rust file's tests: the file for the crate's own `tests/` and `src/`
/// (core::test_ids reads those), else the test target's name of a member's `tests/x.rs`.
fn rust_prefix(path: &str) -> Option<String> {
    if path.starts_with("tests/") || path.starts_with("src/") {
        return Some(path.to_string());
    }
    let (_, rest) = path.rsplit_once("/tests/")?;
    let target = rest
        .strip_suffix("/main.rs")
        .or_else(|| rest.strip_suffix(".rs"))?;
    (!target.contains('/')).then(|| target.to_string())
}

/// Braces of a line outside `//` comments, strings and character literals (roughly: a
/// test's span only needs its closing brace).
fn braces(line: &str) -> (usize, usize) {
    let (mut open, mut close) = (0, 0);
    let mut in_str = false;
    let mut prev = ' ';
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            if c == '"' && prev != '\\' {
                in_str = false;
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => in_str = true,
            '\'' => {
                // A character literal ('{', '\'') is skipped; a lifetime ('a) is not one.
                let ahead: Vec<char> = chars.clone().take(3).collect();
                let skip = match ahead.as_slice() {
                    ['\\', _, '\'', ..] => 3,
                    [c, '\'', ..] if *c != '\\' => 2,
                    _ => 0,
                };
                for _ in 0..skip {
                    chars.next();
                }
            }
            '{' => open += 1,
            '}' => close += 1,
            _ => {}
        }
        prev = c;
    }
    (open, close)
}

/// `#[test] fn x` (and the async runtimes' test attributes) in the modules of a Rust file:
/// `tests/x.rs::inner::x`, `src/pool.rs::tests::x`.
fn rust_tests(path: &str, text: &str) -> Vec<Declared> {
    let Some(prefix) = rust_prefix(path) else {
        return Vec::new();
    };
    let mut out: Vec<Declared> = Vec::new();
    let mut depth = 0usize;
    // Open modules: name and the depth inside them.
    let mut mods: Vec<(String, usize)> = Vec::new();
    let mut attr_from: Option<usize> = None;
    let mut marked = false;
    // The open test: its index and the depth its body closes back to.
    let mut open: Option<(usize, usize)> = None;
    let mut pending_mod: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("#[") || t.starts_with("#![") {
            attr_from.get_or_insert(i);
            marked |= test_attribute(t);
        } else if !t.is_empty() && !t.starts_with("//") {
            let words: Vec<&str> = t.split_whitespace().collect();
            let fn_at = words.iter().position(|w| *w == "fn");
            let mod_at = words.iter().position(|w| *w == "mod");
            if let Some(f) = fn_at
                && marked
                && open.is_none()
                && let Some(name) = words.get(f + 1).map(|w| ident(w)).filter(|n| !n.is_empty())
            {
                let mut id = prefix.clone();
                for (m, _) in &mods {
                    id.push_str("::");
                    id.push_str(m);
                }
                id.push_str("::");
                id.push_str(name);
                out.push(Declared {
                    id,
                    first: line_no(attr_from.unwrap_or(i)),
                    last: line_no(i),
                });
                open = Some((out.len() - 1, depth));
            } else if let Some(m) = mod_at
                && fn_at.is_none()
                && let Some(name) = words.get(m + 1).map(|w| ident(w)).filter(|n| !n.is_empty())
                && !t.ends_with(';')
            {
                pending_mod = Some(name.to_string());
            }
            attr_from = None;
            marked = false;
        }
        let (o, c) = braces(line);
        if o > 0
            && let Some(m) = pending_mod.take()
        {
            mods.push((m, depth + 1));
        }
        depth = (depth + o).saturating_sub(c);
        if let Some((idx, d)) = open
            && depth <= d
            && (o > 0 || c > 0)
        {
            if let Some(x) = out.get_mut(idx) {
                x.last = line_no(i);
            }
            open = None;
        }
        while mods.last().is_some_and(|(_, d)| depth < *d) {
            mods.pop();
        }
    }
    out
}

/// Whether the diff declares or changes each test: an added line (new-file numbers) inside its
/// span.
pub fn changed(tests: &[Declared], added: &[u32]) -> Vec<bool> {
    let mut added = added.to_vec();
    added.sort_unstable();
    tests
        .iter()
        .map(|t| {
            let at = added.partition_point(|l| *l < t.first);
            added.get(at).is_some_and(|l| *l <= t.last)
        })
        .collect()
}

/// What a test did on one side of the find round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Seen {
    #[serde(rename = "passed")]
    Passed,
    #[serde(rename = "failed")]
    Failed,
    /// The test file (or what it needs) does not build there.
    #[serde(rename = "did not build")]
    DidNotBuild,
    /// The run holds no result of it (not found, no report).
    #[serde(rename = "no result")]
    NoResult,
}

impl Seen {
    pub fn as_str(self) -> &'static str {
        match self {
            Seen::Passed => "passed",
            Seen::Failed => "failed",
            Seen::DidNotBuild => "did not build",
            Seen::NoResult => "no result",
        }
    }
}

/// One test of the find round: what it did on each side, why it had no result, and whether the
/// diff declares or changes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    pub test: String,
    pub base: Seen,
    pub head: Seen,
    /// The diff declares the test or changes its body.
    pub changed: bool,
    /// Why `base` has no result (the first error line of a build), when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_reason: Option<String>,
}

/// The candidates: tests that failed on the merge base and passed on the head, those the diff
/// declares or changes first (otherwise in the round's order), at most `max`.
pub fn candidates(found: &[Found], max: u32) -> Vec<&Found> {
    let reproduces = |f: &&Found| f.base == Seen::Failed && f.head == Seen::Passed;
    let first = found.iter().filter(reproduces).filter(|f| f.changed);
    let then = found.iter().filter(reproduces).filter(|f| !f.changed);
    first
        .chain(then)
        .take(usize::try_from(max).unwrap_or(usize::MAX))
        .collect()
}

/// The verdict of a find round with no candidate, and why: a base whose tests do not build is
/// `could not run` with its first error line (a new API's test cannot fail without the API);
/// a head that does not run them is too; tests that fail on both sides `still fail`; else none
/// fails on the merge base: `does not fail without the change`.
pub fn without_candidate(found: &[Found]) -> Outcome {
    let could_not = |reason: String| Outcome {
        verdict: Verdict::CouldNotRun,
        reason: Some(reason),
    };
    if found.is_empty() {
        return could_not(
            "the test files HEAD adds or changes declare no test this can run (Go `func TestX`, pytest `def test_x`, Rust `#[test] fn x`): name the test with --test"
                .into(),
        );
    }
    if let Some(f) = found.iter().find(|f| f.base == Seen::DidNotBuild) {
        return could_not(format!(
            "the PR's tests do not build on the merge base ({}: {}): a test of a new API cannot fail without it; a reproduction must build without the change",
            f.test,
            f.base_reason.as_deref().unwrap_or("the build failed")
        ));
    }
    if let Some(f) = found
        .iter()
        .find(|f| matches!(f.head, Seen::DidNotBuild | Seen::NoResult))
    {
        return could_not(format!(
            "{} has no result on the head: {}",
            f.test,
            f.head_reason.as_deref().unwrap_or("no result")
        ));
    }
    if !found
        .iter()
        .any(|f| matches!(f.base, Seen::Passed | Seen::Failed))
    {
        return could_not(format!(
            "none of the PR's {} tests ran on the merge base: {}",
            found.len(),
            found
                .iter()
                .find_map(|f| f.base_reason.as_deref())
                .unwrap_or("no result")
        ));
    }
    let both = found
        .iter()
        .filter(|f| f.base == Seen::Failed && f.head == Seen::Failed)
        .count();
    if both > 0 {
        return Outcome {
            verdict: Verdict::StillFails,
            reason: Some(format!(
                "{both} of the PR's {} tests fail on the merge base and on the head, and none fails on the merge base only",
                found.len()
            )),
        };
    }
    Outcome {
        verdict: Verdict::DoesNotFail,
        reason: Some(none_fails(found.len())),
    }
}

/// "None of the PR's 7 tests fails on the merge base: …".
pub fn none_fails(n: usize) -> String {
    let tests = if n == 1 { "test" } else { "tests" };
    format!(
        "None of the PR's {n} {tests} fails on the merge base: none reproduces the bug. A test that forces the ordering fails there every time."
    )
}

/// The find round as a markdown table: each test, what it did on the merge base and on the
/// head, and whether the diff declares or changes it.
pub fn table(found: &[Found]) -> String {
    let mut s = String::from("| test | merge base | head | in the diff |\n|---|---|---|---|\n");
    for f in found {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            crate::core::markdown::code(&f.test),
            f.base.as_str(),
            f.head.as_str(),
            if f.changed { "declared or changed" } else { "" }
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(d: &[Declared]) -> Vec<(&str, u32, u32)> {
        d.iter().map(|d| (d.id.as_str(), d.first, d.last)).collect()
    }

    #[test]
    fn go_test_functions_of_a_file_with_their_spans() {
        let text = "package pool\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tx := 1\n}\n\nfunc helper() {}\n\nfunc Testlower(t *testing.T) {}\n\nfunc TestB(t *testing.T) {\n}\n";
        assert_eq!(
            ids(&declared_tests("pool/wake_test.go", text)),
            vec![("pool::TestA", 5, 7), ("pool::TestB", 13, 14)]
        );
        assert_eq!(
            ids(&declared_tests(
                "x_test.go",
                "func TestTop(t *testing.T) {}\n"
            )),
            vec![(".::TestTop", 1, 1)]
        );
    }

    #[test]
    fn pytest_functions_and_test_class_methods() {
        let text = "import pytest\n\ndef helper():\n    pass\n\n@pytest.mark.timeout(5)\ndef test_one():\n    assert x\n\nclass TestPool:\n    def test_two(self):\n        pass\n\n    def helper(self):\n        pass\n\nasync def test_three():\n    pass\n";
        assert_eq!(
            ids(&declared_tests("tests/test_pool.py", text)),
            vec![
                ("tests/test_pool.py::test_one", 6, 8),
                ("tests/test_pool.py::TestPool::test_two", 11, 12),
                ("tests/test_pool.py::test_three", 17, 18),
            ]
        );
    }

    #[test]
    fn rust_tests_in_their_modules() {
        let text = "use x::y;\n\n#[test]\nfn top() {\n    let c = '{';\n}\n\nmod inner {\n    #[tokio::test]\n    async fn nested() {\n        if a { b(); }\n    }\n\n    fn helper() {}\n}\n\n#[test]\nfn after() { \"}\"; }\n";
        assert_eq!(
            ids(&declared_tests("tests/wake.rs", text)),
            vec![
                ("tests/wake.rs::top", 3, 6),
                ("tests/wake.rs::inner::nested", 9, 12),
                ("tests/wake.rs::after", 17, 18),
            ]
        );
        let src = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn wakes() {\n        f();\n    }\n}\n";
        assert_eq!(
            ids(&declared_tests("src/pool.rs", src)),
            vec![("src/pool.rs::tests::wakes", 7, 10)]
        );
        assert_eq!(
            ids(&declared_tests(
                "crates/a/tests/it.rs",
                "#[test]\nfn x() {}\n"
            )),
            vec![("it::x", 1, 2)]
        );
    }

    #[test]
    fn other_files_declare_nothing_this_runs() {
        assert!(declared_tests("web/pool.test.ts", "it('wakes', () => {})\n").is_empty());
    }

    #[test]
    fn a_test_is_changed_when_an_added_line_falls_in_its_span() {
        let tests = declared_tests(
            "p/a_test.go",
            "func TestA(t *testing.T) {\n}\n\nfunc TestB(t *testing.T) {\n\tx()\n}\n",
        );
        assert_eq!(changed(&tests, &[5]), vec![false, true]);
        assert_eq!(changed(&tests, &[3]), vec![false, false]);
        assert_eq!(changed(&tests, &[9, 1]), vec![true, false]);
    }

    fn found(test: &str, base: Seen, head: Seen, changed: bool) -> Found {
        Found {
            test: test.into(),
            base,
            head,
            changed,
            base_reason: None,
            head_reason: None,
        }
    }

    #[test]
    fn candidates_fail_on_the_base_and_pass_on_the_head_the_diffs_own_first() {
        let round = vec![
            found("a", Seen::Failed, Seen::Passed, false),
            found("b", Seen::Passed, Seen::Passed, true),
            found("c", Seen::Failed, Seen::Passed, true),
            found("d", Seen::Failed, Seen::Failed, true),
            found("e", Seen::Failed, Seen::Passed, false),
            found("f", Seen::NoResult, Seen::Passed, true),
        ];
        let names = |max| {
            candidates(&round, max)
                .iter()
                .map(|f| f.test.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(3), vec!["c", "a", "e"]);
        assert_eq!(names(2), vec!["c", "a"]);
        assert_eq!(names(1), vec!["c"]);
    }

    #[test]
    fn no_candidate_says_why() {
        let passing = vec![
            found("a", Seen::Passed, Seen::Passed, true),
            found("b", Seen::Passed, Seen::Passed, true),
        ];
        let o = without_candidate(&passing);
        assert_eq!(o.verdict, Verdict::DoesNotFail);
        assert!(
            o.reason
                .unwrap()
                .starts_with("None of the PR's 2 tests fails")
        );

        let mut new_api = found("p::TestNewAPI", Seen::DidNotBuild, Seen::Passed, true);
        new_api.base_reason = Some("./pool.go:3:2: undefined: Drain".into());
        let o = without_candidate(&[new_api, found("b", Seen::Passed, Seen::Passed, true)]);
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert!(o.reason.unwrap().contains("undefined: Drain"));

        let o = without_candidate(&[found("a", Seen::Failed, Seen::Failed, true)]);
        assert_eq!(o.verdict, Verdict::StillFails);

        let o = without_candidate(&[found("a", Seen::NoResult, Seen::Passed, true)]);
        assert_eq!(o.verdict, Verdict::CouldNotRun);
        assert_eq!(without_candidate(&[]).verdict, Verdict::CouldNotRun);
    }

    #[test]
    fn the_table_shows_each_test_on_both_sides() {
        let t = table(&[found("p::TestA", Seen::Failed, Seen::Passed, true)]);
        assert!(
            t.contains("| `p::TestA` | failed | passed | declared or changed |"),
            "{t}"
        );
    }
}
