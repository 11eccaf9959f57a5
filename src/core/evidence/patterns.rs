//! Detectors over text: test names, seeds, race reports, trace links, and the phrases that are
//! never evidence. Each runs in time linear in its input (Rust's regex engine guarantees it).

use std::sync::OnceLock;

use regex::Regex;

macro_rules! re {
    ($name:ident, $pat:expr) => {
        fn $name() -> &'static Regex {
            static R: OnceLock<Regex> = OnceLock::new();
            R.get_or_init(|| Regex::new($pat).expect("evidence patterns are valid"))
        }
    };
}

// ------------------------------------------------------------------ test names

re!(
    test_id,
    r"\b((?:[\w.-]+/)*[\w.-]+::[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:/[\w/.-]+)?)"
);
re!(pytest_id, r"\b((?:[\w.-]+/)*[\w.-]+\.py::[\w:\[\]./-]+)");
re!(
    go_test,
    r"\b((?:Test|Fuzz|Benchmark)[A-Z0-9_]\w*(?:/[\w/.-]+)?)"
);
re!(
    go_run_flag,
    r#"-(?:test\.)?run[= ]['"]?\^?([A-Za-z_]\w*)\$?"#
);
re!(
    cargo_test,
    r"\bcargo\s+(?:test|nextest\s+run)\b[^\n]*?\s([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)(?:\s|$)"
);
re!(
    rust_fn_test,
    r"\b(test_[a-z0-9_]+|[a-z0-9_]+_(?:test|race|loom|interleaving))\b"
);
re!(
    java_test,
    r"\b([A-Z][a-z0-9]\w*(?:Test|Tests|IT|Stress)(?:[#.][a-z]\w*)?)\b"
);
re!(
    test_key,
    r"(?im)^\s*[-*]?\s*\**(?:test|tests|test id|test name)\**\s*[:=]\s*`?([^\s`#|]+)"
);

/// Names that only appear in templates.
const PLACEHOLDER_TESTS: &[&str] = &[
    "TestName",
    "TestXxx",
    "TestX",
    "test_name",
    "TestSomething",
    "pkg/path::TestName",
    "package/path::TestName",
    "path::to::test",
];

/// Test identifiers named in `text`, most specific forms first.
pub fn tests_in(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim_matches(|c: char| c == '`' || c == '\'' || c == '"' || c == '.' || c == ',');
        if s.is_empty() || is_placeholder(s) || PLACEHOLDER_TESTS.contains(&s) {
            return;
        }
        if !found.iter().any(|f| f == s) {
            found.push(s.to_string());
        }
    };
    for c in test_key().captures_iter(text) {
        // `Tests: ran locally` is prose; a test id has a shape.
        let v = &c[1];
        let shaped = v.contains(['_', ':', '/', '.', '#'])
            || v.chars().next().is_some_and(char::is_uppercase)
            || v.chars().any(|ch| ch.is_ascii_digit());
        if shaped {
            push(v);
        }
    }
    for re in [
        pytest_id(),
        test_id(),
        go_test(),
        go_run_flag(),
        cargo_test(),
        java_test(),
        rust_fn_test(),
    ] {
        for c in re.captures_iter(text) {
            let m = &c[1];
            // `std::sync::Mutex` is a path, not a test: a Rust-style path must look like a test.
            if std::ptr::eq(re, test_id()) && !looks_like_test_path(m) {
                continue;
            }
            push(m);
        }
    }
    found
}

fn looks_like_test_path(p: &str) -> bool {
    let last = p.rsplit("::").next().unwrap_or(p);
    let lower = p.to_ascii_lowercase();
    last.starts_with("Test")
        || last.starts_with("test")
        || lower.contains("test")
        || lower.contains("::tests::")
        || last.contains("race")
        || last.contains("loom")
        || p.contains('/')
}

