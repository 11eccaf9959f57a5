//! Tests that live in a source file: Zig's `test "name" { … }` blocks and Rust's
//! `#[cfg(test)] mod tests { … }`. A change whose added and removed lines all lie inside such
//! blocks changes the file's tests only, and is judged as a test file's change is
//! (`test_changes_count`, docs/classification.md): a new test that spawns threads is not a
//! concurrency change of the code.
//!
//! Read from the patch alone, by the top-level lines it shows (formatted code opens and closes
//! a top-level block at column 0) and each hunk's header, where git names the declaration the
//! hunk starts in. Where that is unknown the lines are not inside a test. Linear in the patch.

use super::lang::Lang;

/// Whether every added and removed line of `patch` lies inside a test block of a `language`
/// source file (and there is at least one).
pub fn only_embedded_tests(language: Lang, patch: &str) -> bool {
    if !matches!(language, Lang::Zig | Lang::Rust)
        || memchr::memmem::find(patch.as_bytes(), b"test").is_none()
    {
        return false;
    }
    let mut in_test = false;
    // A Rust `#[cfg(test)]` just read: the next item is test code.
    let mut cfg_test = false;
    let mut changed = false;
    for raw in super::diff::lines(patch) {
        if let Some(rest) = raw.strip_prefix("@@") {
            // `@@ -164,6 +164,29 @@ test "pool" {`: the hunk starts inside that declaration.
            let context = rest.split_once("@@").map_or("", |(_, c)| c.trim_start());
            in_test = opens_test(language, context, false);
            cfg_test = false;
            continue;
        }
        let (kind, text) = match raw.as_bytes().first() {
            Some(b'+') if !raw.starts_with("+++ ") => (b'+', &raw[1..]),
            Some(b'-') if !raw.starts_with("--- ") => (b'-', &raw[1..]),
            Some(b' ') => (b' ', &raw[1..]),
            _ => continue,
        };
        let top_level = text
            .as_bytes()
            .first()
            .is_some_and(|c| !c.is_ascii_whitespace());
        let mut inside = in_test;
        if top_level {
            if text.starts_with('}') {
                // The block's last line; what follows is outside it.
                in_test = false;
            } else if language == Lang::Rust && text.starts_with("#[") {
                cfg_test |= text.starts_with("#[cfg(test)]");
                inside = cfg_test || in_test;
            } else {
                in_test = opens_test(language, text, cfg_test);
                inside = in_test;
                cfg_test = false;
            }
        }
        if kind != b' ' && !text.trim().is_empty() {
            if !inside {
                return false;
            }
            changed = true;
        }
    }
    changed
}

/// Whether the top-level line `text` starts a test block (`test "x" {`, `mod tests {`, or any
/// item after `#[cfg(test)]`).
fn opens_test(language: Lang, text: &str, cfg_test: bool) -> bool {
    match language {
        Lang::Zig => {
            let Some(rest) = text.strip_prefix("test") else {
                return false;
            };
            rest.starts_with([' ', '"', '{'])
        }
        Lang::Rust => {
            if cfg_test {
                return true;
            }
            let t = text
                .strip_prefix("pub(crate) ")
                .or_else(|| text.strip_prefix("pub "))
                .unwrap_or(text);
            t.strip_prefix("mod ").is_some_and(|m| {
                let name = m.split(|c: char| !(c.is_alphanumeric() || c == '_')).next();
                matches!(name, Some("tests" | "test"))
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZIG_TEST: &str = "@@ -164,6 +164,12 @@ pub const Pool = struct {\n     }\n };\n \n+test \"pool race\" {\n+    var t = try std.Thread.spawn(.{}, f, .{});\n+    t.join();\n+}\n";

    #[test]
    fn a_zig_test_block_added_to_a_source_file_is_test_code() {
        assert!(only_embedded_tests(Lang::Zig, ZIG_TEST));
        // The same lines outside a test block are code.
        let code = ZIG_TEST.replace("+test \"pool race\" {", "+fn race() void {");
        assert!(!only_embedded_tests(Lang::Zig, &code));
    }

    #[test]
    fn a_hunk_inside_a_test_block_is_known_by_its_header() {
        let inside = "@@ -10,3 +10,4 @@ test \"pool\" {\n     var p = Pool.init();\n+    std.atomic.spinLoopHint();\n     p.deinit();\n";
        assert!(only_embedded_tests(Lang::Zig, inside));
        let outside = inside.replace("test \"pool\" {", "pub fn run() void {");
        assert!(!only_embedded_tests(Lang::Zig, &outside));
        // A hunk that leaves the block and changes code after it is not test-only.
        let leaves = format!("{inside} }}\n \n+pub fn more() void {{ lock(); }}\n");
        assert!(!only_embedded_tests(Lang::Zig, &leaves));
    }

    #[test]
    fn a_rust_cfg_test_module_is_test_code_and_the_code_beside_it_is_not() {
        let module = "@@ -40,3 +40,12 @@ impl Pool {\n     }\n }\n \n+#[cfg(test)]\n+mod tests {\n+    use super::*;\n+    #[test]\n+    fn races() {\n+        std::thread::spawn(|| {});\n+    }\n+}\n";
        assert!(only_embedded_tests(Lang::Rust, module));
        let inside = "@@ -80,3 +80,4 @@ mod tests {\n     fn races() {\n+        let m = Mutex::new(0);\n     }\n";
        assert!(only_embedded_tests(Lang::Rust, inside));
        let code = inside.replace("mod tests {", "impl Pool {");
        assert!(!only_embedded_tests(Lang::Rust, &code));
        // Other languages' files are never read this way.
        assert!(!only_embedded_tests(Lang::Go, module));
    }

    #[test]
    fn a_change_with_no_changed_line_is_not_a_test_change() {
        assert!(!only_embedded_tests(
            Lang::Zig,
            "@@ -1,1 +1,1 @@ test \"x\" {\n     a();\n"
        ));
        assert!(!only_embedded_tests(Lang::Zig, ""));
    }
}
