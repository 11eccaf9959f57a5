//! What a GitHub call can fail with, typed so callers can act on it.

/// A failed GitHub call.
#[derive(Debug, thiserror::Error)]
pub enum GitHubError {
    #[error("{method} {path}: not found (404)")]
    NotFound { method: String, path: String },
    #[error("{method} {path}: forbidden (403): {message}")]
    Forbidden {
        method: String,
        path: String,
        message: String,
    },
    #[error("{method} {path}: unprocessable (422): {message}")]
    Unprocessable {
        method: String,
        path: String,
        message: String,
    },
    #[error("{method} {path}: GitHub answered {status}: {message}")]
    Status {
        method: String,
        path: String,
        status: u16,
        message: String,
    },
    #[error("{method} {path}: {message}")]
    Transport {
        method: String,
        path: String,
        message: String,
    },
    #[error("GitHub returned an unexpected body for {path}: {message}")]
    Decode { path: String, message: String },
    #[error("GitHub App authentication failed: {0}")]
    Auth(String),
}

impl GitHubError {
    /// Worth retrying the whole job later (server faults, timeouts, rate limits).
    pub fn is_transient(&self) -> bool {
        match self {
            GitHubError::Transport { .. } => true,
            GitHubError::Status { status, .. } => *status >= 500 || *status == 429,
            GitHubError::Forbidden { message, .. } => message.contains("rate limit"),
            _ => false,
        }
    }
}
