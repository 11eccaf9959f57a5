//! Detectors over text: test names, placeholders, trace links, claims of determinism, forcing
//! mechanisms, and the phrases that are never evidence. Each runs in time linear in its input
//! (Rust's regex engine guarantees it). Seeds are in `seeds`, race reports in `trace`.

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
    r"\b(test_[a-z0-9_]+|[a-z0-9_]+_(?:test|race|loom|interleaving))\b|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*_tests?_[a-z0-9]+(?:_[a-z0-9]+)*)\b"
);
re!(
    java_test,
    r"\b([A-Z][a-z0-9]\w*(?:Test|Tests|IT|Stress)(?:[#.][a-z]\w*)?)\b"
);
re!(gtest, r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)");
// GoogleTest's `Suite.Name` (`DBFlushTest.FlushRacesSwitch`).
re!(gtest_dotted, r"\b([A-Z]\w*Test)\.([A-Z]\w+)\b");
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
    // Each name once, in the order first seen; a set, not a scan of `found`: a body can name
    // thousands of tests.
    let mut seen: hashbrown::HashSet<String> = hashbrown::HashSet::new();
    let mut push = |s: &str| {
        let s = s.trim_matches(|c: char| c == '`' || c == '\'' || c == '"' || c == '.' || c == ',');
        if s.is_empty() || is_placeholder(s) || PLACEHOLDER_TESTS.contains(&s) {
            return;
        }
        if !seen.contains(s) {
            seen.insert(s.to_string());
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
    for c in gtest().captures_iter(text) {
        push(&format!("{}.{}", &c[1], &c[2]));
    }
    for c in gtest_dotted().captures_iter(text) {
        push(&format!("{}.{}", &c[1], &c[2]));
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
            let Some(m) = c.get(1).or_else(|| c.get(2)).map(|m| m.as_str()) else {
                continue;
            };
            // `std::sync::Mutex` is a path, not a test: a Rust-style path must look like a test.
            if std::ptr::eq(re, test_id()) && !looks_like_test_path(m) {
                continue;
            }
            push(m);
        }
    }
    found
}

re!(
    declared_fn,
    r"\bfn\s+([A-Za-z_]\w*)|\bfunc\s+((?:Test|Fuzz)\w*)\s*\(|\bdef\s+(test_\w*)\s*\(|\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)"
);
re!(
    test_attribute,
    r"#\[(?:\w+::)?test\b|#\[rstest\b|@Test\b|@ParameterizedTest\b"
);

/// The tests an added line declares, into `out`; `attribute` says the line before was a test
/// attribute (`#[test]` above `fn x`). Returns whether this line leaves one pending. Names of at
/// least 6 characters: short ones (`it`, `works`) would match prose.
pub fn declared_tests(
    line: &str,
    attribute: bool,
    out: &mut std::collections::HashSet<String>,
) -> bool {
    let marked = test_attribute().is_match(line);
    let mut declared_here = false;
    for c in declared_fn().captures_iter(line) {
        if let Some(f) = c.get(1) {
            if !(attribute || marked) {
                continue;
            }
            declared_here = true;
            push_declared(f.as_str(), out);
        }
        for i in [2, 3, 5] {
            if let Some(m) = c.get(i) {
                declared_here = true;
                push_declared(m.as_str(), out);
            }
        }
        if let (Some(suite), Some(name)) = (c.get(4), c.get(5)) {
            out.insert(format!("{}.{}", suite.as_str(), name.as_str()));
        }
    }
    (attribute || marked) && !declared_here
}

