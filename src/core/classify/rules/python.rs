//! Python: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
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
        pattern: r"\bthreading\b|\b_thread\b|\b(?:Lock|RLock|Semaphore|BoundedSemaphore|Condition|Barrier|Thread|CapacityLimiter)\s*\(|\bEvent\s*\(\s*\)",
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
    Rule {
        // The thread-safe queues of the standard library.
        name: "python.queue",
        langs: &[Python],
        anchors: &["Queue"],
        unless: None,
        pattern: r"\bqueue\.(?:Queue|LifoQueue|PriorityQueue|SimpleQueue)\b|\b(?:LifoQueue|SimpleQueue)\s*\(",
    },
];
