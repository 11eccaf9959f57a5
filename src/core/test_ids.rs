//! The names one test goes by, and how each runner runs just that one (docs/verification.md#test-ids).
//! A description, a CI log, the reliability file and a diff name the same test in different
//! forms: `bounded::forget_blocked_sender`, `tests/bounded.rs::forget_blocked_sender` and
//! `forget_blocked_sender` are one cargo test; `example.com/acme/pool.TestX` and `pool::TestX`
//! one Go test; `tests.test_lock.TestRWLock.test_x` and `tests/test_lock.py::TestRWLock::test_x`
//! one pytest test. A selection never merges two tests: a name several binaries share is
//! reported as ambiguous by the run's judge (core::runs), naming both.

use crate::core::failures::TestResult;

/// What a runner is told, and what its output is matched against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Arguments that pick the target (`--test bounded`, `--lib`), before the runner's own.
    pub target: Vec<String>,
    /// The exact name the runner gets (`forget_blocked_sender`, `TestX/sub`, a pytest node id).
    pub name: String,
    /// The package the runner is given (Go: `./services/pool`, an import path or `./...`).
    pub package: Option<String>,
    /// The binary (cargo) the result must come from, when the id names one.
    pub binary: Option<String>,
}

/// A cargo project's targets, from `cargo metadata --no-deps` (or a folder's files).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CargoLayout {
    /// Integration test targets (`tests/bounded.rs` is `bounded`).
    pub tests: Vec<String>,
    /// Library and binary target names (`async_channel`), whose unit tests carry them.
    pub crates: Vec<String>,
}

impl CargoLayout {
    /// From `cargo metadata --format-version 1 --no-deps` JSON.
    pub fn from_metadata(json: &str) -> Option<CargoLayout> {
        let v: serde_json::Value = serde_json::from_str(json).ok()?;
        let mut layout = CargoLayout::default();
        for p in v.get("packages")?.as_array()? {
            for t in p
                .get("targets")
                .and_then(|t| t.as_array())
                .into_iter()
                .flatten()
            {
                let name = t.get("name").and_then(|n| n.as_str()).unwrap_or("");
                let kinds: Vec<&str> = t
                    .get("kind")
                    .and_then(|k| k.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_str())
                    .collect();
                let name = name.replace('-', "_");
                if kinds.contains(&"test") {
                    layout.tests.push(name);
                } else if kinds
                    .iter()
                    .any(|k| matches!(*k, "lib" | "rlib" | "bin" | "proc-macro" | "cdylib"))
                {
                    layout.crates.push(name);
                }
            }
        }
        Some(layout)
    }
}

/// `tests/bounded.rs` or `tests/bounded/main.rs` → `bounded`.
fn test_file_target(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("tests/")?;
    let t = rest
        .strip_suffix("/main.rs")
        .or_else(|| rest.strip_suffix(".rs"))?;
    (!t.is_empty() && !t.contains('/')).then_some(t)
}

/// `src/sync/notify.rs` → `sync::notify` (`src/lib.rs`, `src/x/mod.rs` as Rust names them).
fn module_path(path: &str) -> Option<String> {
    let rest = path.strip_prefix("src/")?.strip_suffix(".rs")?;
    let rest = rest.strip_suffix("/mod").unwrap_or(rest);
    Some(match rest {
        "lib" | "main" => String::new(),
        r => r.replace('/', "::"),
    })
}

/// The cargo selection of a test id in any of its forms.
pub fn cargo(id: &str, layout: &CargoLayout) -> Selection {
    let sel = |target: Vec<String>, name: String, binary: Option<String>| Selection {
        target,
        name,
        package: None,
        binary,
    };
    let Some((first, rest)) = id.split_once("::") else {
        return sel(Vec::new(), id.to_string(), None);
    };
    if first.ends_with(".rs") {
        if let Some(t) = test_file_target(first) {
            return sel(
                vec!["--test".into(), t.to_string()],
                rest.to_string(),
                Some(t.to_string()),
            );
        }
        if let Some(b) = first
            .strip_prefix("src/bin/")
            .and_then(|b| b.strip_suffix(".rs"))
        {
            return sel(
                vec!["--bin".into(), b.to_string()],
                rest.to_string(),
                Some(b.replace('-', "_")),
            );
        }
        if let Some(m) = module_path(first) {
            let name = if m.is_empty() {
                rest.to_string()
            } else {
                format!("{m}::{rest}")
            };
            let target = if first == "src/main.rs" {
                Vec::new()
            } else {
                vec!["--lib".into()]
            };
            return sel(target, name, None);
        }
    }
    if layout.tests.iter().any(|t| t == first) {
        return sel(
            vec!["--test".into(), first.to_string()],
            rest.to_string(),
            Some(first.to_string()),
        );
    }
    if layout.crates.iter().any(|c| c == first) {
        return sel(Vec::new(), rest.to_string(), Some(first.to_string()));
    }
    // A module path of the library (`sync::notify::tests::wakes_all`).
    sel(Vec::new(), id.to_string(), None)
}

