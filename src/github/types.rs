//! Domain types going in and out of the client (not octocrab's models).

use serde::{Deserialize, Serialize};

/// `owner/name`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RepoName {
    pub owner: String,
    pub name: String,
}

impl RepoName {
    pub fn parse(full: &str) -> Option<RepoName> {
        let (owner, name) = full.split_once('/')?;
        (!owner.is_empty() && !name.is_empty() && !name.contains('/')).then(|| RepoName {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }
}

impl std::fmt::Display for RepoName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// What the gate needs of a pull request, read live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub head_sha: String,
    pub base_ref: String,
    pub state: String,
    pub draft: bool,
    pub labels: Vec<String>,
    pub author: String,
    /// GitHub's clock: the last change (a push updates it).
    pub updated_at_ms: Option<i64>,
    /// The head is in another repository than the base (a fork, or a fork since deleted):
    /// its code never runs on this repository's runners without a person asking.
    pub fork: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub app_id: Option<u64>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
}

impl CheckRun {
    /// True when this run already shows what `run` would write (a PATCH would change nothing).
    pub fn shows(&self, run: &CheckRunWrite) -> bool {
        let status_matches = match &run.conclusion {
            Some(c) => self.status == "completed" && self.conclusion.as_deref() == Some(c.as_str()),
            None => self.status == "in_progress",
        };
        status_matches
            && self.title.as_deref() == Some(run.title.as_str())
            && self.summary.as_deref() == Some(fit_check_text(&run.summary).as_str())
            && self.text.as_deref().unwrap_or("")
                == run.text.as_deref().map(fit_check_text).unwrap_or_default()
    }
}

/// A button on a check run (GitHub allows three).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckAction {
    pub label: String,
    pub description: String,
    pub identifier: String,
}

/// A check run to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRunWrite {
    pub name: String,
    pub head_sha: String,
    /// `success`, `failure`, `action_required`…; `None`: `in_progress`, no conclusion yet.
    pub conclusion: Option<String>,
    pub title: String,
    pub summary: String,
    pub text: Option<String>,
    pub actions: Vec<CheckAction>,
}

impl CheckRunWrite {
    /// What the run shows, as a digest: the same digest is the same check run on GitHub.
    pub fn digest(&self) -> String {
        use sha2::{Digest as _, Sha256};
        let mut h = Sha256::new();
        for part in [
            self.name.as_str(),
            self.head_sha.as_str(),
            self.conclusion.as_deref().unwrap_or("in_progress"),
            self.title.as_str(),
            &fit_check_text(&self.summary),
            &self.text.as_deref().map(fit_check_text).unwrap_or_default(),
        ] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        for a in &self.actions {
            h.update(a.identifier.as_bytes());
            h.update([0u8]);
        }
        hex::encode(h.finalize())
    }
}

/// A bot account: GitHub's `type: Bot`, or an App's `name[bot]` login.
pub fn is_bot(kind: Option<&str>, login: &str) -> bool {
    kind == Some("Bot") || login.ends_with("[bot]")
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub id: u64,
    pub body: String,
    pub author: String,
    pub author_is_bot: bool,
    /// The App that posted it (`performed_via_github_app`).
    pub via_app: Option<u64>,
    /// RFC 3339.
    pub created_at: Option<String>,
}

impl Comment {
    /// Posted by the App `app` (through its installation).
    pub fn is_by_app(&self, app: u64) -> bool {
        self.via_app == Some(app)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub path: String,
    pub title: Option<String>,
    pub message: String,
    pub raw_details: Option<String>,
    pub level: String,
}

/// A repository permission as GitHub names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permission {
    /// `admin`, `write`, `read`, `none` (the legacy field).
    pub permission: String,
    /// `admin`, `maintain`, `write`, `triage`, `read`, or a custom role.
    pub role_name: Option<String>,
}

impl Permission {
    /// Write, maintain or admin.
    pub fn can_write(&self) -> bool {
        matches!(self.permission.as_str(), "admin" | "write" | "maintain")
            || matches!(
                self.role_name.as_deref(),
                Some("admin" | "maintain" | "write")
            )
    }
}

/// GitHub's limit on check-run summary and text.
pub const MAX_CHECK_TEXT: usize = 65_535;

/// Cuts `s` to GitHub's limit on a char boundary, with a visible note.
pub fn fit_check_text(s: &str) -> String {
    if s.len() <= MAX_CHECK_TEXT {
        return s.to_string();
    }
    const NOTE: &str = "\n\n… (cut to fit GitHub's 65,535-character limit)";
    let mut end = MAX_CHECK_TEXT - NOTE.len();
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{NOTE}", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_on_a_char_boundary_with_a_note() {
        let s = "é".repeat(40_000);
        let cut = fit_check_text(&s);
        assert!(cut.len() <= MAX_CHECK_TEXT);
        assert!(cut.ends_with("limit)"));
        assert_eq!(fit_check_text("short"), "short");
    }

    #[test]
    fn permissions() {
        let p = |perm: &str, role: Option<&str>| Permission {
            permission: perm.into(),
            role_name: role.map(Into::into),
        };
        assert!(p("write", Some("write")).can_write());
        assert!(p("write", Some("maintain")).can_write());
        assert!(p("admin", None).can_write());
        assert!(!p("read", Some("triage")).can_write());
        assert!(!p("none", None).can_write());
    }

    #[test]
    fn repo_names() {
        assert_eq!(RepoName::parse("o/r").unwrap().to_string(), "o/r");
        assert!(RepoName::parse("o").is_none());
        assert!(RepoName::parse("o/r/x").is_none());
    }
}

/// A conditional read of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRead {
    /// Unchanged since the ETag given.
    NotModified,
    Missing,
    Found {
        text: String,
        /// The blob SHA.
        sha: String,
        etag: Option<String>,
    },
}

/// Whether a download stopped at its size cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Truncated(pub bool);
