//! Zig: the concurrency rules (see `super` for how a rule is read). Zig has `//` comments only
//! and multi-line strings whose lines start with `\\`; the lexer in `super::super::lang` blanks
//! both.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        // The atomic builtins, `std.atomic.Value`, and the memory orderings they take.
        name: "zig.atomic",
        langs: &[Zig],
        anchors: &[
            "@atomic",
            "@cmpxchg",
            "@fence",
            "atomic",
            ".seq_cst",
            ".acq_rel",
            ".acquire",
            ".release",
            ".monotonic",
            ".SeqCst",
            ".Acquire",
            ".Release",
            ".Monotonic",
            ".AcqRel",
        ],
        unless: None,
        pattern: r"@(?:atomicRmw|atomicLoad|atomicStore|cmpxchgStrong|cmpxchgWeak|fence)\s*\(|\bstd\.atomic\b|\batomic\.(?:Value|Atomic|Queue|Stack|spinLoopHint|Mutex)\b|\.(?:seq_cst|acq_rel|acquire|release|monotonic|SeqCst|AcqRel|Acquire|Release|Monotonic)\b\s*[,)]",
    },
    Rule {
        // `std.Thread` and its primitives: spawn, pools, mutexes, conditions, events, wait groups.
        name: "zig.thread",
        langs: &[Zig],
        anchors: &["Thread", "threadlocal", "WaitGroup", "ResetEvent"],
        unless: None,
        pattern: r"\b(?:std\.)?Thread\.(?:spawn|Pool|Mutex|RwLock|Condition|Semaphore|ResetEvent|WaitGroup|Futex|yield|sleep|getCurrentId)\b|\bthreadlocal\b|\b(?:WaitGroup|ResetEvent)\b",
    },
    Rule {
        // A mutex or lock taken by its methods (`self.mutex.lock()`, `rw.lockShared()`).
        name: "zig.lock-call",
        langs: &[Zig],
        anchors: &["lock(", "Lock(", "unlock", "Shared("],
        unless: None,
        pattern: r"\.(?:lock|unlock|tryLock|lockShared|unlockShared|tryLockShared)\s*\(\s*\)",
    },
];