/// The short name of a test id (`pkg/path::TestX/sub` → `TestX`), for finding it in code.
pub fn short_name(test: &str) -> &str {
    let t = test.rsplit("::").next().unwrap_or(test);
    let t = t.split('/').next().unwrap_or(t);
    let t = t.rsplit(['#', '.']).next().unwrap_or(t);
    t.split('[').next().unwrap_or(t)
}

// ------------------------------------------------------------------ placeholders

/// Template placeholders: `<paste here>`, `<seed | interleaving | trace>`, TODO, TBD, N/A, …
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim().trim_matches('`').trim();
    let lower = v.to_ascii_lowercase();
    v.is_empty()
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('[') && v.ends_with(']') && !v.contains("::"))
        || v.starts_with('{') && v.ends_with('}')
        || matches!(
            lower.as_str(),
            "todo"
                | "tbd"
                | "n/a"
                | "na"
                | "none"
                | "-"
                | "--"
                | "..."
                | "…"
                | "xxx"
                | "?"
                | "unknown"
                | "fill in"
                | "fill me in"
                | "paste here"
        )
        || lower.starts_with("todo")
        || lower.starts_with("tbd")
        || lower.contains("paste here")
        || lower.contains("fill in")
        || lower.contains("seed | interleaving")
}

// ------------------------------------------------------------------ seeds

/// A scheduling seed and the form it came in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedHit {
    pub form: &'static str,
    pub value: String,
}

re!(
    seed_key,
    r"(?im)(?:^|[\s*|(,;])(?:scheduler[ _-]?|random[ _-]?|rng[ _-]?|schedule[ _-]?)?seed\**\s*[:=]\s*`?(0x[0-9a-f]+|-?\d+|[A-Za-z0-9_+/=-]{6,})`?"
);
re!(
    seed_prose,
    r"(?i)\b(?:with|using|under|at|on)\s+(?:the\s+)?(?:scheduler\s+|random\s+)?seed\s+`?(0x[0-9a-f]+|\d+)`?"
);
re!(
    seed_flag,
    r"(?i)(?:^|\s)--?(?:[a-z]+[-.])?seed(?:=|\s+)(0x[0-9a-f]+|\d+|[A-Za-z0-9_+/=-]{6,})"
);
re!(
    seed_env,
    r"\b([A-Z][A-Z0-9_]*_SEED|SEED)\s*=\s*['\x22]?(0x[0-9A-Fa-f]+|\d+|[A-Za-z0-9_+/=-]{4,})"
);
re!(proptest_cc, r"(?m)^\s*cc\s+([0-9a-f]{16,})\b");
re!(
    hypothesis_repro,
    r#"@reproduce_failure\(\s*['"][^'"]+['"]\s*,\s*b?['"]([^'"]+)['"]\s*\)"#
);
re!(hypothesis_seed, r"@seed\(\s*(-?\d+|0x[0-9a-fA-F]+)\s*\)");
re!(
    shuttle_replay,
    r#"(?:replay\s*\([^"\n]*|schedule\s*[:=]?\s*|failing schedule:\s*)"([0-9a-f]{8,})""#
);
re!(shuffle, r"-(?:test\.)?shuffle(?:=|\s+)(on|\d+)");
re!(
    go_flag_seedlike,
    r"(?i)(?:-count[= ]\d+|GOMAXPROCS\s*=\s*\d+|-cpu[= ][\d,]+|--?retries?[= ]\d+|--?repeat[= ]\d+|rerun[s]?\s*[:=]\s*\d+)"
);

