//! App-level operations: the manifest conversion, webhook deliveries and redelivery, and the
//! installations, repositories and open PRs the catch-up pass walks.

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::api::decode;
use super::types::RepoName;
use super::{As, GitHub, GitHubError};

/// What GitHub returns when a manifest registration is converted.
#[derive(Debug, Deserialize)]
pub struct ConvertedApp {
    pub id: u64,
    pub slug: Option<String>,
    pub pem: String,
    pub webhook_secret: Option<String>,
    pub html_url: Option<String>,
    /// The App's OAuth client, for signing in to the dashboard.
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub client_secret: Option<String>,
}

/// One recent delivery of the App's webhook.
#[derive(Clone, Debug, Deserialize)]
pub struct HookDelivery {
    pub id: u64,
    pub guid: String,
    #[serde(default)]
    pub status_code: u16,
    #[serde(default)]
    pub redelivery: bool,
    #[serde(default)]
    pub event: String,
}

impl HookDelivery {
    pub fn failed(&self) -> bool {
        !(200..300).contains(&self.status_code)
    }
}

/// `POST /app-manifests/{code}/conversions` (no authentication: the code is the credential).
pub async fn convert_manifest(api_url: &str, code: &str) -> Result<ConvertedApp, GitHubError> {
    let api = api_url.trim_end_matches('/');
    let client = octocrab::Octocrab::builder()
        .base_uri(api)
        .map_err(|e| GitHubError::Auth(format!("GITHUB_API_URL is not a URL: {e}")))?
        .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
        .build()
        .map_err(|e| GitHubError::Auth(e.to_string()))?;
    let code: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    // The code converts into the App's private key: it never appears in an error or a log.
    let path = "/app-manifests/{code}/conversions".to_string();
    let resp = super::transport::send_once(
        &client,
        &Method::POST,
        &format!("{api}/app-manifests/{code}/conversions"),
        Some(&json!({})),
        None,
        std::time::Duration::from_secs(20),
    )
    .await
    .map_err(|message| GitHubError::Transport {
        method: "POST".into(),
        path: path.clone(),
        message,
    })?;
    if !resp.status.is_success() {
        return Err(super::transport::error_for(&Method::POST, &path, &resp));
    }
    serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
        path,
        message: e.to_string(),
    })
}

impl GitHub {
    /// `GET /app/hook/deliveries` (newest first), up to `pages` pages.
    pub async fn hook_deliveries(&self, pages: u32) -> Result<Vec<HookDelivery>, GitHubError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..pages {
            let path = match &cursor {
                Some(c) => format!("/app/hook/deliveries?per_page=100&cursor={c}"),
                None => "/app/hook/deliveries?per_page=100".to_string(),
            };
            let resp = self.raw(As::App, Method::GET, &path, None, true).await?;
            let list: Vec<HookDelivery> =
                serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            let n = list.len();
            all.extend(list);
            // GitHub pages this list with a cursor in the `Link` header.
            cursor = resp
                .headers
                .get("link")
                .and_then(|v| v.to_str().ok())
                .and_then(|l| l.split(',').find(|p| p.contains("rel=\"next\"")))
                .and_then(|p| p.split("cursor=").nth(1))
                .map(|c| c.split(['&', '>']).next().unwrap_or("").to_string());
            if n < 100 || cursor.is_none() {
                break;
            }
        }
        Ok(all)
    }

    /// `POST /app/hook/deliveries/{id}/attempts`: ask GitHub to send it again.
    pub async fn redeliver(&self, id: u64) -> Result<(), GitHubError> {
        if self.dry_run() {
            tracing::info!(
                dry_run = true,
                delivery = id,
                "dry run: not asking GitHub to redeliver"
            );
            return Ok(());
        }
        self.raw(
            As::App,
            Method::POST,
            &format!("/app/hook/deliveries/{id}/attempts"),
            None,
            false,
        )
        .await
        .map(|_| ())
    }

    /// The login of the App's bot (`<slug>[bot]`), from `GET /app` once per process.
    pub async fn bot_login(&self) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct A {
            slug: String,
        }
        let slug = self
            .inner
            .slug
            .get_or_try_init(|| async {
                let path = "/app";
                let resp = self.raw(As::App, Method::GET, path, None, true).await?;
                decode::<A>(path, &resp).map(|a| a.slug)
            })
            .await?;
        Ok(format!("{slug}[bot]"))
    }

    /// `GET /app/installations`
    pub async fn installations(&self) -> Result<Vec<i64>, GitHubError> {
        #[derive(Deserialize)]
        struct I {
            id: i64,
        }
        let mut all = Vec::new();
        for page in 1..=10 {
            let path = format!("/app/installations?per_page=100&page={page}");
            let resp = self.raw(As::App, Method::GET, &path, None, true).await?;
            let list: Vec<I> =
                serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
                    path,
                    message: e.to_string(),
                })?;
            let n = list.len();
            all.extend(list.into_iter().map(|i| i.id));
            if n < 100 {
                break;
            }
        }
        Ok(all)
    }

    /// `GET /installation/repositories`
    pub async fn installation_repositories(&self, inst: i64) -> Result<Vec<RepoName>, GitHubError> {
        #[derive(Deserialize)]
        struct R {
            full_name: String,
        }
        #[derive(Deserialize)]
        struct L {
            repositories: Vec<R>,
        }
        let mut all = Vec::new();
        for page in 1..=10 {
            let path = format!("/installation/repositories?per_page=100&page={page}");
            let resp = self
                .raw(As::Installation(inst), Method::GET, &path, None, true)
                .await?;
            let l: L = serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
                path,
                message: e.to_string(),
            })?;
            let n = l.repositories.len();
            all.extend(
                l.repositories
                    .into_iter()
                    .filter_map(|r| RepoName::parse(&r.full_name)),
            );
            if n < 100 {
                break;
            }
        }
        Ok(all)
    }

    /// `GET /repos/{o}/{r}/pulls?state=open`: (number, head SHA), first page only.
    pub async fn open_pulls(
        &self,
        inst: i64,
        repo: &RepoName,
    ) -> Result<Vec<(u64, String)>, GitHubError> {
        #[derive(Deserialize)]
        struct H {
            sha: String,
        }
        #[derive(Deserialize)]
        struct P {
            number: u64,
            head: H,
        }
        let path =
            format!("/repos/{repo}/pulls?state=open&per_page=100&sort=updated&direction=desc");
        let resp = self
            .raw(As::Installation(inst), Method::GET, &path, None, true)
            .await?;
        let list: Vec<P> = serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
            path,
            message: e.to_string(),
        })?;
        Ok(list.into_iter().map(|p| (p.number, p.head.sha)).collect())
    }
}
