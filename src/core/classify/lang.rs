//! Languages by file path, what kind of file a path is (test, vendored, generated, lock file,
//! documentation), and a per-language lexer that blanks out comments and string literals so
//! rules only ever see code.

/// The languages the classifier has rules for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    Go,
    Rust,
    Java,
    Kotlin,
    Swift,
    C,
    Cpp,
    CSharp,
    Python,
    JavaScript,
    Zig,
    Erlang,
    Elixir,
}

impl Lang {
    pub fn from_path(path: &str) -> Option<Lang> {
        let name = file_name(path);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "go" => Lang::Go,
            "rs" => Lang::Rust,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
            "swift" => Lang::Swift,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "inl" | "tpp" => {
                Lang::Cpp
            }
            "cs" => Lang::CSharp,
            "py" | "pyi" | "pyx" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Lang::JavaScript,
            "zig" | "zon" => Lang::Zig,
            "erl" | "hrl" => Lang::Erlang,
            "ex" | "exs" => Lang::Elixir,
            _ => return None,
        })
    }

    /// Every language the rules read.
    pub const ALL: [Lang; 13] = [
        Lang::Go,
        Lang::Rust,
        Lang::Java,
        Lang::Kotlin,
        Lang::Swift,
        Lang::C,
        Lang::Cpp,
        Lang::CSharp,
        Lang::Python,
        Lang::JavaScript,
        Lang::Zig,
        Lang::Erlang,
        Lang::Elixir,
    ];

    /// The comment and string syntax the lexer blanks, per language:
    /// - `//` line and `/* */` block comments (nested in Rust): the C family, Go, Rust, the JVM
    ///   languages, Swift, C#, JavaScript;
    /// - `//` only (Zig has no block comments; `\\` starts a line of a multi-line string);
    /// - `#` (Python, Elixir; triple-quoted strings and heredocs span lines);
    /// - `%` (Erlang; `$c` is a character, `'atom'` is blanked like a string);
    /// - character literals `'x'` where the language has them, Elixir's `?c`.
    fn syntax(self) -> Syntax {
        match self {
            Lang::Python | Lang::Elixir => Syntax::Hash,
            Lang::Erlang => Syntax::Percent,
            Lang::Rust => Syntax::SlashRust,
            _ => Syntax::Slash,
        }
    }

    fn hash_comments(self) -> bool {
        self.syntax() == Syntax::Hash
    }

    fn block_comments(self) -> bool {
        matches!(self.syntax(), Syntax::Slash | Syntax::SlashRust) && self != Lang::Zig
    }
}

pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn components(path: &str) -> std::str::Split<'_, char> {
    path.split('/')
}

/// Dependency lock files: machine-written, never concurrency code.
pub fn is_lock_file(path: &str) -> bool {
    const NAMES: &[&str] = &[
        "Cargo.lock",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "bun.lock",
        "go.sum",
        "go.work.sum",
        "Gemfile.lock",
        "poetry.lock",
        "Pipfile.lock",
        "uv.lock",
        "pdm.lock",
        "composer.lock",
        "flake.lock",
        "packages.lock.json",
        "gradle.lockfile",
        "mix.lock",
        "pubspec.lock",
        "Package.resolved",
        "conan.lock",
    ];
    let name = file_name(path);
    NAMES.contains(&name) || name.ends_with(".lock") || name.ends_with(".lockfile")
}

/// Vendored or third-party code.
pub fn is_vendored(path: &str) -> bool {
    components(path).any(|c| {
        matches!(
            c,
            "vendor"
                | "vendors"
                | "third_party"
                | "third-party"
                | "thirdparty"
                | "node_modules"
                | "external"
                | "extern"
                | "deps"
                | "bower_components"
                | "Pods"
        )
    })
}

