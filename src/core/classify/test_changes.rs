//! A change that touches only test files is under the gate when it changes the synchronization
//! of test code already there (`test_changes_count: sync`, docs/classification.md#tests-where-the-code-is):
//! which of a test patch's matches do, as opposed to tests that are only added.

use super::diff::LineKind;
use std::collections::HashMap;

/// A rule's match on one line of a patch.
pub(super) struct Hit {
    /// The line's index in the patch.
    pub(super) at: usize,
    pub(super) kind: LineKind,
    pub(super) rule: &'static str,
    pub(super) line: Option<u32>,
    pub(super) text: String,
    /// The name a sub-word or `primitives` hit is on (`stack_spinlock`), empty for a language
    /// rule's: a removed and an added line of one change on the same name keep the
    /// synchronization as it was.
    pub(super) key: String,
}

/// What the sync rule needs of a line's layout.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    indent: usize,
    blank: bool,
    /// Only closes a block (`}`, `});`, `end`, `)`).
    closing: bool,
}

impl Shape {
    pub(super) fn of(text: &str) -> Shape {
        let t = text.trim();
        Shape {
            indent: text.len() - text.trim_start().len(),
            blank: t.is_empty(),
            closing: !t.is_empty()
                && (t == "end" || t.chars().all(|c| matches!(c, '}' | ')' | ']' | ';' | ','))),
        }
    }
}

/// Rules that start concurrent work rather than order it: a spawn added inside an existing
/// test adds concurrency, it does not synchronize what was there.
const SPAWNS: &[&str] = &[
    "go.goroutine",
    "rust.thread-spawn",
    "rust.async-spawn",
    "cpp.thread",
    "java.executor",
    "js.worker",
    "csharp.task",
];

/// An insertion of at most this many lines into an existing body is an edit of that code; a
/// longer block is new code (a new test).
const SMALL_INSERTION: usize = 6;

/// Lines of context within which a concurrency token marks the code an added line
/// synchronizes as code that was already concurrent.
const SYNC_NEIGHBOURHOOD: usize = 3;

