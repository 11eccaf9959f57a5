//! What handlers share: the GitHub client, the store, the clock, and small caches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::clock::Clock;
use crate::core::config::{self, ConfigError, RepoConfig};
use crate::github::types::RepoName;
use crate::github::{GitHub, GitHubError};
use crate::store::Store;

use super::JobError;

/// A parsed config and the error that made it fall back to the defaults.
type LoadedConfig = (RepoConfig, Option<ConfigError>);
/// (repository, login) → (may act, trusted until this Unix ms).
type PermissionCache = HashMap<(String, String), (bool, i64)>;

#[derive(Clone)]
pub struct Services {
    pub github: GitHub,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Parsed configs by blob SHA (a config changes only with a new blob).
    configs: Arc<Mutex<HashMap<String, LoadedConfig>>>,
    /// Permission answers, briefly: (repo, user) → (can act, until ms).
    pub(crate) permissions: Arc<Mutex<PermissionCache>>,
}

impl Services {
    pub fn new(github: GitHub, store: Store, clock: Arc<dyn Clock>) -> Self {
        Services {
            github,
            store,
            clock,
            configs: Arc::default(),
            permissions: Arc::default(),
        }
    }

    /// The repository's config from its default branch (never the PR head).
    pub async fn repo_config(
        &self,
        inst: i64,
        repo: &RepoName,
    ) -> Result<(RepoConfig, Option<ConfigError>), JobError> {
        let branch = self.github.default_branch(inst, repo).await.map_err(gh)?;
        let Some((text, sha)) = self
            .github
            .file_at(inst, repo, config::CONFIG_PATH, &branch)
            .await
            .map_err(gh)?
        else {
            return Ok((RepoConfig::default(), None));
        };
        let mut cache = self.configs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(&sha) {
            return Ok(hit.clone());
        }
        if cache.len() > 1000 {
            cache.clear();
        }
        let parsed = config::load(Some(&text));
        cache.insert(sha, parsed.clone());
        Ok(parsed)
    }

    /// Reads a file from the default branch.
    pub async fn default_branch_file(
        &self,
        inst: i64,
        repo: &RepoName,
        path: &str,
    ) -> Result<Option<String>, JobError> {
        let branch = self.github.default_branch(inst, repo).await.map_err(gh)?;
        Ok(self
            .github
            .file_at(inst, repo, path, &branch)
            .await
            .map_err(gh)?
            .map(|(t, _)| t))
    }
}

/// GitHub faults are worth retrying later; a 404 or 422 will not change by itself.
pub fn gh(e: GitHubError) -> JobError {
    match e {
        GitHubError::NotFound { .. }
        | GitHubError::Unprocessable { .. }
        | GitHubError::Decode { .. } => JobError::Permanent(anyhow::Error::new(e)),
        other => JobError::Transient(anyhow::Error::new(other)),
    }
}

pub fn store_err(e: anyhow::Error) -> JobError {
    JobError::Transient(e.context("database"))
}
