//! Seeds that drive the scheduling of a run, one line at a time: `seed:` fields, `--seed N`
//! flags, `*_SEED=` variables, tool formats (proptest `cc`, Hypothesis, shuttle schedules), and
//! command lines of deterministic simulators and fuzzers that pass a seed (`-s N` beside the
//! test file it runs, `SEED=N cargo run -p sim`). A command's target is the test it drives.
//! Go's `-test.shuffle` value is never a scheduling seed, whatever field it is copied into.

use std::sync::OnceLock;

use regex::Regex;

use super::patterns::is_placeholder;

macro_rules! re {
    ($name:ident, $pat:expr) => {
        fn $name() -> &'static Regex {
            static R: OnceLock<Regex> = OnceLock::new();
            R.get_or_init(|| Regex::new($pat).expect("seed patterns are valid"))
        }
    };
}

/// A scheduling seed and the form it came in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedHit {
    pub form: &'static str,
    pub value: String,
    /// The test (or test file, or simulator) the line's command runs, when the seed is on a
    /// command line.
    pub target: Option<String>,
}

re!(
    seed_key,
    r"(?i)(?:^|[\s*|(,;])(?:scheduler[ _-]?|random[ _-]?|rng[ _-]?|schedule[ _-]?)?seed\**\s*[:=]\s*`?(0x[0-9a-f]+|-?\d+|[A-Za-z0-9_+/=-]{6,})`?"
);
re!(
    seed_prose,
    r"(?i)\b(?:with|using|under|at|on)\s+(?:the\s+)?(?:scheduler\s+|random\s+)?seed\s+`?(0x[0-9a-f]+|\d+)`?"
);
re!(
    seed_flag,
    r"(?i)(?:^|\s)--?(?:[a-z]+[-.])?seed(?:=|\s+)(0x[0-9a-f]+|\d+|[A-Za-z0-9_+/=-]{6,})"
);
// `-s 177856328` passes the seed to a simulator; alone it could be anything, so it counts
// only on a command line that also names what it runs (a test file, a package, a test).
re!(short_seed_flag, r"(?:^|\s)-s\s+(\d{3,}|0x[0-9a-fA-F]+)\b");
re!(
    seed_env,
    r"\b([A-Z][A-Z0-9_]*_SEED|SEED)\s*=\s*['\x22]?(0x[0-9A-Fa-f]+|\d+|[A-Za-z0-9_+/=-]{4,})"
);
re!(proptest_cc, r"^\s*cc\s+([0-9a-f]{16,})\b");
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
    repetition,
    r"(?i)(?:-count[= ]\d+|GOMAXPROCS\s*=\s*\d+|-cpu[= ][\d,]+|--?retries?[= ]\d+|--?repeat[= ]\d+|rerun[s]?\s*[:=]\s*\d+)"
);
// `AtomicOps.toml seed 309473476`: a seed written right after the test spec file it drives.
re!(
    file_then_seed,
    r"(?i)(?:^|[\s(,:;])([\w./-]+\.(?:toml|ya?ml|json|txt|tcl))[`'\x22]?\s+(?:with\s+|at\s+)?seed\s*[:=]?\s*`?(\d{3,}|0x[0-9a-f]+)\b"
);
/// Manifests and configs that are not test specs.
const NOT_TEST_FILES: &[&str] = &[
    "cargo.toml",
    "pyproject.toml",
    "package.json",
    "tsconfig.json",
    "go.mod",
    "config.toml",
    "rust-toolchain.toml",
];

// What a command line runs.
re!(
    target_file,
    r"(?:^|\s)(?:-f|--file|--test-file|--testfile|--spec)[=\s]+([\w./-]+)"
);
re!(
    target_cargo,
    r"\bcargo\s+(?:\+\S+\s+)?(?:run|test|nextest\s+run)\b[^\n]*?\s(?:-p|--package|--bin|--example|--test)[=\s]+([\w-]+)"
);
re!(
    target_cargo_test,
    r"\bcargo\s+(?:test|nextest\s+run)\s+(?:-\S+\s+)*([a-z_][\w:]*)"
);
re!(
    target_go_run,
    r#"-(?:test\.)?run[= ]['"]?\^?([A-Za-z_]\w*)"#
);
re!(target_pytest, r"\bpytest\s+(?:-\S+\s+)*(\S+\.py(?:::\S+)?)");