/// A Go test id: `pkg/path::TestX/sub`, `example.com/m/pkg.TestX`, or `TestX` alone.
pub fn go(id: &str, is_dir: impl Fn(&str) -> bool) -> Selection {
    let (pkg, name) = match split_id(id) {
        (Some(p), n) => (Some(p.to_string()), n.to_string()),
        (None, n) => match dotted_go(n) {
            Some((p, n)) => (Some(p.to_string()), n.to_string()),
            None => (None, n.to_string()),
        },
    };
    let package = Some(match pkg {
        None => "./...".to_string(),
        Some(p) if p.starts_with("./") || p == "." => p,
        Some(p) if is_dir(&p) => format!("./{p}"),
        // An import path (`example.com/m/pkg`): go test takes it as it is.
        Some(p) => p,
    });
    Selection {
        target: Vec::new(),
        name,
        package,
        binary: None,
    }
}

/// `example.com/m/pkg.TestX` → (`example.com/m/pkg`, `TestX`).
fn dotted_go(id: &str) -> Option<(&str, &str)> {
    let slash = id.rfind('/')?;
    let dot = slash + id[slash..].find('.')?;
    let name = &id[dot + 1..];
    ["Test", "Benchmark", "Fuzz", "Example"]
        .iter()
        .any(|p| name.starts_with(p))
        .then_some((&id[..dot], name))
}

/// go test's `-run` pattern for a test and its subtests: `^TestX$/^drained$`.
pub fn go_run_pattern(name: &str) -> String {
    name.split('/')
        .map(|p| format!("^{}$", crate::core::shell::regex_escape(p)))
        .collect::<Vec<_>>()
        .join("/")
}

/// A pytest id: a node id (`tests/t.py::Class::test_x[param]`) as it is; the dotted form
/// (`tests.t.Class.test_x`) becomes the node id of the longest module prefix that is a file.
pub fn pytest(id: &str, is_file: impl Fn(&str) -> bool) -> Selection {
    let node = if id.contains("::") || id.contains(".py") {
        id.to_string()
    } else {
        let parts: Vec<&str> = id.split('.').collect();
        (1..parts.len())
            .rev()
            .find_map(|n| {
                let file = format!("{}.py", parts[..n].join("/"));
                is_file(&file).then(|| format!("{file}::{}", parts[n..].join("::")))
            })
            .unwrap_or_else(|| id.to_string())
    };
    Selection {
        target: Vec::new(),
        name: node,
        package: None,
        binary: None,
    }
}

/// The results of a run that are the selected test: for cargo, the exact name (from the named
/// binary when there is one); for the others, the id in any of its forms ([`same_test`]).
pub fn matches(sel: &Selection, id: &str, r: &TestResult) -> bool {
    if sel.target.first().is_some_and(|t| t.starts_with("--")) || sel.binary.is_some() {
        // A run of one selected target: a result that names no binary is that target's.
        return r.test.name == sel.name
            && match (&sel.binary, r.test.package.as_deref()) {
                (Some(b), Some(p)) => p == b,
                _ => true,
            };
    }
    same_test(id, &r.test.id()) || same_test(&sel.name, &r.test.id())
}

/// `pkg/path::Name` → (`pkg/path`, `Name`); an id without `::` is a bare name.
pub fn split_id(id: &str) -> (Option<&str>, &str) {
    match id.split_once("::") {
        Some((pkg, name)) => (Some(pkg), name),
        None => (None, id),
    }
}

/// Source files' extensions, dropped where a file names a test's place.
const SOURCE_EXTENSIONS: &[&str] = &[
    ".rs", ".py", ".go", ".cc", ".cpp", ".cxx", ".c", ".h", ".hpp", ".java", ".kt", ".ts", ".tsx",
    ".js", ".jsx", ".mjs", ".cjs", ".swift", ".cs", ".rb",
];

