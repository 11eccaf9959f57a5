//! A hunk read as statements, not lines: code moved across a synchronization point whose call
//! is only a context line. `p.idle = append(p.idle, c)` removed before `p.mu.Lock()` and added
//! after it is now inside the critical section, though no changed line names a lock; the same
//! moved out of a guarded scope leaves it. Linear: one pass over a hunk's lines, one map of its
//! removed lines.

use std::borrow::Cow;

use hashbrown::HashMap;

use super::diff::{LineKind, PatchLine};

/// A line moved across a synchronization point: where it now stands, the point's rule, and
/// the moved line's text.
#[derive(Debug, PartialEq, Eq)]
pub struct Moved<'a> {
    pub line: Option<u32>,
    pub rule: &'static str,
    pub text: &'a str,
}

/// Whether a line's text is a statement worth following (not a brace, blank or comment).
fn statement(text: &str) -> Option<&str> {
    let t = text.trim();
    let comment = ["//", "#", "/*", "*", "--", "\"\"\""]
        .iter()
        .any(|c| t.starts_with(c));
    let only_punctuation = t.chars().all(|c| !c.is_alphanumeric());
    (t.len() >= 4 && !comment && !only_punctuation).then_some(t)
}

/// The lines of `lines` moved (removed and added with the same text, in one hunk) across a
/// context line that `sync_point` names a synchronization rule for. At most one per hunk.
pub fn moved_across_sync<'a>(
    lines: impl Iterator<Item = PatchLine<'a>>,
    sync_point: impl Fn(&str) -> Option<&'static str>,
) -> Vec<Moved<'a>> {
    let mut out = Vec::new();
    let mut hunk: Vec<PatchLine<'a>> = Vec::new();
    let flush = |hunk: &mut Vec<PatchLine<'a>>, out: &mut Vec<Moved<'a>>| {
        if let Some(m) = moved_in_hunk(hunk, &sync_point) {
            out.push(m);
        }
        hunk.clear();
    };
    for l in lines {
        if l.hunk_start && !hunk.is_empty() {
            flush(&mut hunk, &mut out);
        }
        hunk.push(l);
    }
    flush(&mut hunk, &mut out);
    out
}

/// One statement of a hunk's side: its text with the lines it spans joined, where it starts
/// and ends, and whether every line of it was removed (or every one added). Most statements
/// are one line, whose text is borrowed; only a statement over several lines is joined.
struct Statement<'a> {
    text: Cow<'a, str>,
    first: usize,
    last: usize,
    kind: LineKind,
}

/// Open parentheses and brackets less closed ones: a statement goes on while they are open.
fn depth_change(t: &str) -> i64 {
    // A table, not a match: this runs on every byte of every hunk that moved lines.
    static STEP: [i8; 256] = {
        let mut t = [0i8; 256];
        t[b'(' as usize] = 1;
        t[b'[' as usize] = 1;
        t[b')' as usize] = -1;
        t[b']' as usize] = -1;
        t
    };
    t.bytes().map(|c| i64::from(STEP[usize::from(c)])).sum()
}

/// The statements of one side of a hunk (`Added` or `Removed`, with the context lines both
/// sides share), continuation lines joined: `x = append(` and `x, c)` are `x = append(x, c)`.
fn statements_of<'a>(hunk: &[PatchLine<'a>], side: LineKind) -> Vec<Statement<'a>> {
    let open_end = |t: &str| {
        t.ends_with([
            '(', '[', ',', '+', '-', '*', '/', '%', '&', '|', '=', '<', '>', '.', '?', ':', '\\',
        ])
    };
    let mut out = Vec::new();
    let mut cur: Option<Statement<'a>> = None;
    let mut depth = 0i64;
    for (i, l) in hunk.iter().enumerate() {
        if l.kind != side && l.kind != LineKind::Context {
            continue;
        }
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        match cur.as_mut() {
            None => {
                cur = Some(Statement {
                    text: Cow::Borrowed(t),
                    first: i,
                    last: i,
                    kind: l.kind,
                })
            }
            Some(st) => {
                let tight = st.text.ends_with(['(', '[']) || t.starts_with([')', ']', ',', '.']);
                let text = st.text.to_mut();
                if !tight {
                    text.push(' ');
                }
                text.push_str(t);
                if st.kind != l.kind {
                    st.kind = LineKind::Context;
                }
                st.last = i;
            }
        }
        depth += depth_change(t);
        if depth <= 0 && !open_end(t) {
            depth = 0;
            if let Some(done) = cur.take() {
                out.push(done);
            }
        }
        if out.len() + usize::from(cur.is_some()) > 10_000 {
            break;
        }
    }
    out.extend(cur);
    out
}

