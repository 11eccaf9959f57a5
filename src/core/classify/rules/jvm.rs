//! Java and Kotlin: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

const JVM: &[crate::core::classify::lang::Lang] = &[Java, Kotlin];

pub const RULES: &[Rule] = &[
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
];
