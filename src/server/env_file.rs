//! The `.env` file the setup flow writes: replaced atomically (a temp file created exclusively
//! beside it, mode 0600, then renamed over it), never written through a symlink, and read to
//! tell whether setup already completed.

use std::io::Write as _;
use std::path::Path;

/// Keys whose presence with a value means the App's credentials are on disk.
const ID: &str = "GITHUB_APP_ID";
const KEYS: &[&str] = &["GITHUB_APP_PRIVATE_KEY", "GITHUB_APP_PRIVATE_KEY_PATH"];

fn value_of<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let l = l
            .trim_start()
            .strip_prefix("export ")
            .unwrap_or(l.trim_start());
        l.strip_prefix(key)?
            .strip_prefix('=')
            .map(|v| v.trim().trim_matches('"'))
            .filter(|v| !v.is_empty())
    })
}

/// True when the file holds an App id and a key (setup has completed).
pub fn has_credentials(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    value_of(&text, ID).is_some() && KEYS.iter().any(|k| value_of(&text, k).is_some())
}

/// Replaces or appends `KEY=value` lines, keeping the file's other lines.
pub fn write(path: &Path, values: &[(&str, String)]) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(format!(
            "{} is a symbolic link; refusing to write credentials through it",
            path.display()
        )));
    }
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut lines: Vec<String> = existing
        .lines()
        .filter(|l| {
            !values
                .iter()
                .any(|(k, _)| l.trim_start().starts_with(&format!("{k}=")))
        })
        .map(str::to_string)
        .collect();
    for (k, v) in values {
        lines.push(format!("{k}={v}"));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ".env".into());
    // A fresh name, created exclusively: a file or link placed there beforehand fails the
    // create instead of receiving the key.
    let tmp = dir.join(format!(".{name}.{}.tmp", crate::random::random_token(16)));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    let result = (|| {
        let mut f = opts.open(&tmp)?;
        f.write_all((lines.join("\n") + "\n").as_bytes())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_recognised_only_when_both_id_and_key_are_set() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".env");
        assert!(!has_credentials(&p));
        std::fs::write(&p, "RUST_LOG=debug\nGITHUB_APP_ID=\n").unwrap();
        assert!(!has_credentials(&p));
        std::fs::write(
            &p,
            "GITHUB_APP_ID=7\nGITHUB_APP_PRIVATE_KEY=\"-----BEGIN\"\n",
        )
        .unwrap();
        assert!(has_credentials(&p));
    }

    #[test]
    fn the_file_is_replaced_with_mode_0600_keeping_other_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".env");
        std::fs::write(&p, "RUST_LOG=debug\nGITHUB_APP_ID=1\n").unwrap();
        write(&p, &[("GITHUB_APP_ID", "42".into())]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "RUST_LOG=debug\nGITHUB_APP_ID=42\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        // No temp file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "mine\n").unwrap();
        let p = dir.path().join(".env");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        assert!(write(&p, &[("GITHUB_APP_ID", "42".into())]).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
    }
}
