//! Acting for a signed-in person (the dashboard, docs/dashboard.md): GitHub's OAuth web flow of the App
//! (the code exchanged on GitHub's web host) and the routes a user access token may call:
//! who they are, and which of the App's installations and repositories they can read.
//! Tokens and the client secret are never logged.

use std::time::Duration;

use http::Method;
use octocrab::Octocrab;
use secrecy::{ExposeSecret as _, SecretString};
use serde::Deserialize;

use super::GitHubError;
use super::transport::{Response, error_for, send_once};

/// GitHub's web host for an API URL: `https://api.github.com` → `https://github.com`,
/// `https://HOST/api/v3` (Enterprise Server) → `https://HOST`, anything else (a test server)
/// itself.
pub fn web_url(api_url: &str) -> String {
    let api = api_url.trim_end_matches('/');
    if api == "https://api.github.com" {
        return "https://github.com".into();
    }
    api.strip_suffix("/api/v3").unwrap_or(api).to_string()
}

/// A user access token and how long it lasts.
pub struct UserToken {
    pub token: SecretString,
    pub expires_in: Option<u64>,
}

/// The OAuth client of the App and the API, for one signed-in user at a time.
#[derive(Clone)]
pub struct UserClient {
    api_url: String,
    web_url: String,
    client_id: String,
    client_secret: SecretString,
    timeout: Duration,
}

const MAX_PAGES: u32 = 20;

impl UserClient {
    pub fn new(api_url: &str, client_id: String, client_secret: SecretString) -> UserClient {
        UserClient {
            api_url: api_url.trim_end_matches('/').to_string(),
            web_url: web_url(api_url),
            client_id,
            client_secret,
            timeout: Duration::from_secs(10),
        }
    }

    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// GitHub's web host (links to pull requests).
    pub fn web_url(&self) -> &str {
        &self.web_url
    }

    /// Where the browser is sent to sign in.
    pub fn authorize_url(&self, redirect_uri: &str, state: &str) -> String {
        let q = |s: &str| super::api::encode_query(s);
        format!(
            "{}/login/oauth/authorize?client_id={}&redirect_uri={}&state={}&allow_signup=false",
            self.web_url,
            q(&self.client_id),
            q(redirect_uri),
            q(state)
        )
    }

    fn octocrab(&self, base: &str, token: Option<&SecretString>) -> Result<Octocrab, GitHubError> {
        let mut b = Octocrab::builder()
            .base_uri(base)
            .map_err(|e| GitHubError::Auth(format!("GITHUB_API_URL is not a URL: {e}")))?
            .add_header(http::header::ACCEPT, "application/json".to_string())
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .set_connect_timeout(Some(self.timeout))
            .set_read_timeout(Some(self.timeout));
        if let Some(t) = token {
            b = b.user_access_token(t.expose_secret().to_string());
        }
        b.build()
            .map_err(|e| GitHubError::Auth(format!("building the HTTP client: {e}")))
    }

