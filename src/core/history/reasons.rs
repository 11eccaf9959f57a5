//! Why a test fails (docs/dashboard.md, "Failures by reason"): failure messages with what changes
//! from run to run masked (temp paths, UUIDs, addresses and long hex, goroutine and thread ids,
//! durations, numbers), grouped so each reason appears once with its count, its first and
//! last run and one example. Pure; every step is a linear-time regex pass over at most
//! [`KEY_BYTES`] of a message.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

/// Bytes of a message the reason is read from (its first lines).
pub const KEY_BYTES: usize = 600;

/// Lines of a message the reason is read from.
pub const KEY_LINES: usize = 3;

/// Bytes of the example kept with a reason.
pub const EXAMPLE_BYTES: usize = 1000;

/// One recorded failure.
#[derive(Clone, Copy, Debug)]
pub struct Failure<'a> {
    pub run_id: &'a str,
    pub run_url: Option<&'a str>,
    pub at_ms: i64,
    pub message: Option<&'a str>,
}

/// A reason with its failures.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reason {
    /// The masked message (its first lines).
    pub reason: String,
    pub count: u64,
    pub first_run: String,
    pub last_run: String,
    pub first_run_url: Option<String>,
    pub last_run_url: Option<String>,
    #[serde(skip)]
    pub first_ms: i64,
    #[serde(skip)]
    pub last_ms: i64,
    /// The newest failure's message, its first lines.
    pub example: String,
}

/// Text of a failure without a message.
pub const NO_MESSAGE: &str = "(no failure message recorded)";

fn masks() -> &'static [(Regex, &'static str)] {
    static M: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    M.get_or_init(|| {
        [
            // Temporary paths, up to the end of the path.
            (
                r#"(?:/private)?/var/folders/[^\s'"`,;)]*|(?:/var)?/tmp/[^\s'"`,;)]*|(?i:[a-z]:\\Users\\[^\s\\]+\\AppData\\Local\\Temp\\[^\s'"`,;)]*)|(?i:[a-z]:\\Windows\\Temp\\[^\s'"`,;)]*)"#,
                "<tmp>",
            ),
            (
                r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
                "<uuid>",
            ),
            (r"\b0[xX][0-9a-fA-F]+\b", "<addr>"),
            (
                r"(?i)\b(goroutine|thread|tid|pid|worker|task)([ #:=-]{0,2})\d+\b",
                "$1$2<id>",
            ),
            (
                r"(?i)\b\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h|sec|secs|seconds?|milliseconds?|minutes?)\b",
                "<duration>",
            ),
            (r"(?i)\b\d+(?:\.\d+)?\s+(?:seconds?|milliseconds?|minutes?)\b", "<duration>"),
            (r"\d+(?:\.\d+)?", "<n>"),
        ]
        .into_iter()
        .map(|(p, to)| (Regex::new(p).expect("the masks are valid"), to))
        .collect()
    })
}

fn hex() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\b[0-9a-fA-F]{6,}\b").expect("the hex mask is valid"))
}

fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The reason of a message: its first non-empty lines, masked, spaces collapsed.
pub fn normalize(message: &str) -> String {
    let lines: Vec<&str> = cut(message, KEY_BYTES)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(KEY_LINES)
        .collect();
    let mut text = lines.join("\n");
    let (before_numbers, numbers) = masks().split_at(masks().len() - 1);
    for (re, to) in before_numbers {
        if let std::borrow::Cow::Owned(s) = re.replace_all(&text, *to) {
            text = s;
        }
    }
    // Long hex (commit ids, hashes): six or more hex digits with a digit and a letter.
    if let std::borrow::Cow::Owned(s) = hex().replace_all(&text, |c: &regex::Captures<'_>| {
        let t = &c[0];
        if t.bytes().any(|b| b.is_ascii_digit()) && t.bytes().any(|b| b.is_ascii_alphabetic()) {
            "<hex>".to_string()
        } else {
            t.to_string()
        }
    }) {
        text = s;
    }
    for (re, to) in numbers {
        if let std::borrow::Cow::Owned(s) = re.replace_all(&text, *to) {
            text = s;
        }
    }
    let text: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let text = text.join("\n");
    if text.is_empty() {
        NO_MESSAGE.to_string()
    } else {
        text
    }
}