/// Scheduling seeds in `text` (the shuffle seed is not one: see [`shuffle_seeds`]).
pub fn seeds_in(text: &str) -> Vec<SeedHit> {
    let mut hits = Vec::new();
    let mut push = |form: &'static str, v: &str| {
        // A free-form seed has digits (`7311`, `0x5eed`); `seed: initial_data` is data. Tool
        // formats (Hypothesis blobs, proptest, shuttle) are seeds by their shape.
        let generic = matches!(
            form,
            "seed field" | "seed" | "--seed flag" | "environment seed"
        );
        let seedlike = !generic || v.chars().any(|c| c.is_ascii_digit());
        if seedlike && !is_placeholder(v) && !hits.iter().any(|h: &SeedHit| h.value == v) {
            hits.push(SeedHit {
                form,
                value: v.to_string(),
            });
        }
    };
    for c in hypothesis_repro().captures_iter(text) {
        push("hypothesis @reproduce_failure", &c[1]);
    }
    for c in hypothesis_seed().captures_iter(text) {
        push("hypothesis @seed", &c[1]);
    }
    for c in proptest_cc().captures_iter(text) {
        push("proptest regression (cc)", &c[1]);
    }
    for c in shuttle_replay().captures_iter(text) {
        push("shuttle schedule", &c[1]);
    }
    for c in seed_env().captures_iter(text) {
        let form = if &c[1] == "QUICKCHECK_SEED" {
            "QUICKCHECK_SEED"
        } else {
            "environment seed"
        };
        push(form, &c[2]);
    }
    for c in seed_flag().captures_iter(text) {
        // `-test.shuffle` has its own rule; a flag named `*seed` is a seed.
        push("--seed flag", &c[1]);
    }
    for c in seed_key().captures_iter(text) {
        push("seed field", &c[1]);
    }
    for c in seed_prose().captures_iter(text) {
        push("seed", &c[1]);
    }
    hits
}

/// Go's `-test.shuffle N` / `-shuffle=N` values.
pub fn shuffle_seeds(text: &str) -> Vec<String> {
    shuffle()
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|v| v != "on")
        .collect()
}

/// `-count=N`, `GOMAXPROCS=N`, retries: repetition settings mistaken for reproductions.
pub fn repetition_settings(text: &str) -> Vec<String> {
    go_flag_seedlike()
        .find_iter(text)
        .map(|m| m.as_str().trim().to_string())
        .collect()
}

// ------------------------------------------------------------------ race reports

/// A recorded race report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceHit {
    pub tool: &'static str,
    /// Both conflicting accesses are shown.
    pub complete: bool,
    pub summary: String,
}

re!(go_race_header, r"WARNING: DATA RACE");
re!(
    go_access,
    r"(?m)^\s*(?:(Read|Write)|Atomic (read|write)) (?:at 0x[0-9a-f]+ )?by (goroutine \d+|main goroutine):?"
);
re!(
    go_previous,
    r"(?m)^\s*Previous (?:atomic )?(read|write) (?:at 0x[0-9a-f]+ )?by (goroutine \d+|main goroutine):?"
);
re!(
    tsan_header,
    r"WARNING: ThreadSanitizer: (data race|lock-order-inversion|heap-use-after-free|thread leak|signal-unsafe call|SEGV|[a-z -]+)"
);
re!(
    tsan_access,
    r"(?m)^\s*(?:Atomic )?(?:Read|Write|read|write) of size \d+ at 0x[0-9a-f]+ by (thread T\d+|main thread)"
);
re!(
    tsan_previous,
    r"(?m)^\s*Previous (?:atomic )?(?:read|write) of size \d+ at 0x[0-9a-f]+ by (thread T\d+|main thread)"
);
re!(
    tsan_lock_edge,
    r"(?m)^\s*Mutex M\d+ acquired here while holding mutex M\d+"
);
re!(
    helgrind_race,
    r"Possible data race during (read|write) of size \d+"
);
re!(
    helgrind_prev,
    r"This conflicts with a previous (read|write) of size \d+"
);
re!(drd_conflict, r"Conflicting (load|store) by thread \d+");
re!(
    miri_race,
    r"Data race detected between \(1\) ([^\n]+?) on thread `[^`]*` and \(2\) ([^\n]+?) on thread `[^`]*`|Data race detected between ([^\n]+?) on thread `[^`]*` and ([^\n]+?) on thread `[^`]*`"
);
re!(miri_single, r"Data race detected");

