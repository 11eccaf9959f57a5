//! Text the bot posts is read and run by coding agents: every value placed in a command is
//! single-quoted for the shell, and a test name that is not a plausible identifier for its
//! runner gets no command at all (it is shown as data).

/// `s` as one shell word: single quotes, with `'` written as `'\''`. Safe in bash and sh for any
/// text without NUL.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn all(s: &str, ok: impl Fn(char) -> bool) -> bool {
    !s.is_empty() && s.chars().all(ok)
}

fn ident_start(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// A Go test (`TestX`, `TestX/sub_case`): an identifier, then subtest names of printable
/// punctuation-free words (go test rewrites spaces to `_`).
pub fn go_test_name(name: &str) -> bool {
    let mut parts = name.split('/');
    let top = parts.next().unwrap_or("");
    ident_start(top)
        && all(top, |c| c.is_ascii_alphanumeric() || c == '_')
        && parts.all(|p| all(p, |c| c.is_ascii_alphanumeric() || "_-.,:=+#@%".contains(c)))
}

/// A Go import path or directory pattern.
pub fn go_package(pkg: &str) -> bool {
    all(pkg, |c| c.is_ascii_alphanumeric() || "_-./~".contains(c)) && !pkg.starts_with('-')
}

/// A Rust test path (`tests::checkout`).
pub fn rust_test_path(name: &str) -> bool {
    name.split("::")
        .all(|p| ident_start(p) && all(p, |c| c.is_ascii_alphanumeric() || c == '_'))
}

/// A file path in a repository (no spaces, no shell punctuation).
pub fn file_path(p: &str) -> bool {
    all(p, |c| c.is_ascii_alphanumeric() || "_-./+@".contains(c)) && !p.starts_with('-')
}

/// A pytest node name after the file (`test_x`, `TestK::test_y[param-1]`).
pub fn pytest_name(name: &str) -> bool {
    all(name, |c| {
        c.is_ascii_alphanumeric() || "_-.:[](),=+@%".contains(c)
    }) && ident_start(name)
}

/// A Java class or method name.
pub fn java_name(name: &str) -> bool {
    ident_start(name) && all(name, |c| c.is_ascii_alphanumeric() || "_$.".contains(c))
}

/// Free text such as a jest title: printable, no control characters, no backticks.
pub fn printable_title(name: &str) -> bool {
    !name.is_empty() && name.len() <= 300 && !name.chars().any(|c| c.is_control() || c == '`')
}

/// `s` with the metacharacters of a regular expression escaped (Go RE2, jest's JavaScript).
pub fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_every_quote_and_expansion() {
        assert_eq!(quote("plain"), "'plain'");
        assert_eq!(quote("a';echo pwned;'"), "'a'\\'';echo pwned;'\\'''");
        // Run through a real shell: the value comes back byte for byte, nothing expands.
        for hostile in [
            "a';touch x;'",
            "$(touch x)",
            "`touch x`",
            "${IFS}x",
            "a\\\"b",
            "*",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", quote(hostile)))
                .output();
            if let Ok(out) = out {
                assert_eq!(String::from_utf8_lossy(&out.stdout), hostile);
            }
        }
    }

    #[test]
    fn only_plausible_identifiers_pass() {
        assert!(go_test_name("TestPool/case_1"));
        assert!(!go_test_name("TestInj/a';echo_pwned>x;'"));
        assert!(!go_test_name("TestSub$(echo${IFS}pwned)"));
        assert!(rust_test_path("tests::checkout"));
        assert!(!rust_test_path("tests::a$(echo${IFS}pwned)"));
        assert!(go_package("example.com/acme/pool"));
        assert!(!go_package("x;rm"));
        assert!(pytest_name("TestK::test_y[param-1]"));
        assert!(!pytest_name("test_y;rm -rf"));
        assert!(printable_title("checks out a connection"));
        assert!(!printable_title("a `b`"));
    }
}
