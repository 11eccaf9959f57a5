//! Identifiers read by their sub-words: `PROJ_ATOMIC_ADD`, `tryLockShared`, `notifyWaiters`,
//! `AtomicCounterT` and `git_mutex_lock` name a primitive in a project's own words, where the
//! language rules know only the standard library's names. An identifier is split at `_`, at a
//! lower-to-upper change (`tryLock`), before the last capital of a run (`HTTPLock` → `http`,
//! `lock`) and around digits; its sub-words, lowercased, are looked up in the tables below.
//!
//! Each family has its look-alikes: a lock word beside `file`, `db`, `table`, `screen`,
//! `version` or `package` is a file, database or dependency lock, or a UI state; `atomic` beside
//! `write`, `rename` or `transaction` is an atomic file write or a database transaction; a
//! `fence` beside `code` is Markdown. `clock`, `block` and `Lockfile` never split into `lock`.
//! See docs/classification.md.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// The rule name reported for an identifier read by its sub-words.
pub const RULE_WORDS: &str = "words.primitive";

/// Longest identifier read, and most sub-words looked at (longer ones are data, not names).
const MAX_IDENT: usize = 128;
const MAX_WORDS: usize = 16;

/// A sub-word that names a primitive whatever stands beside it.
const ALWAYS: &[&str] = &[
    "mutex",
    "mutexes",
    "mtx",
    "futex",
    "futexes",
    "spinlock",
    "spinlocks",
    "rwlock",
    "rwlocks",
    "seqlock",
    "semaphore",
    "semaphores",
    "condvar",
    "condvars",
    "cmpxchg",
    "membarrier",
    "unpark",
    "waker",
    "wakers",
];

/// Two sub-words in a row that name a primitive (`spin_lock`, `notifyAll`, `fetch_add`).
const PAIRS: &[(&str, &[&str])] = &[
    ("spin", &["lock", "locks", "unlock", "trylock"]),
    ("rw", &["lock", "locks", "mutex", "sem"]),
    ("cond", &["var", "wait", "signal", "broadcast", "timedwait"]),
    ("compare", &["exchange", "swap", "cas"]),
    (
        "fetch",
        &[
            "add", "sub", "and", "or", "xor", "nand", "max", "min", "inc", "dec",
        ],
    ),
    ("notify", &["all", "one", "waiters", "waiter", "waiting"]),
    (
        "thread",
        &["pool", "pools", "spawn", "join", "local", "safe"],
    ),
    ("smp", &["mb", "rmb", "wmb"]),
    ("memory", &["barrier", "fence", "order", "ordering"]),
    ("wake", &["by", "up", "all", "one", "waiters"]),
    (
        "sem",
        &["post", "wait", "trywait", "timedwait", "init", "destroy"],
    ),
];

/// Sub-words that name a primitive unless one of their look-alike words stands beside them.
const GUARDED: &[(&str, Family)] = &[
    ("lock", Family::Lock),
    ("locks", Family::Lock),
    ("locked", Family::Lock),
    ("locking", Family::Lock),
    ("locker", Family::Lock),
    ("unlock", Family::Lock),
    ("unlocked", Family::Lock),
    ("unlocks", Family::Lock),
    ("unlocking", Family::Lock),
    ("trylock", Family::Lock),
    ("relock", Family::Lock),
    ("rlock", Family::Lock),
    ("wlock", Family::Lock),
    ("rdlock", Family::Lock),
    ("wrlock", Family::Lock),
    ("atomic", Family::Atomic),
    ("atomics", Family::Atomic),
    ("fence", Family::Fence),
    ("fences", Family::Fence),
    ("barrier", Family::Fence),
    ("barriers", Family::Fence),
    ("waiter", Family::Wait),
    ("waiters", Family::Wait),
    // `SynchronizedFileSystem(fs)`, `synchronizedList(xs)`: a wrapper that serializes access.
    ("synchronized", Family::Sync),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Lock,
    Atomic,
    Fence,
    Wait,
    Sync,
}