/// Race reports in `text`, complete or not.
pub fn traces_in(text: &str) -> Vec<TraceHit> {
    let mut hits = Vec::new();
    // Go: one report per `WARNING: DATA RACE`, up to the next one.
    let starts: Vec<usize> = go_race_header()
        .find_iter(text)
        .map(|m| m.start())
        .collect();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let report = &text[s..end];
        let access = go_access().captures(report);
        let previous = go_previous().captures(report);
        let complete = access.is_some() && previous.is_some();
        let summary = match (&access, &previous) {
            (Some(a), Some(p)) => format!(
                "Go race detector: {} by {}, previous {} by {}",
                a.get(1)
                    .or(a.get(2))
                    .map_or("access", |m| m.as_str())
                    .to_lowercase(),
                &a[3],
                &p[1],
                &p[2]
            ),
            _ => "Go race detector report with only one access".to_string(),
        };
        hits.push(TraceHit {
            tool: "go-race",
            complete,
            summary,
        });
    }
    let tstarts: Vec<(usize, String)> = tsan_header()
        .captures_iter(text)
        .filter_map(|c| Some((c.get(0)?.start(), c[1].to_string())))
        .collect();
    for (i, (s, kind)) in tstarts.iter().enumerate() {
        let end = tstarts.get(i + 1).map(|t| t.0).unwrap_or(text.len());
        let report = &text[*s..end];
        let (complete, summary) = if kind == "data race" {
            let a = tsan_access().captures(report);
            let p = tsan_previous().captures(report);
            match (a, p) {
                (Some(a), Some(p)) => (
                    true,
                    format!(
                        "ThreadSanitizer data race: access by {}, previous access by {}",
                        &a[1], &p[1]
                    ),
                ),
                _ => (
                    false,
                    "ThreadSanitizer data race with only one access".to_string(),
                ),
            }
        } else if kind.starts_with("lock-order-inversion") {
            let edges = tsan_lock_edge().find_iter(report).count();
            (
                edges >= 2,
                format!("ThreadSanitizer lock-order inversion with {edges} lock acquisitions"),
            )
        } else {
            (
                false,
                format!("ThreadSanitizer {kind} (not a race between two accesses)"),
            )
        };
        hits.push(TraceHit {
            tool: "tsan",
            complete,
            summary,
        });
    }
    if let Some(c) = helgrind_race().captures(text) {
        let complete = helgrind_prev().is_match(text);
        hits.push(TraceHit {
            tool: "helgrind",
            complete,
            summary: format!("Helgrind possible data race during {}", &c[1]),
        });
    }
    if let Some(c) = drd_conflict().captures(text) {
        hits.push(TraceHit {
            tool: "drd",
            complete: true,
            summary: format!("DRD conflicting {}", &c[1]),
        });
    }
    if let Some(c) = miri_race().captures(text) {
        let a = c.get(1).or(c.get(3)).map_or("", |m| m.as_str());
        let b = c.get(2).or(c.get(4)).map_or("", |m| m.as_str());
        hits.push(TraceHit {
            tool: "miri",
            complete: true,
            summary: format!("Miri data race between {a} and {b}"),
        });
    } else if miri_single().is_match(text) {
        hits.push(TraceHit {
            tool: "miri",
            complete: false,
            summary: "Miri data race report without both accesses".to_string(),
        });
    }
    hits
}

// ------------------------------------------------------------------ links

