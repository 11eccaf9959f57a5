//! A repository's own words for concurrency, read from its source (`repro-gate vocabulary`):
//! the macros, types and functions it defines in terms of primitives, which the `primitives`
//! block of `.github/repro-gate.yml` then lets the classifier read in changed code. Pure: the
//! command hands each file's path and text in. See docs/classification.md.
//!
//! A definition is a wrapper when it is short and its body names a primitive: a macro whose
//! replacement does (`#define PROJ_ATOMIC_ADD(p, v) __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST)`),
//! a type alias or a small type holding one (`struct counter { atomic_int v; }`), a function of a
//! few lines around one (`static inline void proj_mb(void) { __sync_synchronize(); }`). A long
//! function that happens to take a lock is code, not vocabulary. Names the built-in rules already
//! read are left out: they need no declaring.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

use super::lang::{self, Lang, LexState, strip_line};
use super::line_rule;

/// Most code lines in the body of a function, and of a type, that still make it a wrapper
/// (besides its head and braces): a wrapper forwards to its primitive, or holds one.
const MAX_FUNCTION_LINES: usize = 2;
const MAX_TYPE_LINES: usize = 3;
const MAX_MACRO_LINES: usize = 8;
/// Lines a body is looked for in.
const BODY_WINDOW: usize = 40;
/// Longest name kept (a name is an identifier).
const MAX_NAME: usize = 100;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Definition {
    pub name: String,
    /// `macro`, `function` or `type`.
    pub kind: &'static str,
    pub file: String,
    pub line: u32,
    /// The body line that names a primitive, trimmed and clipped.
    pub via: String,
}

struct Head {
    name: String,
    kind: &'static str,
    /// The head's line index.
    at: usize,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("vocabulary patterns are valid"))
}

