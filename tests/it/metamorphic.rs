//! Metamorphic tests of the judgement: transformations a reviewer would call the same PR must
//! not change the verdict. For descriptions: re-indent, quote, a log-timestamp or line-number
//! prefix on each line, CRLF, blank lines between lines, a `<details>` wrapper, the evidence's
//! heading in another style, identifiers and test names renamed consistently, the prose
//! rewrapped at another width. For diffs: the
//! hunks of a file reordered, a call split after its `(`, CRLF, identifiers renamed. Property
//! tests (proptest) over the labelled dev set in `../shared/fixtures/real-prs/` (skipped with a
//! message when absent) and over this project's own cases (always).
//!
//! A rule that survives these is a rule; one that does not is fitted to a layout.

use std::path::PathBuf;

use proptest::prelude::*;

use repro_gate::core::classify::classify;
use repro_gate::core::classify::diff::{FileChange, parse_unified};
use repro_gate::core::config::RepoConfig;
use repro_gate::core::evidence::check_body;

/// A transformation of a description.
#[derive(Clone, Copy, Debug)]
enum BodyT {
    Indent,
    Quote,
    Timestamp,
    LineNumbers,
    Crlf,
    BlankLines,
    Details,
    Heading(usize),
    Rename,
    /// The prose rewrapped at another width (a paragraph's line breaks moved).
    Reflow(usize),
}

const HEADINGS: &[&str] = &[
    "## Testing",
    "Test Plan:",
    "**Repro**",
    "### How to reproduce",
];

fn lines_of(body: &str) -> Vec<&str> {
    body.lines().collect()
}

/// The body with `f` applied to each line outside fenced code (a fence's own lines too, so
/// the fence keeps its shape).
fn each_line(body: &str, f: impl Fn(&str) -> String) -> String {
    lines_of(body)
        .iter()
        .map(|l| f(l))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The body with `f` applied to each line inside fenced code (the pasted output), the fences
/// and the prose kept; `f` gets the line's number within its block.
fn in_code(body: &str, f: impl Fn(usize, &str) -> Vec<String>) -> String {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut n = 0;
    for l in lines_of(body) {
        let fence = l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
        if fence {
            fenced = !fenced;
            n = 0;
            out.push(l.to_string());
        } else if fenced {
            out.extend(f(n, l));
            n += 1;
        } else {
            out.push(l.to_string());
        }
    }
    out.join("\n") + "\n"
}

/// Consistent renames of the words a reader would not read anything into: identifiers
/// (`Pool` → `Basin`) and test names keep their shape (`TestX` → `TestZX`), so a rename never
/// turns a word into another kind of word.
fn rename(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String| {
        if let Some(rest) = w
            .strip_prefix("Test")
            .filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            out.push_str("TestZ");
            out.push_str(rest);
        } else if let Some(rest) = w.strip_prefix("test_").filter(|r| !r.is_empty()) {
            out.push_str("test_z");
            out.push_str(rest);
        } else if w == "Pool" || w == "pool" {
            out.push_str(if w == "Pool" { "Basin" } else { "basin" });
        } else {
            out.push_str(w);
        }
        w.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn apply_body(body: &str, t: BodyT) -> String {
    match t {
        BodyT::Indent => each_line(body, |l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("  {l}")
            }
        }),
        BodyT::Quote => each_line(body, |l| format!("> {l}")),
        // A log viewer's prefixes and spacing land on the pasted output, not on the prose.
        BodyT::Timestamp => in_code(body, |_, l| vec![format!("2026-11-29T10:00:00.123Z {l}")]),
        BodyT::LineNumbers => in_code(body, |i, l| vec![format!("{}: {l}", i + 1)]),
        BodyT::Crlf => body.replace("\r\n", "\n").replace('\n', "\r\n"),
        BodyT::BlankLines => in_code(body, |_, l| vec![l.to_string(), String::new()]),
        BodyT::Details => format!("<details>\n<summary>Details</summary>\n\n{body}\n</details>\n"),
        BodyT::Heading(i) => {
            let to = HEADINGS[i % HEADINGS.len()];
            each_line(body, |l| {
                let t = l.trim();
                if t.eq_ignore_ascii_case("## reproduction") || t.eq_ignore_ascii_case("## repro") {
                    to.to_string()
                } else {
                    l.to_string()
                }
            })
        }
        BodyT::Rename => rename(body),
        BodyT::Reflow(width) => reflow(body, width),
    }
}

