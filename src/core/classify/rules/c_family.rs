//! C and C++: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

const CFAM: &[crate::core::classify::lang::Lang] = &[C, Cpp];

pub const RULES: &[Rule] = &[
    Rule {
        name: "c.pthread",
        langs: CFAM,
        anchors: &["pthread_"],
        unless: None,
        pattern: r"\bpthread_\w+",
    },
    Rule {
        name: "c.c11-threads",
        langs: CFAM,
        anchors: &["mtx_", "thrd_", "cnd_"],
        unless: None,
        pattern: r"\b(?:mtx_(?:t|init|lock|unlock|trylock|timedlock|destroy)|thrd_(?:t|create|join|detach)|cnd_(?:t|init|wait|signal|broadcast|timedwait))\b",
    },
    Rule {
        name: "cpp.mutex",
        langs: CFAM,
        anchors: &[
            "mutex",
            "lock_guard",
            "unique_lock",
            "scoped_lock",
            "shared_lock",
            "spin_lock",
            "spinlock",
        ],
        unless: None,
        pattern: r"\b(?:std::)?(?:mutex|recursive_mutex|timed_mutex|recursive_timed_mutex|shared_mutex|shared_timed_mutex|lock_guard|unique_lock|scoped_lock|shared_lock)\b|(?:\b|_)(?:mutex|spin)_(?:lock|unlock|trylock)\s*\(|\bspinlock_t\b",
    },
    Rule {
        // Project lock wrappers: RAII guards (`MutexLock l(&mu_)`, `absl::MutexLock`,
        // `ReaderMutexLock`, `SpinLockHolder h(&lock_)`) and a member mutex's methods
        // (`mu_->Lock()`, `mutex_.Unlock()`, `mu_.AssertHeld()`).
        name: "cpp.lock-wrapper",
        langs: CFAM,
        anchors: &["Lock", "Locker", "Holder", "Guard", "mu", "mutex", "lock"],
        unless: None,
        pattern: r"\b\w*(?:Mutex|Lock|Spin)\w*(?:Lock|Locker|Holder|Guard)\b(?:<[^>]*>)?\s+\w+\s*[({]\s*&?[\w.>-]*\s*[)}]|\b\w*(?:mu|mutex|mtx|lock)_?\s*(?:->|\.)\s*(?:Lock|Unlock|ReaderLock|ReaderUnlock|WriterLock|WriterUnlock|TryLock|ReaderTryLock|AssertHeld|AssertReaderHeld|Await|LockWhen|lock|unlock|try_lock|lock_shared|unlock_shared)\s*\(",
    },
    Rule {
        // Clang thread-safety annotations and ThreadSanitizer annotation macros.
        name: "cpp.thread-annotations",
        langs: CFAM,
        anchors: &[
            "GUARDED_BY",
            "LOCKS_",
            "LOCK_",
            "ANNOTATE_",
            "TSAN",
            "__tsan_",
            "THREAD_ANNOTATION",
            "ACQUIRE",
            "RELEASE",
        ],
        unless: None,
        pattern: r"\b(?:ABSL_)?(?:PT_)?GUARDED_BY\s*\(|\b(?:ABSL_)?(?:EXCLUSIVE|SHARED)_LOCKS?_REQUIRED\s*\(|\b(?:ABSL_)?LOCKS_EXCLUDED\s*\(|\b(?:ABSL_)?(?:EXCLUSIVE_|SHARED_)?(?:LOCK|TRYLOCK)_FUNCTION\s*\(|\b(?:ABSL_)?(?:ACQUIRED_BEFORE|ACQUIRED_AFTER|NO_THREAD_SAFETY_ANALYSIS)\b|\b(?:ABSL_)?(?:ACQUIRE|RELEASE|ACQUIRE_SHARED|RELEASE_SHARED|REQUIRES|REQUIRES_SHARED)\s*\(|\b(?:ABSL_)?ANNOTATE_\w+|\b(?:ABSL_)?TSAN_\w+|\b__tsan_\w+\s*\(",
    },
    Rule {
        // A project's own lock functions are named for what they do: `dnscache_lock(d)`,
        // `item_unlock(it)`, `shard_lock()->Release(…)`, `pthread_rwlock_wrlock`-style
        // `*_rdlock`/`*_wrlock`. A snake_case call ending in `_lock`/`_unlock` takes or
        // releases a lock (`clock(`, `block(` have no underscore before `lock`).
        name: "cfam.project-lock-call",
        langs: CFAM,
        anchors: &["_lock", "_unlock", "_trylock", "_rdlock", "_wrlock"],
        unless: None,
        pattern: r"\b[A-Za-z]\w*_(?:lock|unlock|trylock|rdlock|wrlock|lock_shared|unlock_shared)\s*\(",
    },
    Rule {
        // A lock's mode is part of what it excludes: a lock type's enumerators
        // (`IntentLock::EXCLUSIVE`, `LockType::Shared`) and a lock mode named as such
        // (`lock_mode`, `LockMode()`).
        name: "cfam.lock-mode",
        langs: CFAM,
        anchors: &["Lock::", "LockType", "LockMode", "lock_mode", "LockKind"],
        unless: None,
        pattern: r"\b[A-Z]\w*Lock(?:Type|Mode|Kind)?::[A-Za-z_]\w*|\b(?:Lock(?:Mode|Type|Kind)|lock_mode|lock_type)\b",
    },
    Rule {
        // Thread-safety annotations behind a project's prefix (`DUCKDB_REQUIRES(mu)`,
        // `FOO_GUARDED_BY(mu)`, `BAR_EXCLUDES(mu)`): the same contract as Clang's own.
        name: "cfam.prefixed-thread-annotation",
        langs: CFAM,
        anchors: &[
            "REQUIRES",
            "GUARDED_BY",
            "EXCLUDES",
            "ACQUIRE",
            "RELEASE",
            "LOCKS_",
        ],
        unless: None,
        pattern: r"\b[A-Z][A-Z0-9]*_(?:REQUIRES|REQUIRES_SHARED|GUARDED_BY|PT_GUARDED_BY|EXCLUDES|ACQUIRE|ACQUIRE_SHARED|RELEASE|RELEASE_SHARED|LOCKS_EXCLUDED|LOCKS_REQUIRED|EXCLUSIVE_LOCKS_REQUIRED|SHARED_LOCKS_REQUIRED)\s*\(|\bEXCLUDES\s*\(",
    },
    Rule {
        // A project's atomic wrappers carry the word: `atomicIncr(x, 1)`, `atomicGet(x, v)`,
        // a `redisAtomic` qualifier, `ManagedAtomic<T>`, `AtomicCounter`. The word as a part of
        // an identifier (camelCase or snake_case), not inside another word.
        name: "cfam.atomic-wrapper",
        langs: &[C, Cpp, Swift],
        anchors: &["atomic", "Atomic"],
        unless: None,
        pattern: r"\batomic(?:[A-Z]\w*|_\w+)\s*\(|\b[a-z][a-z0-9]*Atomic\b|\b[A-Z]\w*Atomic\w*\b|\bAtomic[A-Z]\w*\b",
    },
    Rule {
        // `volatile` as a (poor) synchronisation in C; not the inline-assembly barrier.
        name: "c.volatile",
        langs: CFAM,
        anchors: &["volatile"],
        unless: Some(r"\b(?:asm|__asm__|__asm)\b"),
        pattern: r"\bvolatile\b",
    },
    Rule {
        name: "cpp.atomic",
        langs: CFAM,
        anchors: &["atomic", "_Atomic", "__sync_", "memory_order"],
        unless: None,
        pattern: r"\bstd::atomic(?:_\w+)?\b|\batomic\s*<|\b_Atomic\b|\b__atomic_\w+|\b__sync_\w+|\batomic_(?:load|store|fetch_\w+|exchange|compare_exchange\w*|flag\w*|thread_fence|signal_fence|init)\b|\b(?:std::)?memory_order(?:_\w+)?\b",
    },
    Rule {
        name: "cpp.thread",
        langs: CFAM,
        anchors: &["thread", "async", "jthread"],
        unless: None,
        pattern: r"\bstd::(?:thread|jthread|async)\b|\bthread_local\b",
    },
    Rule {
        name: "cpp.condition-variable",
        langs: CFAM,
        anchors: &["condition_variable"],
        unless: None,
        pattern: r"\b(?:std::)?condition_variable(?:_any)?\b",
    },
    Rule {
        name: "cpp.sync-primitives",
        langs: CFAM,
        anchors: &[
            "future",
            "promise",
            "packaged_task",
            "latch",
            "barrier",
            "semaphore",
            "call_once",
            "once_flag",
        ],
        unless: None,
        pattern: r"\bstd::(?:future|shared_future|promise|packaged_task|latch|barrier|counting_semaphore|binary_semaphore|call_once|once_flag)\b",
    },
    Rule {
        // Memory barriers and the platforms' interlocked operations.
        name: "cfam.barrier",
        langs: CFAM,
        anchors: &[
            "fence",
            "__dmb",
            "__dsb",
            "__isb",
            "Interlocked",
            "MemoryBarrier",
        ],
        unless: None,
        pattern: r"\b_mm_[mls]fence\s*\(|\b__(?:dmb|dsb|isb)\s*\(|\bInterlocked[A-Z]\w*\s*\(|\b(?:Os)?MemoryBarrier\s*\(",
    },
];