// What a simulator's or harness's command line runs, when it is not a test runner's: `make dst`,
// `zig build vopr`, `just sim`, `./scripts/sim run`, `bin/fuzz`. Only for a seed on that line.
re!(
    target_harness,
    r"(?:^|[\s`'\x22(:])(?:(make|just)\s+(?:-\S+\s+)*([A-Za-z][\w.:-]*)|(zig\s+build)\s+([A-Za-z][\w-]*)|((?:\.{1,2}/|(?:scripts?|bin|tools?)/)[\w./-]*\w)(?:\s+([a-z][\w-]*))?)"
);
// A seed standing as a command's own argument: `./sim run -- 7716049265518203311`.
re!(
    positional_seed,
    r"(?:^|\s)(\d{6,}|0x[0-9a-fA-F]{6,})(?:$|[\s`'\x22),;])"
);

/// What a harness command on `line` runs (`make dst`, `./scripts/sim run`), if it is one.
fn harness_target(line: &str) -> Option<String> {
    let c = target_harness().captures(line)?;
    let parts: Vec<&str> = (1..=6)
        .filter_map(|i| c.get(i))
        .map(|m| m.as_str())
        .collect();
    let t = parts.join(" ");
    (!is_placeholder(&t)).then_some(t)
}

/// What a command line on `line` runs, if it is one.
pub fn command_target(line: &str) -> Option<String> {
    for re in [
        target_file(),
        target_cargo(),
        target_go_run(),
        target_pytest(),
        target_cargo_test(),
    ] {
        if let Some(c) = re.captures(line) {
            let t = c[1].trim_end_matches(['.', ',', '`', '\'', '"']);
            if !t.is_empty() && !is_placeholder(t) {
                return Some(t.to_string());
            }
        }
    }
    None
}

/// Scheduling seeds on one line (a shuffle seed is not one: see [`shuffle_seeds`]).
pub fn seeds_on(line: &str, out: &mut Vec<SeedHit>) {
    let start = out.len();
    let target = command_target(line).or_else(|| harness_target(line));
    let target = &target;
    let mut push = |form: &'static str, v: &str, target: Option<String>| {
        // A free-form seed has digits (`7311`, `0x5eed`); `seed: initial_data` is data. Tool
        // formats (Hypothesis blobs, proptest, shuttle) are seeds by their shape.
        let generic = matches!(
            form,
            "seed field" | "seed" | "--seed flag" | "environment seed"
        );
        let seedlike = !generic || v.chars().any(|c| c.is_ascii_digit());
        if seedlike && !is_placeholder(v) && !out[start..].iter().any(|h| h.value == v) {
            out.push(SeedHit {
                form,
                value: v.to_string(),
                target,
            });
        }
    };
    if let Some(c) = hypothesis_repro().captures(line) {
        push("hypothesis @reproduce_failure", &c[1], None);
    }
    if let Some(c) = hypothesis_seed().captures(line) {
        push("hypothesis @seed", &c[1], None);
    }
    if let Some(c) = proptest_cc().captures(line) {
        push("proptest regression (cc)", &c[1], None);
    }
    if let Some(c) = shuttle_replay().captures(line) {
        push("shuttle schedule", &c[1], None);
    }
    for c in seed_env().captures_iter(line) {
        let form = if &c[1] == "QUICKCHECK_SEED" {
            "QUICKCHECK_SEED"
        } else {
            "environment seed"
        };
        push(form, &c[2], target.clone());
    }
    for c in seed_flag().captures_iter(line) {
        push("--seed flag", &c[1], target.clone());
    }
    if target.is_some() {
        for c in short_seed_flag().captures_iter(line) {
            push("simulator seed (-s)", &c[1], target.clone());
        }
    }
    // A seed given as the command's own argument, on a line that says it is one (`Seed:
    // ./scripts/sim run -- 7716049265518203311`).
    if target.is_some() && line.to_ascii_lowercase().contains("seed") {
        for c in positional_seed().captures_iter(line) {
            push("simulator seed (argument)", &c[1], target.clone());
        }
    }
    for c in file_then_seed().captures_iter(line) {
        let file = &c[1];
        let name = file.rsplit('/').next().unwrap_or(file).to_ascii_lowercase();
        if !NOT_TEST_FILES.contains(&name.as_str()) {
            push("seed of a test file", &c[2], Some(file.to_string()));
        }
    }
    for c in seed_key().captures_iter(line) {
        push("seed field", &c[1], None);
    }
    for c in seed_prose().captures_iter(line) {
        push("seed", &c[1], None);
    }
}

