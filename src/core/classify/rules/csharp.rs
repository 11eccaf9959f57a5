//! C#: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        name: "csharp.lock",
        langs: &[CSharp],
        anchors: &["lock"],
        unless: None,
        pattern: r"\block\s*\(",
    },
    Rule {
        name: "csharp.interlocked",
        langs: &[CSharp],
        anchors: &["Interlocked", "Volatile", "volatile"],
        unless: None,
        pattern: r"\bInterlocked\.\w+|\bVolatile\.(?:Read|Write)\b|\bvolatile\b",
    },
    Rule {
        name: "csharp.task",
        langs: &[CSharp],
        anchors: &["Task.", "Parallel.", "ThreadPool", "Thread("],
        unless: None,
        pattern: r"\bTask\.(?:Run|WhenAll|WhenAny|Factory|Start)\b|\bParallel\.(?:For|ForEach|ForEachAsync|Invoke)\b|\bThreadPool\.\w+|\bnew\s+Thread\s*\(",
    },
    Rule {
        name: "csharp.sync-primitives",
        langs: &[CSharp],
        anchors: &[
            "Semaphore",
            "Mutex",
            "Monitor",
            "ReaderWriterLock",
            "ResetEvent",
            "CountdownEvent",
            "Barrier",
            "SpinLock",
            "Concurrent",
            "BlockingCollection",
            "Channel",
        ],
        unless: None,
        pattern: r"\b(?:SemaphoreSlim|Semaphore|Mutex|ReaderWriterLockSlim|ReaderWriterLock|ManualResetEventSlim|ManualResetEvent|AutoResetEvent|CountdownEvent|Barrier|SpinLock|ConcurrentDictionary|ConcurrentQueue|ConcurrentBag|ConcurrentStack|BlockingCollection)\b|\bMonitor\.\w+|\bChannel\.Create\w+",
    },
];