/// The matches of a test-only change that change the synchronization of test code already
/// there (`test_changes_count: sync`), as opposed to tests that are only added:
/// - a concurrency token on a removed line: existing synchronization changed or dropped;
/// - one on an added line that replaces removed lines (`count int` → `count atomic.Int32`,
///   a sleep → a latch): existing code made synchronized;
/// - added tokens on both sides of existing (context) lines in one hunk: a lock, or an
///   ordering, put around statements that were there (`mu.Lock()` … `mu.Unlock()`);
/// - an added token next to existing code that is already concurrent: its synchronization
///   changed;
/// - a small insertion inside an existing body (indented at least as deep as the existing
///   line before it, which does not close a block: `t.join()` after the existing
///   `t.start()`): an ordering or a lock added to the code that was there.
///
/// A new test that spawns threads is a block of added lines with none of these (it starts a
/// definition at its own level, after the previous one closed): not counted.
pub(super) fn changed_synchronization<'h>(
    kinds: &[(LineKind, usize)],
    shapes: &[Shape],
    hits: &'h [Hit],
) -> Vec<&'h Hit> {
    // The run of consecutive added lines each added line belongs to: (first, last).
    let mut run_of = vec![(0usize, 0usize); kinds.len()];
    let mut i = 0;
    while i < kinds.len() {
        if kinds[i].0 != LineKind::Added {
            i += 1;
            continue;
        }
        let first = i;
        while i + 1 < kinds.len()
            && kinds[i + 1].0 == LineKind::Added
            && kinds[i + 1].1 == kinds[first].1
        {
            i += 1;
        }
        for r in run_of.iter_mut().take(i + 1).skip(first) {
            *r = (first, i);
        }
        i += 1;
    }
    let removed_next_to = |first: usize, last: usize| {
        let hunk = kinds[first].1;
        let before = first.checked_sub(1).map(|j| kinds[j]);
        let after = kinds.get(last + 1).copied();
        [before, after]
            .into_iter()
            .flatten()
            .any(|(k, h)| k == LineKind::Removed && h == hunk)
    };
    let context_hit_near = |first: usize, last: usize| {
        let hunk = kinds[first].1;
        hits.iter().any(|h| {
            h.kind == LineKind::Context
                && kinds[h.at].1 == hunk
                && (h.at + SYNC_NEIGHBOURHOOD >= first && h.at <= last + SYNC_NEIGHBOURHOOD)
        })
    };
    // Another added run of the same hunk with a token, with only context lines between.
    let sandwich = |first: usize, last: usize| {
        let hunk = kinds[first].1;
        hits.iter().any(|h| {
            if h.kind != LineKind::Added || kinds[h.at].1 != hunk {
                return false;
            }
            let (f2, l2) = run_of[h.at];
            if f2 == first {
                return false;
            }
            let (lo, hi) = if l2 < first {
                (l2 + 1, first)
            } else {
                (last + 1, f2)
            };
            hi > lo && kinds[lo..hi].iter().all(|(k, _)| *k == LineKind::Context)
        })
    };
    let inside_existing = |first: usize, last: usize| {
        let hunk = kinds[first].1;
        let body: Vec<&Shape> = shapes[first..=last].iter().filter(|s| !s.blank).collect();
        let Some(min) = body.iter().map(|s| s.indent).min() else {
            return false;
        };
        let before = (0..first)
            .rev()
            .take_while(|&j| kinds[j].1 == hunk && kinds[j].0 == LineKind::Context)
            .find(|&j| !shapes[j].blank)
            .map(|j| shapes[j]);
        body.len() <= SMALL_INSERTION
            && min > 0
            && before.is_some_and(|b| !b.closing && b.indent <= min)
    };
    let kept = unchanged_pairs(kinds, hits);
    hits.iter()
        .zip(kept)
        .filter(|(_, kept)| !kept)
        .map(|(h, _)| h)
        .filter(|h| match h.kind {
            LineKind::Removed => true,
            LineKind::Context => false,
            LineKind::Added => {
                let (first, last) = run_of[h.at];
                removed_next_to(first, last)
                    || sandwich(first, last)
                    || context_hit_near(first, last)
                    || (!SPAWNS.contains(&h.rule) && inside_existing(first, last))
            }
        })
        .collect()
}

/// For each hit, whether a removed line and an added line of the same change (a run of
/// removed and added lines with no context between) are hits of the same rule on the same
/// name (`Test(&stack_spinlock, n * 2)` → `Test(&stack_spinlock, threads)`): the statement
/// changed, its synchronization did not. Hits are paired one to one.
fn unchanged_pairs(kinds: &[(LineKind, usize)], hits: &[Hit]) -> Vec<bool> {
    let mut kept = vec![false; hits.len()];
    // The change each line belongs to: the index of its run's first line.
    let mut change_of = vec![usize::MAX; kinds.len()];
    let mut start = 0;
    for (i, &(k, hunk)) in kinds.iter().enumerate() {
        if k == LineKind::Context {
            continue;
        }
        if i == 0 || kinds[i - 1].0 == LineKind::Context || kinds[i - 1].1 != hunk {
            start = i;
        }
        change_of[i] = start;
    }
    let mut open: HashMap<(usize, &'static str, &str), Vec<usize>> = HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        if h.kind == LineKind::Removed && !h.key.is_empty() {
            open.entry((change_of[h.at], h.rule, h.key.as_str()))
                .or_default()
                .push(i);
        }
    }
    for (i, h) in hits.iter().enumerate() {
        if h.kind != LineKind::Added || h.key.is_empty() {
            continue;
        }
        if let Some(removed) = open.get_mut(&(change_of[h.at], h.rule, h.key.as_str()))
            && let Some(r) = removed.pop()
        {
            kept[r] = true;
            kept[i] = true;
        }
    }
    kept
}