/// Generated code, by name. (A patch saying "Code generated … DO NOT EDIT" is checked too.)
pub fn is_generated_path(path: &str) -> bool {
    let name = file_name(path);
    name.ends_with(".pb.go")
        || name.ends_with(".pb.gw.go")
        || name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".pb.cc")
        || name.ends_with(".pb.h")
        || name.ends_with("_generated.go")
        || name.ends_with(".gen.go")
        || name.starts_with("zz_generated")
        || name.contains(".generated.")
        || name.ends_with(".g.cs")
        || name.ends_with(".designer.cs")
        || name.ends_with(".min.js")
        || name.ends_with(".d.ts")
        || name.starts_with("mock_")
        || name.ends_with("_mock.go")
        || name.ends_with("_mocks.go")
        || components(path)
            .any(|c| c == "generated" || c == "__generated__" || c == "gen" || c == "mocks")
}

/// True when a hunk carries a "generated, do not edit" banner in its first 40 lines.
pub fn patch_says_generated(patch: &str) -> bool {
    static BANNERS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let banners = BANNERS.get_or_init(|| {
        aho_corasick::AhoCorasick::new(["Code generated", "@generated", "<auto-generated"])
            .expect("fixed patterns")
    });
    let b = patch.as_bytes();
    let head = memchr::memchr_iter(b'\n', b)
        .nth(39)
        .map_or(b, |end| &b[..end]);
    banners.find_iter(head).any(|m| {
        if m.pattern().as_usize() != 0 {
            return true;
        }
        // Go's banner: "Code generated … DO NOT EDIT." on one line.
        let start = memchr::memrchr(b'\n', &head[..m.start()]).map_or(0, |s| s + 1);
        let end = memchr::memchr(b'\n', &head[m.end()..]).map_or(head.len(), |e| m.end() + e);
        memchr::memmem::find(&head[start..end], b"DO NOT EDIT").is_some()
    })
}

/// Documentation: prose formats and doc folders.
pub fn is_documentation(path: &str) -> bool {
    let name = file_name(path).to_ascii_lowercase();
    const EXT: &[&str] = &[
        ".md",
        ".markdown",
        ".rst",
        ".adoc",
        ".asciidoc",
        ".txt",
        ".org",
        ".rdoc",
        ".mdx",
        ".tex",
    ];
    EXT.iter().any(|e| name.ends_with(e))
        || name.starts_with("license")
        || name.starts_with("changelog")
        || components(path)
            .next()
            .is_some_and(|c| matches!(c, "docs" | "doc" | "documentation" | "website"))
}

/// Name endings of the files a test suite shares between its tests.
const TEST_PART_SUFFIXES: &[&str] = &[
    "_test_common",
    "_test_util",
    "_test_utils",
    "_test_helper",
    "_test_helpers",
    "_test_support",
    "_test_base",
    "_testutil",
    "_testutils",
];

/// Test files by each language's convention.
pub fn is_test_file(path: &str) -> bool {
    let name = file_name(path);
    let lower = name.to_ascii_lowercase();
    let in_test_dir = components(path).rev().skip(1).any(|c| {
        matches!(
            c,
            "test"
                | "tests"
                | "testing"
                | "testdata"
                | "__tests__"
                | "spec"
                | "specs"
                | "integration_tests"
                | "e2e"
                | "androidTest"
                | "testFixtures"
                | "testutil"
                | "testutils"
        ) || c.ends_with(".Tests")
            || c.ends_with(".Test")
            || c.ends_with("Tests")
    });
    let stem = lower.rsplit_once('.').map(|(s, _)| s).unwrap_or(&lower);
    let by_name = lower.ends_with("_test.go")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.starts_with("test_")
        || stem == "tests"
        || stem == "conftest"
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("_unittest")
        || stem.ends_with("_spec")
        || stem.ends_with("_suite")
        // A test's shared parts, named after it (`spinlock_test_common.cc`, `net_test_util.h`).
        || TEST_PART_SUFFIXES.iter().any(|s| stem.ends_with(s))
        || (name.ends_with("Test.java")
            || name.ends_with("Tests.java")
            || name.ends_with("IT.java")
            || name.ends_with("Test.kt")
            || name.ends_with("Tests.kt")
            || name.ends_with("Spec.kt")
            || name.ends_with("Test.cs")
            || name.ends_with("Tests.cs"));
    in_test_dir || by_name
}

