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

pub mod c_family;
pub mod csharp;
pub mod elixir;
pub mod erlang;
pub mod go;
pub mod javascript;
pub mod jvm;
pub mod python;
pub mod rust;
pub mod swift;
pub mod zig;

/// Every language's table, in the order they are tried.
pub const TABLES: &[&[Rule]] = &[
    go::RULES,
    rust::RULES,
    swift::RULES,
    jvm::RULES,
    c_family::RULES,
    csharp::RULES,
    python::RULES,
    javascript::RULES,
    zig::RULES,
    erlang::RULES,
    elixir::RULES,
];

/// Every rule.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    TABLES.iter().flat_map(|t| t.iter())
}

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
