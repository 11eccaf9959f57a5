//! The repository's own rules, read from its source: no circle of files and no circle of
//! folders in `src/` (so every import runs down, from a folder to one below it), comments
//! that point at documents in the repository only, and every `docs/` link resolving to a
//! document and a heading in it.
//!
//! Imports are read the way rustc resolves them, for the forms this code uses: `use` trees
//! (braces expanded) and paths written inline (`crate::a::b`, `super::x`). A path names the
//! file of the longest module it passes through. A module and its own submodules are one unit
//! (a `mod.rs` declares its children; they may use its types): only arrows between files that
//! are neither are counted. Test code (`#[cfg(test)] mod …`, `tests.rs`) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`, `src/lib.rs` is the crate.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// The code with comments, strings and character literals blanked, so that only paths the
/// compiler reads are left.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2);
            i = end;
            out.push(' ');
            continue;
        }
        // Raw strings: r"…", r#"…"#, br"…".
        let after_prefix = if b[i] == b'b' && b.get(i + 1) == Some(&b'r') {
            Some(i + 2)
        } else if b[i] == b'r' {
            Some(i + 1)
        } else {
            None
        };
        if let Some(mut j) = after_prefix.filter(|_| i == 0 || !ident(b[i - 1])) {
            let hashes = j;
            while j < b.len() && b[j] == b'#' {
                j += 1;
            }
            if b.get(j) == Some(&b'"') {
                let close = format!("\"{}", "#".repeat(j - hashes));
                i = text[j + 1..]
                    .find(&close)
                    .map_or(b.len(), |k| j + 1 + k + close.len());
                out.push_str("\"\"");
                continue;
            }
        }
        if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
            continue;
        }
        if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{…}'), not a lifetime.
            let rest = &text[i + 1..];
            let len = if rest.starts_with('\\') {
                rest.find('\'').map(|k| k + 1)
            } else {
                rest.chars()
                    .next()
                    .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                    .map(|c| c.len_utf8())
            };
            if let Some(len) = len {
                i += 1 + len + 1;
                out.push_str("' '");
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The code before its test module.
fn without_tests(code: &str) -> &str {
    let re = regex::Regex::new(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{").unwrap();
    re.find(code).map_or(code, |m| &code[..m.start()])
}

/// The paths of a `use` tree: `a::{b, c::{d, e as f}}` is `a::b`, `a::c::d`, `a::c::e`.
fn use_paths(tree: &str) -> Vec<String> {
    fn walk(s: &[u8], mut i: usize, prefix: &str, out: &mut Vec<String>) -> usize {
        let mut cur = String::new();
        while i < s.len() {
            match s[i] {
                b'{' => {
                    i = walk(s, i + 1, &format!("{prefix}{cur}"), out);
                    cur.clear();
                }
                b',' | b'}' => {
                    if !cur.is_empty() {
                        out.push(format!("{prefix}{cur}"));
                    }
                    cur.clear();
                    i += 1;
                    if s[i - 1] == b'}' {
                        return i;
                    }
                }
                c => {
                    cur.push(c as char);
                    i += 1;
                }
            }
        }
        if !cur.is_empty() {
            out.push(format!("{prefix}{cur}"));
        }
        i
    }
    let flat: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = flat.replace(" as ", "@").replace(' ', "");
    let mut out = Vec::new();
    walk(flat.as_bytes(), 0, "", &mut out);
    out.into_iter()
        .map(|p| p.split('@').next().unwrap_or("").to_string())
        .collect()
}

/// The module file a path names from `from`, if it is one of this crate's.
fn resolve(modules: &BTreeSet<Module>, from: &Module, path: &str) -> Option<Module> {
    let mut parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    let mut base: Module;
    match parts.first().copied()? {
        "crate" | "repro_gate" => {
            base = Vec::new();
            parts.remove(0);
        }
        "super" | "self" => {
            base = from.clone();
            while let Some(&p) = parts.first() {
                match p {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                parts.remove(0);
            }
        }
        first => {
            let mut child = from.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            base = from.clone();
        }
    }
    let mut best = None;
    let mut m = base;
    if modules.contains(&m) {
        best = Some(m.clone());
    }
    for p in parts {
        m.push(p.to_string());
        if modules.contains(&m) {
            best = Some(m.clone());
        }
    }
    best
}

struct Graph {
    files: BTreeMap<Module, BTreeSet<Module>>,
}

fn graph() -> Graph {
    let src = root().join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.retain(|p| p != &src.join("main.rs"));
    let modules: BTreeSet<Module> = paths.iter().map(|p| module_of(&src, p)).collect();
    let use_re = regex::Regex::new(r"\buse\s+([^;]+);").unwrap();
    let inline_re = regex::Regex::new(r"\b(?:crate|super|self|repro_gate)(?:::\w+)+").unwrap();
    let mut files = BTreeMap::new();
    for p in &paths {
        let m = module_of(&src, p);
        if m.last().is_some_and(|l| l == "tests") {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        let code = code_of(&text);
        let code = without_tests(&code);
        let mut named: Vec<String> = use_re
            .captures_iter(code)
            .flat_map(|c| use_paths(&c[1]))
            .collect();
        let rest = use_re.replace_all(code, "");
        named.extend(inline_re.find_iter(&rest).map(|m| m.as_str().to_string()));
        let mut to = BTreeSet::new();
        for n in named {
            let Some(t) = resolve(&modules, &m, &n) else {
                continue;
            };
            // A module and its own submodules are one unit.
            if t.starts_with(&m) || m.starts_with(&t) {
                continue;
            }
            to.insert(t);
        }
        files.insert(m, to);
    }
    Graph { files }
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

/// The folder (or top-level file) of `src/` a module is in.
fn room(m: &Module) -> String {
    m.first().cloned().unwrap_or_else(|| "lib".into())
}

/// The strongly connected parts with more than one member (Tarjan's algorithm).
fn circles<T: Ord + Clone>(g: &BTreeMap<T, BTreeSet<T>>) -> Vec<Vec<T>> {
    struct S<'a, T> {
        g: &'a BTreeMap<T, BTreeSet<T>>,
        index: BTreeMap<T, usize>,
        low: BTreeMap<T, usize>,
        stack: Vec<T>,
        on: BTreeSet<T>,
        next: usize,
        out: Vec<Vec<T>>,
    }
    fn visit<T: Ord + Clone>(s: &mut S<'_, T>, v: &T) {
        s.index.insert(v.clone(), s.next);
        s.low.insert(v.clone(), s.next);
        s.next += 1;
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        let edges: Vec<T> =
            s.g.get(v)
                .map(|e| e.iter().cloned().collect())
                .unwrap_or_default();
        for w in edges {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let l = s.low[v].min(s.low[&w]);
                s.low.insert(v.clone(), l);
            } else if s.on.contains(&w) {
                let l = s.low[v].min(s.index[&w]);
                s.low.insert(v.clone(), l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                let done = &w == v;
                part.push(w);
                if done {
                    break;
                }
            }
            if part.len() > 1 {
                s.out.push(part);
            }
        }
    }
    let mut s = S {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_reader_of_imports_finds_what_rustc_would() {
    let modules: BTreeSet<Module> = [
        vec![],
        vec!["core".into()],
        vec!["core".into(), "render".into()],
        vec!["core".into(), "verify".into()],
        vec!["core".into(), "verify".into(), "summary".into()],
    ]
    .into_iter()
    .collect();
    let summary: Module = vec!["core".into(), "verify".into(), "summary".into()];
    let render: Module = vec!["core".into(), "render".into()];
    assert_eq!(
        use_paths("crate::core::{render::{code, md as m}, verify}"),
        [
            "crate::core::render::code",
            "crate::core::render::md",
            "crate::core::verify"
        ]
    );
    assert_eq!(
        resolve(&modules, &summary, "super::super::render::code"),
        Some(render.clone())
    );
    assert_eq!(
        resolve(&modules, &summary, "crate::core::render::md"),
        Some(render)
    );
    assert_eq!(resolve(&modules, &summary, "serde::Serialize"), None);
    let code =
        code_of("let a = \"crate::x\"; // crate::y\nlet c = '\"'; crate::z::f(r#\"crate::w\"#);");
    assert!(!code.contains("crate::x") && !code.contains("crate::y") && !code.contains("crate::w"));
    assert!(code.contains("crate::z::f"), "{code}");
    let g: BTreeMap<u8, BTreeSet<u8>> = [
        (1, [2].into()),
        (2, [3].into()),
        (3, [1].into()),
        (4, [1].into()),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&g).len(), 1);
    assert_eq!(circles(&g)[0].len(), 3);
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let g = graph();
    let found: Vec<String> = circles(&g.files)
        .iter()
        .map(|part| {
            let arrows: Vec<String> = part
                .iter()
                .flat_map(|a| {
                    g.files[a]
                        .iter()
                        .filter(|b| part.contains(b))
                        .map(move |b| format!("{} -> {}", name(a), name(b)))
                })
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "circles of files: {found:#?}");
}

#[test]
fn every_import_between_folders_runs_down() {
    let g = graph();
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, to) in &g.files {
        let entry = rooms.entry(room(a)).or_default();
        entry.extend(to.iter().map(room).filter(|r| *r != room(a)));
    }
    assert!(rooms.len() > 10, "the folders of src/: {rooms:?}");
    let found: Vec<String> = circles(&rooms)
        .iter()
        .map(|part| {
            let arrows: Vec<String> = part
                .iter()
                .flat_map(|a| {
                    rooms[a]
                        .iter()
                        .filter(|b| part.contains(b))
                        .map(move |b| format!("{a} -> {b}"))
                })
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "folders that import each other (one of the arrows runs back up): {found:#?}"
    );
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_` kept, spaces as `-`,
/// everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (not of `#` lines inside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The text of `path` where it may point at documents: a Rust file's comments, a YAML or
/// shell file's comments, all of a markdown file.
fn pointing_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match path.extension().and_then(|e| e.to_str()) {
        Some("md") => text,
        Some("rs") => text
            .lines()
            .filter_map(|l| l.find("//").map(|i| &l[i..]))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => text
            .lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every link to a document of the repository, from where it is written: (file, target,
/// anchor).
fn doc_links() -> Vec<(PathBuf, PathBuf, Option<String>)> {
    let root = root();
    let mut files = Vec::new();
    for d in ["src", "tests", "benches", "deploy", "docs", ".ci"] {
        all_files(&root.join(d), &mut files);
    }
    files.push(root.join("README.md"));
    files.push(root.join("CONTRIBUTING.md"));
    // A markdown link to a path (with or without an anchor), or a bare path of docs/, the README
    // or CONTRIBUTING with an anchor.
    let md_link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let bare = regex::Regex::new(r"\b((?:docs/[\w-]+|README|CONTRIBUTING)\.md)(#[\w-]+)?").unwrap();
    let mut out = Vec::new();
    for f in files {
        let text = pointing_text(&f);
        let is_md = f.extension().is_some_and(|e| e == "md");
        let here = f.parent().unwrap_or(&root).to_path_buf();
        for c in md_link.captures_iter(&text) {
            let target = &c[1];
            if !is_md || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a.to_string())),
                None => (target, None),
            };
            let file = if path.is_empty() {
                f.clone()
            } else {
                here.join(path)
            };
            out.push((f.clone(), file, anchor));
        }
        if !is_md {
            for c in bare.captures_iter(&text) {
                out.push((
                    f.clone(),
                    root.join(&c[1]),
                    c.get(2).map(|a| a.as_str()[1..].to_string()),
                ));
            }
        }
    }
    out
}

#[test]
fn every_link_to_a_document_resolves_to_it_and_its_heading() {
    let links = doc_links();
    assert!(
        links
            .iter()
            .any(|(_, t, a)| t.ends_with("docs/verification.md") && a.is_some()),
        "the code points at docs/verification.md's sections: {} links read",
        links.len()
    );
    let mut broken = Vec::new();
    for (from, target, anchor) in &links {
        let Ok(text) = std::fs::read_to_string(target) else {
            if !target.exists() {
                broken.push(format!(
                    "{}: {} is not there",
                    from.display(),
                    target.display()
                ));
            }
            continue;
        };
        if let Some(a) = anchor
            && !anchors(&text).contains(a)
        {
            broken.push(format!(
                "{}: {} has no heading #{a}",
                from.display(),
                target.display()
            ));
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn nothing_points_at_a_document_outside_the_repository() {
    // Spelled in parts so that this file does not name them either.
    let outside = [
        concat!("CONT", "RACT"),
        concat!("shared", "/spec"),
        concat!("STATIS", "TICS.md"),
        "\u{a7}",
    ];
    let mut files = Vec::new();
    for d in ["src", "tests", "benches"] {
        all_files(&root().join(d), &mut files);
    }
    let mut found = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_heading_gets_githubs_anchor() {
    assert_eq!(slug(" HTTP, metrics and logs"), "http-metrics-and-logs");
    assert_eq!(
        slug(" GitHub operations (REST v3)"),
        "github-operations-rest-v3"
    );
    assert_eq!(
        anchors("# A\n```\n# not a heading\n```\n## Run identity\n"),
        ["a", "run-identity"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
