//! What handlers share: the GitHub client, the store, the clock, the queue, and caches of what
//! rarely changes (default branch, label existence, parsed configs by ETag and blob SHA). The
//! pull request itself is never cached: every job reads it live.

use std::sync::Arc;
use std::time::Duration;

use moka::sync::Cache;

use crate::clock::Clock;
use crate::core::config::{self, ConfigError, ConfigSource, RepoConfig};
use crate::github::types::FileRead;
use crate::github::types::RepoName;
use crate::github::{GitHub, GitHubError};
use crate::queue::Queue;
use crate::store::Store;

use super::JobError;

/// A parsed config and the error that made it fall back to the defaults.
type LoadedConfig = (RepoConfig, Option<ConfigError>);

#[derive(Clone)]
struct CachedConfig {
    etag: Option<String>,
    sha: String,
    /// The repository the file came from (`owner/.github` for the owner's), empty for none.
    from: String,
    loaded: LoadedConfig,
    /// When it was last asked for (the service's clock).
    checked_ms: i64,
}

/// How long a config read is trusted without asking GitHub again (up to 60 s, docs/configuration.md).
const CONFIG_FRESH_MS: i64 = 60_000;
/// How long an answer to "may this person act here" is trusted.
const PERMISSION_TTL_MS: i64 = 5 * 60 * 1000;

/// A workflow's declared inputs (`None`: missing, or no `workflow_dispatch`), and whether it
/// runs the find round.
type WorkflowInfo = (Option<Vec<String>>, bool);

#[derive(Clone)]
pub struct Services {
    pub github: GitHub,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// Where handlers submit follow-up work.
    pub queue: Queue,
    /// Repository → its config as last read: ETag (for conditional requests: a 304 costs no
    /// rate limit), blob SHA (parsed again only when it changes) and the parsed config.
    configs: Cache<String, CachedConfig>,
    /// Repository → default branch.
    default_branches: Cache<String, String>,
    /// (repository, label) known to exist.
    labels: Cache<(String, String), ()>,
    /// Repository → the App's installation on it, for work that no webhook names one for.
    installations: Cache<String, i64>,
    /// (repository, lowercase login) → (may act, trusted until this Unix ms of `clock`).
    permissions: Cache<(String, String), (bool, i64)>,
    /// (repository, workflow file) → the `workflow_dispatch` inputs it declares on the default
    /// branch (`None`: missing or not dispatchable), for a minute like the config.
    workflows: Cache<(String, String), WorkflowInfo>,
}

