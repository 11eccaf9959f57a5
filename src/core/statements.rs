//! A hunk read as statements, not lines: code moved across a synchronization point whose call
//! is only a context line. `p.idle = append(p.idle, c)` removed before `p.mu.Lock()` and added
//! after it is now inside the critical section, though no changed line names a lock; the same
//! moved out of a guarded scope leaves it. Linear: one pass over a hunk's lines, one map of its
//! removed lines.

use std::collections::HashMap;

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

fn moved_in_hunk<'a>(
    hunk: &[PatchLine<'a>],
    sync_point: &impl Fn(&str) -> Option<&'static str>,
) -> Option<Moved<'a>> {
    let mut removed: HashMap<&str, usize> = HashMap::new();
    for (i, l) in hunk.iter().enumerate() {
        if l.kind == LineKind::Removed
            && let Some(t) = statement(l.text)
        {
            removed.entry(t).or_insert(i);
        }
    }
    if removed.is_empty() {
        return None;
    }
    // The context lines that are synchronization points, in order (found once).
    let points: Vec<(usize, &'static str)> = hunk
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == LineKind::Context && statement(l.text).is_some())
        .filter_map(|(i, l)| sync_point(l.text).map(|r| (i, r)))
        .collect();
    if points.is_empty() {
        return None;
    }
    for (i, l) in hunk.iter().enumerate() {
        if l.kind != LineKind::Added {
            continue;
        }
        let Some(t) = statement(l.text) else {
            continue;
        };
        let Some(&r) = removed.get(t) else {
            continue;
        };
        let (lo, hi) = (r.min(i), r.max(i));
        if let Some(&(_, rule)) = points.iter().find(|(p, _)| *p > lo && *p < hi) {
            return Some(Moved {
                line: l.line,
                rule,
                text: t,
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
        let opens = t.matches('(').count() as i64;
        let closes = t.matches(')').count() as i64;
        let step = |d: i64| -> i64 {
            if d > 0 {
                (d + opens - closes).max(0)
            } else if HEADS.iter().any(|h| t.contains(h)) {
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
    use crate::core::diff::patch_lines;

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
    fn each_hunk_is_read_on_its_own() {
        let two = "@@ -1,2 +1,2 @@\n-\tx := compute()\n \tp.mu.Lock()\n@@ -40,2 +40,2 @@\n \tother()\n+\tx := compute()\n";
        assert!(moved(two).is_empty());
    }
}
