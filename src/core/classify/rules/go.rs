//! Go: the concurrency rules (see `super` for how a rule is read). The comment and
//! string syntax these rules see blanked is in `super::super::lang`.

use super::Rule;
use crate::core::classify::lang::Lang::*;

pub const RULES: &[Rule] = &[
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
];