/// A definition's head on one code line, if the line starts one.
fn head(language: Lang, code: &str) -> Option<(String, &'static str)> {
    static C_MACRO: OnceLock<Regex> = OnceLock::new();
    static C_TYPEDEF: OnceLock<Regex> = OnceLock::new();
    static C_USING: OnceLock<Regex> = OnceLock::new();
    static C_TYPE: OnceLock<Regex> = OnceLock::new();
    static C_FN: OnceLock<Regex> = OnceLock::new();
    static RUST_FN: OnceLock<Regex> = OnceLock::new();
    static RUST_TYPE: OnceLock<Regex> = OnceLock::new();
    static RUST_MACRO: OnceLock<Regex> = OnceLock::new();
    static GO_FN: OnceLock<Regex> = OnceLock::new();
    static GO_TYPE: OnceLock<Regex> = OnceLock::new();
    static ZIG: OnceLock<Regex> = OnceLock::new();
    static PY: OnceLock<Regex> = OnceLock::new();
    static KT_SWIFT: OnceLock<Regex> = OnceLock::new();
    static JVM_TYPE: OnceLock<Regex> = OnceLock::new();
    static EX: OnceLock<Regex> = OnceLock::new();
    static ERL: OnceLock<Regex> = OnceLock::new();
    let found = |r: &Regex, kind: &'static str| {
        r.captures(code)
            .and_then(|c| c.get(1))
            .map(|m| (m.as_str().to_string(), kind))
    };
    match language {
        Lang::C | Lang::Cpp => found(
            re(&C_MACRO, r"^\s*#\s*define\s+([A-Za-z_]\w*)"),
            "macro",
        )
        .or_else(|| found(re(&C_TYPEDEF, r"^\s*typedef\b.*?\b([A-Za-z_]\w*)\s*;\s*$"), "type"))
        .or_else(|| found(re(&C_USING, r"^\s*using\s+([A-Za-z_]\w*)\s*="), "type"))
        .or_else(|| {
            found(
                re(&C_TYPE, r"^\s*(?:typedef\s+)?(?:struct|class|union)\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^{;]*)?\{?\s*$"),
                "type",
            )
        })
        .or_else(|| {
            found(
                re(&C_FN, r"^\s*(?:static\s+|inline\s+|__inline\w*\s+|extern\s+|constexpr\s+|[A-Z_]+INLINE\s+)*[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{?\s*$"),
                "function",
            )
        }),
        Lang::Rust => found(
            re(&RUST_MACRO, r"^\s*(?:#\[macro_export\]\s*)?macro_rules!\s*([A-Za-z_]\w*)"),
            "macro",
        )
        .or_else(|| {
            found(
                re(&RUST_TYPE, r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|type|enum)\s+([A-Za-z_]\w*)"),
                "type",
            )
        })
        .or_else(|| {
            found(
                re(&RUST_FN, r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|unsafe|async|extern)\s+)*fn\s+([A-Za-z_]\w*)"),
                "function",
            )
        }),
        Lang::Go => found(
            re(&GO_TYPE, r"^\s*type\s+([A-Za-z_]\w*)\b"),
            "type",
        )
        .or_else(|| {
            found(
                re(&GO_FN, r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*[\[(]"),
                "function",
            )
        }),
        Lang::Zig => {
            let r = re(&ZIG, r"^\s*(?:pub\s+)?(?:(?:inline|export)\s+)?(fn|const)\s+([A-Za-z_]\w*)");
            r.captures(code).and_then(|c| {
                let kind = if &c[1] == "fn" { "function" } else { "type" };
                (kind == "function" || code.contains("struct") || code.contains("= std."))
                    .then(|| (c[2].to_string(), kind))
            })
        }
        Lang::Python => {
            let r = re(&PY, r"^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)");
            r.captures(code).map(|c| {
                let kind = if &c[1] == "def" { "function" } else { "type" };
                (c[2].to_string(), kind)
            })
        }
        Lang::Kotlin | Lang::Swift => found(
            re(&KT_SWIFT, r"^\s*(?:(?:public|private|internal|fileprivate|open|inline|override|final|static|@\w+)\s+)*(?:fun|func)\s+(?:<[^>]*>\s*)?(?:\w+\.)?([A-Za-z_]\w*)"),
            "function",
        )
        .or_else(|| {
            found(
                re(&JVM_TYPE, r"^\s*(?:(?:public|private|internal|fileprivate|open|final|value|data)\s+)*(?:class|struct|actor|typealias|object)\s+([A-Za-z_]\w*)"),
                "type",
            )
        }),
        Lang::Elixir => found(
            re(&EX, r"^\s*(?:defmacro|defmacrop|def|defp)\s+([A-Za-z_]\w*[?!]?)"),
            "function",
        ),
        Lang::Erlang => found(re(&ERL, r"^([a-z]\w*)\s*\(.*->\s*$"), "function"),
        _ => None,
    }
}

/// Where a definition's body ends: braces balance (the C family, Rust, Go, Zig, Kotlin, Swift),
/// indentation returns (Python), `end` at the head's indentation (Elixir), a line ending in `.`
/// (Erlang), a line without `\` (C macros). The end index is exclusive.
fn body_end(language: Lang, kind: &str, code: &[String], raw: &[&str], at: usize) -> usize {
    let limit = (at + 1 + BODY_WINDOW).min(code.len());
    if kind == "macro" && matches!(language, Lang::C | Lang::Cpp) {
        let mut i = at;
        while i < limit && raw[i].trim_end().ends_with('\\') {
            i += 1;
        }
        return (i + 1).min(code.len());
    }
    let indent = |s: &str| s.len() - s.trim_start().len();
    match language {
        Lang::Python | Lang::Elixir => {
            let own = indent(raw[at]);
            let mut i = at + 1;
            while i < limit {
                let t = raw[i].trim();
                if !t.is_empty() && indent(raw[i]) <= own {
                    return if language == Lang::Elixir && t == "end" {
                        i + 1
                    } else {
                        i
                    };
                }
                i += 1;
            }
            i
        }
        Lang::Erlang => {
            let mut i = at;
            while i < limit && !code[i].trim_end().ends_with('.') {
                i += 1;
            }
            (i + 1).min(code.len())
        }
        _ => {
            let mut depth = 0i32;
            let mut opened = false;
            for (i, line) in code.iter().enumerate().take(limit).skip(at) {
                for c in line.bytes() {
                    match c {
                        b'{' => {
                            depth += 1;
                            opened = true;
                        }
                        b'}' => depth -= 1,
                        _ => {}
                    }
                }
                if opened && depth <= 0 {
                    return i + 1;
                }
                // A one-line alias or declaration (`typedef …;`, `type X = …;`).
                if !opened && line.trim_end().ends_with(';') {
                    return i + 1;
                }
                if !opened && i > at + 1 {
                    return at + 1;
                }
            }
            limit
        }
    }
}

/// The wrappers defined in one file. `known` holds names found so far (in this file or others),
/// which count as primitives in bodies: a macro over a wrapper is a wrapper.
pub fn definitions(path: &str, text: &str, known: &BTreeMap<String, ()>) -> Vec<Definition> {
    let Some(language) = Lang::from_path(path) else {
        return Vec::new();
    };
    let raw: Vec<&str> = text.lines().collect();
    let mut code = Vec::with_capacity(raw.len());
    let mut state = LexState::Code;
    let mut buf = Vec::new();
    for line in &raw {
        state = lang::resync(language, line, state);
        state = strip_line(language, line, state, &mut buf);
        code.push(String::from_utf8_lossy(&buf).into_owned());
    }
    let mut heads = Vec::new();
    for (at, line) in code.iter().enumerate() {
        if let Some((name, kind)) = head(language, line)
            && name.len() <= MAX_NAME
        {
            heads.push(Head { name, kind, at });
        }
    }
    let mut out = Vec::new();
    let no_names = BTreeMap::new();
    for h in heads {
        if is_test_name(&h.name) || already_read(language, &h.name, known) {
            continue;
        }
        let end = body_end(language, h.kind, &code, &raw, h.at);
        // Code lines, without lone braces and `end`s.
        let body: Vec<usize> = (h.at..end)
            .filter(|&i| {
                let t = code[i].trim();
                !t.is_empty() && !t.chars().all(|c| matches!(c, '{' | '}' | ';')) && t != "end"
            })
            .collect();
        let max = match h.kind {
            "macro" => MAX_MACRO_LINES,
            "type" => MAX_TYPE_LINES,
            _ => MAX_FUNCTION_LINES,
        };
        if body.len() > max + 1 {
            continue;
        }
        // A wrapper over a known name is one only for macros and types: a function that calls a
        // wrapper is a use of it.
        let known = if h.kind == "function" {
            &no_names
        } else {
            known
        };
        // The head's own line counts for macros and aliases (`#define X __atomic_…`, `using
        // X = std::atomic<…>`), not for a function's signature (a `Mutex` parameter is a use).
        let from = if h.kind == "function" { 1 } else { 0 };
        let via = body.iter().skip(from).find_map(|&i| {
            // Without the name itself, which must not match its own definition.
            let line = if i == h.at {
                code[i].replacen(h.name.as_str(), " ", 1)
            } else {
                code[i].clone()
            };
            (line_rule(language, line.as_bytes()).is_some_and(|r| r != "c.volatile")
                || names_known(&line, known))
            .then(|| clip(raw[i].trim()))
        });
        if let Some(via) = via {
            out.push(Definition {
                name: h.name,
                kind: h.kind,
                file: path.to_string(),
                line: u32::try_from(h.at + 1).unwrap_or(u32::MAX),
                via,
            });
        }
    }
    out
}

fn names_known(line: &str, known: &BTreeMap<String, ()>) -> bool {
    !known.is_empty()
        && super::words::identifiers(line.as_bytes())
            .any(|id| std::str::from_utf8(id).is_ok_and(|id| known.contains_key(id)))
}

/// A name the built-in rules read already, called or declared.
fn already_read(language: Lang, name: &str, known: &BTreeMap<String, ()>) -> bool {
    known.contains_key(name)
        || line_rule(language, format!("{name}(x);").as_bytes()).is_some()
        || line_rule(language, format!("{name} x;").as_bytes()).is_some()
}

/// Tests, entry points and keywords a loose head pattern can take for a name (`else if (x) {`).
fn is_test_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.starts_with("test")
        || l.ends_with("_test")
        || l.starts_with("bench")
        || matches!(
            l.as_str(),
            "main"
                | "if"
                | "for"
                | "while"
                | "switch"
                | "return"
                | "sizeof"
                | "else"
                | "do"
                | "catch"
        )
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(120).collect();
    if s.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// The `primitives:` block for `.github/repro-gate.yml`, each name quoted with where it is
/// defined as a comment. One entry per name (its first definition).
pub fn block(defs: &[Definition], from: &str) -> String {
    let mut seen = BTreeMap::new();
    for d in defs {
        seen.entry(d.name.as_str()).or_insert(d);
    }
    let mut s = format!(
        "# Proposed by `repro-gate vocabulary` from {}: the names this repository defines in\n# terms of concurrency primitives. Review the list, then put it in .github/repro-gate.yml.\n",
        comment_safe(from)
    );
    if seen.is_empty() {
        s.push_str("primitives: []\n");
        return s;
    }
    s.push_str("primitives:\n");
    for d in seen.values() {
        s.push_str(&format!(
            "  - \"{}\"  # {} at {}:{}: {}\n",
            d.name,
            d.kind,
            comment_safe(&d.file),
            d.line,
            comment_safe(&d.via)
        ));
    }
    s
}

fn comment_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &str, text: &str) -> Vec<(String, &'static str)> {
        definitions(path, text, &BTreeMap::new())
            .into_iter()
            .map(|d| (d.name, d.kind))
            .collect()
    }

    #[test]
    fn c_wrappers_are_found_with_where_they_are() {
        let text = "#include <x.h>\n\
            #define PROJ_INCR(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)\n\
            #define PROJ_MAX(a, b) ((a) > (b) ? (a) : (b))\n\
            #define PROJ_REFCOUNT_INC(r) \\\n    proj_atomic_inc(&(r)->refcount)\n\
            static inline void proj_mb(void)\n{\n\t__sync_synchronize();\n}\n\
            static int parse(const char *s)\n{\n\treturn atoi(s);\n}\n\
            typedef struct { std::atomic<int> v; } counter_t;\n";
        let got = names("src/util.h", text);
        assert!(got.contains(&("PROJ_INCR".into(), "macro")), "{got:?}");
        assert!(
            got.contains(&("PROJ_REFCOUNT_INC".into(), "macro")),
            "{got:?}"
        );
        assert!(got.contains(&("proj_mb".into(), "function")), "{got:?}");
        assert!(got.contains(&("counter_t".into(), "type")), "{got:?}");
        assert!(
            !got.iter().any(|(n, _)| n == "PROJ_MAX" || n == "parse"),
            "{got:?}"
        );
        let d = &definitions("src/util.h", text, &BTreeMap::new())[0];
        assert_eq!((d.file.as_str(), d.line), ("src/util.h", 2));
    }

    #[test]
    fn a_long_function_that_takes_a_lock_is_not_vocabulary() {
        let body = "    x += 1;\n".repeat(20);
        let text = format!(
            "void update(void)\n{{\n    pthread_mutex_lock(&m);\n{body}    pthread_mutex_unlock(&m);\n}}\n"
        );
        assert!(names("a.c", &text).is_empty());
    }

    #[test]
    fn names_the_rules_already_read_are_left_out() {
        // `PROJ_ATOMIC_ADD` is read by its sub-words wherever it is used.
        let text = "#define PROJ_ATOMIC_ADD(p) __sync_add_and_fetch(p, 1)\n\
            else if (x) {\n  pthread_mutex_lock(&m);\n}\n";
        assert!(names("a.c", text).is_empty());
    }

    #[test]
    fn other_languages_wrappers() {
        let go = "type Counter struct {\n\tn atomic.Int64\n}\n";
        assert_eq!(names("c.go", go), [("Counter".into(), "type")]);
        let rs = "pub struct Flag(AtomicBool);\n";
        assert_eq!(names("c.rs", rs), [("Flag".into(), "type")]);
        let py = "def guarded(fn):\n    with _LOCK_TABLE.get(fn):\n        pass\n\ndef acquire_all():\n    threading.Lock().acquire()\n";
        assert_eq!(names("c.py", py), [("acquire_all".into(), "function")]);
    }

    #[test]
    fn the_block_quotes_names_and_keeps_comments_on_one_line() {
        let defs = vec![Definition {
            name: "yes".into(),
            kind: "macro",
            file: "a\nb.h".into(),
            line: 3,
            via: "x".into(),
        }];
        let b = block(&defs, ".");
        assert!(b.contains("  - \"yes\"  # macro at a b.h:3: x\n"), "{b}");
        let parsed: block_yaml::Doc = serde_saphyr::from_str(&b).expect("yaml");
        assert_eq!(parsed.primitives, ["yes"]);
    }

    mod block_yaml {
        #[derive(serde::Deserialize)]
        pub struct Doc {
            pub primitives: Vec<String>,
        }
    }
}
