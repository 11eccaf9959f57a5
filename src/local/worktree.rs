//! The checkout and its temporary worktrees. A [`Worktree`] removes itself when dropped (an
//! error, a panic), and [`Checkout::remove_all`] removes every one this process made (Ctrl-C).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// The git checkout commands run in.
#[derive(Clone)]
pub struct Checkout {
    pub root: PathBuf,
    made: Arc<Mutex<Vec<PathBuf>>>,
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl Checkout {
    /// The checkout holding `dir`.
    pub fn at(dir: &Path) -> Result<Checkout, String> {
        let root = git(dir, &["rev-parse", "--show-toplevel"])
            .map_err(|e| format!("not in a git checkout ({e})"))?;
        Ok(Checkout {
            root: PathBuf::from(root),
            made: Arc::default(),
        })
    }

    pub fn git(&self, args: &[&str]) -> Result<String, String> {
        git(&self.root, args)
    }

    /// A commit's full SHA.
    pub fn commit(&self, rev: &str) -> Result<String, String> {
        if rev.starts_with('-') {
            return Err(format!("{rev:?} is not a revision"));
        }
        self.git(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .map_err(|_| format!("{rev:?} names no commit here"))
    }

    /// The ref `--base` defaults to: what `refs/remotes/origin/HEAD` points at (the remote's
    /// default branch).
    pub fn default_base(&self) -> Result<String, String> {
        self.git(&["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"])
            .map_err(|_| "no --base given and refs/remotes/origin/HEAD is not set: pass --base (e.g. --base origin/main), or run `git remote set-head origin --auto`".to_string())
    }

    /// The merge base of HEAD and `base`.
    pub fn merge_base(&self, base: &str) -> Result<String, String> {
        let base = self.commit(base)?;
        self.git(&["merge-base", "HEAD", &base])
            .map_err(|e| format!("no merge base of HEAD and {base}: {e}"))
    }

    /// Files `from..to` adds or changes (not removes), repository-relative.
    pub fn changed_files(&self, from: &str, to: &str) -> Result<Vec<String>, String> {
        let out = self.git(&["diff", "--name-only", "--diff-filter=ACMR", from, to])?;
        Ok(out
            .lines()
            .map(str::to_string)
            .filter(|l| !l.is_empty())
            .collect())
    }

    /// Whether the work tree has changes not committed (they are not part of a run).
    pub fn dirty(&self) -> bool {
        self.git(&["status", "--porcelain", "--untracked-files=no"])
            .map(|s| !s.is_empty())
            .unwrap_or(false)
    }

    /// A detached worktree of `sha` in a fresh temporary folder.
    pub fn worktree(&self, sha: &str, label: &str) -> Result<Worktree, String> {
        let parent = tempfile::Builder::new()
            .prefix(&format!("repro-gate-{label}-"))
            .tempdir()
            .map_err(|e| format!("a temporary folder: {e}"))?;
        let path = parent.path().join("tree");
        let p = path.to_string_lossy().to_string();
        self.git(&["worktree", "add", "--detach", "--quiet", &p, sha])?;
        if let Ok(mut m) = self.made.lock() {
            m.push(path.clone());
        }
        Ok(Worktree {
            checkout: self.clone(),
            path,
            _parent: Some(parent),
        })
    }

    /// Removes every worktree this process made that is still there (a Ctrl-C).
    pub fn remove_all(&self) {
        let paths: Vec<PathBuf> = self.made.lock().map(|m| m.clone()).unwrap_or_default();
        for p in paths {
            remove(&self.root, &p);
        }
    }
}

fn remove(root: &Path, path: &Path) {
    let p = path.to_string_lossy().to_string();
    let _ = git(root, &["worktree", "remove", "--force", &p]);
    let _ = std::fs::remove_dir_all(path);
    let _ = git(root, &["worktree", "prune"]);
}

/// A worktree, removed (and pruned from `git worktree list`) when dropped.
pub struct Worktree {
    checkout: Checkout,
    pub path: PathBuf,
    _parent: Option<tempfile::TempDir>,
}

impl Worktree {
    /// Lays `files` as they are at `from` over this worktree (a verification's base side, docs/verification.md#what-runs).
    pub fn lay_over(&self, from: &str, files: &[String]) -> Result<(), String> {
        if files.is_empty() {
            return Ok(());
        }
        let mut args = vec!["checkout", from, "--"];
        args.extend(files.iter().map(String::as_str));
        git(&self.path, &args).map(|_| ())
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        remove(&self.checkout.root, &self.path);
        if let Ok(mut m) = self.checkout.made.lock() {
            m.retain(|p| p != &self.path);
        }
    }
}