impl Services {
    pub fn new(github: GitHub, store: Store, clock: Arc<dyn Clock>, queue: Queue) -> Self {
        Services {
            github,
            store,
            clock,
            queue,
            configs: Cache::new(10_000),
            default_branches: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(600))
                .build(),
            labels: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(3600))
                .build(),
            installations: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(3600))
                .build(),
            permissions: Cache::new(10_000),
            workflows: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(60))
                .build(),
        }
    }

    /// The default branch, and the `workflow_dispatch` inputs the workflow declares there
    /// (`None`: the file is missing or cannot be dispatched). Cached for a minute.
    pub async fn workflow_inputs(
        &self,
        inst: i64,
        repo: &RepoName,
        workflow: &str,
    ) -> Result<(String, Option<Vec<String>>), JobError> {
        let default = self.default_branch(inst, repo).await?;
        let inputs = self.workflow_info(inst, repo, workflow, &default).await?.0;
        Ok((default, inputs))
    }

    /// Whether the rerun workflow on the default branch runs the find round (an older copy of
    /// repro-gate's template does not: core::verify::find::workflow_finds).
    pub async fn workflow_finds(
        &self,
        inst: i64,
        repo: &RepoName,
        workflow: &str,
    ) -> Result<bool, JobError> {
        let default = self.default_branch(inst, repo).await?;
        Ok(self.workflow_info(inst, repo, workflow, &default).await?.1)
    }

    /// The workflow's declared inputs and whether it runs the find round (cached).
    async fn workflow_info(
        &self,
        inst: i64,
        repo: &RepoName,
        workflow: &str,
        default: &str,
    ) -> Result<WorkflowInfo, JobError> {
        let key = (repo.to_string(), workflow.to_string());
        if let Some(info) = self.workflows.get(&key) {
            return Ok(info);
        }
        let text = self
            .github
            .workflow_text(inst, repo, workflow, default)
            .await
            .map_err(gh)?;
        let inputs = text
            .as_deref()
            .and_then(crate::core::rerun::dispatch_inputs);
        let finds = text
            .as_deref()
            .is_some_and(crate::core::verify::find::workflow_finds);
        let info = (inputs, finds);
        self.workflows.insert(key, info.clone());
        Ok(info)
    }

    /// The repository's default branch (cached for ten minutes).
    pub async fn default_branch(&self, inst: i64, repo: &RepoName) -> Result<String, JobError> {
        let key = repo.to_string();
        if let Some(b) = self.default_branches.get(&key) {
            return Ok(b);
        }
        let branch = self.github.default_branch(inst, repo).await.map_err(gh)?;
        self.default_branches.insert(key, branch.clone());
        Ok(branch)
    }

    /// The App's installation on the repository (cached for an hour).
    pub async fn installation_of(&self, repo: &RepoName) -> Result<i64, GitHubError> {
        let key = repo.to_string();
        if let Some(i) = self.installations.get(&key) {
            return Ok(i);
        }
        let inst = self.github.repo_installation(repo).await?;
        self.installations.insert(key, inst);
        Ok(inst)
    }

    /// Remembers a default branch a payload named (saves a request).
    pub fn prime_default_branch(&self, repo: &RepoName, branch: &str) {
        if !branch.is_empty() {
            self.default_branches
                .insert(repo.to_string(), branch.to_string());
        }
    }

    /// Whether the label exists in the repository (a yes is cached; a no is asked again).
    pub async fn label_exists(
        &self,
        inst: i64,
        repo: &RepoName,
        label: &str,
    ) -> Result<bool, JobError> {
        let key = (repo.to_string(), label.to_string());
        if self.labels.contains_key(&key) {
            return Ok(true);
        }
        let exists = self
            .github
            .label_exists(inst, repo, label)
            .await
            .map_err(gh)?;
        if exists {
            self.labels.insert(key, ());
        }
        Ok(exists)
    }

    /// A recent answer to "may `user` act in `repo`" (five minutes by the service's clock).
    pub fn cached_may_act(&self, repo: &RepoName, user: &str) -> Option<bool> {
        let key = (repo.to_string(), user.to_ascii_lowercase());
        self.permissions
            .get(&key)
            .and_then(|(ok, until)| (self.clock.now_ms() < until).then_some(ok))
    }

    pub fn remember_may_act(&self, repo: &RepoName, user: &str, ok: bool) {
        let key = (repo.to_string(), user.to_ascii_lowercase());
        self.permissions
            .insert(key, (ok, self.clock.now_ms() + PERMISSION_TTL_MS));
    }

    /// Remembers that a label exists (after creating it).
    pub fn label_created(&self, repo: &RepoName, label: &str) {
        self.labels
            .insert((repo.to_string(), label.to_string()), ());
    }

    /// The repository's config from its default branch (never the PR head); with none there,
    /// the same path in the owner's `.github` repository; else the defaults (docs/configuration.md). Trusted for
    /// a minute (a change applies within one); then asked for conditionally (a 304 costs no
    /// rate limit) and parsed again only when the blob changed.
    pub async fn repo_config(
        &self,
        inst: i64,
        repo: &RepoName,
    ) -> Result<(RepoConfig, Option<ConfigError>), JobError> {
        let key = repo.to_string();
        let known = self.configs.get(&key);
        let now = self.clock.now_ms();
        if let Some(c) = &known
            && now - c.checked_ms < CONFIG_FRESH_MS
            && now >= c.checked_ms
        {
            return Ok(c.loaded.clone());
        }
        let own = known.as_ref().filter(|c| c.from == repo.to_string());
        let found = self.read_config(inst, repo, own).await?;
        let found = match found {
            Some(f) => Some(f),
            None if repo.name != ".github" => {
                let org = RepoName {
                    owner: repo.owner.clone(),
                    name: ".github".into(),
                };
                let theirs = known.as_ref().filter(|c| c.from == org.to_string());
                self.read_config(inst, &org, theirs).await?
            }
            None => None,
        };
        let entry = match found {
            Some(c) => c,
            None => CachedConfig {
                etag: None,
                sha: String::new(),
                from: String::new(),
                loaded: (RepoConfig::default(), None),
                checked_ms: now,
            },
        };
        let loaded = entry.loaded.clone();
        self.configs.insert(
            key,
            CachedConfig {
                checked_ms: now,
                ..entry
            },
        );
        Ok(loaded)
    }

    /// One repository's `.github/repro-gate.yml` (conditional on what `known` read of it);
    /// `None` when it has none (or the repository is not there for this installation).
    async fn read_config(
        &self,
        inst: i64,
        repo: &RepoName,
        known: Option<&CachedConfig>,
    ) -> Result<Option<CachedConfig>, JobError> {
        let branch = match self.default_branches.get(&repo.to_string()) {
            Some(b) => b,
            None => match self.github.default_branch(inst, repo).await {
                Ok(b) => {
                    self.default_branches.insert(repo.to_string(), b.clone());
                    b
                }
                // The owner's `.github` repository may not exist, or not be in this installation.
                Err(GitHubError::NotFound { .. } | GitHubError::Forbidden { .. })
                    if repo.name == ".github" =>
                {
                    return Ok(None);
                }
                Err(e) => return Err(gh(e)),
            },
        };
        let read = self
            .github
            .file_at_if_changed(
                inst,
                repo,
                config::CONFIG_PATH,
                &branch,
                known.and_then(|c| c.etag.as_deref()),
            )
            .await;
        let read = match read {
            Ok(r) => r,
            // The owner's `.github` repository may not exist, or not be in this installation.
            Err(GitHubError::NotFound { .. } | GitHubError::Forbidden { .. })
                if repo.name == ".github" =>
            {
                return Ok(None);
            }
            Err(e) => return Err(gh(e)),
        };
        let source = |from: &RepoName| {
            if from.name == ".github" {
                ConfigSource::Organisation(from.to_string())
            } else {
                ConfigSource::Repository
            }
        };
        match (read, known) {
            (FileRead::Missing, _) => Ok(None),
            (FileRead::NotModified, Some(c)) => Ok(Some(c.clone())),
            (FileRead::NotModified, None) => Err(JobError::Transient(anyhow::anyhow!(
                "GitHub answered 304 Not Modified to an unconditional read of {}",
                config::CONFIG_PATH
            ))),
            (FileRead::Found { text, sha, etag }, known) => {
                let mut loaded = match known {
                    Some(c) if c.sha == sha => c.loaded.clone(),
                    _ => config::load(Some(&text)),
                };
                loaded.0.source = source(repo);
                Ok(Some(CachedConfig {
                    etag,
                    sha,
                    from: repo.to_string(),
                    loaded,
                    checked_ms: 0,
                }))
            }
        }
    }

    /// Writes the App's check run for a SHA: nothing when the store says it already shows this;
    /// else an update of the run the store remembers, or (when the store has none: another
    /// replica, a lost write) the listing's find-then-create. Answers its id.
    pub async fn write_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        run: &crate::github::types::CheckRunWrite,
    ) -> Result<u64, JobError> {
        let repo_s = repo.to_string();
        let digest = run.digest();
        let known = self
            .store
            .check_run(&repo_s, &run.head_sha, &run.name)
            .await
            .map_err(store_err)?;
        let id = match known {
            Some((id, d)) if d == digest => return Ok(id),
            Some((id, _)) => match self.github.update_check_run(inst, repo, id, run).await {
                Ok(()) => id,
                Err(GitHubError::NotFound { .. }) => self
                    .github
                    .upsert_check_run(inst, repo, run)
                    .await
                    .map_err(gh)?,
                Err(e) => return Err(gh(e)),
            },
            None => self
                .github
                .upsert_check_run(inst, repo, run)
                .await
                .map_err(gh)?,
        };
        if id != 0 {
            self.store
                .set_check_run(&repo_s, &run.head_sha, &run.name, id, &digest)
                .await
                .map_err(store_err)?;
        }
        Ok(id)
    }

    /// Reads a file from the default branch.
    pub async fn default_branch_file(
        &self,
        inst: i64,
        repo: &RepoName,
        path: &str,
    ) -> Result<Option<String>, JobError> {
        let branch = self.default_branch(inst, repo).await?;
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
