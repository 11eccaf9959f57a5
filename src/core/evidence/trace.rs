//! Recorded race reports, recognised by their structure: a report (Go's race detector or
//! ThreadSanitizer) is an access with its stack and the previous, conflicting access with its
//! stack. The layout does not matter: the lines may be fenced, indented or quoted, separated by
//! blank lines (copied from a web log viewer), prefixed (`3: `, a log timestamp), with frames
//! elided (`...`) or numbered as links, and with or without the `WARNING:` header. A report
//! showing one access only is refused. One pass over the lines: linear in the body.

use std::sync::OnceLock;

use regex::Regex;

macro_rules! re {
    ($name:ident, $pat:expr) => {
        fn $name() -> &'static Regex {
            static R: OnceLock<Regex> = OnceLock::new();
            R.get_or_init(|| Regex::new($pat).expect("trace patterns are valid"))
        }
    };
}

/// A recorded race report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceHit {
    pub tool: &'static str,
    /// Both conflicting accesses are shown, each with a stack.
    pub complete: bool,
    pub summary: String,
    /// Index into the lines given (where the report starts).
    pub at: usize,
    /// Test names seen inside the report (`=== RUN`, a `TestX` frame).
    pub tests: Vec<String>,
    /// Source files its frames name (`/x/pool.go:85`, `net2.cpp:1734`), distinct, at most
    /// [`MAX_FILES`].
    pub files: Vec<String>,
}

/// Most files kept per report.
pub const MAX_FILES: usize = 32;

re!(
    source_file,
    r"([A-Za-z0-9_.+@/\\-]+\.(?:go|c|cc|cpp|cxx|h|hh|hpp|rs|java|kt|py|zig|swift|m|mm|cs|scala)):\d+"
);

/// Adds the source files `line` names to `files` (distinct, bounded).
fn files_on(line: &str, files: &mut Vec<String>) {
    for c in source_file().captures_iter(line) {
        if files.len() >= MAX_FILES {
            return;
        }
        let f = c[1].replace('\\', "/");
        if !files.contains(&f) {
            files.push(f);
        }
    }
}

/// Whether a file a report's frame names is `changed` (a repository path): the same path, or one
/// ends with the other at a `/` (frames carry the runner's checkout prefix, or only a name).
pub fn names_file(frame_file: &str, changed: &str) -> bool {
    let f = frame_file.trim_start_matches("./");
    let c = changed.trim_start_matches("./");
    if f.is_empty() || c.is_empty() {
        return false;
    }
    f == c
        || (f.len() > c.len() && f.ends_with(c) && f.as_bytes()[f.len() - c.len() - 1] == b'/')
        || (c.len() > f.len() && c.ends_with(f) && c.as_bytes()[c.len() - f.len() - 1] == b'/')
}

// A line prefix added by the place the report was copied from: a line number (`3: `), a
// timestamp (`2024-01-02T03:04:05.123Z `, `[12:00:01.5] `), a quote marker.
re!(
    prefix,
    r"^(?:\s*>)*\s*(?:\d{1,6}[:|]\s+|\[?\d{4}-\d{2}-\d{2}[T ][\d:.,]+Z?\]?\s+|\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s+|\s*>\s*)*"
);
re!(go_header, r"WARNING: DATA RACE");
re!(
    go_access,
    r"^(Read|Write|Atomic read|Atomic write|read|write) (?:at 0x[0-9a-fA-F]+ )?by (goroutine \d+|main goroutine)\b"
);
re!(
    go_previous,
    r"^Previous (atomic )?(read|write) (?:at 0x[0-9a-fA-F]+ )?by (goroutine \d+|main goroutine)\b"
);
re!(
    go_created,
    r"^Goroutine \d+ \((?:running|finished)\) created at:"
);
re!(
    tsan_header,
    r"WARNING: ThreadSanitizer: (data race|lock-order-inversion|heap-use-after-free|thread leak|signal-unsafe call|SEGV|[a-z -]+)"
);
re!(
    tsan_access,
    r"^(?:Atomic )?(?:Read|Write|read|write) of size \d+ at 0x[0-9a-fA-F]+ by (thread T\d+|main thread)"
);
re!(
    tsan_previous,
    r"^Previous (?:atomic )?(?:read|write) of size \d+ at 0x[0-9a-fA-F]+ by (thread T\d+|main thread)"
);
re!(
    tsan_lock_edge,
    r"Mutex M\d+ acquired here while holding mutex M\d+"
);
// A stack frame: `#3 fn() file.cc:12`, `[#3](…)`, `pkg.(*T).f()`, `/path/file.go:12 +0x1f`,
// an elision (`...`), or Go's `[failed to restore the stack]`.
re!(
    frame,
    r"^(?:\[?#\d+\]?(?:\([^)\s]*\))?\s|\.{3,}\s*$|…\s*$|\[failed to restore the stack\]|/\S+:\d+|[A-Za-z]:\\\S+:\d+|\S+\.\S*\(.*\)\s*$|\S+\(\)\s*$|\S+\.go:\d+|\S+\.(?:c|cc|cpp|h|hpp|rs):\d+)"
);
re!(test_in_report, r"\b((?:Test|Fuzz)[A-Z0-9_]\w*)\b");

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

