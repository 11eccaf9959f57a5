//! Swift: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[Rule {
    // Swift's locks, atomics, dispatch primitives and structured concurrency, and
    // `Sendable` (Swift's `Send`/`Sync`): the types and the calls that take them.
    name: "swift.sync",
    langs: &[Swift],
    anchors: &[
        "Lock",
        "Atomic",
        "Dispatch",
        "Semaphore",
        "Condition",
        "Sendable",
        "actor",
        "Task",
        "withLock",
        "unfair_lock",
        "Mutex",
        "nonisolated",
        "withTaskGroup",
        "withThrowingTaskGroup",
        "MainActor",
        "preconcurrency",
        "isolated",
        "lock.",
        "Lock.",
        "ueue.",
        ".sync",
    ],
    unless: None,
    pattern: r"\b(?:NSLock|NSRecursiveLock|NSCondition|NSConditionLock|ConditionLock|NIOLock|NIOLockedValueBox|NIOConditionLock|OSAllocatedUnfairLock|os_unfair_lock\w*|Mutex|ManagedAtomic|UnsafeAtomic|Atomic|DispatchGroup|DispatchSemaphore|DispatchQueue|DispatchWorkItem|Sendable|TaskGroup|ThrowingTaskGroup)\b|\b(?:withLock|withLockedValue|withTaskGroup|withThrowingTaskGroup|withCheckedContinuation|withCheckedThrowingContinuation)\s*[({]|\bTask(?:\.detached)?\s*[({]|\b(?:actor|nonisolated)\s+\w|@Sendable\b|\bMainActor\b|@preconcurrency\b|\b\w+Sendable\b|\bisolated\b|\b\w*(?:[lL]ock|[qQ]ueue)\.(?:sync|async|lock|unlock|withLock)\b|\.sync\s*\{",
}];