/// Go's `-test.shuffle N` / `-shuffle=N` values on a line.
pub fn shuffle_seeds(line: &str, out: &mut Vec<String>) {
    for c in shuffle().captures_iter(line) {
        if &c[1] != "on" {
            out.push(c[1].to_string());
        }
    }
}

/// `-count=N`, `GOMAXPROCS=N`, retries: repetition settings mistaken for reproductions.
pub fn repetition_settings(line: &str, out: &mut Vec<String>) {
    for m in repetition().find_iter(line) {
        out.push(m.as_str().trim().to_string());
    }
}

/// Why a seed on `sentence` (the sentence of the line it is on) reproduces nothing, if it does
/// not: its run is said to pass, it is one of a range or loop of seeds, or it seeds the data of
/// a failure the description never ties to scheduling (`speaks_of_scheduling` is false).
///
/// `data_seed_said`: a line of the description that speaks of a seed says it generates data (`the
/// generator produces corpora from a seed`, or the seed's own line), and the seed is a plain one
/// (not a tool's failure record).
pub fn reproduces_nothing(
    sentence: &str,
    speaks_of_scheduling: bool,
    data_seed_said: bool,
) -> Option<&'static str> {
    let fails = fail_words().is_match(sentence);
    if sweep().is_match(sentence) && !fails {
        return Some("it is one of a range or loop of seeds and no failing seed is named");
    }
    if passes().is_match(sentence) && !fails {
        return Some(PASSES);
    }
    if !speaks_of_scheduling && data_seed_said {
        return Some(
            "it seeds generated data, and the description ties the failure to no scheduling, thread or ordering",
        );
    }
    None
}

/// Why a seed run in a loop reproduces nothing.
pub const IN_A_LOOP: &str =
    "it is run in a loop until a run fails, so the seed does not decide the outcome";

re!(
    loop_start,
    r"(?i)^\s*(?:\$\s+|>\s+)?(?:for\s+(?:\(\(|\$?\w+\s+in\b)|while\b|until\b|repeat\b|loop\s*(?:\{|$)|do\s*$)|\|\s*%\s*\{|\bForEach-Object\b"
);

/// Whether one of `before` (the lines of a code block above a seed's) starts a loop: a shell's
/// `for i in …`, `while`, `until`, `repeat`, PowerShell's `1..10 | % {`.
pub fn in_a_loop(before: &[&str]) -> bool {
    before
        .iter()
        .any(|l| loop_start().is_match(super::trace::strip_prefix(l)))
}

/// Whether `text` says "seed" in any case.
fn speaks_of_seed(text: &str) -> bool {
    text.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"seed"))
}

/// Lines of a paragraph joined to a line whose sentence goes on past its end.
const MAX_JOINED: usize = 4;

/// Whether a paragraph's line starts an item of its own (a list entry, a heading, a quote, a
/// table row, a `key: value` field), so that it goes on no sentence of the line above.
fn starts_item(line: &str) -> bool {
    let t = line.trim_start();
    let numbered = t.bytes().next().is_some_and(|c| c.is_ascii_digit())
        && t.trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with(['.', ')']);
    let field = t.split_once(':').is_some_and(|(k, _)| {
        !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    });
    let marker = ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m));
    t.is_empty() || marker || t.starts_with(['#', '>', '|']) || numbered || field
}

