//! Unified diffs (`git diff`, `.patch`, and GitHub's per-file `patch` hunks) parsed into files
//! and their added and removed lines.

/// How a file changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Added,
    #[default]
    Modified,
    Removed,
    Renamed,
    Copied,
    Changed,
    Unchanged,
}

impl FileStatus {
    /// GitHub's `status` strings; anything unknown is `Modified`.
    pub fn from_github(s: &str) -> Self {
        match s {
            "added" => FileStatus::Added,
            "removed" => FileStatus::Removed,
            "renamed" => FileStatus::Renamed,
            "copied" => FileStatus::Copied,
            "changed" => FileStatus::Changed,
            "unchanged" => FileStatus::Unchanged,
            _ => FileStatus::Modified,
        }
    }
}

/// One file of a change: what GitHub's "list pull request files" gives, or a file of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub previous_path: Option<String>,
    pub status: FileStatus,
    /// The hunks (`@@ … @@` and their lines). `None` when GitHub omits it (large or binary).
    pub patch: Option<String>,
}

/// The kind of a line inside a hunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Added,
    Removed,
    Context,
}

/// A line of a hunk with its number on its side (new file for added and context lines, old
/// file for removed lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchLine<'a> {
    pub kind: LineKind,
    /// The first line after an `@@` header: what came before it is unknown.
    pub hunk_start: bool,
    pub line: Option<u32>,
    pub text: &'a str,
}

/// `text.lines()`, split with a vectorised search: the diff's lines are short and many, and
/// this runs over every byte of every patch.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // A line ends at `\n` or `\r\n`; a last line with no `\n` keeps what it has.
        let line = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(at) => {
                let line = &rest[..at];
                rest = &rest[at + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut rest),
        };
        Some(line)
    })
}

/// Iterates over the lines of a patch (hunks only; file headers are skipped).
pub fn patch_lines(patch: &str) -> impl Iterator<Item = PatchLine<'_>> {
    let mut old = 0u32;
    let mut new = 0u32;
    let mut in_hunk = false;
    let mut fresh = false;
    lines(patch).filter_map(move |raw| {
        if let Some(rest) = raw.strip_prefix("@@") {
            if let Some((o, n)) = parse_hunk_header(rest) {
                old = o;
                new = n;
                in_hunk = true;
                fresh = true;
            }
            return None;
        }
        if !in_hunk {
            return None;
        }
        let (kind, text) = match raw.as_bytes().first() {
            Some(b'+') => (LineKind::Added, &raw[1..]),
            Some(b'-') => (LineKind::Removed, &raw[1..]),
            Some(b' ') => (LineKind::Context, &raw[1..]),
            None => (LineKind::Context, ""),
            // "\ No newline at end of file" and anything else: not a line of the file.
            _ => return None,
        };
        let line = match kind {
            LineKind::Added | LineKind::Context => {
                let l = new;
                new = new.saturating_add(1);
                if kind == LineKind::Context {
                    old = old.saturating_add(1);
                }
                l
            }
            LineKind::Removed => {
                let l = old;
                old = old.saturating_add(1);
                l
            }
        };
        let hunk_start = std::mem::take(&mut fresh);
        Some(PatchLine {
            kind,
            hunk_start,
            line: (line > 0).then_some(line),
            text,
        })
    })
}

/// `-a,b +c,d @@` → (a, c).
fn parse_hunk_header(rest: &str) -> Option<(u32, u32)> {
    let mut parts = rest.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let start = |s: &str| s.split(',').next()?.parse::<u32>().ok();
    Some((start(old)?, start(new)?))
}

/// Why a text is not a unified diff.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a unified diff: {0}")]
pub struct DiffError(pub String);