/// The longest log prefix learnt from a header line.
const MAX_LOG_PREFIX: usize = 80;

/// `text` with its digits as `0`: one log prefix whatever time or counter it shows.
fn shape(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect()
}

/// `line` after a prefix of the shape `prefix`, if it starts with one.
fn cut_shape<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    let same = head
        .bytes()
        .zip(prefix.bytes())
        .all(|(a, b)| a == b || (a.is_ascii_digit() && b == b'0'));
    same.then(|| &line[prefix.len()..])
}

/// Removes what the place a line was copied from added in front of it.
pub fn strip_prefix(line: &str) -> &str {
    let cut = prefix().find(line).map(|m| m.end()).unwrap_or(0);
    line[cut..].trim()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    Go,
    Tsan,
}

/// A report being read.
struct Open {
    tool: Tool,
    at: usize,
    /// (what, by whom) of the access, and its frames.
    access: Option<(String, String)>,
    access_frames: usize,
    previous: Option<(String, String)>,
    previous_frames: usize,
    /// Frames go to the access or the previous access until a `created at` block.
    in_stack: Option<bool>,
    tests: Vec<String>,
    /// A header that names another kind of TSan report.
    other: Option<String>,
    lock_edges: usize,
    files: Vec<String>,
}

impl Open {
    fn new(tool: Tool, at: usize) -> Open {
        Open {
            tool,
            at,
            access: None,
            access_frames: 0,
            previous: None,
            previous_frames: 0,
            in_stack: None,
            tests: Vec::new(),
            other: None,
            lock_edges: 0,
            files: Vec::new(),
        }
    }

    fn close(self) -> TraceHit {
        let tool = match self.tool {
            Tool::Go => "go-race",
            Tool::Tsan => "tsan",
        };
        if let Some(kind) = &self.other {
            if kind.starts_with("lock-order-inversion") {
                let complete = self.lock_edges >= 2;
                return TraceHit {
                    tool,
                    complete,
                    summary: format!(
                        "ThreadSanitizer lock-order inversion with {} lock acquisitions",
                        self.lock_edges
                    ),
                    at: self.at,
                    tests: self.tests,
                    files: self.files,
                };
            }
            return TraceHit {
                tool,
                complete: false,
                summary: format!("ThreadSanitizer {kind} (not a race between two accesses)"),
                at: self.at,
                tests: self.tests,
                files: self.files,
            };
        }
        let complete = self.access.is_some()
            && self.previous.is_some()
            && self.access_frames > 0
            && self.previous_frames > 0;
        let name = match self.tool {
            Tool::Go => "Go race detector",
            Tool::Tsan => "ThreadSanitizer data race",
        };
        let summary = match (&self.access, &self.previous) {
            (Some((a, by)), Some((p, pby))) if complete => {
                format!("{name}: {a} by {by}, previous {p} by {pby}")
            }
            (Some(_), Some(_)) => format!("{name} report whose accesses have no stacks"),
            (Some((a, by)), None) => {
                format!("{name} report with only one access ({a} by {by})")
            }
            (None, Some((p, by))) => {
                format!("{name} report with only the previous access ({p} by {by})")
            }
            (None, None) => format!("{name} header without the accesses"),
        };
        TraceHit {
            tool,
            complete,
            summary,
            at: self.at,
            tests: self.tests,
            files: self.files,
        }
    }
}

