//! Files a tool reads on an agent's word: inside the checkout only (relative to it, or an
//! absolute path that resolves inside it; no `..`, no symlink out of it), a regular file, read
//! no further than a limit, and never quoted in an error.

use std::io::Read as _;
use std::path::{Component, Path};

/// Reads `rel` inside `root`, at most `limit` bytes (a longer file is refused after reading
/// `limit + 1` bytes, whatever its size). Errors name `rel`, never the file's content.
pub fn read_inside(root: &Path, rel: &str, what: &str, limit: u64) -> Result<String, String> {
    let given = Path::new(rel);
    if given
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(format!(
            "{what} must be a path inside the checkout, without `..`: {rel}"
        ));
    }
    let root = root
        .canonicalize()
        .map_err(|e| format!("cannot read the checkout: {}", e.kind()))?;
    let path = root
        .join(given)
        .canonicalize()
        .map_err(|e| format!("cannot read {what} {rel}: {}", e.kind()))?;
    if !path.starts_with(&root) {
        return Err(format!("{what} {rel} leads outside the checkout: refused"));
    }
    let file = std::fs::File::open(&path)
        .map_err(|e| format!("cannot read {what} {rel}: {}", e.kind()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {what} {rel}: {}", e.kind()))?;
    if !meta.is_file() {
        return Err(format!("{what} {rel} is not a regular file"));
    }
    read_bounded(file, rel, what, limit)
}

/// At most `limit + 1` bytes of `from`, however long it is: more than `limit` is refused.
fn read_bounded(
    from: impl std::io::Read,
    rel: &str,
    what: &str,
    limit: u64,
) -> Result<String, String> {
    let mut bytes = Vec::new();
    from.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what} {rel}: {}", e.kind()))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{what} {rel} is larger than {limit} bytes"));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "root:x:0:0:the secret content";

    #[test]
    fn only_regular_files_inside_the_checkout_are_read() {
        let outside = tempfile::tempdir().expect("tmp");
        let secret = outside.path().join("secret.yaml");
        std::fs::write(&secret, SECRET).expect("write");
        let co = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(co.path().join("ci")).expect("mkdir");
        std::fs::write(co.path().join("ci/ok.yaml"), "tests: []\n").expect("write");
        std::os::unix::fs::symlink(&secret, co.path().join("ci/link.yaml")).expect("symlink");
        std::os::unix::fs::symlink("/dev/zero", co.path().join("zero")).expect("symlink");
        assert_eq!(
            read_inside(co.path(), "ci/ok.yaml", "the file", 100).as_deref(),
            Ok("tests: []\n")
        );
        let inside = co.path().join("ci/ok.yaml").to_string_lossy().into_owned();
        assert_eq!(
            read_inside(co.path(), &inside, "the file", 100).as_deref(),
            Ok("tests: []\n"),
            "an absolute path inside the checkout is read"
        );
        let abs = secret.to_string_lossy().into_owned();
        let up = format!(
            "ci/../../{}/secret.yaml",
            outside
                .path()
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("x")
        );
        for bad in [
            abs.as_str(),
            up.as_str(),
            "ci/link.yaml",
            "zero",
            "/dev/zero",
            "ci",
        ] {
            let got = read_inside(co.path(), bad, "the file", 1 << 20);
            match got {
                Ok(t) => panic!("{bad} was read: {t}"),
                Err(e) => assert!(!e.contains("secret content"), "{bad}: {e}"),
            }
        }
    }

    /// Each guard alone: `..` is refused even where it would come back inside, a folder is
    /// named as not a file, and a path out (absolute or by a link) is refused by where it leads.
    #[test]
    fn each_guard_refuses_by_itself() {
        let co = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(co.path().join("ci")).expect("mkdir");
        std::fs::write(co.path().join("ci/ok.yaml"), "tests: []\n").expect("write");
        std::os::unix::fs::symlink("/dev/zero", co.path().join("zero")).expect("symlink");
        let e = read_inside(co.path(), "ci/../ci/ok.yaml", "the file", 100).unwrap_err();
        assert!(e.contains("without `..`"), "{e}");
        let e = read_inside(co.path(), "ci", "the file", 100).unwrap_err();
        assert!(e.contains("is not a regular file"), "{e}");
        let elsewhere = tempfile::NamedTempFile::new().expect("tmp");
        let abs = elsewhere.path().to_string_lossy().into_owned();
        for out in ["zero", "/dev/zero", abs.as_str()] {
            let e = read_inside(co.path(), out, "the file", 100).unwrap_err();
            assert!(e.contains("leads outside the checkout"), "{out}: {e}");
        }
    }

    /// A source that never ends (as `/dev/zero` would, were it let through) is read no
    /// further than the limit: this one fails the test if it is asked for more.
    #[test]
    fn an_endless_source_is_read_no_further_than_the_limit() {
        struct Endless(u64);
        impl std::io::Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.0 += buf.len() as u64;
                if self.0 > 1 << 16 {
                    return Err(std::io::Error::other("read past the limit"));
                }
                buf.fill(b'x');
                Ok(buf.len())
            }
        }
        let e = read_bounded(Endless(0), "zero", "the file", 100).unwrap_err();
        assert!(e.contains("larger than 100 bytes"), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_after_limit_plus_one_bytes() {
        let co = tempfile::tempdir().expect("tmp");
        std::fs::write(co.path().join("big"), "x".repeat(101)).expect("write");
        std::fs::write(co.path().join("fits"), "x".repeat(100)).expect("write");
        let e = read_inside(co.path(), "big", "the file", 100).unwrap_err();
        assert!(e.contains("larger than 100 bytes"), "{e}");
        assert!(read_inside(co.path(), "fits", "the file", 100).is_ok());
    }
}