/// Splits a whole unified diff into files. Empty input is an empty change; text without any
/// file header or hunk is an error.
pub fn parse_unified(text: &str) -> Result<Vec<FileChange>, DiffError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    if text.as_bytes().contains(&0) {
        return Err(DiffError("the input contains NUL bytes".into()));
    }
    let mut files: Vec<FileChange> = Vec::new();
    let mut current: Option<Builder> = None;
    let mut lines = lines(text).peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish(&mut files, current.take());
            current = Some(Builder::from_git_header(rest));
            continue;
        }
        if line.starts_with("--- ") && lines.peek().is_some_and(|n| n.starts_with("+++ ")) {
            let plus = lines.next().unwrap_or_default();
            let old = header_path(&line[4..]);
            let new = header_path(&plus[4..]);
            let in_git_file = current
                .as_ref()
                .is_some_and(|b| b.git && b.patch.is_empty());
            if !in_git_file {
                finish(&mut files, current.take());
                current = Some(Builder::default());
            }
            if let Some(b) = current.as_mut() {
                b.saw_headers = true;
                match (&old, &new) {
                    (None, Some(n)) => {
                        b.status = FileStatus::Added;
                        b.path = Some(n.clone());
                    }
                    (Some(o), None) => {
                        b.status = FileStatus::Removed;
                        b.path = Some(o.clone());
                    }
                    (Some(o), Some(n)) => {
                        if o != n {
                            b.previous = Some(o.clone());
                            b.status = FileStatus::Renamed;
                        }
                        b.path = Some(n.clone());
                    }
                    (None, None) => {}
                }
            }
            continue;
        }
        let Some(b) = current.as_mut() else {
            if line.starts_with("@@ ") {
                // Bare hunks (GitHub's `patch` field) without a file: one unnamed file.
                let mut b = Builder {
                    path: Some("<stdin>".into()),
                    saw_headers: true,
                    ..Builder::default()
                };
                b.push(line);
                current = Some(b);
            }
            continue;
        };
        if b.git && b.patch.is_empty() && !line.starts_with("@@") {
            b.git_extended_header(line);
            continue;
        }
        b.push(line);
    }
    finish(&mut files, current.take());
    if files.is_empty() {
        return Err(DiffError(
            "found no `diff --git` header, no `---`/`+++` file header and no `@@` hunk".into(),
        ));
    }
    Ok(files)
}

#[derive(Default)]
struct Builder {
    git: bool,
    saw_headers: bool,
    path: Option<String>,
    previous: Option<String>,
    status: FileStatus,
    patch: String,
    binary: bool,
}

impl Builder {
    fn from_git_header(rest: &str) -> Builder {
        // `a/x b/x`; paths with spaces are ambiguous here, the ---/+++ lines settle them.
        let (a, b) = match rest.split_once(" b/") {
            Some((a, b)) => (a.strip_prefix("a/").unwrap_or(a), b),
            None => (rest, rest),
        };
        Builder {
            git: true,
            saw_headers: true,
            path: Some(b.to_string()),
            previous: (a != b).then(|| a.to_string()),
            status: if a != b {
                FileStatus::Renamed
            } else {
                FileStatus::Modified
            },
            ..Builder::default()
        }
    }

    fn git_extended_header(&mut self, line: &str) {
        if line.starts_with("new file mode") {
            self.status = FileStatus::Added;
        } else if line.starts_with("deleted file mode") {
            self.status = FileStatus::Removed;
        } else if let Some(p) = line.strip_prefix("rename from ") {
            self.previous = Some(p.to_string());
            self.status = FileStatus::Renamed;
        } else if let Some(p) = line.strip_prefix("rename to ") {
            self.path = Some(p.to_string());
        } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
            self.binary = true;
        }
    }

    fn push(&mut self, line: &str) {
        if line.starts_with("GIT binary patch") {
            self.binary = true;
            return;
        }
        if self.binary {
            return;
        }
        self.patch.push_str(line);
        self.patch.push('\n');
    }
}