fn push_declared(name: &str, out: &mut std::collections::HashSet<String>) {
    if name.len() >= 6 && out.len() < 10_000 {
        out.insert(name.to_string());
    }
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
    // Sets, not scans of `found`: a body can name thousands of files. A file name that a
    // linked URL ends in is that link, not a second trace.
    let mut seen: hashbrown::HashSet<String> = found.iter().cloned().collect();
    for m in url().find_iter(text) {
        let u = m.as_str().trim_end_matches(['.', ',', ')']);
        if trace_file().is_match(u) && seen.insert(u.to_string()) {
            found.push(u.to_string());
            for c in trace_file().captures_iter(u) {
                seen.insert(c[1].to_string());
            }
        }
    }
    for c in trace_file().captures_iter(text) {
        let f = &c[1];
        if seen.insert(f.to_string()) {
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
    r"(?i)\b(?:fail(?:s|ed|ing)?|panic(?:s|ked)?|deadlock(?:s|ed)?|hang(?:s)?|crash(?:es|ed)?|reproduc(?:es|ed|ing)|trigger(?:s|ed)?|breaks?|trips?|hits?|forc(?:es|ed|ing)|driv(?:es|ed|ing)|opens?|opened)\b[^.\n]{0,100}?\b(?:every\s+(?:single\s+)?(?:time|run)|each\s+(?:time|run)|always|deterministically|consistently|reliably|100\s*%|(\d+)\s*/\s*(\d+)|(\d+)\s+(?:out\s+)?of\s+(\d+)|without\s+fail|on\s+every\s+run)|\bdeterministic(?:ally)?\s+(?:fail|reproduc|repro)|\bbase\s*:\s*fails?\s+(\d+)\s*/\s*(\d+)|\bdeterministic\s+(?:unit\s+|regression\s+|integration\s+|interleaving\s+)?test\b"
);
// "Without the fix the test fails/panics/sees …", "fails before this change", and the same
// said in other words ("reproduces the issue", "this test catches the bug", "used to crash"):
// the test fails before the change. Counts as determinism only beside a mechanism that
// forces the ordering.
re!(
    fails_without_fix_re,
    r"(?i)\b(?:without|before)\s+(?:the|this)\s+(?:fix|change|patch|commit)\b[^.\n]{0,60}?\b(?:fail(?:s|ed)?|panic(?:s|ked)?|crash(?:es|ed)?|hang(?:s)?|deadlock(?:s|ed)?|abort(?:s|ed)?|sees|reports|errors?|trips|asserts?)\b|\b(?:fail(?:s|ed)?|panic(?:s|ked)?|crash(?:es|ed)?|hangs|deadlocks)\s+(?:\w+\s+){0,6}?(?:before|without)\s+(?:the|this)\s+(?:fix|change|patch|commit)\b|\b(?:reproduce|trigger|expose|catche|hit)(?:s|d)?\s+(?:the|this)\s+(?:\w+\s+)?(?:issue|bug|problem|race|crash|deadlock|hang|regression|failure)\b|\bcaught\s+(?:the|this)\s+(?:issue|bug|problem|race|regression)\b|\bused\s+to\s+(?:fail|crash|hang|deadlock|panic|abort)\b|\b(?:finds?|found|fails?|failed|reports?|detects?|catches|caught|panics?|deadlocks?|hangs?|crash(?:es)?)\b[^.\n]{0,80}?\b(?:on|with|against|in)\s+the\s+(?:old|previous|original|unfixed|buggy)\s+(?:code|version|implementation)\b|\b(?:on|with|against)\s+the\s+(?:old|previous|original|unfixed|buggy)\s+(?:code|version|implementation)\b[^.\n]{0,40}?\b(?:fails?|panics?|deadlocks?|hangs?|crash(?:es)?|aborts?)\b"
);
// A reproduction stated as a rate below every run: "in about 4% of runs", "1 in 50", "3/20
// runs", "a handful of times". Whatever mechanism the test also uses, it is not deterministic.
re!(
    rate_re,
    r"(?i)(?:~\s*|\b)(\d{1,2}(?:\.\d+)?)\s*%|\b(\d+)\s+(?:in|out\s+of)\s+(?:every\s+)?(\d+)\b|\b(\d+)\s*/\s*(\d+)\s+(?:of\s+(?:the\s+)?)?(?:runs?|iterations?|attempts?|tries|repeats?|repetitions?|times)\b|\ba\s+(?:handful|few|couple)\s+(?:of\s+)?times\b"
);
// What a rate is a rate of: the bug showing, before the change.
re!(
    rate_of_failure_re,
    r"(?i)\b(?:reproduc\w*|repro|fail\w*|hang\w*|hung|crash\w*|deadlock\w*|panic\w*|hit|hits|trigger\w*|happen\w*|occur\w*|flak\w*|shows?\s+up|manifest\w*)\b"
);
// Words that take a claim back: "would usually still pass", "sometimes", "intermittently".
re!(
    hedge_re,
    r"(?i)\b(?:usually|sometimes|occasionally|intermittent(?:ly)?|often|rarely|flak(?:y|ily)|would\s+(?:usually\s+)?(?:still\s+)?pass|can\s+(?:still\s+)?pass|not\s+(?:always|every\s+time|deterministic)|on\s+my\s+(?:machine|laptop|box|workstation))\b"
);
re!(
    after_success_re,
    r"(?i)^\W*(?:\w+\s+){0,2}?(?:success|succe\w+|pass(?:es|ed|ing)?|green|ok)\b"
);
re!(
    after_change_re,
    r"(?i)\bafter\s+(?:this|the|these|my)\s+(?:changes?|fix(?:es)?|patch(?:es)?)\b"
);
re!(
    before_change_re,
    r"(?i)\b(?:before|without)\s+(?:this|the|these|my)\s+(?:changes?|fix(?:es)?|patch(?:es)?)\b|\bon\s+(?:the\s+)?(?:merge\s+)?base\b|\bon\s+main\b"
);

/// The sentence speaks of the code after the change only, not before it.
fn only_after(sentence: &str) -> bool {
    after_change_re().is_match(sentence) && !before_change_re().is_match(sentence)
}
re!(
    mechanism_re,
    r"(?i)\bloom::model\b|\bloom\b|\bsynctest\b|\bfailpoints?\b|fail_point!|\bfail::cfg\b|\bjcstress\b|@JCStressTest|\bbarriers?\b|\bhooks?\b|\bchannels?\b|\bforced?\s+(?:the\s+)?(?:bad\s+)?(?:interleaving|ordering|schedule)|\binterleaving\b|\bshuttle::check\w*|\bturmoil\b|\bmadsim\b|\bsync[ _-]?points?\b|\bSyncPoint\w*|\bTEST_SYNC_POINT\w*|\blatch(?:es)?\b|\bCountDownLatch\b|\bpause(?:s|d)? (?:the )?(?:goroutine|thread)|\byield[ _-]?(?:injection|injector|points?)\b|\b\w*YieldInjector\b|\b\w*YieldPoint\w*|\bsweeps?\s+(?:over\s+)?(?:every|each|all)\s+(?:\w+\s+){0,2}?(?:yield|io|i/o|await|suspension|preemption)\s+(?:points?|boundar(?:y|ies))|\bMULTI\s*/\s*EXEC\b|\bmulti-exec\b|\binstrumented\s+[\w-]+|\bopen(?:s|ed|ing)?\s+the\s+(?:race\s+|timing\s+)?window\b|\bSO_(?:SND|RCV)BUF\b|\b(?:tiny|one-byte|1-byte)\s+(?:socket\s+|send\s+|receive\s+)?buffers?\b|\bLincheck\b|\bwait(?:s|ing)?\s+(?:until|for)\s+(?:the\s+)?\w+\s+(?:is\s+)?(?:parked|blocked)\b|\bblocked[- ]wait\s+hooks?\b"
);
// An attempt to reproduce is not a reproduction.
re!(
    attempt_re,
    r"(?i)\b(?:to|trying\s+to|tried\s+to|attempt(?:s|ed)?\s+to|trials?\s+(?:\w+\s+){0,4}?to)\s+reproduc"
);
// A mechanism given up: tried, then abandoned, or named as what was not used.
re!(
    abandoned_re,
    r"(?i)\b(?:tried|attempted|gave\s+up|giving\s+up|abandon(?:ed)?|could\s*n[o']?t|did\s*n[o']?t\s+(?:work|help|trigger|reproduce)|instead\s+of|rather\s+than|no\s+longer\s+uses?|removed\s+the)\b"
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

/// How strongly a text claims the test fails before the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClaimStrength {
    /// "Fails without the fix": a forcing mechanism makes it deterministic.
    FailsWithoutFix,
    /// "Fails every time", "deterministically", "100/100".
    Deterministic,
}

/// A claim that the test fails before the change, and how strong it is. Line breaks inside a
/// paragraph do not end a sentence.
pub fn failure_claim(text: &str) -> Option<(ClaimStrength, String)> {
    let text = text.replace('\n', " ");
    if let Some(c) = deterministic_claim(&text) {
        return Some((ClaimStrength::Deterministic, c));
    }
    for sentence in text.split_inclusive('.') {
        // Not a claim: hedged, "could not reproduce", an attempt ("trials to reproduce"), or
        // about the code after the change only.
        if let Some(m) = fails_without_fix_re().find(sentence)
            && !hedge_re().is_match(sentence)
            && !no_repro().is_match(sentence)
            && !attempt_re().is_match(sentence)
            && !only_after(sentence)
        {
            return Some((
                ClaimStrength::FailsWithoutFix,
                m.as_str().trim().to_string(),
            ));
        }
    }
    None
}

/// A claim that the reproduction fails every time (before the change).
pub fn deterministic_claim(text: &str) -> Option<String> {
    for c in deterministic_claim_re().captures_iter(text) {
        // "would usually still pass", "fails intermittently": the sentence takes it back.
        let whole = c.get(0).map_or(0..0, |m| m.range());
        let sentence = sentence_around(text, whole.start);
        if hedge_re().is_match(sentence) || no_repro().is_match(sentence) {
            continue;
        }
        // "… after this change, I get 100% test success": a rate of passing after the fix is
        // not a failure before it.
        let after: String = text[whole.end..].chars().take(30).collect();
        if after_success_re().is_match(&after) || only_after(sentence) {
            continue;
        }
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

/// A rate of failing below every run, as the text states it ("about 4% of runs", "1 in 50"), in
/// a sentence about the bug showing and not only about the code after the change.
pub fn stated_rate(text: &str) -> Option<String> {
    let flat = text.replace('\n', " ");
    for c in rate_re().captures_iter(&flat) {
        let whole = c.get(0).map_or(0..0, |m| m.range());
        let below_every_run = match (c.get(1), c.get(2), c.get(4)) {
            (Some(pct), _, _) => pct
                .as_str()
                .parse::<f64>()
                .is_ok_and(|p| p > 0.0 && p < 100.0),
            (_, Some(a), _) | (_, _, Some(a)) => {
                let b = c.get(3).or(c.get(5));
                let (a, b) = (
                    a.as_str().parse::<u64>(),
                    b.map(|b| b.as_str().parse::<u64>()),
                );
                matches!((a, b), (Ok(a), Some(Ok(b))) if a > 0 && a < b)
            }
            _ => true,
        };
        if !below_every_run {
            continue;
        }
        let sentence = sentence_around(&flat, whole.start);
        if rate_of_failure_re().is_match(sentence) && !only_after(sentence) {
            return Some(c[0].trim().to_string());
        }
    }
    None
}

/// The sentence (up to `.` or a line end, at most 300 bytes either way) around byte `at`.
fn sentence_around(text: &str, at: usize) -> &str {
    let mut lo = at.saturating_sub(300);
    while !text.is_char_boundary(lo) {
        lo -= 1;
    }
    let mut hi = (at + 300).min(text.len());
    while !text.is_char_boundary(hi) {
        hi += 1;
    }
    let start = text[lo..at].rfind(['.', '\n']).map_or(lo, |i| lo + i + 1);
    let end = text[at..hi].find(['.', '\n']).map_or(hi, |i| at + i);
    &text[start..end]
}

/// A paragraph that opens by pointing back at the test just named ("This test …", "The new
/// test …", "It …").
pub fn refers_back(text: &str) -> bool {
    refers_back_re().is_match(text)
}

re!(
    refers_back_re,
    r"(?i)^\s*(?:(?:this|the|that)\s+(?:new\s+|added\s+)?(?:test|reproducer|regression\s+test)\b|it\s+(?:forces|simulates|reproduces|fails|triggers|drives|uses|installs)\b)"
);

/// A mechanism that forces the ordering, unless the sentence says it was given up ("I tried a
/// failpoint but could not make it fail", "instead of a barrier").
pub fn mechanism(text: &str) -> Option<String> {
    let flat = text.replace('\n', " ");
    mechanism_re()
        .find_iter(&flat)
        .find(|m| !abandoned_re().is_match(sentence_around(&flat, m.start())))
        .map(|m| m.as_str().to_string())
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
        ("SyncPoint", "sync point"),
        ("TEST_SYNC_POINT", "sync point"),
        ("YieldInjector", "yield injection"),
        ("YieldPoint", "yield injection"),
        ("yield_point", "yield injection"),
        // An explicit yield in test code hands the scheduler to the other side at that point.
        ("seastar::yield()", "yield injection"),
        ("Thread.yield()", "yield injection"),
        ("this_thread::yield()", "yield injection"),
        ("yield_now()", "yield injection"),
        ("runtime.Gosched()", "yield injection"),
        ("sched_yield()", "yield injection"),
        ("Lincheck", "Lincheck model"),
        ("LinChecker", "Lincheck model"),
        ("SO_SNDBUF", "tiny socket buffer"),
        ("SO_RCVBUF", "tiny socket buffer"),
    ];
    MARKS
        .iter()
        .find(|(m, _)| line.contains(m))
        .map(|(_, n)| *n)
}