fn moved_in_hunk<'a>(
    hunk: &[PatchLine<'a>],
    sync_point: &impl Fn(&str) -> Option<&'static str>,
) -> Option<Moved<'a>> {
    // A move needs a removed line, an added line and a context line between them.
    let has = |k: LineKind| hunk.iter().any(|l| l.kind == k);
    if !(has(LineKind::Removed) && has(LineKind::Added) && has(LineKind::Context)) {
        return None;
    }
    let removed_side = statements_of(hunk, LineKind::Removed);
    let mut removed: HashMap<&str, usize> = HashMap::new();
    for st in &removed_side {
        if st.kind == LineKind::Removed && statement(&st.text).is_some() {
            removed.entry(&*st.text).or_insert(st.first);
        }
    }
    if removed.is_empty() {
        return None;
    }
    // The context lines that are synchronization points, found once and only when a
    // statement moved.
    let mut points: Option<Vec<(usize, &'static str)>> = None;
    for st in statements_of(hunk, LineKind::Added) {
        if st.kind != LineKind::Added || statement(&st.text).is_none() {
            continue;
        }
        let Some(&r) = removed.get(&*st.text) else {
            continue;
        };
        let (lo, hi) = (r.min(st.first), r.max(st.last));
        let points = points.get_or_insert_with(|| {
            hunk.iter()
                .enumerate()
                .filter(|(_, l)| l.kind == LineKind::Context && statement(l.text).is_some())
                .filter_map(|(i, l)| sync_point(l.text).map(|r| (i, r)))
                .collect()
        });
        if let Some(&(_, rule)) = points.iter().find(|(p, _)| *p > lo && *p < hi) {
            let l = &hunk[st.first];
            return Some(Moved {
                line: l.line,
                rule,
                text: l.text.trim(),
            });
        }
    }
    None
}

/// Rust's `Relaxed`, `Acquire` and `Release` standing bare as an argument of an atomic call
/// whose head may be a context line (`compare_exchange_weak(` on one line, the orderings on
/// the next ones). Each side of the hunk is followed on its own lines.
pub fn orderings_in_atomic_calls<'a>(lines: impl Iterator<Item = PatchLine<'a>>) -> Vec<Moved<'a>> {
    const HEADS: &[&str] = &[
        "compare_exchange",
        "fetch_",
        ".load(",
        ".store(",
        ".swap(",
        "fence(",
    ];
    // Open parentheses of an atomic call still open, on the new side and on the old.
    let (mut new_depth, mut old_depth) = (0i64, 0i64);
    let mut out = Vec::new();
    for l in lines {
        if l.hunk_start {
            (new_depth, old_depth) = (0, 0);
        }
        let t = l.text.trim();
        let depth = match l.kind {
            LineKind::Added => new_depth,
            LineKind::Removed => old_depth,
            LineKind::Context => new_depth.max(old_depth),
        };
        if depth > 0 && l.kind != LineKind::Context && bare_ordering(t) && out.len() < 10 {
            out.push(Moved {
                line: l.line,
                rule: "rust.atomic",
                text: t,
            });
        }
        let opens = memchr::memchr_iter(b'(', t.as_bytes()).count() as i64;
        if new_depth == 0 && old_depth == 0 && opens == 0 {
            continue;
        }
        let closes = memchr::memchr_iter(b')', t.as_bytes()).count() as i64;
        let step = |d: i64| -> i64 {
            if d > 0 {
                (d + opens - closes).max(0)
            } else if opens > closes && HEADS.iter().any(|h| t.contains(h)) {
                (opens - closes).max(0)
            } else {
                0
            }
        };
        match l.kind {
            LineKind::Added => new_depth = step(new_depth),
            LineKind::Removed => old_depth = step(old_depth),
            LineKind::Context => {
                new_depth = step(new_depth);
                old_depth = step(old_depth);
            }
        }
    }
    out
}