re!(url, r#"https?://[^\s<>()\[\]"'`]+"#);
re!(
    trace_file,
    r"(?i)(?:^|[\s/(`'\x22])([\w.-]*trace\.out|[\w.-]+\.(?:trace|pftrace|perfetto-trace|perfetto|rr(?:\.tar(?:\.gz|\.zst)?)?)|[\w.-]*rr-pack[\w.-]*|[\w.-]*[-_.]rr(?:[-_]trace)?\.(?:tar(?:\.gz|\.zst|\.xz)?|tgz|zip))\b"
);
re!(
    actions_artifact,
    r"https?://github\.com/[^/\s]+/[^/\s]+/(?:actions/runs/\d+/artifacts/\d+|suites/\d+/artifacts/\d+)"
);
re!(
    ci_run,
    r"(?i)https?://(?:github\.com/[^/\s]+/[^/\s]+/(?:actions/runs/\d+|runs/\d+|pull/\d+/checks)|[\w.-]*(?:circleci\.com|buildkite\.com|travis-ci\.(?:com|org)|app\.travis-ci\.com|dev\.azure\.com|gitlab\.com/[^\s]+/-/(?:jobs|pipelines))/)[^\s)]*"
);

/// Links or file names of recorded traces (`trace.out`, `*.pftrace`, rr packs, Actions artifacts).
pub fn trace_links_in(text: &str) -> Vec<String> {
    let mut found: Vec<String> = actions_artifact()
        .find_iter(text)
        .map(|m| m.as_str().to_string())
        .collect();
    for m in url().find_iter(text) {
        let u = m.as_str().trim_end_matches(['.', ',', ')']);
        if trace_file().is_match(u) && !found.iter().any(|f| f == u) {
            found.push(u.to_string());
        }
    }
    for c in trace_file().captures_iter(text) {
        let f = &c[1];
        if !found.iter().any(|x| x.contains(f)) {
            found.push(f.to_string());
        }
    }
    found
}

/// Links to CI runs and jobs (not artifacts): never evidence.
pub fn ci_links_in(text: &str) -> Vec<String> {
    ci_run()
        .find_iter(text)
        .map(|m| m.as_str().to_string())
        .filter(|u| !actions_artifact().is_match(u))
        .collect()
}

// ------------------------------------------------------------------ claims and non-evidence

re!(
    deterministic_claim_re,
    r"(?i)\b(?:fail(?:s|ed|ing)?|panic(?:s|ked)?|deadlock(?:s|ed)?|hang(?:s)?|crash(?:es|ed)?|reproduc(?:es|ed|ing)|trigger(?:s|ed)?|breaks?)\b[^.\n]{0,100}?\b(?:every\s+(?:single\s+)?(?:time|run)|each\s+(?:time|run)|always|deterministically|consistently|reliably|100\s*%|(\d+)\s*/\s*(\d+)|(\d+)\s+(?:out\s+)?of\s+(\d+)|without\s+fail|on\s+every\s+run)|\bdeterministic(?:ally)?\s+(?:fail|reproduc|repro)|\bbase\s*:\s*fails?\s+(\d+)\s*/\s*(\d+)"
);
re!(
    mechanism_re,
    r"(?i)\bloom::model\b|\bloom\b|\bsynctest\b|\bfailpoints?\b|fail_point!|\bfail::cfg\b|\bjcstress\b|@JCStressTest|\bbarriers?\b|\bhooks?\b|\bchannels?\b|\bforced?\s+(?:the\s+)?(?:bad\s+)?(?:interleaving|ordering|schedule)|\binterleaving\b|\bshuttle::check\w*|\bturmoil\b|\bmadsim\b|\bsync points?\b|\blatch(?:es)?\b|\bCountDownLatch\b|\bpause(?:s|d)? (?:the )?(?:goroutine|thread)"
);
re!(
    rerun_green,
    r"(?i)\b(?:re-?ran|re-?run(?:ning)?|retried|retrying|re-?triggered)\b[^.\n]{0,60}\b(?:green|pass(?:es|ed)?|succeed(?:s|ed)?|fine|ok)\b|\b(?:now|is)\s+green\b|\bpasses\s+now\b|\bworks\s+on\s+(?:my|the)\s+(?:machine|rerun)\b|\b(?:green|pass(?:es|ed)?|works)\b[^.\n]{0,40}\b(?:after|on|with)\s+(?:a\s+|the\s+)?re-?(?:run|try|trigger)|\b(?:it\s+)?works\s+now\b"
);
re!(
    no_repro,
    r"(?i)\b(?:could\s*n[o']?t|can\s*n[o']?t|cannot|unable\s+to|failed\s+to|did\s*n[o']?t|never\s+(?:managed|able)\s+to)\s+(?:reliably\s+|locally\s+)?(?:reproduce|repro)\b|\bno\s+(?:local\s+)?repro(?:duction)?\b|\bnot\s+reproducible\b"
);
re!(
    clean_race,
    r"(?i)\brace\s+detector\b[^.\n]{0,40}\b(?:clean|passe[sd]|found\s+nothing|(?:reported|reports|finds|found)\s+no)|\bno\s+(?:data\s+)?races?\s+(?:detected|found|reported)\b|-race\b[^.\n]{0,40}\b(?:clean|pass(?:es|ed)?|green)\b"
);
re!(
    goroutine_dump,
    r"(?m)^\s*goroutine \d+ \[[a-zA-Z .,()0-9]+\]:|panic: test timed out after"
);
re!(
    single_stack,
    r"(?m)^\s*(?:Exception in thread|Traceback \(most recent call last\)|thread '[^']*' panicked at|panic: |\s+at [\w.$]+\([\w.]+:\d+\)|stack backtrace:)"
);

/// A claim that the reproduction fails every time (before the change).
pub fn deterministic_claim(text: &str) -> Option<String> {
    for c in deterministic_claim_re().captures_iter(text) {
        // `fails 3/20` is a rate, not determinism: a fraction counts only when it is whole.
        let pairs = [
            (c.get(1), c.get(2)),
            (c.get(3), c.get(4)),
            (c.get(5), c.get(6)),
        ];
        let mut fractional = false;
        for (a, b) in pairs {
            if let (Some(a), Some(b)) = (a, b)
                && a.as_str() != b.as_str()
            {
                fractional = true;
            }
        }
        if !fractional {
            return Some(c[0].trim().to_string());
        }
    }
    None
}

pub fn mechanism(text: &str) -> Option<String> {
    mechanism_re().find(text).map(|m| m.as_str().to_string())
}

pub fn says_rerun_green(text: &str) -> bool {
    rerun_green().is_match(text)
}

pub fn says_no_repro(text: &str) -> bool {
    no_repro().is_match(text)
}

pub fn says_race_detector_clean(text: &str) -> bool {
    clean_race().is_match(text)
}

pub fn has_goroutine_dump(text: &str) -> bool {
    goroutine_dump().is_match(text)
}

pub fn has_single_stack(text: &str) -> bool {
    single_stack().is_match(text)
}

/// Markers in a diff's added test code that force an ordering.
pub fn diff_mechanism(line: &str) -> Option<&'static str> {
    const MARKS: &[(&str, &str)] = &[
        ("loom::model", "loom::model"),
        ("loom::thread", "loom"),
        ("synctest.Run", "testing/synctest"),
        ("synctest.Test", "testing/synctest"),
        ("synctest.Wait", "testing/synctest"),
        ("\"testing/synctest\"", "testing/synctest"),
        ("failpoint.Enable", "failpoint"),
        ("fail::cfg", "failpoint (fail crate)"),
        ("fail_point!", "failpoint (fail crate)"),
        ("@JCStressTest", "jcstress"),
        ("org.openjdk.jcstress", "jcstress"),
        ("shuttle::check", "shuttle"),
        ("shuttle::replay", "shuttle"),
        ("CountDownLatch", "latch"),
        ("CyclicBarrier", "barrier"),
        ("Barrier::new", "barrier"),
        ("sync.WaitGroup", "WaitGroup"),
    ];
    MARKS
        .iter()
        .find(|(m, _)| line.contains(m))
        .map(|(_, n)| *n)
}