/// Go and ThreadSanitizer reports in `lines` (in body order), then Helgrind, DRD and Miri.
pub fn reports<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<TraceHit> {
    let mut hits = Vec::new();
    let mut open: Option<Open> = None;
    let mut text_len = 0usize;
    let mut whole = String::new();
    // The prefix a log put in front of a report's lines, learnt from its header line.
    let mut learned: Option<String> = None;
    for (at, raw) in lines.into_iter().enumerate() {
        // Helgrind, DRD and Miri are read from the text as a whole (bounded copy).
        if text_len < 4 << 20 {
            whole.push_str(raw);
            whole.push('\n');
            text_len += raw.len() + 1;
        }
        let mut line = strip_prefix(raw);
        if let Some(p) = &learned
            && let Some(rest) = cut_shape(line, p)
        {
            line = rest.trim();
        }
        if line.is_empty() {
            continue;
        }
        // A header after other text (`querier-1: WARNING: DATA RACE`): that text is what the
        // log put in front of every line of the report.
        if let Some(m) = go_header().find(line).or_else(|| tsan_header().find(line))
            && m.start() > 0
            && m.start() <= MAX_LOG_PREFIX
        {
            learned = Some(shape(&line[..m.start()]));
        }
        if go_header().is_match(line) {
            if let Some(o) = open.take() {
                hits.push(o.close());
            }
            open = Some(Open::new(Tool::Go, at));
            continue;
        }
        if let Some(c) = tsan_header().captures(line) {
            if let Some(o) = open.take() {
                hits.push(o.close());
            }
            let mut o = Open::new(Tool::Tsan, at);
            if &c[1] != "data race" {
                o.other = Some(c[1].to_string());
            }
            open = Some(o);
            continue;
        }
        let access = go_access()
            .captures(line)
            .map(|c| (Tool::Go, c[1].to_lowercase(), c[2].to_string()))
            .or_else(|| {
                tsan_access().captures(line).map(|c| {
                    let what = if line.starts_with("Atomic") || line.starts_with("atomic") {
                        "atomic access"
                    } else {
                        "access"
                    };
                    (Tool::Tsan, what.to_string(), c[1].to_string())
                })
            });
        if let Some((tool, what, by)) = access {
            // A second access without a previous one in between starts another report (a
            // report whose header was not pasted).
            let fresh = match &open {
                Some(o) => o.access.is_some() || o.tool != tool || o.other.is_some(),
                None => true,
            };
            if fresh {
                if let Some(o) = open.take() {
                    hits.push(o.close());
                }
                open = Some(Open::new(tool, at));
            }
            if let Some(o) = open.as_mut() {
                o.access = Some((what, by));
                o.in_stack = Some(true);
            }
            continue;
        }
        let previous = go_previous()
            .captures(line)
            .map(|c| {
                let atomic = if c.get(1).is_some() { "atomic " } else { "" };
                (Tool::Go, format!("{atomic}{}", &c[2]), c[3].to_string())
            })
            .or_else(|| {
                tsan_previous()
                    .captures(line)
                    .map(|c| (Tool::Tsan, "access".to_string(), c[1].to_string()))
            });
        if let Some((tool, what, by)) = previous {
            let o = match open.as_mut() {
                Some(o) if o.tool == tool && o.previous.is_none() => o,
                _ => {
                    if let Some(o) = open.take() {
                        hits.push(o.close());
                    }
                    open.insert(Open::new(tool, at))
                }
            };
            o.previous = Some((what, by));
            o.in_stack = Some(false);
            continue;
        }
        let Some(o) = open.as_mut() else {
            continue;
        };
        if go_created().is_match(line) {
            o.in_stack = None;
        } else if tsan_lock_edge().is_match(line) {
            o.lock_edges += 1;
        } else if frame().is_match(line) {
            files_on(line, &mut o.files);
            match o.in_stack {
                Some(true) => o.access_frames += 1,
                Some(false) => o.previous_frames += 1,
                None => {}
            }
        }
        if o.tests.len() < 4
            && let Some(c) = test_in_report().captures(line)
            && !o.tests.iter().any(|t| t == &c[1])
        {
            o.tests.push(c[1].to_string());
        }
    }
    if let Some(o) = open.take() {
        hits.push(o.close());
    }
    others(&whole, &mut hits);
    hits
}