/// Whether a prose line stands on its own (a heading, a list item, a quote, a table row, a
/// `key: value` field, an HTML tag or a trailer), so that rewrapping leaves it as it is.
fn own_line(l: &str) -> bool {
    let t = l.trim_start();
    let numbered = t.chars().next().is_some_and(|c| c.is_ascii_digit())
        && t.trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with(['.', ')']);
    let field = t
        .split_once(':')
        .is_some_and(|(k, _)| !k.is_empty() && !k.contains(' '));
    t.is_empty()
        || l.starts_with([' ', '\t'])
        || t.starts_with(['#', '-', '*', '+', '>', '|', '<', '['])
        || numbered
        || field
}

/// Prose paragraphs outside fenced code rewrapped at `width` columns; code, and lines that
/// stand on their own, kept.
fn reflow(body: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut para: Vec<String> = Vec::new();
    let flush = |para: &mut Vec<String>, out: &mut Vec<String>| {
        let words: Vec<String> = para
            .drain(..)
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect();
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        if !line.is_empty() {
            out.push(line);
        }
    };
    let mut fenced = false;
    for (i, l) in lines_of(body).into_iter().enumerate() {
        let fence = l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
        if fence {
            fenced = !fenced;
        }
        // The title is a line of its own.
        if fence || fenced || i == 0 || own_line(l) {
            keep_or_flush(&mut para, &mut out, &flush);
            out.push(l.to_string());
        } else {
            para.push(l.to_string());
        }
    }
    keep_or_flush(&mut para, &mut out, &flush);
    out.join("\n") + "\n"
}

/// A paragraph of pasted output (a report's `Read at 0x… by goroutine 7:`, frames, `file.go:12`)
/// is not prose: a person would not rewrap it, so it is kept line for line.
fn keep_or_flush(
    para: &mut Vec<String>,
    out: &mut Vec<String>,
    flush: &dyn Fn(&mut Vec<String>, &mut Vec<String>),
) {
    let output = para.iter().any(|l| {
        let t = l.trim_end();
        t.ends_with(':')
            || ["0x", "()", "==", "goroutine", "thread T", "#0", "  "]
                .iter()
                .any(|m| t.contains(m))
            || t.split_whitespace().any(|w| {
                w.rsplit_once(':').is_some_and(|(f, n)| {
                    f.contains('.') && n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty()
                })
            })
    });
    if output {
        out.append(para);
    } else {
        flush(para, out);
    }
}

/// A transformation of a diff.
#[derive(Clone, Copy, Debug)]
enum DiffT {
    ReorderHunks,
    SplitCall,
    Crlf,
    Rename,
}

/// The same file change with its hunks in reverse order (their headers keep their numbers).
fn reorder(f: &FileChange) -> FileChange {
    let Some(p) = &f.patch else { return f.clone() };
    let mut hunks: Vec<String> = Vec::new();
    for l in p.lines() {
        if l.starts_with("@@") || hunks.is_empty() {
            hunks.push(String::new());
        }
        let h = hunks.last_mut().expect("a hunk");
        h.push_str(l);
        h.push('\n');
    }
    hunks.reverse();
    FileChange {
        patch: Some(hunks.concat()),
        ..f.clone()
    }
}