/// Which bytes may start a comment or a string: the index into [`SPECIAL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syntax {
    Slash = 0,
    SlashRust = 1,
    Hash = 2,
    Percent = 3,
}

/// What a lexer is inside of at the end of a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexState {
    #[default]
    Code,
    BlockComment {
        depth: u8,
    },
    /// Inside a multi-line string: Go/JS backticks, Python triple quotes (`"` or `'`), Rust
    /// (raw) strings, C++ raw strings, C# verbatim strings.
    String {
        quote: u8,
        triple: bool,
        hashes: u8,
        raw: bool,
    },
}

/// A diff hunk can start inside a Python docstring, so a bare `"""` at its top may close a string
/// rather than open one. A line that the lexer thinks is inside a triple-quoted string but that
/// reads as a Python statement (`def f(…`, `class C`, `if x:`, `return`, `import y`) means the
/// string state was a misreading: lexing resumes as code. Other languages are unchanged.
pub fn resync(lang: Lang, line: &str, state: LexState) -> LexState {
    static STATEMENT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    // A hunk that starts inside a `/** … */` block shows its continuation lines (` * text`)
    // with no opening in sight: a line that starts with `* ` (or is `*`, or closes with `*/`)
    // is a comment line, not code (a dereference is `*p`, with no space).
    if lang.block_comments() && state == LexState::Code {
        // Bytes, not chars: this runs on every line of every patch.
        let b = line.as_bytes();
        let i = b
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .unwrap_or(b.len());
        if b.get(i) == Some(&b'*') && matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'/')) {
            return LexState::BlockComment { depth: 1 };
        }
    }
    if lang != Lang::Python || !matches!(state, LexState::String { triple: true, .. }) {
        return state;
    }
    let re = STATEMENT.get_or_init(|| {
        regex::Regex::new(
            r"^\s*(?:(?:async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[(:]|(?:el)?if\s.*:\s*$|else\s*:\s*$|for\s.+\sin\s.+:\s*$|while\s.*:\s*$|with\s.+:\s*$|try\s*:\s*$|except\b.*:\s*$|finally\s*:\s*$|return\b|import\s+\w|from\s+[\w.]+\s+import\b|raise\s+\w)",
        )
        .expect("valid")
    });
    if re.is_match(line) {
        LexState::Code
    } else {
        state
    }
}

/// The bytes at which a line's plain code may stop being plain: a quote, the start of a
/// comment (`/`, `#` or `%`), `r` in Rust (a raw string), `$` in Erlang and `?` in Elixir (a
/// character). Indexed by [`Syntax`].
static SPECIAL: [[bool; 256]; 4] = [
    special_bytes(b'/', false),
    special_bytes(b'/', true),
    special_bytes(b'#', false),
    special_bytes(b'%', false),
];

const fn special_bytes(comment: u8, rust: bool) -> [bool; 256] {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'`' as usize] = true;
    t[comment as usize] = true;
    if rust {
        t[b'r' as usize] = true;
    }
    if comment == b'%' {
        t[b'$' as usize] = true;
    }
    if comment == b'#' {
        // Elixir's `?"`; in Python `?` is never code, so it is copied as it is.
        t[b'?' as usize] = true;
    }
    t
}