impl Family {
    /// Words beside which this family's word is something else.
    fn look_alikes(self) -> &'static [&'static str] {
        match self {
            Family::Lock => &[
                "file",
                "files",
                "filebuf",
                "flock",
                "lockfile",
                "path",
                "paths",
                "dir",
                "directory",
                "db",
                "database",
                "table",
                "tables",
                "row",
                "rows",
                "advisory",
                "pg",
                "sql",
                "query",
                "screen",
                "scroll",
                "caps",
                "num",
                "key",
                "keys",
                "account",
                "user",
                "login",
                "password",
                "pin",
                "version",
                "versions",
                "dep",
                "deps",
                "dependency",
                "dependencies",
                "package",
                "packages",
                "npm",
                "yarn",
                "cargo",
                "gem",
                "pip",
                "poetry",
                "pod",
                "bundle",
                "index",
                "ref",
                "refs",
                "wake",
                "door",
                "orientation",
                "ui",
                "button",
                "icon",
                "aspect",
                "ratio",
                "zoom",
                "pan",
                "scale",
                "edit",
                "editing",
                "readonly",
                "layout",
                "bucket",
                "retention",
                "legal",
            ],
            Family::Atomic => &[
                "write",
                "writes",
                "writer",
                "file",
                "files",
                "rename",
                "replace",
                "save",
                "commit",
                "transaction",
                "tx",
                "db",
                "sql",
                "move",
                "copy",
                "symlink",
                "install",
                "design",
                "css",
                "style",
                "styles",
                "component",
                "components",
                "request",
                "requests",
                "update",
                "deploy",
            ],
            Family::Fence => &[
                "code", "markdown", "md", "geo", "block", "yaml", "toml", "json",
            ],
            Family::Wait => &["restaurant", "table"],
            // Data kept in step with somewhere else, or media kept in step with each other.
            Family::Sync => &[
                "scroll",
                "scrolling",
                "calendar",
                "contacts",
                "folder",
                "folders",
                "settings",
                "prefs",
                "preferences",
                "account",
                "accounts",
                "cloud",
                "lyrics",
                "subtitle",
                "subtitles",
                "video",
                "audio",
                "playback",
            ],
        }
    }
}

/// The stems a name must hold to be read at all: every word of the tables holds one (`unlock`
/// and `rwlock` hold `lock`). Matched in lower, capitalized and upper case, which is how they
/// stand in names (`trylock`, `tryLock`, `PROJ_LOCK`), by one vectorised search of at most 64
/// patterns: this runs on every changed line.
pub const STEMS: &[&str] = &[
    "lock", "mutex", "mtx", "futex", "sem", "cond", "cmpxchg", "barrier", "fence", "wake",
    "waiter", "unpark", "atomic", "spin", "notify", "compare", "fetch", "smp", "memory", "thread",
    "synchron",
];

fn stems() -> &'static AhoCorasick {
    static CELL: OnceLock<AhoCorasick> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut variants = Vec::with_capacity(STEMS.len() * 3);
        for stem in STEMS {
            let mut cap = stem.to_string();
            cap[..1].make_ascii_uppercase();
            variants.extend([stem.to_string(), cap, stem.to_ascii_uppercase()]);
        }
        AhoCorasick::new(variants).expect("fixed patterns")
    })
}