/// Splits each added or removed call after its `(` when arguments follow: `lock(a, b)` →
/// `lock(` / `a, b)` on the next line of the same kind.
fn split_calls(f: &FileChange) -> FileChange {
    let Some(p) = &f.patch else { return f.clone() };
    let mut out = String::new();
    for l in p.lines() {
        let kind = l.chars().next();
        if matches!(kind, Some('+' | '-'))
            && !l.starts_with("+++")
            && !l.starts_with("---")
            && let Some(i) = l.find('(')
            && l[i + 1..].trim().len() > 1
            && !l[..i].contains(['"', '\'', '/', '#'])
            && l[i + 1..]
                .trim_start()
                .starts_with(|c: char| c.is_alphanumeric() || c == '&')
        {
            let indent: String = l[1..].chars().take_while(|c| c.is_whitespace()).collect();
            out.push_str(&l[..=i]);
            out.push('\n');
            out.push(kind.unwrap_or('+'));
            out.push_str(&indent);
            out.push_str("    ");
            out.push_str(l[i + 1..].trim_start());
            out.push('\n');
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    FileChange {
        patch: Some(out),
        ..f.clone()
    }
}

fn apply_diff(files: &[FileChange], t: DiffT) -> Vec<FileChange> {
    files
        .iter()
        .map(|f| match t {
            DiffT::ReorderHunks => reorder(f),
            DiffT::SplitCall => split_calls(f),
            DiffT::Crlf => FileChange {
                patch: f.patch.as_ref().map(|p| p.replace('\n', "\r\n")),
                ..f.clone()
            },
            DiffT::Rename => FileChange {
                patch: f.patch.as_ref().map(|p| rename(p)),
                ..f.clone()
            },
        })
        .collect()
}

/// Every transformation of a description, each heading style included.
const ALL_BODY_T: [BodyT; 13] = [
    BodyT::Indent,
    BodyT::Quote,
    BodyT::Timestamp,
    BodyT::LineNumbers,
    BodyT::Crlf,
    BodyT::BlankLines,
    BodyT::Details,
    BodyT::Heading(0),
    BodyT::Heading(1),
    BodyT::Heading(2),
    BodyT::Rename,
    BodyT::Reflow(40),
    BodyT::Reflow(200),
];

/// Every transformation of a diff.
const ALL_DIFF_T: [DiffT; 4] = [
    DiffT::ReorderHunks,
    DiffT::SplitCall,
    DiffT::Crlf,
    DiffT::Rename,
];

fn body_t() -> impl Strategy<Value = BodyT> {
    prop_oneof![
        Just(BodyT::Indent),
        Just(BodyT::Quote),
        Just(BodyT::Timestamp),
        Just(BodyT::LineNumbers),
        Just(BodyT::Crlf),
        Just(BodyT::BlankLines),
        Just(BodyT::Details),
        (0usize..HEADINGS.len()).prop_map(BodyT::Heading),
        Just(BodyT::Rename),
        (30usize..120).prop_map(BodyT::Reflow),
    ]
}

fn diff_t() -> impl Strategy<Value = DiffT> {
    prop_oneof![
        Just(DiffT::ReorderHunks),
        Just(DiffT::SplitCall),
        Just(DiffT::Crlf),
        Just(DiffT::Rename),
    ]
}

// ------------------------------------------------------------------ the cases

/// This project's own short examples of each kind (always run).
const OWN_BODIES: &[&str] = &[
    "Fix the lost wakeup.\n\n## Reproduction\nkind: seed\ntest: pool::TestPoolCheckout\nseed: 7311\nbase: fails 100/100\n",
    "Fix the refill race.\n\n## Reproduction\nkind: interleaving\ntest: pool::TestRefillOrdering\nbase: fails 20/20\n\n`TestRefillOrdering` parks the refill goroutine on a hook between the check and the wait, every time.\n",
    "Race report from CI:\n\n```\nWARNING: DATA RACE\nWrite at 0x00c000 by goroutine 7:\n  pool.(*Pool).Return()\n      /src/pool/pool.go:85 +0x2f6\n\nPrevious read at 0x00c000 by goroutine 8:\n  pool.(*Pool).Checkout()\n      /src/pool/pool.go:41 +0x44\n```\n",
    "Reran CI and it is green now.\n",
    "It reproduces with this seed:\n\n    go test ./pool -run TestPoolCheckout -test.shuffle 1712345678\n",
    "Could not reproduce locally; ran it 1000 times with -count=1000 and it passed.\n",
    "The test fails reliably on my machine because of tight deadlines, so the timeout is raised.\n",
    "Adds test_concurrent_put, which installs an instrumented sink that flags overlapping puts; it opens the window deterministically.\n",
];

/// This project's own shapes of the kinds a rule must handle in general, each with the verdict
/// a reviewer gives it, and the diff it is judged against when it names a test the diff adds.
const OWN_KINDS: &[(&str, bool, Option<&str>)] = &[
    // A seed as the argument of a simulator's or harness's command.
    (
        "Found by the simulator.\n\nReproduce: `./target/release/vopr 4419283377` (the seed) fails before the fix and passes after.\n",
        true,
        None,
    ),
    (
        "The DST run with seed 8812331 finds it every time:\n\n```\nmake sim SIM_SEED=8812331\n```\n",
        true,
        None,
    ),
    (
        "Seed: `zig build simulate -- 5550123777`\n\nFails on that seed before this change and passes after.\n",
        true,
        None,
    ),
    (
        "DST_SEED=90817 just dst panics at step 300 without the fix, every run.\n",
        true,
        None,
    ),
    // A rate below every run is not deterministic, whatever the test's mechanism.
    (
        "`TestWritersOrdering` uses a barrier to line up the two writers. Before the fix it failed 3/50 runs under -race.\n",
        false,
        None,
    ),
    (
        "`test_flush_race` installs a failpoint that delays the flush. Without the fix the hang shows up roughly 1 in 40 runs.\n",
        false,
        None,
    ),
    (
        "TestEvictRace forces the eviction with a hook; before this change it hit the bug a handful of times in 500 runs.\n",
        false,
        None,
    ),
    (
        "~2% of runs of TestPoolDrain hung before the fix; the test pauses the goroutine with a channel.\n",
        false,
        None,
    ),
    // A test the diff declares, named by its bare name.
    (
        "The loom test `drop_races_notify` explores every interleaving and finds the lost wakeup on the old code.\n",
        true,
        Some(
            "diff --git a/tests/loom.rs b/tests/loom.rs\nnew file mode 100644\n--- /dev/null\n+++ b/tests/loom.rs\n@@ -0,0 +1,5 @@\n+#[test]\n+fn drop_races_notify() {\n+    loom::model(|| {\n+    });\n+}\n",
        ),
    ),
    (
        "shutdown_wakes_every_waiter parks both waiters on a barrier before the shutdown; it fails every time before this change.\n",
        true,
        Some(
            "diff --git a/src/pool.rs b/src/pool.rs\n--- a/src/pool.rs\n+++ b/src/pool.rs\n@@ -90,2 +90,6 @@ mod tests {\n     use super::*;\n+    #[tokio::test]\n+    async fn shutdown_wakes_every_waiter() {\n+        let b = Barrier::new(2);\n+    }\n }\n",
        ),
    ),
    (
        "The new ReleaseRacesLookup test parks the reader at a sync point while the writer releases; it crashes on every run without the fix.\n",
        true,
        Some(
            "diff --git a/db/pool_test.cc b/db/pool_test.cc\n--- a/db/pool_test.cc\n+++ b/db/pool_test.cc\n@@ -200,2 +200,5 @@\n }\n+TEST_F(PoolTest, ReleaseRacesLookup) {\n+  SyncPoint::GetInstance()->EnableProcessing();\n+}\n \n",
        ),
    ),
];

/// Each of this project's own kinds gets its verdict, and keeps it under every transformation.
#[test]
fn own_kinds_get_their_verdict_in_every_shape() {
    let all = ALL_BODY_T;
    let mut wrong = Vec::new();
    for (i, (body, expect, diff)) in OWN_KINDS.iter().enumerate() {
        let files = diff.map(|d| parse_unified(d).expect("own diff parses"));
        let v = check_body(body, files.as_deref());
        if v.satisfied != *expect {
            wrong.push(format!(
                "case {i}: expected {expect}: {body:?} -> {:?}",
                v.problems
            ));
            continue;
        }
        for t in all {
            let changed_diff = match t {
                BodyT::Rename => files.as_ref().map(|d| apply_diff(d, DiffT::Rename)),
                _ => files.clone(),
            };
            if verdict(&apply_body(body, t), changed_diff.as_deref()) != *expect {
                wrong.push(format!("case {i} under {t:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// This project's own shapes of the kinds of change a rule must handle in general (the token
/// and the call or lock it belongs to on different lines), each with a reviewer's verdict.
const OWN_KIND_DIFFS: &[(&str, bool)] = &[
    // Statements moved under a lock that is a context line, or out of a guarded scope.
    (
        "diff --git a/q/queue.go b/q/queue.go\n--- a/q/queue.go\n+++ b/q/queue.go\n@@ -10,6 +10,6 @@ func (q *Queue) Push(x int) {\n-\tq.items = append(q.items, x)\n \tq.mu.Lock()\n+\tq.items = append(q.items, x)\n \tq.mu.Unlock()\n }\n",
        true,
    ),
    (
        "diff --git a/src/Cache.java b/src/Cache.java\n--- a/src/Cache.java\n+++ b/src/Cache.java\n@@ -20,6 +20,6 @@ class Cache {\n   void put(K k, V v) {\n+    evictIfFull();\n     synchronized (lock) {\n-      evictIfFull();\n       map.put(k, v);\n     }\n",
        true,
    ),
    (
        "diff --git a/src/registry.cc b/src/registry.cc\n--- a/src/registry.cc\n+++ b/src/registry.cc\n@@ -30,6 +30,6 @@ void Registry::Drop(int id) {\n-  Entry* e = Lookup(id);\n   std::lock_guard<std::mutex> g(mu_);\n+  Entry* e = Lookup(id);\n   entries_.erase(e);\n }\n",
        true,
    ),
    // Moved, but across no synchronization point.
    (
        "diff --git a/q/queue.go b/q/queue.go\n--- a/q/queue.go\n+++ b/q/queue.go\n@@ -10,5 +10,5 @@ func (q *Queue) Len() int {\n-\tn := len(q.items)\n \tlog.Debug(\"len\")\n+\tn := len(q.items)\n \treturn n\n",
        false,
    ),
    // A bare memory ordering inside an atomic call whose head is a context line.
    (
        "diff --git a/src/flag.rs b/src/flag.rs\n--- a/src/flag.rs\n+++ b/src/flag.rs\n@@ -5,5 +5,5 @@ impl Flag {\n         self.bits.fetch_or(\n             mask,\n-            Relaxed,\n+            Release,\n         );\n",
        true,
    ),
    (
        "diff --git a/src/seq.rs b/src/seq.rs\n--- a/src/seq.rs\n+++ b/src/seq.rs\n@@ -5,4 +5,4 @@ impl Seq {\n         let v = self.n.load(\n-            Relaxed);\n+            Acquire);\n         v\n",
        true,
    ),
    (
        "diff --git a/src/slot.rs b/src/slot.rs\n--- a/src/slot.rs\n+++ b/src/slot.rs\n@@ -5,6 +5,6 @@ impl Slot {\n         match self.state.compare_exchange(\n             EMPTY,\n             FULL,\n-            Acquire,\n+            SeqCst,\n             Relaxed,\n",
        true,
    ),
    // `Release` as another enum's variant.
    (
        "diff --git a/src/channel.rs b/src/channel.rs\n--- a/src/channel.rs\n+++ b/src/channel.rs\n@@ -3,5 +3,6 @@ pub enum Channel {\n     Nightly,\n     Beta,\n+    Release,\n }\n fn pick(c: Channel) -> &'static str {\n",
        false,
    ),
];

/// Each of this project's own kinds of change gets its verdict, and keeps it under every
/// transformation.
#[test]
fn own_kinds_of_change_get_their_verdict_in_every_shape() {
    let all = ALL_DIFF_T;
    let mut wrong = Vec::new();
    for (i, (text, expect)) in OWN_KIND_DIFFS.iter().enumerate() {
        let files = parse_unified(text).expect("own diff parses");
        let got = classify(&files, &config());
        if got.concurrency != *expect {
            wrong.push(format!(
                "case {i}: expected {expect}, got {:?}",
                got.reasons
            ));
            continue;
        }
        for t in all {
            if classify(&apply_diff(&files, t), &config()).concurrency != *expect {
                wrong.push(format!("case {i} under {t:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn own_diffs() -> Vec<Vec<FileChange>> {
    let d = |text: &str| parse_unified(text).expect("own diff parses");
    vec![
        d(
            "diff --git a/pool/pool.go b/pool/pool.go\n--- a/pool/pool.go\n+++ b/pool/pool.go\n@@ -10,3 +10,4 @@ func (p *Pool) Get() {\n \tx := 1\n+\tp.mu.Lock()\n \treturn\n }\n@@ -40,3 +41,3 @@ func (p *Pool) Put() {\n-\tp.n++\n+\tatomic.AddInt64(&p.n, 1)\n \treturn\n",
        ),
        d(
            "diff --git a/lib/cache.c b/lib/cache.c\n--- a/lib/cache.c\n+++ b/lib/cache.c\n@@ -5,2 +5,4 @@\n   int r;\n+  cache_lock(data, cache);\n   r = insert(data, cache);\n+  cache_unlock(data, cache);\n",
        ),
        d(
            "diff --git a/docs/a.md b/docs/a.md\n--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,1 +1,1 @@\n-lock the door\n+lock the gate\n",
        ),
        d(
            "diff --git a/src/render.rs b/src/render.rs\n--- a/src/render.rs\n+++ b/src/render.rs\n@@ -1,2 +1,2 @@\n fn f() {\n-    let s = format!(\"{}\", x);\n+    let s = format!(\"{:?}\", x);\n",
        ),
        d(
            "diff --git a/src/kdoc.kt b/src/kdoc.kt\n--- a/src/kdoc.kt\n+++ b/src/kdoc.kt\n@@ -3,2 +3,4 @@\n      * Docs.\n+     * It is not a mutex!\n+     *     launch(notAMutex) { delay(20) }\n      */\n",
        ),
    ]
}

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/real-prs");
    dir.is_dir().then_some(dir)
}

fn corpus_bodies() -> Vec<(String, String, Option<Vec<FileChange>>)> {
    corpus()
        .map(|d| manifest_bodies(&d.join("bodies")))
        .unwrap_or_default()
}

/// The descriptions of a `cases.yaml` in `dir`, each with its diff when it has one.
fn manifest_bodies(dir: &std::path::Path) -> Vec<(String, String, Option<Vec<FileChange>>)> {
    #[derive(serde::Deserialize)]
    struct M {
        cases: Vec<C>,
    }
    #[derive(serde::Deserialize)]
    struct C {
        file: String,
        #[serde(default)]
        diff: Option<String>,
    }
    let m: M =
        serde_saphyr::from_str(&std::fs::read_to_string(dir.join("cases.yaml")).expect("cases"))
            .expect("cases.yaml parses");
    m.cases
        .into_iter()
        .map(|c| {
            let body = std::fs::read_to_string(dir.join(&c.file)).expect("body");
            let diff = c.diff.map(|d| {
                parse_unified(&std::fs::read_to_string(dir.join(d)).expect("diff")).expect("parses")
            });
            (c.file, body, diff)
        })
        .collect()
}

/// Every description of `cases` under every body transformation: the ones whose verdict
/// changed, printed with the tally under `name`, and none expected.
fn keep_their_verdict(name: &str, cases: &[(String, String, Option<Vec<FileChange>>)]) {
    let mut broken = Vec::new();
    for (file, body, diff) in cases {
        let before = verdict(body, diff.as_deref());
        for t in ALL_BODY_T {
            let changed_diff = match t {
                BodyT::Rename => diff.as_ref().map(|d| apply_diff(d, DiffT::Rename)),
                _ => diff.clone(),
            };
            if verdict(&apply_body(body, t), changed_diff.as_deref()) != before {
                broken.push(format!("{file}: {t:?}"));
            }
        }
    }
    eprintln!(
        "metamorphic {name}: {} cases x {} transformations, {} changed",
        cases.len(),
        ALL_BODY_T.len(),
        broken.len()
    );
    assert!(broken.is_empty(), "{broken:#?}");
}

fn corpus_diffs() -> Vec<(String, Vec<FileChange>)> {
    corpus()
        .map(|d| manifest_diffs(&d.join("diffs"), "cases.yaml"))
        .unwrap_or_default()
}

/// The diffs a manifest in `dir` lists, parsed; none when the manifest is absent.
fn manifest_diffs(dir: &std::path::Path, manifest: &str) -> Vec<(String, Vec<FileChange>)> {
    #[derive(serde::Deserialize)]
    struct M {
        cases: Vec<C>,
    }
    #[derive(serde::Deserialize)]
    struct C {
        file: String,
    }
    let Ok(text) = std::fs::read_to_string(dir.join(manifest)) else {
        return Vec::new();
    };
    let m: M = serde_saphyr::from_str(&text).expect("the manifest parses");
    m.cases
        .into_iter()
        .map(|c| {
            let text = std::fs::read_to_string(dir.join(&c.file)).expect("diff");
            (c.file, parse_unified(&text).expect("parses"))
        })
        .collect()
}

fn verdict(body: &str, diff: Option<&[FileChange]>) -> bool {
    check_body(body, diff).satisfied
}

fn config() -> RepoConfig {
    RepoConfig::default()
}

// ------------------------------------------------------------------ the properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn own_descriptions_keep_their_verdict(i in 0..OWN_BODIES.len(), t in body_t()) {
        let body = OWN_BODIES[i];
        prop_assert_eq!(verdict(body, None), verdict(&apply_body(body, t), None), "{:?} of own body {}", t, i);
    }

    #[test]
    fn own_diffs_keep_their_verdict(i in 0..5usize, t in diff_t()) {
        let diffs = own_diffs();
        let before = classify(&diffs[i], &config()).concurrency;
        let after = classify(&apply_diff(&diffs[i], t), &config()).concurrency;
        prop_assert_eq!(before, after, "{:?} of own diff {}", t, i);
    }
}

/// Every dev-set description under every body transformation (exhaustive: the set is small).
#[test]
fn dev_set_descriptions_keep_their_verdict_under_every_transformation() {
    let cases = corpus_bodies();
    if cases.is_empty() {
        eprintln!("skipped: ../shared/fixtures/real-prs is absent");
        return;
    }
    keep_their_verdict("descriptions", &cases);
}

/// The project's own labelled descriptions (`tests/judgement/bodies`) under every body
/// transformation, reflow at two widths among them.
#[test]
fn own_judgement_descriptions_keep_their_verdict_under_every_transformation() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/judgement/bodies");
    let cases = manifest_bodies(&dir);
    assert!(cases.len() >= 53, "{} cases", cases.len());
    keep_their_verdict("own descriptions", &cases);
}

/// Every dev-set diff under every diff transformation.
#[test]
fn dev_set_diffs_keep_their_verdict_under_every_transformation() {
    let cases = corpus_diffs();
    if cases.is_empty() {
        eprintln!("skipped: ../shared/fixtures/real-prs is absent");
        return;
    }
    let mut broken = Vec::new();
    let all = ALL_DIFF_T;
    for (file, files) in &cases {
        let before = classify(files, &config()).concurrency;
        for t in all {
            if classify(&apply_diff(files, t), &config()).concurrency != before {
                broken.push(format!("{file}: {t:?}"));
            }
        }
    }
    eprintln!(
        "metamorphic diffs: {} cases x {} transformations, {} changed",
        cases.len(),
        all.len(),
        broken.len()
    );
    assert!(broken.is_empty(), "{broken:#?}");
}

/// The project's own labelled diffs (`tests/judgement/diffs`: Zig, Erlang, Elixir, Kotlin,
/// Swift, Rust wakers, Python, C) under every diff transformation: the new languages' rules and
/// the sub-word reading survive reordered hunks, split calls, CRLF and renamed identifiers.
#[test]
fn own_judgement_diffs_keep_their_verdict_under_every_transformation() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/judgement/diffs");
    let cases: Vec<_> = ["cases.yaml", "cases-extra.yaml"]
        .iter()
        .flat_map(|m| manifest_diffs(&dir, m))
        .collect();
    assert!(cases.len() >= 90, "{} cases", cases.len());
    let mut broken = Vec::new();
    for (file, files) in &cases {
        let before = classify(files, &config()).concurrency;
        for t in ALL_DIFF_T {
            if classify(&apply_diff(files, t), &config()).concurrency != before {
                broken.push(format!("{file}: {t:?}"));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}