/// `Relaxed,` / `Release)` / `(Acquire,`: the ordering as a whole argument, not a path's last
/// segment (`Profile::Release`) or a pattern (`Release =>`).
fn bare_ordering(t: &str) -> bool {
    t.split(',')
        .map(|a| {
            a.trim()
                .trim_start_matches('(')
                .trim_end_matches([')', ';'])
                .trim()
        })
        .any(|a| matches!(a, "Relaxed" | "Acquire" | "Release" | "AcqRel" | "SeqCst"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::classify::diff::patch_lines;

    fn lock(text: &str) -> Option<&'static str> {
        (text.contains("Lock(") || text.contains("MutexLock")).then_some("lock")
    }

    fn moved(patch: &str) -> Vec<String> {
        moved_across_sync(patch_lines(patch), lock)
            .into_iter()
            .map(|m| m.text.to_string())
            .collect()
    }

    #[test]
    fn lines_moved_under_a_lock_on_a_context_line_are_found() {
        let into = "@@ -1,6 +1,6 @@\n-\tp.idle = append(p.idle, c)\n \tp.mu.Lock()\n+\tp.idle = append(p.idle, c)\n \tp.mu.Unlock()\n";
        assert_eq!(moved(into), ["p.idle = append(p.idle, c)"]);
        let out_of = "@@ -1,6 +1,6 @@\n+  auto it = find(id);\n   MutexLock l(&mu_);\n-  auto it = find(id);\n   erase(it);\n";
        assert_eq!(moved(out_of), ["auto it = find(id);"]);
    }

    #[test]
    fn a_move_that_crosses_no_synchronization_point_is_not_one() {
        // Moved past a plain statement; a comment moved across the lock; a brace moved.
        assert!(moved("@@ -1,4 +1,4 @@\n-\tx := 1\n \ty := 2\n+\tx := 1\n").is_empty());
        assert!(
            moved("@@ -1,4 +1,4 @@\n-\t// note this\n \tp.mu.Lock()\n+\t// note this\n").is_empty()
        );
        assert!(moved("@@ -1,4 +1,4 @@\n-\t}\n \tp.mu.Lock()\n+\t}\n").is_empty());
        // Changed, not moved.
        assert!(moved("@@ -1,4 +1,4 @@\n-\tx := 1\n \tp.mu.Lock()\n+\tx := 2\n").is_empty());
    }

    fn orderings(patch: &str) -> Vec<String> {
        orderings_in_atomic_calls(patch_lines(patch))
            .into_iter()
            .map(|m| m.text.to_string())
            .collect()
    }

    #[test]
    fn a_bare_ordering_inside_an_atomic_call_is_found_wherever_the_call_starts() {
        let cas = "@@ -1,7 +1,7 @@\n     match self.val.compare_exchange_weak(\n         curr,\n         next,\n-        Relaxed,\n+        Release,\n         Relaxed,\n     ) {\n";
        assert_eq!(orderings(cas), ["Relaxed,", "Release,"]);
        let store = "@@ -1,2 +1,2 @@\n     self.state.store(\n-        x, Relaxed);\n+        x, Release);\n";
        assert_eq!(orderings(store), ["x, Relaxed);", "x, Release);"]);
    }

    #[test]
    fn an_enum_variant_of_the_same_name_is_not_an_ordering() {
        let profile = "@@ -1,4 +1,4 @@\n     match profile {\n-        Profile::Release => &[\"-O2\"],\n+        Profile::Release => &[\"-O3\"],\n     }\n";
        assert!(orderings(profile).is_empty());
        let variant = "@@ -1,3 +1,4 @@\n enum Channel {\n     Beta,\n+    Release,\n }\n";
        assert!(orderings(variant).is_empty());
        // After the call closes, a bare word is not its argument.
        let after = "@@ -1,4 +1,4 @@\n     x.load(Acquire);\n     let v = vec![\n+        Release,\n     ];\n";
        assert!(orderings(after).is_empty());
    }

    #[test]
    fn a_fragment_of_a_longer_statement_is_not_a_move() {
        // `it);` ends two different calls split over lines; the lock is between them.
        let split = "@@ -1,8 +1,9 @@\n-\tdo_remove(\n-\t    it);\n \tif (locked) {\n+\t    do_remove(\n+\t        it);\n \t    p.mu.Unlock()\n+\t} else {\n+\t    other(\n+\t        it);\n";
        assert!(moved(split).is_empty());
    }

    #[test]
    fn each_hunk_is_read_on_its_own() {
        let two = "@@ -1,2 +1,2 @@\n-\tx := compute()\n \tp.mu.Lock()\n@@ -40,2 +40,2 @@\n \tother()\n+\tx := compute()\n";
        assert!(moved(two).is_empty());
    }
}