    async fn send(
        &self,
        client: &Octocrab,
        method: Method,
        url: &str,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<Response, GitHubError> {
        let resp = send_once(client, &method, url, body, None, self.timeout)
            .await
            .map_err(|message| GitHubError::Transport {
                method: method.to_string(),
                path: path.to_string(),
                message,
            })?;
        if !resp.status.is_success() {
            return Err(error_for(&method, path, &resp));
        }
        Ok(resp)
    }

    /// `POST {web}/login/oauth/access_token`: the code for a user access token.
    pub async fn exchange(&self, code: &str, redirect_uri: &str) -> Result<UserToken, GitHubError> {
        #[derive(Deserialize)]
        struct T {
            access_token: Option<String>,
            expires_in: Option<u64>,
            error: Option<String>,
            error_description: Option<String>,
        }
        let path = "/login/oauth/access_token";
        let client = self.octocrab(&self.web_url, None)?;
        let body = serde_json::json!({
            "client_id": self.client_id,
            "client_secret": self.client_secret.expose_secret(),
            "code": code,
            "redirect_uri": redirect_uri,
        });
        let url = format!("{}{path}", self.web_url);
        let resp = self
            .send(&client, Method::POST, &url, path, Some(&body))
            .await?;
        let t: T = serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
            path: path.into(),
            message: e.to_string(),
        })?;
        match (t.access_token, t.error) {
            (Some(tok), None) if !tok.is_empty() => Ok(UserToken {
                token: SecretString::from(tok),
                expires_in: t.expires_in,
            }),
            (_, e) => Err(GitHubError::Auth(format!(
                "GitHub refused the sign-in code: {} ({})",
                e.unwrap_or_else(|| "no token".into()),
                t.error_description.unwrap_or_default()
            ))),
        }
    }

    async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        token: &SecretString,
        path: &str,
    ) -> Result<T, GitHubError> {
        let client = self.octocrab(&self.api_url, Some(token))?;
        let url = format!("{}{path}", self.api_url);
        let resp = self.send(&client, Method::GET, &url, path, None).await?;
        serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
            path: path.to_string(),
            message: e.to_string(),
        })
    }

    /// `DELETE /applications/{client_id}/token`: the token stops working (sign-out). The App
    /// authenticates with its client id and secret (Basic, set here: octocrab's `basic_auth`
    /// sent no header for this call).
    pub async fn revoke(&self, token: &SecretString) -> Result<(), GitHubError> {
        let path = format!(
            "/applications/{}/token",
            super::api::encode_query(&self.client_id)
        );
        let client = Octocrab::builder()
            .base_uri(self.api_url.as_str())
            .map_err(|e| GitHubError::Auth(format!("GITHUB_API_URL is not a URL: {e}")))?
            .add_header(http::header::AUTHORIZATION, {
                use base64::Engine as _;
                let pair = format!("{}:{}", self.client_id, self.client_secret.expose_secret());
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                )
            })
            .add_header(
                http::header::ACCEPT,
                "application/vnd.github+json".to_string(),
            )
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .set_connect_timeout(Some(self.timeout))
            .set_read_timeout(Some(self.timeout))
            .build()
            .map_err(|e| GitHubError::Auth(format!("building the HTTP client: {e}")))?;
        let body = serde_json::json!({ "access_token": token.expose_secret() });
        let url = format!("{}{path}", self.api_url);
        self.send(&client, Method::DELETE, &url, &path, Some(&body))
            .await
            .map(|_| ())
    }

    /// `GET /user` → the login.
    pub async fn login(&self, token: &SecretString) -> Result<String, GitHubError> {
        #[derive(Deserialize)]
        struct U {
            login: String,
        }
        let u: U = self.get_json(token, "/user").await?;
        Ok(u.login)
    }

    /// The App's installations the user can see and, in each, the repositories they can read:
    /// `GET /user/installations`, `GET /user/installations/{id}/repositories`. Full names,
    /// with the installation of each.
    pub async fn readable_repositories(
        &self,
        token: &SecretString,
    ) -> Result<Vec<(String, i64)>, GitHubError> {
        #[derive(Deserialize)]
        struct Inst {
            id: i64,
        }
        #[derive(Deserialize)]
        struct Insts {
            installations: Vec<Inst>,
        }
        #[derive(Deserialize)]
        struct Repo {
            full_name: String,
        }
        #[derive(Deserialize)]
        struct Repos {
            repositories: Vec<Repo>,
        }
        let mut installations = Vec::new();
        for page in 1..=MAX_PAGES {
            let p: Insts = self
                .get_json(
                    token,
                    &format!("/user/installations?per_page=100&page={page}"),
                )
                .await?;
            let n = p.installations.len();
            installations.extend(p.installations.into_iter().map(|i| i.id));
            if n < 100 {
                break;
            }
        }
        let mut out = Vec::new();
        for inst in installations {
            for page in 1..=MAX_PAGES {
                let path =
                    format!("/user/installations/{inst}/repositories?per_page=100&page={page}");
                let p: Repos = match self.get_json(token, &path).await {
                    Ok(p) => p,
                    // No repository of it the user can read.
                    Err(GitHubError::NotFound { .. }) => break,
                    Err(e) => return Err(e),
                };
                let n = p.repositories.len();
                out.extend(p.repositories.into_iter().map(|r| (r.full_name, inst)));
                if n < 100 {
                    break;
                }
            }
        }
        out.sort();
        out.dedup_by(|a, b| a.0.eq_ignore_ascii_case(&b.0));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_host_follows_the_api_url() {
        assert_eq!(web_url("https://api.github.com"), "https://github.com");
        assert_eq!(web_url("https://api.github.com/"), "https://github.com");
        assert_eq!(
            web_url("https://ghe.example.com/api/v3"),
            "https://ghe.example.com"
        );
        assert_eq!(web_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
    }
}