/// The sentence `line` starts, read on through the lines of its paragraph after it (`rest`)
/// that it runs on to (a reflowed `… and at` / `seed 4 of the suite fails every run.`), with
/// the seeds the joined text holds that no line holds alone. `None` when the sentence ends on
/// `line`, or neither `line` (`alone`: its seeds) nor the joined text holds a seed.
pub fn across_break(
    line: &str,
    rest: &[&str],
    alone: &[SeedHit],
) -> Option<(String, Vec<SeedHit>)> {
    let ends = |s: &str| s.trim_end().ends_with(['.', '!', '?', ':']);
    if ends(line) {
        return None;
    }
    let mut joined = line.trim_end().to_string();
    let mut taken = 0;
    let mut on_later = Vec::new();
    for next in rest.iter().take(MAX_JOINED) {
        if starts_item(next) {
            break;
        }
        joined.push(' ');
        joined.push_str(next.trim());
        seeds_on(next, &mut on_later);
        taken += 1;
        if ends(next) || next.contains(". ") {
            break;
        }
    }
    if taken == 0 || !(speaks_of_seed(line) || rest.iter().take(taken).any(|l| speaks_of_seed(l))) {
        return None;
    }
    let mut found = Vec::new();
    seeds_on(&joined, &mut found);
    found.retain(|h| {
        !alone
            .iter()
            .chain(&on_later)
            .any(|a| a.value == h.value && a.form == h.form)
    });
    (!found.is_empty() || !alone.is_empty()).then_some((joined, found))
}

/// Why a seed whose run is said to pass reproduces nothing.
pub const PASSES: &str = "the run with it is said to pass";

/// Whether `text` says something failed (a seed's own block, where a passing sentence may sit
/// beside the failing one).
pub fn says_failure(text: &str) -> bool {
    fail_words().is_match(text)
}

/// The sentence of `line` holding byte `at` (sentences end at `. `, `; ` or the line's end).
pub fn sentence_at(line: &str, at: usize) -> &str {
    let b = line.as_bytes();
    let start = (0..at.min(b.len()))
        .rev()
        .find(|&i| matches!(b[i], b'.' | b';' | b'!' | b'?') && b.get(i + 1) == Some(&b' '))
        .map_or(0, |i| i + 2);
    let end = (at.min(b.len())..b.len())
        .find(|&i| {
            matches!(b[i], b'.' | b';' | b'!' | b'?') && b.get(i + 1).is_none_or(|c| *c == b' ')
        })
        .map_or(b.len(), |i| i + 1);
    line.get(start..end).unwrap_or(line)
}

re!(
    sweep,
    r"(?i)\bseeds?\s*(?:[:=]\s*)?(?:from\s+)?\d+\s*(?:\.\.=?|-|–|to|through|thru)\s*\d+|\bfor\s+\$?\{?\w*seed\w*\}?\s+in\b|\{\d+\.\.\d+\}|\bseq\s+\d+\s+\d+|\b\d{2,}\s+(?:different\s+|random\s+|distinct\s+|other\s+)?seeds\b|\b(?:all|every|each|many|several|multiple|various)\s+(?:of\s+the\s+|the\s+)?(?:random\s+)?seeds\b|\bseeds?\s+(?:sweep|range)\b|\bsweep(?:ing)?\s+(?:over\s+)?(?:the\s+)?seeds\b|\brange\s*\(\s*\d+\s*,\s*\d+\s*\)"
);
re!(
    passes,
    r"(?i)\b(?:pass(?:es|ed)?|succeed(?:s|ed)?|green|works?|worked|is\s+fine|no\s+(?:failures?|errors?|issues?))\b"
);
re!(
    fail_words,
    r"(?i)\b(?:fail(?:s|ed|ing|ure)?|reproduc(?:es|ed|ing|e)|trigger(?:s|ed)?|panic(?:s|ked)?|crash(?:es|ed)?|hang(?:s)?|hung|deadlock(?:s|ed)?|assert(?:ion)?s?\s+fail|breaks?|broke|red)\b"
);
re!(
    data_seed,
    r"(?i)\b(?:data|dataset|input|inputs|corpus|corpora|fuzz(?:er|ing)?|generat(?:e|es|ed|or|ing)|random(?:ly)?\s+(?:generated|values?|strings?|bytes|numbers?))\b"
);