fn others(text: &str, hits: &mut Vec<TraceHit>) {
    let files = || {
        let mut files = Vec::new();
        for line in text.lines() {
            if files.len() >= MAX_FILES {
                break;
            }
            files_on(line, &mut files);
        }
        files
    };
    if let Some(c) = helgrind_race().captures(text) {
        let complete = helgrind_prev().is_match(text);
        hits.push(TraceHit {
            tool: "helgrind",
            complete,
            summary: format!("Helgrind possible data race during {}", &c[1]),
            at: 0,
            tests: Vec::new(),
            files: files(),
        });
    }
    if let Some(c) = drd_conflict().captures(text) {
        hits.push(TraceHit {
            tool: "drd",
            complete: true,
            summary: format!("DRD conflicting {}", &c[1]),
            at: 0,
            tests: Vec::new(),
            files: files(),
        });
    }
    if let Some(c) = miri_race().captures(text) {
        let a = c.get(1).or(c.get(3)).map_or("", |m| m.as_str());
        let b = c.get(2).or(c.get(4)).map_or("", |m| m.as_str());
        hits.push(TraceHit {
            tool: "miri",
            complete: true,
            summary: format!("Miri data race between {a} and {b}"),
            at: 0,
            tests: Vec::new(),
            files: files(),
        });
    } else if miri_single().is_match(text) {
        hits.push(TraceHit {
            tool: "miri",
            complete: false,
            summary: "Miri data race report without both accesses".to_string(),
            at: 0,
            tests: Vec::new(),
            files: files(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(text: &str) -> Vec<bool> {
        reports(text.lines()).iter().map(|h| h.complete).collect()
    }

    #[test]
    fn prefixes_of_log_viewers_are_removed() {
        assert_eq!(strip_prefix("3:   Read of size 1"), "Read of size 1");
        assert_eq!(
            strip_prefix("2024-05-01T10:00:00.123Z WARNING: DATA RACE"),
            "WARNING: DATA RACE"
        );
        assert_eq!(strip_prefix("> > [12:00:01.5]   #0 f()"), "#0 f()");
        assert_eq!(strip_prefix("  pkg.f()"), "pkg.f()");
    }

    #[test]
    fn a_prefix_a_log_puts_before_every_line_is_learnt_from_the_header() {
        let report = "WARNING: DATA RACE\nRead at 0x01 by goroutine 341:\n  pkg.f()\n      /x/a.go:1 +0x1\nPrevious write at 0x01 by goroutine 339:\n  pkg.g()\n      /x/b.go:2 +0x2\n";
        for prefix in [
            "querier-1: ",
            "12:36:39 querier-1: ",
            "[worker 3] ",
            "node_2 | ",
        ] {
            let text: String = report
                .lines()
                .enumerate()
                // A clock that ticks between lines is the same prefix.
                .map(|(i, l)| format!("{}{l}\n", prefix.replace('9', &(i % 10).to_string())))
                .collect();
            assert_eq!(complete(&text), vec![true], "{prefix:?}");
        }
        // A header in prose teaches nothing that makes a report of what follows.
        let prose = "we saw WARNING: DATA RACE in CI\nthe Read at 0x01 by goroutine 1: part\n";
        assert_eq!(complete(prose), vec![false]);
    }

    #[test]
    fn a_go_report_with_blank_lines_and_elided_frames_is_complete() {
        let text = "WARNING: DATA RACE\n\nWrite at 0x01 by goroutine 201:\n\n  pkg.(*IP).Unmarshal()\n\n  ...\n\nPrevious read at 0x01 by goroutine 86:\n\n  pkg.match()\n";
        assert_eq!(complete(text), [true]);
    }

    #[test]
    fn the_old_go_format_and_the_main_goroutine_are_read() {
        let text = "Write by goroutine 269:\n  pkg.CopyTo()\n      /x/store.go:85 +0x2f6\nPrevious read by main goroutine:\n  pkg.set()\n      /x/sequence.go:254\n";
        let hits = reports(text.lines());
        assert!(hits[0].complete);
        assert!(hits[0].summary.contains("main goroutine"), "{:?}", hits[0]);
    }

    #[test]
    fn tsan_without_its_header_with_prefixes_and_an_atomic_second_access() {
        let text = "3:   Read of size 1 at 0x7b68 by thread T1:\n3:     #0 N2::run() net2.cpp:1734\n3:\n3:   Previous atomic write of size 1 at 0x7b68 by thread T2:\n3:     [#0](https://x/y) stop() net2.cpp:253\n";
        assert_eq!(complete(text), [true]);
    }

    #[test]
    fn one_access_is_incomplete_and_a_header_in_prose_is_not_a_report() {
        let one = "WARNING: DATA RACE\nWrite at 0x01 by goroutine 8:\n  pkg.checkout()\n";
        let hits = reports(one.lines());
        assert!(!hits[0].complete);
        assert!(hits[0].summary.contains("only one access"));
        let prose = "Scan for the race detector's \"WARNING: DATA RACE\" marker.";
        assert_eq!(complete(prose), [false]);
        // An access without a stack does not make a report either.
        let bare = "Read at 0x01 by goroutine 1:\nPrevious write at 0x01 by goroutine 2:\n";
        assert_eq!(complete(bare), [false]);
    }

    #[test]
    fn a_reports_frames_name_its_files_and_they_match_by_path_suffix() {
        let text = "WARNING: DATA RACE\nWrite at 0x01 by goroutine 7:\n  example.com/acme/services/pool.(*Pool).Return()\n      /home/runner/work/acme/acme/services/pool/pool.go:85 +0x2f6\nPrevious read at 0x01 by goroutine 8:\n  example.com/acme/services/pool.(*Pool).Checkout()\n      /home/runner/work/acme/acme/services/pool/pool.go:41 +0x44\n      /usr/local/go/src/testing/testing.go:1690\n";
        let hits = reports(text.lines());
        assert_eq!(
            hits[0].files,
            [
                "/home/runner/work/acme/acme/services/pool/pool.go",
                "/usr/local/go/src/testing/testing.go"
            ]
        );
        assert!(names_file(&hits[0].files[0], "services/pool/pool.go"));
        assert!(names_file("pool.go", "services/pool/pool.go"));
        assert!(!names_file(&hits[0].files[0], "ool/pool.go"));
        assert!(!names_file(&hits[0].files[0], "services/pool/other.go"));
        assert!(!names_file("", "a.go"));
        let tsan = "Read of size 4 at 0x01 by thread T1:\n  #0 f() C:\\src\\net\\a.cc:1\nPrevious write of size 4 at 0x01 by main thread:\n  #0 g() net/a.cc:2\n";
        let hits = reports(tsan.lines());
        assert!(
            hits[0].files.iter().any(|f| names_file(f, "net/a.cc")),
            "{:?}",
            hits[0].files
        );
    }

    #[test]
    fn two_headerless_reports_are_two_reports() {
        let text = "Read of size 4 at 0x01 by thread T1:\n  #0 f() a.c:1\nPrevious write of size 4 at 0x01 by main thread:\n  #0 g() a.c:2\nWrite of size 4 at 0x02 by thread T3:\n  #0 h() a.c:3\n";
        assert_eq!(complete(text), [true, false]);
    }
}