/// A test id as the parts it is made of, outermost first, whatever form it came in: the
/// package, file, module, class or `describe` blocks it stands in, then its own name, its
/// subtests and its parameters (a `[…]` is kept whole). Separators (`::`, `#`, ` › `, `/`, `.`)
/// and source extensions are not parts; nor is a value-parameterized googletest instance's
/// prefix and index (`CacheEraseRace/LRUCacheTest.EraseDuringLookup/0` is
/// `LRUCacheTest.EraseDuringLookup`), nor `mod.rs`/`main.rs`, which Rust names by their folder.
pub fn parts(id: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let majors: Vec<&str> = id
        .split("::")
        .flat_map(|m| m.split('#'))
        .flat_map(|m| m.split('\u{203a}'))
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect();
    let last = majors.len().saturating_sub(1);
    for (i, major) in majors.into_iter().enumerate() {
        let mut m = major;
        if i == last {
            m = gtest_instance(m).unwrap_or(m);
        } else if let Some(ext) = SOURCE_EXTENSIONS.iter().find(|e| m.ends_with(*e)) {
            m = &m[..m.len() - ext.len()];
            for folder_named in ["/mod", "/main"] {
                if let Some(rest) = m.strip_suffix(folder_named) {
                    m = rest;
                }
            }
            // A crate's root: `src/lib.rs::tests::x` is libtest's `tests::x` of the library.
            if *ext == ".rs"
                && let Some(rest) = m.strip_suffix("/lib")
            {
                m = rest;
            }
        }
        split_outside_brackets(m, &mut out);
    }
    out
}

/// `Prefix/Suite.Name/3` → `Suite.Name`.
fn gtest_instance(m: &str) -> Option<&str> {
    let (prefix, rest) = m.split_once('/')?;
    let (test, index) = rest.rsplit_once('/')?;
    let word = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    let (suite, name) = test.split_once('.')?;
    (word(prefix) && word(suite) && word(name) && index.chars().all(|c| c.is_ascii_digit()))
        .then_some(test)
}