/// Blanks comments and string literals out of one line of `lang` code, given the state the
/// previous line ended in; returns the code (strings become `""`) and the new state.
pub fn strip_line(lang: Lang, line: &str, mut state: LexState, out: &mut Vec<u8>) -> LexState {
    out.clear();
    let b = line.as_bytes();
    let special = &SPECIAL[lang.syntax() as usize];
    let mut i = 0;
    let n = b.len();
    // Zig: a line whose first token is `\\` is a line of a multi-line string literal.
    if lang == Lang::Zig && state == LexState::Code && line.trim_start().starts_with("\\\\") {
        out.extend_from_slice(b"\"\"");
        return state;
    }
    while i < n {
        match state {
            LexState::BlockComment { depth } => {
                // Straight to the next byte that can end (or, in Rust, nest) the comment.
                let found = if lang == Lang::Rust {
                    memchr::memchr2(b'*', b'/', &b[i..])
                } else {
                    memchr::memchr(b'*', &b[i..])
                };
                let Some(at) = found else {
                    break;
                };
                i += at;
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    i += 2;
                    state = if depth > 1 && lang == Lang::Rust {
                        LexState::BlockComment { depth: depth - 1 }
                    } else {
                        out.push(b' ');
                        LexState::Code
                    };
                } else if lang == Lang::Rust && b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    i += 2;
                    state = LexState::BlockComment {
                        depth: depth.saturating_add(1),
                    };
                } else {
                    i += 1;
                }
            }
            LexState::String {
                quote,
                triple,
                hashes,
                raw,
            } => {
                // Straight to the next quote or escape: the string's text is dropped.
                let Some(at) = memchr::memchr2(quote, b'\\', &b[i..]) else {
                    break;
                };
                i += at;
                let c = b[i];
                if c == b'\\' && !raw {
                    i += 2;
                    continue;
                }
                if c == quote {
                    if triple {
                        if b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote) {
                            i += 3;
                            out.extend_from_slice(b"\"\"");
                            state = LexState::Code;
                        } else {
                            i += 1;
                        }
                        continue;
                    }
                    let h = hashes as usize;
                    if h > 0 {
                        if b.len() >= i + 1 + h && b[i + 1..i + 1 + h].iter().all(|x| *x == b'#') {
                            i += 1 + h;
                            out.extend_from_slice(b"\"\"");
                            state = LexState::Code;
                        } else {
                            i += 1;
                        }
                        continue;
                    }
                    // C# verbatim strings escape a quote by doubling it.
                    if raw && lang == Lang::CSharp && b.get(i + 1) == Some(&b'"') {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    out.extend_from_slice(b"\"\"");
                    state = LexState::Code;
                } else {
                    i += 1;
                }
            }
            LexState::Code => {
                // Plain code up to the next byte that may open a comment or a string, in one copy.
                let start = i;
                while i < n && !special[usize::from(b[i])] {
                    i += 1;
                }
                out.extend_from_slice(&b[start..i]);
                if i == n {
                    break;
                }
                let c = b[i];
                let next = b.get(i + 1).copied();
                if lang.hash_comments() {
                    if c == b'#' {
                        break;
                    }
                } else if lang == Lang::Erlang {
                    if c == b'%' {
                        break;
                    }
                } else if c == b'/' && next == Some(b'/') {
                    break;
                } else if c == b'/' && next == Some(b'*') && lang.block_comments() {
                    i += 2;
                    state = LexState::BlockComment { depth: 1 };
                    continue;
                }
                // A character: Erlang `$"`, `$\\n`; Elixir `?"` (not the `?` ending `alive?`).
                let char_prefix = (lang == Lang::Erlang && c == b'$')
                    || (lang == Lang::Elixir
                        && c == b'?'
                        && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')));
                if char_prefix {
                    out.extend_from_slice(b"''");
                    i += if next == Some(b'\\') { 3 } else { 2 };
                    continue;
                }
                if c == b'?' || c == b'$' || (c == b'/' && !lang.block_comments()) {
                    out.push(c);
                    i += 1;
                    continue;
                }
                match c {
                    b'"' | b'\'' | b'`' => {
                        // Rust: 'a is a lifetime or a char; a char literal is short.
                        if c == b'\''
                            && matches!(
                                lang,
                                Lang::Rust
                                    | Lang::Go
                                    | Lang::Java
                                    | Lang::Kotlin
                                    | Lang::Swift
                                    | Lang::C
                                    | Lang::Cpp
                                    | Lang::CSharp
                                    | Lang::Zig
                            )
                        {
                            if let Some(end) = char_literal_end(b, i) {
                                out.extend_from_slice(b"''");
                                i = end;
                            } else {
                                out.push(b'\'');
                                i += 1;
                            }
                            continue;
                        }
                        if c == b'`' && !matches!(lang, Lang::Go | Lang::JavaScript) {
                            out.push(b'`');
                            i += 1;
                            continue;
                        }
                        let triple = matches!(
                            lang,
                            Lang::Python | Lang::Kotlin | Lang::Swift | Lang::Elixir
                        ) && b.get(i + 1) == Some(&c)
                            && b.get(i + 2) == Some(&c);
                        let raw = c == b'`' || prefix_is_raw(lang, b, i);
                        state = LexState::String {
                            quote: c,
                            triple,
                            hashes: 0,
                            raw,
                        };
                        i += if triple { 3 } else { 1 };
                    }
                    b'r' if lang == Lang::Rust && is_raw_string_start(b, i) => {
                        let mut j = i + 1;
                        let mut hashes = 0u8;
                        while b.get(j) == Some(&b'#') {
                            hashes = hashes.saturating_add(1);
                            j += 1;
                        }
                        state = LexState::String {
                            quote: b'"',
                            triple: false,
                            hashes,
                            raw: true,
                        };
                        i = j + 1;
                    }
                    _ => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
        }
    }
    // Single-line strings do not continue past the end of a line in these languages.
    if let LexState::String { triple, raw, .. } = state
        && !triple
        && !raw
    {
        state = LexState::Code;
    }
    state
}

/// `'x'`, `'\n'`, `'\u{1F600}'`, `'é'`: the index after the closing quote, if this is one.
fn char_literal_end(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i + 1..)?;
    if rest.first() == Some(&b'\\') {
        // An escape: the closing quote comes within a few bytes.
        let limit = rest.len().min(12);
        return (2..limit)
            .find(|&j| rest[j] == b'\'')
            .map(|j| i + 1 + j + 1);
    }
    // Exactly one character, then the quote.
    let first = *rest.first()?;
    let len = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    (rest.get(len) == Some(&b'\'') && first != b'\'').then_some(i + 1 + len + 1)
}