/// The first name of `code` (a line with comments and strings blanked) that names a primitive
/// by its sub-words. A name is an identifier or a qualified path (`self._lock`,
/// `transaction.atomic`, `cx.waker`): a look-alike anywhere in it rules it out. The words of the
/// guarded families (`lock`, `atomic`, `fence`, `waiter`) count only where the name is used as a
/// primitive is: called (`proj_lock(m)`, `try_lock!(…)`), declaring something (`AtomicCounterT
/// hits;`, `proj_lock_t *l`, `AtomicCounter<int>`), or entered (`with self._lock:`); a variable
/// `lock_count = 0` is a count.
///
/// `guarded` is false for languages whose own rules name their wrappers (Go's `.Lock()`, Rust's
/// types): there only the unambiguous words count.
pub fn primitive_word(code: &[u8], guarded: bool) -> Option<&str> {
    if !stems().is_match(code) {
        return None;
    }
    let from = 0;
    let mut words: Vec<[u8; 24]> = Vec::new();
    let mut lens: Vec<usize> = Vec::new();
    let (mut tail_words, mut tail_lens): (Vec<[u8; 24]>, Vec<usize>) = (Vec::new(), Vec::new());
    names(&code[from..])
        .map(|(s, e)| (s + from, e + from))
        .find(|&(s, e)| {
            let name = &code[s..e];
            name.len() <= MAX_IDENT && stems().is_match(name) && {
                split(name, &mut words, &mut lens);
                let mut words_after = |sep: &[u8]| {
                    let tail = name
                        .iter()
                        .rposition(|c| sep.contains(c))
                        .map_or(name, |p| &name[p + 1..]);
                    if tail.len() == name.len() {
                        return 0;
                    }
                    split(tail, &mut tail_words, &mut tail_lens);
                    words.len().saturating_sub(tail_lens.len())
                };
                // Past the modules (`thread_pool::`), and the last segment (`x.lock`).
                let from = (words_after(b":"), words_after(b".:>"));
                match names_primitive(&words, &lens, from) {
                    Some(Need::Nothing) => true,
                    Some(Need::Use) => guarded && used_as_primitive(code, s, e),
                    None => false,
                }
            }
        })
        .and_then(|(s, e)| std::str::from_utf8(&code[s..e]).ok())
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// The names of a line, as byte ranges: identifiers joined by `.`, `::` or `->`.
fn names(code: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < code.len() {
            let c = code[i];
            if is_word(c) && !c.is_ascii_digit() {
                let start = i;
                loop {
                    while i < code.len() && is_word(code[i]) {
                        i += 1;
                    }
                    let sep = match code.get(i..i + 2) {
                        Some(b"::") | Some(b"->") => 2,
                        _ if code.get(i) == Some(&b'.') => 1,
                        _ => 0,
                    };
                    let next = code.get(i + sep).copied();
                    if sep > 0 && next.is_some_and(|n| is_word(n) && !n.is_ascii_digit()) {
                        i += sep;
                    } else {
                        break;
                    }
                }
                return Some((start, i));
            }
            if c.is_ascii_digit() {
                // A number (`0x1Lock` is not a name): skipped whole.
                while i < code.len() && is_word(code[i]) {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// The identifiers of a line of code, in order (`[A-Za-z_$][A-Za-z0-9_$]*`), for the config's
/// `primitives`.
pub fn identifiers(code: &[u8]) -> impl Iterator<Item = &[u8]> {
    names(code).flat_map(move |(s, e)| code[s..e].split(|c| !is_word(*c)).filter(|w| !w.is_empty()))
}

/// Words after a name that make it an expression, not a declaration (`lock_count if x`).
const NOT_DECLARED: &[&[u8]] = &[
    b"if",
    b"else",
    b"and",
    b"or",
    b"not",
    b"in",
    b"is",
    b"for",
    b"as",
    b"then",
    b"do",
    b"end",
    b"instanceof",
    b"return",
    b"orelse",
    b"catch",
    b"when",
    b"unless",
    b"where",
    b"with",
];

/// Whether the name at `s..e` is called, declares something, or is entered.
fn used_as_primitive(code: &[u8], s: usize, e: usize) -> bool {
    let rest = &code[e..];
    let after = rest.trim_ascii_start();
    // `lock("FOR UPDATE SKIP LOCKED")`, `acquire_lock("name")`: a lock named by a string is a
    // database's or a service's, not a primitive in this process.
    let string_arg = |t: &[u8]| matches!(t.trim_ascii_start().first(), Some(b'"' | b'\''));
    let called = (after.first() == Some(&b'(') && !string_arg(&after[1..]))
        || (after.starts_with(b"!(") && !string_arg(&after[2..]));
    let generic = rest.first() == Some(&b'<');
    // `Type name`, `Type *name`, `Type &name`.
    let declared = {
        let t = after
            .strip_prefix(b"*")
            .or_else(|| after.strip_prefix(b"&"))
            .map_or(after, |t| t.trim_ascii_start());
        let word_len = t.iter().take_while(|c| is_word(**c)).count();
        word_len > 0
            && !t[0].is_ascii_digit()
            && after.len() < rest.len()
            && !NOT_DECLARED.contains(&&t[..word_len])
    };
    let before = code[..s].trim_ascii_end();
    let entered = before.ends_with(b"with")
        && before.len() < code[..s].len()
        && (before.len() == 4 || !is_word(before[before.len() - 5]));
    called || generic || declared || entered
}

/// Splits an identifier into lowercase sub-words (each at most 24 bytes; longer ones are cut).
fn split(ident: &[u8], words: &mut Vec<[u8; 24]>, lens: &mut Vec<usize>) {
    words.clear();
    lens.clear();
    let mut cur = [0u8; 24];
    let mut len = 0usize;
    let mut push = |cur: &mut [u8; 24], len: &mut usize| {
        if *len > 0 && words.len() < MAX_WORDS {
            words.push(*cur);
            lens.push(*len);
        }
        *len = 0;
    };
    for (i, &c) in ident.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            push(&mut cur, &mut len);
            continue;
        }
        let prev = i.checked_sub(1).map(|j| ident[j]);
        let next = ident.get(i + 1).copied();
        let boundary = match prev {
            None => false,
            Some(p) if !p.is_ascii_alphanumeric() => false,
            Some(p) => {
                (c.is_ascii_uppercase() && (p.is_ascii_lowercase() || p.is_ascii_digit()))
                    || (c.is_ascii_uppercase()
                        && p.is_ascii_uppercase()
                        && next.is_some_and(|n| n.is_ascii_lowercase()))
                    || (c.is_ascii_digit() != p.is_ascii_digit())
            }
        };
        if boundary {
            push(&mut cur, &mut len);
        }
        if len < cur.len() {
            cur[len] = c.to_ascii_lowercase();
            len += 1;
        }
    }
    push(&mut cur, &mut len);
}

/// What a name's words need to name a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Nothing,
    /// To be used as a primitive is (a guarded family's word).
    Use,
}

/// `(path_from, last_from)`: the first word past the name's module path, where the words must
/// stand (`cx.waker`, `thread_pool.stop`, not `thread_pool::get`), and the first word of its last
/// segment, where a guarded word must (`self._lock`, not `unlocked_items.append`).
fn names_primitive(
    words: &[[u8; 24]],
    lens: &[usize],
    (path_from, last_from): (usize, usize),
) -> Option<Need> {
    let w = |i: usize| -> &[u8] { &words[i][..lens[i]] };
    let n = words.len();
    let has = |set: &[&str]| (0..n).any(|i| set.iter().any(|s| s.as_bytes() == w(i)));
    let mut guarded = None;
    // Module segments (`thread_pool::get`) name places, not primitives; a receiver's words
    // (`thread_pool.stop()`) count where the name is used as a primitive is, as guarded words
    // do (`config.thread_pool.count = 4` is a setting).
    for i in path_from..n {
        let word = w(i);
        let need = if i >= last_from {
            Need::Nothing
        } else {
            Need::Use
        };
        if ALWAYS.iter().any(|a| a.as_bytes() == word) {
            if need == Need::Nothing {
                return Some(need);
            }
            guarded = Some(Need::Use);
        }
        if let Some((_, seconds)) = PAIRS.iter().find(|(first, _)| first.as_bytes() == word)
            && i + 1 < n
            && seconds.iter().any(|s| s.as_bytes() == w(i + 1))
        {
            if need == Need::Nothing {
                return Some(need);
            }
            guarded = Some(Need::Use);
        }
        if i >= last_from
            && let Some((_, family)) = GUARDED.iter().find(|(g, _)| g.as_bytes() == word)
            && !has(family.look_alikes())
        {
            guarded = Some(Need::Use);
        }
    }
    guarded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(ident: &str) -> Vec<String> {
        let (mut w, mut l) = (Vec::new(), Vec::new());
        split(ident.as_bytes(), &mut w, &mut l);
        w.iter()
            .zip(&l)
            .map(|(w, l)| String::from_utf8_lossy(&w[..*l]).into_owned())
            .collect()
    }

    #[test]
    fn identifiers_split_into_their_words() {
        assert_eq!(sub("PROJ_ATOMIC_ADD"), ["proj", "atomic", "add"]);
        assert_eq!(sub("tryLockShared"), ["try", "lock", "shared"]);
        assert_eq!(sub("notifyWaiters"), ["notify", "waiters"]);
        assert_eq!(sub("AtomicCounterT"), ["atomic", "counter", "t"]);
        assert_eq!(sub("HTTPLockServer"), ["http", "lock", "server"]);
        assert_eq!(sub("AtomicU64"), ["atomic", "u", "64"]);
        assert_eq!(sub("__sync"), ["sync"]);
        assert_eq!(sub("clock"), ["clock"]);
    }

    fn names(line: &str) -> Option<String> {
        primitive_word(line.as_bytes(), true).map(str::to_string)
    }

    #[test]
    fn a_project_s_own_primitive_names_are_read() {
        for (line, ident) in [
            ("PROJ_ATOMIC_ADD(&s->refs, 1);", "PROJ_ATOMIC_ADD"),
            ("if (m.tryLockShared()) {", "m.tryLockShared"),
            ("q.notifyWaiters();", "q.notifyWaiters"),
            ("AtomicCounterT hits;", "AtomicCounterT"),
            ("git_mutex_lock(&cache->lock);", "git_mutex_lock"),
            ("proj_smp_mb();", "proj_smp_mb"),
            ("async with self._write_lock:", "self._write_lock"),
            ("cx.waker().wake_by_ref();", "cx.waker"),
            ("val = c.fetch_add(1)", "c.fetch_add"),
            ("mem_barrier();", "mem_barrier"),
            ("with self._lock:", "self._lock"),
            ("self.thread_pool.stop();", "self.thread_pool.stop"),
        ] {
            assert_eq!(names(line).as_deref(), Some(ident), "{line}");
        }
    }

    #[test]
    fn look_alikes_are_not_primitives() {
        for line in [
            "let t = clock_gettime(CLOCK_MONOTONIC, &ts);",
            "if err == WouldBlock { return }",
            "block_size = 4096",
            "fs.writeFile(lockfilePath, data)",
            "lock_file(path)",
            "acquire_file_lock(dir)",
            "db.lock_table(\"users\")",
            "pg_advisory_lock(42)",
            "atomic_write(path, data)",
            "with transaction.atomic():",
            "screen_locked = true",
            "package_lock = load()",
            "code_fence = '```'",
            "x = 0x1Lock + 2",
            "parse_blocked(input)",
            "int lock_count = 0;",
            "unlocked_achievements = []",
            "if rcfg.LockEnabled {",
            "cfg := globalBucketObjectLockSys.Get(bucket)",
            "total = lock_count if ok else 0",
            "unlocked_achievements.append(name)",
            "thread_pool::in_worker(|w| run(w))",
            "|> lock(\"FOR UPDATE SKIP LOCKED\")",
            "cfg.thread_pool.count = 32;",
            "const n = self.thread_pool.count orelse 4;",
        ] {
            assert_eq!(names(line), None, "{line}");
        }
    }

    #[test]
    fn a_long_identifier_is_data() {
        let long = format!("x_{}_lock", "a".repeat(200));
        assert_eq!(names(&long), None);
    }
}