/// Splits on `/`, `.` and spaces around the jest separator, keeping a parameter list whole.
fn split_outside_brackets<'a>(m: &'a str, out: &mut Vec<&'a str>) {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in m.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '/' | '.' if depth == 0 => {
                if i > start {
                    out.push(&m[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < m.len() {
        out.push(&m[start..]);
    }
}

/// Whether two ids name one test: the parts of one end the parts of the other
/// (`pool::TestX` is `example.com/acme/pool.TestX`; `forget_blocked_sender` is
/// `tests/bounded.rs::forget_blocked_sender`), never a parent and its subtest, never two
/// packages' tests of one name (`bounded::x` is not `unbounded::x`). A bare name is every
/// test of that name: a run's judge, not this, says when that is several.
pub fn same_test(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (pa, pb) = (parts(a), parts(b));
    let (short, long) = if pa.len() <= pb.len() {
        (&pa, &pb)
    } else {
        (&pb, &pa)
    };
    !short.is_empty() && long.ends_with(short)
}

/// The words a declaration of test `id` holds, in any of the forms the test goes by: the
/// function (`RequestQueuedDuringSwitch` of `DBFlushRaceTest.RequestQueuedDuringSwitch` and of
/// `CacheEraseRace/LRUCacheTest.EraseDuringLookup/0`'s `EraseDuringLookup`), `TestX` of
/// `example.com/m/pkg.TestX`, the subtest's own name of `TestX/slow_start` (`slow`, `start`: its
/// `t.Run`), `test_x` of `tests.test_a.K.test_x` and of
/// `a.py::test_x[4]`, `checkoutWakesWaiter` of `pkg.PoolTest#checkoutWakesWaiter`, and the words
/// of a jest title (`wakes a waiter` of `pool › checkout › wakes a waiter`). A diff declares the
/// test when its added lines hold every one.
pub fn declared_words(id: &str) -> Vec<&str> {
    if let Some((_, title)) = id.rsplit_once('\u{203a}') {
        return title.split_whitespace().collect();
    }
    let name = id.rsplit("::").next().unwrap_or(id);
    let name = name.split('[').next().unwrap_or(name);
    let name = name.rsplit('#').next().unwrap_or(name);
    // `Prefix/Suite.Name/0`, `example.com/m/pkg.TestX`: the last part with a `.` names it;
    // `TestX/sub`: the first part (then the subtest's, below).
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let part = parts
        .iter()
        .rev()
        .find(|p| p.contains('.') && !p.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .or(parts.first())
        .copied()
        .unwrap_or(name);
    let last = part.rsplit('.').next().unwrap_or(part);
    // A Go subtest (`TestCheckout/drained`) is declared by its `t.Run("drained", …)`, in a
    // function that may be older than the change; go test writes its spaces as `_`.
    let is_go_test = ["Test", "Fuzz", "Benchmark"].iter().any(|p| {
        last.strip_prefix(p)
            .is_some_and(|r| !r.starts_with(char::is_lowercase))
    });
    if is_go_test && parts.first() == Some(&part) && parts.len() > 1 {
        let sub = parts[parts.len() - 1];
        return sub.split('_').filter(|w| !w.is_empty()).collect();
    }
    if last.is_empty() {
        Vec::new()
    } else {
        vec![last]
    }
}

/// A Rust test's name as libtest (`--exact`) and nextest (`-E 'test(=…)'`) get it: path
/// segments of letters, digits and `_` joined by `::`. Anything else (`()|&!+,` and spaces
/// build a nextest filter; `pool::x) + all() + test(=y` would select every test) is refused:
/// an id is data. Java ids legitimately hold `()`, so this rule is the cargo runners' alone.
pub fn rust_test_name(name: &str) -> Result<(), String> {
    let ok_segment = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if name.split("::").all(ok_segment) {
        Ok(())
    } else {
        Err(format!(
            "a Rust test name holds only letters, digits, `_` and `::`, not `{}`",
            name.chars().take(80).collect::<String>()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{declared_words, parts, same_test};

    /// One test per row, in the forms it goes by (written for this project, one per runner).
    const FORMS: &[&[&str]] = &[
        &[
            "LockTableTest.ReleaseWakesWaiter",
            "storage/lock_table_test::LockTableTest.ReleaseWakesWaiter",
            "storage/lock_table_test.cc::LockTableTest.ReleaseWakesWaiter",
        ],
        &[
            "Shards/ShardMapTest.ResizeDuringRead/0",
            "Shards/ShardMapTest.ResizeDuringRead/3",
            "ShardMapTest.ResizeDuringRead",
        ],
        &[
            "queue/broker::TestAckAfterRedelivery",
            "example.org/mq/queue/broker.TestAckAfterRedelivery",
            "TestAckAfterRedelivery",
        ],
        &[
            "queue/broker::TestFanout/slow_consumer",
            "TestFanout/slow_consumer",
        ],
        &[
            "mpsc::recv_after_close",
            "tests/mpsc.rs::recv_after_close",
            "tests/mpsc/main.rs::recv_after_close",
            "recv_after_close",
        ],
        &[
            "sched::timer::tests::fires_once",
            "src/sched/timer.rs::tests::fires_once",
            "src/sched/timer/mod.rs::tests::fires_once",
        ],
        &[
            "tests::wakes_the_waiter",
            "src/lib.rs::tests::wakes_the_waiter",
            "src::tests::wakes_the_waiter",
        ],
        &[
            "tests/test_pool.py::TestPool::test_release_on_cancel",
            "tests.test_pool.TestPool.test_release_on_cancel",
            "TestPool::test_release_on_cancel",
        ],
        &["tests/test_sem.py::test_acquire[3-workers]"],
        &[
            "org.acme.cache.CacheTest#evictWhileLoading",
            "org.acme.cache.CacheTest.evictWhileLoading",
            "CacheTest.evictWhileLoading",
        ],
        &[
            "lock \u{203a} release \u{203a} wakes the next waiter",
            "src/lock.spec.ts \u{203a} lock \u{203a} release \u{203a} wakes the next waiter",
        ],
    ];

    #[test]
    fn every_form_of_a_test_is_that_test_and_no_other() {
        for (i, row) in FORMS.iter().enumerate() {
            for a in *row {
                for b in *row {
                    assert!(same_test(a, b), "{a:?} and {b:?} are one test");
                }
                for (j, other) in FORMS.iter().enumerate() {
                    if i != j {
                        for b in *other {
                            assert!(!same_test(a, b), "{a:?} is not {b:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_test_is_found_with_or_without_the_module_prefix() {
        let w = "services/billing/integration::TestInvoiceRetryIdempotent";
        assert!(same_test(w, w));
        assert!(same_test(
            w,
            "example.com/acme/services/billing/integration::TestInvoiceRetryIdempotent"
        ));
        assert!(same_test(w, "TestInvoiceRetryIdempotent"));
        assert!(!same_test(w, "services/billing/integration::TestOther"));
        assert!(!same_test(w, "services/other::TestInvoiceRetryIdempotent"));
    }

    #[test]
    fn near_names_are_other_tests() {
        for (a, b) in [
            // A parent and its subtest; two subtests.
            (
                "queue/broker::TestFanout",
                "queue/broker::TestFanout/slow_consumer",
            ),
            ("TestFanout/slow_consumer", "TestFanout/fast_consumer"),
            // One name in two binaries, two packages, two classes.
            ("mpsc::recv_after_close", "broadcast::recv_after_close"),
            (
                "tests/mpsc.rs::recv_after_close",
                "tests/spmc.rs::recv_after_close",
            ),
            ("queue/broker::TestAck", "queue/client::TestAck"),
            ("org.acme.A#m", "org.acme.B#m"),
            // Two parameters; a parameter's dots and slashes are the parameter's.
            ("t.py::test_x[a/b.c]", "t.py::test_x[a]"),
            ("t.py::test_x[1]", "t.py::test_x[2]"),
            // A word is not a part of a longer word.
            ("pool::TestAck", "pool::TestAckAll"),
        ] {
            assert!(!same_test(a, b), "{a:?} is not {b:?}");
            assert!(!same_test(b, a), "{b:?} is not {a:?}");
        }
        assert_eq!(parts("t.py::test_x[a/b.c]"), ["t", "test_x[a/b.c]"]);
        assert!(parts("").is_empty());
        assert!(!same_test("", "x"));
    }

    #[test]
    fn every_form_a_test_goes_by_names_the_words_of_its_declaration() {
        for (id, words) in [
            (
                "DBFlushRaceTest.RequestQueuedDuringSwitch",
                vec!["RequestQueuedDuringSwitch"],
            ),
            (
                "db/db_flush_race_test::DBFlushRaceTest.RequestQueuedDuringSwitch",
                vec!["RequestQueuedDuringSwitch"],
            ),
            (
                "CacheEraseRace/LRUCacheTest.EraseDuringLookup/0",
                vec!["EraseDuringLookup"],
            ),
            (
                "services/pool::TestCheckoutWakeupOrdering",
                vec!["TestCheckoutWakeupOrdering"],
            ),
            (
                "example.com/acme/services/pool.TestCheckoutWakeupOrdering",
                vec!["TestCheckoutWakeupOrdering"],
            ),
            ("services/pool::TestCheckout/drained", vec!["drained"]),
            ("TestFanout/slow_consumer", vec!["slow", "consumer"]),
            (
                "tests/bounded.rs::forget_blocked_sender",
                vec!["forget_blocked_sender"],
            ),
            ("sync::notify::tests::wakes_all", vec!["wakes_all"]),
            (
                "tests.test_lock.TestRWLock.test_cancelled_waiter",
                vec!["test_cancelled_waiter"],
            ),
            (
                "tests/test_queue.py::test_drain[4-threads]",
                vec!["test_drain"],
            ),
            (
                "com.acme.pool.PoolTest#checkoutWakesWaiter",
                vec!["checkoutWakesWaiter"],
            ),
            ("PoolTest.checkoutWakesWaiter", vec!["checkoutWakesWaiter"]),
            (
                "pool \u{203a} checkout \u{203a} wakes a waiter",
                vec!["wakes", "a", "waiter"],
            ),
        ] {
            assert_eq!(declared_words(id), words, "{id}");
        }
    }

    use super::*;

    #[test]
    fn a_rust_test_name_is_data_for_libtest_and_nextest() {
        for ok in [
            "forget_blocked_sender",
            "bounded::tests::wakes_2",
            "ünïcode_test",
        ] {
            assert_eq!(rust_test_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "x) + all() + test(=y",
            "a | b",
            "!x",
            "x&y",
            "",
            "a::::b",
            "a b",
            "--include-ignored",
        ] {
            assert!(rust_test_name(bad).is_err(), "{bad}");
        }
        // The whole id passes the shared check (Java ids hold `()`): the runner's rule stops it.
        let id = "pool::x) + all() + test(=y";
        assert_eq!(crate::core::verify::claim::safe_test(id), Ok(()));
        let sel = cargo(id, &CargoLayout::default());
        assert!(rust_test_name(&sel.name).is_err(), "{sel:?}");
    }

    fn layout() -> CargoLayout {
        CargoLayout {
            tests: vec!["bounded".into(), "unbounded".into(), "loom".into()],
            crates: vec!["async_channel".into()],
        }
    }

    fn target(s: &Selection) -> String {
        s.target.join(" ")
    }

    #[test]
    fn one_cargo_test_by_every_name_it_goes_by() {
        for id in [
            "bounded::forget_blocked_sender",
            "tests/bounded.rs::forget_blocked_sender",
            "tests/bounded/main.rs::forget_blocked_sender",
        ] {
            let s = cargo(id, &layout());
            assert_eq!(target(&s), "--test bounded", "{id}");
            assert_eq!(s.name, "forget_blocked_sender", "{id}");
            assert_eq!(s.binary.as_deref(), Some("bounded"), "{id}");
        }
        let bare = cargo("forget_blocked_sender", &layout());
        assert_eq!((target(&bare), bare.binary), (String::new(), None));
        let unit = cargo("src/sync/notify.rs::tests::wakes_all", &layout());
        assert_eq!(
            (target(&unit), unit.name.as_str()),
            ("--lib".to_string(), "sync::notify::tests::wakes_all")
        );
        let module = cargo("sync::notify::tests::wakes_all", &layout());
        assert_eq!(module.name, "sync::notify::tests::wakes_all");
        let krate = cargo("async_channel::tests::smoke", &layout());
        assert_eq!(
            (krate.name.as_str(), krate.binary.as_deref()),
            ("tests::smoke", Some("async_channel"))
        );
        assert_eq!(
            target(&cargo("src/lib.rs::tests::smoke", &layout())),
            "--lib"
        );
        assert_eq!(
            target(&cargo("src/bin/tool.rs::tests::x", &layout())),
            "--bin tool"
        );
    }

    #[test]
    fn cargo_metadata_gives_the_targets() {
        let json = r#"{"packages":[{"name":"async-channel","targets":[
            {"name":"async_channel","kind":["lib"],"src_path":"/w/src/lib.rs"},
            {"name":"bounded","kind":["test"],"src_path":"/w/tests/bounded.rs"},
            {"name":"my-bench","kind":["bench"],"src_path":"/w/benches/b.rs"}]}]}"#;
        assert_eq!(
            CargoLayout::from_metadata(json),
            Some(CargoLayout {
                tests: vec!["bounded".into()],
                crates: vec!["async_channel".into()],
            })
        );
        assert_eq!(CargoLayout::from_metadata("not json"), None);
    }

    #[test]
    fn one_go_test_by_every_name_it_goes_by() {
        let dir = |p: &str| p == "services/pool";
        let a = go("services/pool::TestCheckoutWakeupOrdering", dir);
        assert_eq!(a.package.as_deref(), Some("./services/pool"));
        assert_eq!(a.name, "TestCheckoutWakeupOrdering");
        let b = go(
            "example.com/acme/services/pool.TestCheckoutWakeupOrdering",
            dir,
        );
        assert_eq!(b.package.as_deref(), Some("example.com/acme/services/pool"));
        assert_eq!(b.name, "TestCheckoutWakeupOrdering");
        let c = go("TestCheckoutWakeupOrdering", dir);
        assert_eq!(c.package.as_deref(), Some("./..."));
        let sub = go("services/pool::TestCheckout/drained", dir);
        assert_eq!(go_run_pattern(&sub.name), "^TestCheckout$/^drained$");
        assert_eq!(go_run_pattern("TestA.b"), "^TestA\\.b$");
    }

    #[test]
    fn one_pytest_test_by_every_name_it_goes_by() {
        let file = |p: &str| p == "tests/test_lock.py";
        for id in [
            "tests/test_lock.py::TestRWLock::test_cancelled_waiter",
            "tests.test_lock.TestRWLock.test_cancelled_waiter",
        ] {
            assert_eq!(
                pytest(id, file).name,
                "tests/test_lock.py::TestRWLock::test_cancelled_waiter",
                "{id}"
            );
        }
        assert_eq!(
            pytest("tests/test_queue.py::test_drain[4-threads]", file).name,
            "tests/test_queue.py::test_drain[4-threads]"
        );
    }
}
