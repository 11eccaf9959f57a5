//! The concurrency rules: per language, each with a stable name, the literal anchors that any
//! match must contain (the prefilter), and the precise pattern run on candidate lines.

use super::lang::Lang;

pub struct Rule {
    pub name: &'static str,
    pub langs: &'static [Lang],
    /// Literals at least one of which appears in every match.
    pub anchors: &'static [&'static str],
    pub pattern: &'static str,
    /// A line matching this too is not a match (the rule's look-alikes, e.g. `asm volatile`).
    pub unless: Option<&'static str>,
}

use Lang::*;

const JVM: &[Lang] = &[Java, Kotlin];
const CFAM: &[Lang] = &[C, Cpp];

pub const RULES: &[Rule] = &[
    // ---------------------------------------------------------------- Go
    Rule {
        name: "go.sync-mutex",
        langs: &[Go],
        anchors: &["Mutex"],
        unless: None,
        pattern: r"\bsync\.(?:RW)?Mutex\b|\b(?:RW)?Mutex\s*\{|\*?sync\.(?:RW)?Mutex\b",
    },
    Rule {
        name: "go.lock-call",
        langs: &[Go],
        anchors: &["Lock(", "Unlock("],
        unless: None,
        pattern: r"\.(?:R?Lock|R?Unlock|TryR?Lock)\(\)",
    },
    Rule {
        name: "go.sync-cond",
        langs: &[Go],
        anchors: &["Cond"],
        unless: None,
        pattern: r"\bsync\.(?:Cond\b|NewCond\()|\.(?:Broadcast|Signal)\(\)",
    },
    Rule {
        name: "go.sync-waitgroup",
        langs: &[Go],
        anchors: &["WaitGroup", "errgroup"],
        unless: None,
        pattern: r"\bsync\.WaitGroup\b|\berrgroup\.(?:Group|WithContext)\b",
    },
    Rule {
        name: "go.sync-once",
        langs: &[Go],
        anchors: &["Once"],
        unless: None,
        pattern: r"\bsync\.(?:Once|OnceFunc|OnceValue|OnceValues)\b",
    },
    Rule {
        // `d.initOnce()`, `loadOnce()`, `once.Do(…)`: a once-guarded initialisation helper.
        name: "go.once-call",
        langs: &[Go],
        anchors: &["Once(", "once.Do(", "Once.Do("],
        unless: None,
        pattern: r"\b[a-z]\w*Once\s*\(\s*\)|\b(?:once|Once)\w*\.Do\s*\(",
    },
    Rule {
        name: "go.sync-map-pool",
        langs: &[Go],
        anchors: &["sync.Map", "sync.Pool"],
        unless: None,
        pattern: r"\bsync\.(?:Map|Pool)\b",
    },
    Rule {
        name: "go.atomic",
        langs: &[Go],
        anchors: &["atomic"],
        unless: None,
        pattern: r#"\bsync/atomic\b|\batomic\.(?:Add|Load|Store|Swap|CompareAndSwap|And|Or)\w*\(|\batomic\.(?:Int32|Int64|Uint32|Uint64|Uintptr|Bool|Value|Pointer)\b"#,
    },
    Rule {
        name: "go.goroutine",
        langs: &[Go],
        anchors: &["go ", "go\t"],
        unless: None,
        pattern: r"(?:^|[;{:]\s*|^\s*)go\s+(?:func\s*\(|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*\()",
    },
    Rule {
        name: "go.channel",
        langs: &[Go],
        anchors: &["chan", "<-"],
        unless: None,
        pattern: r"\bchan\b|<-",
    },
    Rule {
        name: "go.select",
        langs: &[Go],
        anchors: &["select"],
        unless: None,
        pattern: r"^\s*select\s*\{",
    },
    Rule {
        name: "go.semaphore",
        langs: &[Go],
        anchors: &["semaphore"],
        unless: None,
        pattern: r"\bsemaphore\.(?:NewWeighted|Weighted)\b",
    },
    // ---------------------------------------------------------------- Rust
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
    // ---------------------------------------------------------------- Swift
    Rule {
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
        ],
        unless: None,
        pattern: r"\b(?:NSLock|NSRecursiveLock|NSCondition|NSConditionLock|ConditionLock|NIOLock|NIOLockedValueBox|NIOConditionLock|OSAllocatedUnfairLock|os_unfair_lock\w*|Mutex|ManagedAtomic|UnsafeAtomic|Atomic|DispatchGroup|DispatchSemaphore|DispatchQueue|DispatchWorkItem|Sendable|TaskGroup|ThrowingTaskGroup)\b|\b(?:withLock|withLockedValue|withTaskGroup|withThrowingTaskGroup|withCheckedContinuation|withCheckedThrowingContinuation)\s*[({]|\bTask(?:\.detached)?\s*[({]|\b(?:actor|nonisolated)\s+\w|@Sendable\b|@MainActor\b",
    },
    // ---------------------------------------------------------------- Java and Kotlin
    Rule {
        name: "java.synchronized",
        langs: JVM,
        anchors: &["synchronized", "Synchronized"],
        unless: None,
        pattern: r"\bsynchronized\b|@Synchronized\b",
    },
    Rule {
        name: "java.volatile",
        langs: JVM,
        anchors: &["volatile", "Volatile"],
        unless: None,
        pattern: r"\bvolatile\b|@Volatile\b",
    },
    Rule {
        name: "java.concurrent",
        langs: JVM,
        anchors: &[
            "concurrent",
            "Lock",
            "Latch",
            "Barrier",
            "Semaphore",
            "Phaser",
            "Exchanger",
            "Concurrent",
            "Blocking",
            "CopyOnWrite",
            "Atomic",
            "LongAdder",
            "ThreadLocal",
        ],
        unless: None,
        pattern: r"\bjava\.util\.concurrent\b|\b(?:ReentrantLock|ReentrantReadWriteLock|StampedLock|ReadWriteLock|CountDownLatch|CyclicBarrier|Semaphore|Phaser|Exchanger|ConcurrentHashMap|ConcurrentLinkedQueue|ConcurrentLinkedDeque|ConcurrentSkipListMap|BlockingQueue|LinkedBlockingQueue|ArrayBlockingQueue|PriorityBlockingQueue|SynchronousQueue|CopyOnWriteArrayList|AtomicInteger|AtomicLong|AtomicBoolean|AtomicReference|AtomicIntegerArray|LongAdder|ThreadLocal|LockSupport)\b",
    },
    Rule {
        name: "java.executor",
        langs: JVM,
        anchors: &["Executor", "Thread", "ForkJoin"],
        unless: None,
        pattern: r"\b(?:ExecutorService|Executors|ThreadPoolExecutor|ScheduledExecutorService|ScheduledThreadPoolExecutor|ForkJoinPool|ForkJoinTask|RecursiveTask|Executor)\b|\bnew\s+Thread\s*\(|\bThread\.(?:ofVirtual|ofPlatform|startVirtualThread)\b|\bthread\s*\{",
    },
    Rule {
        name: "java.completable-future",
        langs: JVM,
        anchors: &["CompletableFuture", "Future<", "Future"],
        unless: None,
        pattern: r"\bCompletableFuture\b|\b(?:Scheduled)?Future\s*<",
    },
    Rule {
        name: "java.wait-notify",
        langs: JVM,
        anchors: &["wait(", "notify"],
        unless: None,
        pattern: r"\.(?:wait|notify|notifyAll)\s*\(\s*\)|^\s*(?:wait|notify|notifyAll)\s*\(\s*\)",
    },
    Rule {
        name: "kotlin.coroutines",
        langs: &[Kotlin],
        anchors: &[
            "launch",
            "async",
            "coroutine",
            "runBlocking",
            "withContext",
            "Dispatchers",
            "Mutex",
            "withLock",
            "Channel",
            "supervisorScope",
        ],
        unless: None,
        pattern: r"\b(?:launch|async)\s*(?:\([^)]*\))?\s*\{|\bkotlinx\.coroutines\b|\b(?:runBlocking|withContext|coroutineScope|supervisorScope)\b|\bDispatchers\.|\bMutex\s*\(|\.withLock\b|\bChannel\s*<|\bChannel\s*\(",
    },
    // ---------------------------------------------------------------- C and C++
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
    // ---------------------------------------------------------------- C#
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
    // ---------------------------------------------------------------- Python
    Rule {
        name: "python.threading",
        langs: &[Python],
        anchors: &[
            "threading",
            "Lock(",
            "RLock",
            "Semaphore",
            "Condition(",
            "Barrier(",
            "Thread(",
            "_thread",
        ],
        unless: None,
        pattern: r"\bthreading\b|\b_thread\b|\b(?:Lock|RLock|Semaphore|BoundedSemaphore|Condition|Barrier|Thread)\s*\(",
    },
    Rule {
        // Lock-like objects used by their methods (`self._lock.acquire(timeout=…)`,
        // `done.wait()`, `worker.join(timeout)`), fork handlers for threads, and any `join()`
        // with no argument or only a timeout: `str.join` always takes one, so that is a
        // thread, process or queue being waited for.
        name: "python.sync-call",
        langs: &[Python],
        anchors: &[
            ".acquire(",
            ".release(",
            ".wait(",
            ".notify",
            ".join(",
            "register_at_fork",
            ".is_alive(",
        ],
        unless: None,
        pattern: r"(?:^|[^\w.]|\bself\.|\bcls\.)(?:\w+_)?_?(?:r?lock|mutex|sem|semaphore|cv|cond|condition|event|evt|barrier|done|ready|started|stopped)s?\s*\.\s*(?:acquire|release|wait|wait_for|notify|notify_all|set|clear)\s*\(|\b\w*(?:thread|worker)s?\s*\.\s*(?:join|is_alive)\s*\(|\bos\.register_at_fork\b|\.\s*join\s*\(\s*(?:timeout\s*=\s*[\w.]+|\d+(?:\.\d+)?)?\s*\)",
    },
    Rule {
        name: "python.multiprocessing",
        langs: &[Python],
        anchors: &["multiprocessing"],
        unless: None,
        pattern: r"\bmultiprocessing\b",
    },
    Rule {
        name: "python.concurrent-futures",
        langs: &[Python],
        anchors: &["concurrent", "PoolExecutor"],
        unless: None,
        pattern: r"\bconcurrent\.futures\b|\b(?:Thread|Process)PoolExecutor\b",
    },
    Rule {
        name: "python.asyncio",
        langs: &[Python],
        anchors: &[
            "asyncio",
            "create_task",
            "TaskGroup",
            "gather",
            "run_in_executor",
            "to_thread",
        ],
        unless: None,
        pattern: r"\basyncio\.(?:gather|create_task|ensure_future|Lock|Semaphore|BoundedSemaphore|Event|Condition|Barrier|Queue|wait|wait_for|TaskGroup|as_completed|shield|run_coroutine_threadsafe|to_thread|timeout)\b|\.create_task\s*\(|\bTaskGroup\s*\(|\.run_in_executor\s*\(|\banyio\.|\btrio\.(?:open_nursery|Lock)",
    },
    // ---------------------------------------------------------------- JavaScript / TypeScript
    Rule {
        name: "js.worker",
        langs: &[JavaScript],
        anchors: &["Worker", "worker_threads"],
        unless: None,
        pattern: r"\bnew\s+(?:Shared)?Worker\s*\(|\bworker_threads\b",
    },
    Rule {
        name: "js.shared-memory",
        langs: &[JavaScript],
        anchors: &["SharedArrayBuffer", "Atomics"],
        unless: None,
        pattern: r"\bSharedArrayBuffer\b|\bAtomics\.\w+",
    },
    Rule {
        name: "js.web-locks",
        langs: &[JavaScript],
        anchors: &["locks"],
        unless: None,
        pattern: r"\bnavigator\.locks\b",
    },
];

/// Path words that mark a source file as concurrency code when its patch is not available.
pub const PATH_WORDS: &[&str] = &[
    "mutex",
    "mutexes",
    "lock",
    "locks",
    "locking",
    "rwlock",
    "spinlock",
    "atomic",
    "atomics",
    "sync",
    "concurrent",
    "concurrency",
    "thread",
    "threads",
    "threadpool",
    "threading",
    "semaphore",
    "race",
    "races",
    "channel",
    "channels",
    "scheduler",
    "goroutine",
    "goroutines",
    "workerpool",
    "worker_pool",
    "parallel",
    "async_runtime",
];
