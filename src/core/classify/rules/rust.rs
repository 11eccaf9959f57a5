//! Rust: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
    Rule {
        name: "rust.mutex",
        langs: &[Rust],
        anchors: &["Mutex", "RwLock"],
        unless: None,
        pattern: r"\b(?:Mutex|RwLock|ReentrantMutex|FairMutex|MutexGuard|RwLockReadGuard|RwLockWriteGuard)\b",
    },
    Rule {
        // `m.lock()`, `m.try_lock()`, `rw.write()`, `rw.read()`: a lock taken (zero-argument
        // calls: `io::Read::read` and `Write::write` take a buffer).
        name: "rust.lock-call",
        langs: &[Rust],
        anchors: &[
            ".lock()",
            ".try_lock()",
            ".read()",
            ".write()",
            ".try_read()",
            ".try_write()",
            ".upgradable_read()",
        ],
        unless: None,
        pattern: r"\.(?:lock|try_lock|read|write|try_read|try_write|upgradable_read)\(\)",
    },
    Rule {
        name: "rust.condvar",
        langs: &[Rust],
        anchors: &["Condvar"],
        unless: None,
        pattern: r"\bCondvar\b",
    },
    Rule {
        name: "rust.barrier",
        langs: &[Rust],
        anchors: &["Barrier"],
        unless: None,
        pattern: r"\bBarrier\b",
    },
    Rule {
        name: "rust.atomic",
        langs: &[Rust],
        anchors: &["Atomic", "Ordering::", "fence", "load_consume"],
        unless: None,
        pattern: r"\bAtomic(?:Bool|Usize|Isize|U8|U16|U32|U64|U128|I8|I16|I32|I64|I128|Ptr|Cell|RefCell|Waker)\b|\b(?:atomic::)?Ordering::(?:SeqCst|Acquire|Release|AcqRel|Relaxed)\b|\b(?:compiler_)?fence\s*\(|\.load_consume\s*\(",
    },
    Rule {
        // `AcqRel` and `SeqCst` name nothing but a memory ordering, imported bare or not
        // (`Relaxed`, `Acquire` and `Release` alone could be any enum's variants: those count
        // inside an atomic call, see `statements::orderings_in_atomic_calls`).
        name: "rust.memory-ordering",
        langs: &[Rust],
        anchors: &["AcqRel", "SeqCst"],
        unless: None,
        pattern: r"(?:^|[^:\w])(?:AcqRel|SeqCst)\b",
    },
    Rule {
        name: "rust.thread-spawn",
        langs: &[Rust],
        anchors: &["thread::", "spawn_scoped", "thread::Builder"],
        unless: None,
        pattern: r"\bthread::(?:spawn|scope|Builder)\b|\.spawn_scoped\s*\(",
    },
    Rule {
        name: "rust.async-spawn",
        langs: &[Rust],
        anchors: &["spawn", "JoinSet", "LocalSet"],
        unless: None,
        pattern: r"\b(?:tokio|async_std|smol|task|runtime|rt|Handle|handle)::spawn(?:_blocking|_local)?\b|\bspawn_(?:blocking|local)\s*\(|\bJoinSet\b|\bLocalSet\b|\btokio::spawn\b|\.spawn\(\s*async\b",
    },
    Rule {
        name: "rust.async-select",
        langs: &[Rust],
        anchors: &["select!", "join!"],
        unless: None,
        pattern: r"\b(?:tokio::|futures::)?(?:select|select_biased|join|try_join)!",
    },
    Rule {
        name: "rust.async-sync",
        langs: &[Rust],
        anchors: &["tokio::sync", "Semaphore", "Notify", "sync::Once", "Once::"],
        unless: None,
        pattern: r"\btokio::sync\b|\b(?:Semaphore|Notify|OwnedSemaphorePermit|SemaphorePermit)\b|\bsync::Once\b|\bOnce::new\b",
    },
    Rule {
        name: "rust.channel",
        langs: &[Rust],
        anchors: &[
            "mpsc",
            "crossbeam",
            "flume",
            "async_channel",
            "oneshot",
            "broadcast",
            "watch::",
            "channel(",
        ],
        unless: None,
        pattern: r"\b(?:mpsc|crossbeam(?:_channel)?|flume|async_channel|oneshot|broadcast|watch)::|\b(?:sync_)?channel\s*(?:::<[^>]*>)?\s*\(|\bunbounded(?:_channel)?\s*\(",
    },
    Rule {
        name: "rust.unsafe-send-sync",
        langs: &[Rust],
        anchors: &["unsafe impl"],
        unless: None,
        pattern: r"\bunsafe\s+impl\b[^{]*\b(?:Send|Sync)\b",
    },
    Rule {
        name: "rust.parallel",
        langs: &[Rust],
        anchors: &["rayon", "par_iter", "par_bridge", "par_chunks"],
        unless: None,
        pattern: r"\brayon::|\.(?:into_)?par_(?:iter|iter_mut|bridge|chunks|chunks_mut|sort\w*|extend)\s*\(",
    },
    Rule {
        // What may cross threads: `Send`/`Sync` bounds (`T: Send + Sync`, `impl Send`) and the
        // types that make a value shareable (`SyncWrapper`, `Exclusive`, `SyncUnsafeCell`,
        // `OnceLock`, `LazyLock`, `AtomicCell`, `ArcSwap`).
        name: "rust.send-sync",
        langs: &[Rust],
        anchors: &[
            "Send",
            "Sync",
            "OnceLock",
            "LazyLock",
            "AtomicCell",
            "ArcSwap",
            "Exclusive",
        ],
        unless: None,
        pattern: r"\bSend\s*\+\s*Sync\b|\bSync\s*\+\s*Send\b|:\s*(?:'static\s*\+\s*)?(?:Send|Sync)\b|\bimpl\s+(?:Send|Sync)\b|\b(?:SyncWrapper|SyncUnsafeCell|Exclusive|OnceLock|LazyLock|AtomicCell|ArcSwap(?:Option)?)\b",
    },
    Rule {
        // Wakers: a future that registers `cx.waker()`, wakes a task, or implements `poll`
        // over a task `Context` is the scheduling of async code.
        name: "rust.waker",
        langs: &[Rust],
        anchors: &["Waker", "waker", "wake", "Context<"],
        unless: None,
        pattern: r"\b(?:Atomic)?Waker\b|\bRawWaker(?:VTable)?\b|\.wake(?:_by_ref)?\s*\(\s*\)|\bcx\.waker\s*\(|\bwaker\s*\(\s*\)|&mut\s+(?:std::task::|core::task::|task::)?Context<'_>",
    },
];
