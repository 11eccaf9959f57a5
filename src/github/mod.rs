//! The one GitHub client: built from `GITHUB_API_URL`, octocrab inside, the project's domain
//! types in and out. REST v3 only. Owns its retry policy (octocrab's is off), authenticates
//! as the App, caches one token per installation, and in dry-run mode turns every write into
//! a log line.

pub mod actions_api;
mod api;
pub mod app_api;
mod auth;
mod checks_api;
mod download;
mod error;
pub mod git_api;
mod issues_api;
mod pulls_api;
pub mod rate_gate;
mod repo_api;
pub mod transport;
pub mod types;
pub mod user_api;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http::Method;
use octocrab::Octocrab;
use secrecy::{ExposeSecret as _, SecretString};
use tokio::sync::Mutex;

pub(crate) use api::encode_query;
pub use auth::AppKey;
pub use download::{ChannelReader, read_blocking};
pub use error::GitHubError;
pub use pulls_api::pull_from_payload;
pub use transport::{Sleeper, TokioSleeper};

use auth::TokenCache;
use rate_gate::{Identity, RateGate};
use transport::{Next, Response, decide, error_for, send_once};

/// How the client behaves.
#[derive(Clone)]
pub struct ClientConfig {
    pub api_url: String,
    pub dry_run: bool,
    pub timeout: Duration,
    /// Attempts for one idempotent call (rate-limit waits do not count).
    pub max_attempts: u32,
    pub sleeper: Arc<dyn Sleeper>,
}

impl ClientConfig {
    pub fn new(api_url: impl Into<String>) -> Self {
        ClientConfig {
            api_url: api_url.into().trim_end_matches('/').to_string(),
            dry_run: false,
            timeout: Duration::from_secs(10),
            max_attempts: 4,
            sleeper: Arc::new(TokioSleeper),
        }
    }
}

/// The GitHub App's client. Cheap to clone.
#[derive(Clone)]
pub struct GitHub {
    inner: Arc<Inner>,
}

struct Inner {
    config: ClientConfig,
    key: AppKey,
    tokens: TokenCache,
    /// One octocrab per installation token, rebuilt when the token changes.
    clients: Mutex<HashMap<i64, (String, Octocrab)>>,
    /// Serialises token minting per process, so a burst of jobs mints one token.
    minting: Mutex<()>,
    /// Closed for an identity while GitHub's rate limit for it lasts.
    gate: RateGate,
    /// The App's slug (`GET /app`), once asked.
    slug: tokio::sync::OnceCell<String>,
}

/// Which identity a call uses.
#[derive(Clone, Copy, Debug)]
pub enum As {
    App,
    Installation(i64),
}

impl GitHub {
    /// The server's secret for session ids (from the App's key).
    pub fn session_key(&self) -> &[u8; 32] {
        self.inner.key.session_key()
    }

    pub fn new(config: ClientConfig, key: AppKey) -> Self {
        GitHub {
            inner: Arc::new(Inner {
                config,
                key,
                tokens: TokenCache::default(),
                slug: tokio::sync::OnceCell::new(),
                clients: Mutex::new(HashMap::new()),
                minting: Mutex::new(()),
                gate: RateGate::default(),
            }),
        }
    }

    pub fn app_id(&self) -> u64 {
        self.inner.key.app_id
    }

    pub fn dry_run(&self) -> bool {
        self.inner.config.dry_run
    }

    fn url(&self, path: &str) -> String {
        if path.starts_with("http://") || path.starts_with("https://") {
            path.to_string()
        } else {
            format!("{}{path}", self.inner.config.api_url)
        }
    }

    fn build(&self, token: &SecretString) -> Result<Octocrab, GitHubError> {
        Octocrab::builder()
            .base_uri(self.inner.config.api_url.as_str())
            .map_err(|e| GitHubError::Auth(format!("GITHUB_API_URL is not a URL: {e}")))?
            .user_access_token(token.expose_secret().to_string())
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .set_connect_timeout(Some(self.inner.config.timeout))
            .set_read_timeout(Some(self.inner.config.timeout))
            .build()
            .map_err(|e| GitHubError::Auth(format!("building the HTTP client: {e}")))
    }

    async fn client_for(&self, who: As) -> Result<Octocrab, GitHubError> {
        match who {
            As::App => {
                let jwt = self
                    .inner
                    .key
                    .jwt(SystemTime::now())
                    .map_err(|e| GitHubError::Auth(e.to_string()))?;
                self.build(&jwt)
            }
            As::Installation(id) => {
                let token = self.installation_token(id).await?;
                let mut clients = self.inner.clients.lock().await;
                let fingerprint = fingerprint(&token);
                if let Some((f, c)) = clients.get(&id)
                    && *f == fingerprint
                {
                    return Ok(c.clone());
                }
                let c = self.build(&token)?;
                clients.insert(id, (fingerprint, c.clone()));
                Ok(c)
            }
        }
    }