/// Whether a sentence of `text` that speaks of a seed says it generates data. A prose
/// sentence is read across its paragraph's line breaks (the same words, however wrapped); a
/// line of fenced code is a sentence of its own.
pub fn says_data_seed(text: &str) -> bool {
    let says = |sentence: &str| speaks_of_seed(sentence) && data_seed().is_match(sentence);
    let mut fenced = false;
    let mut para = String::new();
    let flush = |para: &mut String| {
        let hit = para.split_inclusive(['.', ';', '!', '?']).any(&says);
        para.clear();
        hit
    };
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            if flush(&mut para) {
                return true;
            }
            continue;
        }
        if fenced {
            if says(l) {
                return true;
            }
            continue;
        }
        if starts_item(l) && flush(&mut para) {
            return true;
        }
        if !para.is_empty() {
            para.push(' ');
        }
        para.push_str(t);
    }
    flush(&mut para)
}

/// Words that tie a failure to scheduling: with any of them, a seed is not merely a data seed.
pub fn speaks_of_scheduling(text: &str) -> bool {
    scheduling().is_match(text)
}

re!(
    scheduling,
    r"(?i)\b(?:race|races|racy|racing|interleav\w*|concurren\w*|thread\w*|schedul\w*|deadlock\w*|livelock\w*|goroutines?|async\w*|await|lock\w*|mutex\w*|atomic\w*|simulat\w*|determinis\w*|parallel\w*|timeouts?|preempt\w*|yield\w*|wake\w*|contention|starvation|dst|shuttle|loom|madsim|turmoil|whopper|vopr)\b"
);

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(line: &str) -> Vec<(String, Option<String>)> {
        let mut out = Vec::new();
        seeds_on(line, &mut out);
        out.into_iter().map(|h| (h.value, h.target)).collect()
    }

    #[test]
    fn simulator_command_lines_carry_their_seed_and_their_test() {
        assert_eq!(
            seeds("seed:  -f tests/slow/ApiCorrectness.toml -s 177856328 -b on"),
            [(
                "177856328".to_string(),
                Some("tests/slow/ApiCorrectness.toml".to_string())
            )]
        );
        assert_eq!(
            seeds("SEED=910812985 cargo run -q -p sim_whopper -- --mode recovery"),
            [("910812985".to_string(), Some("sim_whopper".to_string()))]
        );
        assert_eq!(
            seeds("MADSIM_TEST_SEED=12345 cargo test sched::tests::race_on_close"),
            [(
                "12345".to_string(),
                Some("sched::tests::race_on_close".to_string())
            )]
        );
    }

    #[test]
    fn a_seed_right_after_its_test_file_drives_that_test() {
        assert_eq!(
            seeds("Seen in nightlies (tests: Restart.toml seed 309473476, Cycle.toml seed 37)"),
            [("309473476".to_string(), Some("Restart.toml".to_string()))]
        );
        assert!(seeds("bumped Cargo.toml seed 12345").is_empty());
    }

    #[test]
    fn a_harness_command_with_its_seed_drives_that_run() {
        assert_eq!(
            seeds("Seed: ./scripts/sim run --release -- 7716049265518203311"),
            [(
                "7716049265518203311".to_string(),
                Some("./scripts/sim run".to_string())
            )]
        );
        assert_eq!(
            seeds("`make dst DST_SEED=3391877260 DST_STEPS=50000` panics at step 41872"),
            [("3391877260".to_string(), Some("make dst".to_string()))]
        );
        assert_eq!(
            seeds("seed 90210777: zig build vopr -- 90210777"),
            [("90210777".to_string(), Some("zig build vopr".to_string()))]
        );
        // A number on a command line that does not speak of a seed is not one.
        assert!(seeds("./bin/server --port 8080 --max 1000000").is_empty());
    }

    #[test]
    fn a_short_flag_alone_is_not_a_seed() {
        assert!(seeds("curl -s 200 https://example.com").is_empty());
        assert!(seeds("ran it with -s 1234").is_empty());
    }

    #[test]
    fn shuffle_values_are_collected_apart() {
        let mut out = Vec::new();
        shuffle_seeds("go test -test.shuffle 1712345678 -count 10 ./...", &mut out);
        assert_eq!(out, ["1712345678"]);
        assert!(seeds("go test -shuffle=1712345678 ./...").is_empty());
    }
}