fn finish(files: &mut Vec<FileChange>, b: Option<Builder>) {
    let Some(b) = b else { return };
    if !b.saw_headers {
        return;
    }
    let Some(path) = b.path else { return };
    files.push(FileChange {
        path,
        previous_path: b.previous,
        status: b.status,
        patch: (!b.binary && !b.patch.is_empty()).then_some(b.patch),
    });
}

/// `a/src/x.go\t2024-…` → `Some("src/x.go")`; `/dev/null` → `None`.
fn header_path(raw: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    let raw = raw.trim_matches('"');
    if raw == "/dev/null" {
        return None;
    }
    let p = raw
        .strip_prefix("a/")
        .or_else(|| raw.strip_prefix("b/"))
        .unwrap_or(raw);
    Some(p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The vectorised split is `str::lines`, line endings and the last line included.
        #[test]
        fn lines_are_str_lines(text in "[a\r\n é]{0,40}") {
            proptest::prop_assert_eq!(lines(&text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
        }
    }

    const GIT_DIFF: &str = "diff --git a/pool.go b/pool.go
index 1111111..2222222 100644
--- a/pool.go
+++ b/pool.go
@@ -10,3 +10,4 @@ func (p *Pool) Get() {
 \tctx := p.ctx
-\tp.mu.Lock()
+\tp.mu.RLock()
+\tdefer p.mu.RUnlock()
 \treturn
diff --git a/new.go b/new.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.go
@@ -0,0 +1,2 @@
+package pool
+var x = 1
diff --git a/logo.png b/logo.png
index 1..2 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/old.go b/old.go
deleted file mode 100644
--- a/old.go
+++ /dev/null
@@ -1 +0,0 @@
-package old
";

    #[test]
    fn splits_a_git_diff_into_files_with_status() {
        let files = parse_unified(GIT_DIFF).unwrap();
        let summary: Vec<(&str, FileStatus, bool)> = files
            .iter()
            .map(|f| (f.path.as_str(), f.status, f.patch.is_some()))
            .collect();
        assert_eq!(
            summary,
            [
                ("pool.go", FileStatus::Modified, true),
                ("new.go", FileStatus::Added, true),
                ("logo.png", FileStatus::Modified, false),
                ("old.go", FileStatus::Removed, true),
            ]
        );
    }

    #[test]
    fn numbers_lines_on_their_own_side() {
        let files = parse_unified(GIT_DIFF).unwrap();
        let lines: Vec<_> = patch_lines(files[0].patch.as_deref().unwrap()).collect();
        assert_eq!(lines[0].kind, LineKind::Context);
        assert_eq!(lines[0].line, Some(10));
        assert_eq!(
            (lines[1].kind, lines[1].line, lines[1].text),
            (LineKind::Removed, Some(11), "\tp.mu.Lock()")
        );
        assert_eq!((lines[2].kind, lines[2].line), (LineKind::Added, Some(11)));
        assert_eq!((lines[3].kind, lines[3].line), (LineKind::Added, Some(12)));
    }

    #[test]
    fn plain_diff_u_and_bare_hunks_parse() {
        let plain = "--- a/x.rs\t2024-01-01\n+++ b/x.rs\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n";
        let files = parse_unified(plain).unwrap();
        assert_eq!(files[0].path, "x.rs");
        let bare = "@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(parse_unified(bare).unwrap().len(), 1);
    }

    #[test]
    fn renames_keep_both_paths() {
        let d =
            "diff --git a/a.go b/b.go\nsimilarity index 90%\nrename from a.go\nrename to b.go\n";
        let files = parse_unified(d).unwrap();
        assert_eq!(files[0].path, "b.go");
        assert_eq!(files[0].previous_path.as_deref(), Some("a.go"));
        assert_eq!(files[0].status, FileStatus::Renamed);
    }

    #[test]
    fn prose_is_not_a_diff_but_empty_input_is_an_empty_change() {
        assert!(parse_unified("hello\nthis is not a diff\n").is_err());
        assert!(parse_unified("{\"json\": true}").is_err());
        assert_eq!(parse_unified("").unwrap(), Vec::new());
    }
}