fn is_raw_string_start(b: &[u8], i: usize) -> bool {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return false;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&b'#') {
        j += 1;
    }
    b.get(j) == Some(&b'"')
}

/// C# `@"..."` verbatim strings.
fn prefix_is_raw(lang: Lang, b: &[u8], i: usize) -> bool {
    lang == Lang::CSharp && i > 0 && b[i - 1] == b'@'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_banner_counts_in_the_first_forty_lines_only() {
        let go = "@@ -1,3 +1,3 @@\n // Code generated by protoc-gen-go. DO NOT EDIT.\n+var x = 1\n";
        assert!(patch_says_generated(go));
        // Both halves of Go's banner on one line, in either order; apart they are prose.
        assert!(patch_says_generated(
            "+// DO NOT EDIT: Code generated by stringer\n"
        ));
        assert!(!patch_says_generated(
            "+// Code generated by hand, reviewed\n+// DO NOT EDIT the lock order\n"
        ));
        assert!(patch_says_generated("+# @generated by pants\n"));
        assert!(patch_says_generated(" // <auto-generated />\n"));
        let late = format!("{}+// @generated\n", "+let a = 1;\n".repeat(40));
        assert!(!patch_says_generated(&late));
        let edge = format!("{}+// @generated\n", "+let a = 1;\n".repeat(39));
        assert!(patch_says_generated(&edge));
        assert!(!patch_says_generated("+mu.Lock()\n"));
    }

    fn strip_all(lang: Lang, text: &str) -> Vec<String> {
        let mut state = LexState::Code;
        let mut out = Vec::new();
        text.lines()
            .map(|l| {
                state = strip_line(lang, l, state, &mut out);
                String::from_utf8_lossy(&out).trim().to_string()
            })
            .collect()
    }

    #[test]
    fn comments_and_strings_are_blanked() {
        assert_eq!(
            strip_all(Lang::Go, r#"mu.Lock() // not sync.Mutex"#),
            ["mu.Lock()"]
        );
        assert_eq!(
            strip_all(Lang::Go, r#"log("sync.Mutex held"); x := 1"#),
            [r#"log(""); x := 1"#]
        );
        assert_eq!(
            strip_all(Lang::Python, "x = 1  # threading.Lock()"),
            ["x = 1"]
        );
        assert_eq!(
            strip_all(
                Lang::Rust,
                "/// Uses a Mutex\nlet m = 1; /* Mutex */ let n = 2;"
            ),
            ["", "let m = 1;   let n = 2;"]
        );
    }

    #[test]
    fn block_comments_and_multi_line_strings_span_lines() {
        let got = strip_all(
            Lang::Java,
            "/*\n synchronized (x)\n*/ int a;\nString s = \"volatile\";",
        );
        assert_eq!(got, ["", "", "int a;", "String s = \"\";"]);
        let got = strip_all(
            Lang::Python,
            "def f():\n    \"\"\"Uses threading.Lock\n    to guard.\"\"\"\n    return 1",
        );
        assert_eq!(got, ["def f():", "", "\"\"", "return 1"]);
        let got = strip_all(Lang::Go, "q := `select {\ngo f()`\nx()");
        assert_eq!(got, ["q :=", "\"\"", "x()"]);
        let got = strip_all(Lang::Rust, "let s = r#\"Mutex \"quoted\"\"#; lock()");
        assert_eq!(got, ["let s = \"\"; lock()"]);
    }

    #[test]
    fn rust_lifetimes_and_chars_do_not_open_strings() {
        assert_eq!(
            strip_all(Lang::Rust, "fn f<'a>(x: &'a Mutex<u8>) { let c = '\"'; }"),
            ["fn f<'a>(x: &'a Mutex<u8>) { let c = ''; }"]
        );
    }

    #[test]
    fn file_kinds() {
        for p in [
            "pool_test.go",
            "src/test/java/PoolTest.java",
            "tests/it.rs",
            "test_pool.py",
            "web/pool.test.ts",
            "src/__tests__/a.js",
            "Pool.Tests/PoolTests.cs",
            "a/conftest.py",
        ] {
            assert!(is_test_file(p), "{p}");
        }
        for p in [
            "pool.go",
            "src/latest.rs",
            "contest.py",
            "src/testament.rs",
            "attest.go",
        ] {
            assert!(!is_test_file(p), "{p}");
        }
        for p in [
            "Cargo.lock",
            "web/package-lock.json",
            "go.sum",
            "yarn.lock",
            "poetry.lock",
        ] {
            assert!(is_lock_file(p), "{p}");
        }
        assert!(!is_lock_file("src/lock.rs"));
        assert!(is_vendored("vendor/github.com/x/y.go"));
        assert!(is_vendored("third_party/abseil/mutex.cc"));
        assert!(is_generated_path("api/v1/pool.pb.go"));
        assert!(is_generated_path("internal/pool/mocks/pool.go"));
        assert!(is_generated_path("internal/pool/mock_pool.go"));
        assert!(!is_generated_path("internal/pool/mockery_config.go"));
        assert!(is_documentation("docs/concurrency.md"));
        assert!(is_documentation("README.md"));
        assert!(!is_documentation("src/doc.go"));
        assert_eq!(Lang::from_path("a/b.tsx"), Some(Lang::JavaScript));
        assert_eq!(Lang::from_path("Makefile"), None);
    }
}