/// The failures grouped by reason, most frequent first (then the most recent).
pub fn group<'a>(failures: impl IntoIterator<Item = Failure<'a>>) -> Vec<Reason> {
    let mut by: HashMap<String, Reason> = HashMap::new();
    for f in failures {
        let key = f.message.map_or_else(|| NO_MESSAGE.to_string(), normalize);
        let r = by.entry(key).or_insert_with_key(|k| Reason {
            reason: k.clone(),
            count: 0,
            first_run: f.run_id.to_string(),
            last_run: f.run_id.to_string(),
            first_run_url: f.run_url.map(str::to_string),
            last_run_url: f.run_url.map(str::to_string),
            first_ms: f.at_ms,
            last_ms: f.at_ms,
            example: String::new(),
        });
        r.count += 1;
        if f.at_ms < r.first_ms {
            r.first_ms = f.at_ms;
            r.first_run = f.run_id.to_string();
            r.first_run_url = f.run_url.map(str::to_string);
        }
        if f.at_ms >= r.last_ms || r.example.is_empty() {
            if f.at_ms >= r.last_ms {
                r.last_ms = f.at_ms;
                r.last_run = f.run_id.to_string();
                r.last_run_url = f.run_url.map(str::to_string);
            }
            r.example = cut(f.message.unwrap_or(NO_MESSAGE).trim(), EXAMPLE_BYTES).to_string();
        }
    }
    let mut out: Vec<Reason> = by.into_values().collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(b.last_ms.cmp(&a.last_ms))
            .then_with(|| a.reason.cmp(&b.reason))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f<'a>(run: &'a str, at: i64, m: &'a str) -> Failure<'a> {
        Failure {
            run_id: run,
            run_url: None,
            at_ms: at,
            message: Some(m),
        }
    }

    #[test]
    fn what_changes_between_runs_is_masked() {
        for (a, b) in [
            (
                "lock wait timed out after 61ms on 0xc000a1b2c3 (goroutine 17)",
                "lock wait timed out after 118ms on 0xc0003d9a10 (goroutine 9)",
            ),
            (
                "balance mismatch: got 17 want 18 in /tmp/TestWhyReasons123/ledger.db",
                "balance mismatch: got 41 want 40 in /tmp/TestWhyReasons98765/ledger.db",
            ),
            (
                "open /var/folders/x1/abc/T/pytest-of-me/pytest-3/db: no such file",
                "open /var/folders/q9/zzz/T/pytest-of-me/pytest-17/db: no such file",
            ),
            (
                "request 3f2b8a90-1c2d-4e5f-8a9b-0c1d2e3f4a5b took 2.5s",
                "request 00000000-1111-2222-3333-444444444444 took 31 seconds",
            ),
            (
                "thread 'tokio-runtime-worker' panicked at src/a.rs:12:5 (thread 140233)",
                "thread 'tokio-runtime-worker' panicked at src/a.rs:99:1 (thread 7)",
            ),
            ("commit deadbeef12 not found", "commit 0a1b2c3d4e not found"),
            (
                r"C:\Users\runner\AppData\Local\Temp\tmp12ab\x.db locked",
                r"C:\Users\runner\AppData\Local\Temp\tmp99zz\x.db locked",
            ),
        ] {
            assert_eq!(normalize(a), normalize(b), "{a:?} and {b:?}");
        }
        assert_eq!(
            normalize("lock wait timed out after 61ms on 0xc000a1b2c3 (goroutine 17)"),
            "lock wait timed out after <duration> on <addr> (goroutine <id>)"
        );
        assert_eq!(
            normalize("balance mismatch: got 17 want 18 in /tmp/T1/ledger.db"),
            "balance mismatch: got <n> want <n> in <tmp>"
        );
    }

    #[test]
    fn different_words_stay_different_reasons() {
        assert_ne!(
            normalize("expected 3 rows"),
            normalize("expected 3 columns")
        );
        assert_ne!(normalize("deadlock"), normalize("timeout"));
    }

    #[test]
    fn reasons_are_counted_with_their_first_and_last_run_most_frequent_first() {
        let got = group([
            f(
                "1",
                10,
                "lock wait timed out after 61ms on 0xc000a1b2c3 (goroutine 17)",
            ),
            f("3", 30, "balance mismatch: got 17 want 18 in /tmp/A/l.db"),
            f(
                "4",
                40,
                "lock wait timed out after 75ms on 0xc00012f4e0 (goroutine 203)",
            ),
            f("6", 60, "balance mismatch: got 41 want 40 in /tmp/B/l.db"),
            f(
                "8",
                80,
                "lock wait timed out after 118ms on 0xc0003d9a10 (goroutine 9)",
            ),
        ]);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].count, got[1].count), (3, 2));
        assert_eq!(
            (got[0].first_run.as_str(), got[0].last_run.as_str()),
            ("1", "8")
        );
        assert_eq!(
            (got[1].first_run.as_str(), got[1].last_run.as_str()),
            ("3", "6")
        );
        assert!(
            got[0].example.contains("118ms"),
            "the newest example: {}",
            got[0].example
        );
        assert!(got[1].reason.starts_with("balance mismatch"));
    }

    #[test]
    fn the_order_of_arrival_does_not_change_the_groups() {
        let fs = [
            f("9", 90, "x failed after 3s"),
            f("2", 20, "x failed after 7s"),
            f("5", 50, "y"),
        ];
        let a = group(fs);
        let mut rev = fs;
        rev.reverse();
        let b = group(rev);
        assert_eq!(a, b);
        assert_eq!(
            (a[0].first_run.as_str(), a[0].last_run.as_str()),
            ("2", "9")
        );
    }

    #[test]
    fn a_missing_or_blank_message_is_its_own_reason_and_long_ones_are_bounded() {
        let got = group([
            Failure {
                run_id: "1",
                run_url: None,
                at_ms: 1,
                message: None,
            },
            f("2", 2, "   \n  "),
        ]);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].reason, NO_MESSAGE);
        let long = "word ".repeat(100_000);
        assert!(normalize(&long).len() <= KEY_BYTES);
        assert!(group([f("1", 1, &long)])[0].example.len() <= EXAMPLE_BYTES);
    }

    #[test]
    fn reindenting_or_reflowing_spaces_does_not_split_a_reason() {
        assert_eq!(normalize("  got 1\twant   2  "), normalize("got 5 want 6"));
    }
}