    /// The installation's token, minted when missing or near expiry.
    async fn installation_token(&self, id: i64) -> Result<SecretString, GitHubError> {
        if let Some(t) = self.inner.tokens.get(id, SystemTime::now()).await {
            return Ok(t);
        }
        let _one_at_a_time = self.inner.minting.lock().await;
        if let Some(t) = self.inner.tokens.get(id, SystemTime::now()).await {
            return Ok(t);
        }
        #[derive(serde::Deserialize)]
        struct Minted {
            token: String,
            expires_at: chrono::DateTime<chrono::Utc>,
        }
        let path = format!("/app/installations/{id}/access_tokens");
        // Boxed: `raw` reaches this function through `client_for`.
        let resp = Box::pin(self.raw(As::App, Method::POST, &path, None, true)).await?;
        let minted: Minted =
            serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
                path: path.clone(),
                message: e.to_string(),
            })?;
        let expires = SystemTime::UNIX_EPOCH
            + Duration::from_secs(minted.expires_at.timestamp().max(0) as u64);
        let token = SecretString::from(minted.token);
        self.inner.tokens.put(id, token.clone(), expires).await;
        tracing::info!(installation = id, "installation token minted");
        Ok(token)
    }

    /// Sends one call with the retry policy; `idempotent` calls are retried on 5xx and
    /// transport errors. Non-success answers come back as typed errors.
    pub async fn raw(
        &self,
        who: As,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
        idempotent: bool,
    ) -> Result<Response, GitHubError> {
        self.raw_with(who, method, path, body, idempotent, None)
            .await
    }

    /// [`raw`](Self::raw) with extra request headers (conditional requests).
    pub async fn raw_with(
        &self,
        who: As,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
        idempotent: bool,
        headers: Option<&http::HeaderMap>,
    ) -> Result<Response, GitHubError> {
        let cfg = &self.inner.config;
        let url = self.url(path);
        let identity = match who {
            As::App => Identity::App,
            As::Installation(id) => Identity::Installation(id),
        };
        let mut attempt = 0u32;
        let mut refreshed = false;
        loop {
            attempt += 1;
            let client = self.client_for(who).await?;
            // Nothing goes out while a rate limit of this identity lasts, whoever sends it.
            self.inner.gate.pass(identity, cfg.sleeper.as_ref()).await;
            let result = send_once(&client, &method, &url, body, headers, cfg.timeout).await;
            let resp = match result {
                Ok(r) => r,
                Err(message) => {
                    metrics::counter!("repro_gate_github_requests_total", "method" => method.to_string(), "status" => "error").increment(1);
                    if idempotent && attempt < cfg.max_attempts {
                        let wait = transport::backoff(attempt, rand::random());
                        tracing::warn!(%method, path, attempt, error = %message, wait_ms = wait.as_millis() as u64, "GitHub call failed; retrying");
                        cfg.sleeper.sleep(wait).await;
                        continue;
                    }
                    return Err(GitHubError::Transport {
                        method: method.to_string(),
                        path: path.to_string(),
                        message,
                    });
                }
            };
            metrics::counter!("repro_gate_github_requests_total", "method" => method.to_string(), "status" => resp.status.as_u16().to_string()).increment(1);
            if let (As::Installation(id), Some(left)) = (
                who,
                resp.headers
                    .get("x-ratelimit-remaining")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<f64>().ok()),
            ) {
                metrics::gauge!("repro_gate_github_ratelimit_remaining", "installation" => id.to_string()).set(left);
            }
            // The last request of the window went through: the next would be refused.
            if resp.status.is_success()
                && let Some(wait) = transport::exhausted_until(&resp.headers, SystemTime::now())
            {
                tracing::warn!(
                    path,
                    wait_s = wait.as_secs(),
                    "rate limit used up: holding further requests until the reset"
                );
                self.inner.gate.close(identity, wait, SystemTime::now());
            }
            if resp.status == http::StatusCode::UNAUTHORIZED
                && let As::Installation(id) = who
                && !refreshed
            {
                // The token was revoked or expired early: mint a new one once.
                refreshed = true;
                self.inner.tokens.forget(id).await;
                attempt -= 1;
                continue;
            }
            match decide(
                resp.status,
                &resp.headers,
                attempt,
                cfg.max_attempts,
                idempotent,
                SystemTime::now(),
                rand::random(),
            ) {
                Next::Done => return Ok(resp),
                Next::RetryAfter(wait) => {
                    let rate_limited = matches!(resp.status.as_u16(), 403 | 429);
                    tracing::warn!(%method, path, status = resp.status.as_u16(), wait_s = wait.as_secs_f64(), rate_limited, "GitHub asked to wait; retrying after the wait");
                    if rate_limited {
                        // Every request of this identity waits, not only this one; waiting out
                        // a rate limit is not a failed attempt.
                        self.inner.gate.close(identity, wait, SystemTime::now());
                        attempt -= 1;
                    } else {
                        cfg.sleeper.sleep(wait).await;
                    }
                }
                Next::Fail => return Err(error_for(&method, path, &resp)),
            }
        }
    }

    /// A write, or in dry-run mode one log line saying what would have been sent.
    pub(crate) async fn write(
        &self,
        installation: i64,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
        idempotent: bool,
    ) -> Result<Option<Response>, GitHubError> {
        if self.inner.config.dry_run {
            tracing::info!(
                dry_run = true,
                %method,
                path,
                body = %body.map(|b| b.to_string()).unwrap_or_default(),
                "dry run: not sending this write to GitHub"
            );
            return Ok(None);
        }
        self.raw(
            As::Installation(installation),
            method,
            path,
            body,
            idempotent,
        )
        .await
        .map(Some)
    }
}

/// A short, non-reversible tag of a token, to notice a new one without keeping two copies.
fn fingerprint(token: &SecretString) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(token.expose_secret().as_bytes());
    hex::encode(&d[..8])
}
