//! What every endpoint file shares: JSON decoding, GET with pages, redirected downloads, and
//! URL encoding. The endpoints themselves are in `pulls_api`, `repo_api`, `issues_api`,
//! `checks_api`, `actions_api`, `git_api` and `app_api` (see the README's table).

use http::Method;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::rate_gate::Identity;
use super::transport::Response;
use super::types::*;
use super::{As, GitHub, GitHubError};
use http_body_util::BodyExt as _;

const PER_PAGE: u32 = 100;

pub(super) fn decode<T: DeserializeOwned>(path: &str, resp: &Response) -> Result<T, GitHubError> {
    serde_json::from_slice(&resp.body).map_err(|e| GitHubError::Decode {
        path: path.to_string(),
        message: e.to_string(),
    })
}

#[derive(Deserialize)]
pub(super) struct UserJson {
    pub(super) login: String,
    #[serde(rename = "type", default)]
    pub(super) kind: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct AppJson {
    pub(super) id: u64,
}

impl GitHub {
    pub(super) async fn get_json<T: DeserializeOwned>(
        &self,
        inst: i64,
        path: &str,
    ) -> Result<T, GitHubError> {
        let resp = self
            .raw(As::Installation(inst), Method::GET, path, None, true)
            .await?;
        decode(path, &resp)
    }

    /// GET every page of a list (`per_page=100&page=N`), up to `max_pages`.
    pub(super) async fn get_pages<T: DeserializeOwned>(
        &self,
        inst: i64,
        path: &str,
        max_pages: u32,
    ) -> Result<Vec<T>, GitHubError> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut all = Vec::new();
        for page in 1..=max_pages {
            let p = format!("{path}{sep}per_page={PER_PAGE}&page={page}");
            let items: Vec<T> = self.get_json(inst, &p).await?;
            let n = items.len();
            all.extend(items);
            if n < PER_PAGE as usize {
                break;
            }
        }
        Ok(all)
    }

    /// A download GitHub answers with a 302 to a pre-signed URL, streamed to `sink`, at most
    /// `cap` bytes: never held whole. The client follows the redirect itself (dropping the token
    /// when the host changes), so the answer is usually the file; a redirect it did not follow
    /// (another scheme) is fetched without the token. Retried like any GET until the body starts.
    pub(super) async fn download_redirected(
        &self,
        inst: i64,
        path: &str,
        cap: usize,
        timeout: std::time::Duration,
        sink: &tokio::sync::mpsc::Sender<bytes::Bytes>,
    ) -> Result<Truncated, GitHubError> {
        let cfg = &self.inner.config;
        let url = self.url(path);
        let transport = |message: String| GitHubError::Transport {
            method: "GET".into(),
            path: path.to_string(),
            message,
        };
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let client = self.client_for(As::Installation(inst)).await?;
            self.inner
                .gate
                .pass(Identity::Installation(inst), cfg.sleeper.as_ref())
                .await;
            let sent = tokio::time::timeout(cfg.timeout, client._get(url.as_str())).await;
            let resp = match sent {
                Ok(Ok(resp)) => resp,
                Ok(Err(_)) | Err(_) if attempt < cfg.max_attempts => {
                    cfg.sleeper
                        .sleep(super::transport::backoff(attempt, rand::random()))
                        .await;
                    continue;
                }
                Ok(Err(e)) => return Err(transport(e.to_string())),
                Err(_) => return Err(transport("no answer in time".into())),
            };
            let status = resp.status();
            if status.is_success() {
                let body = resp.into_body();
                return tokio::time::timeout(timeout, super::download::pump(body, cap, sink))
                    .await
                    .map_err(|_| {
                        transport(format!("no complete answer within {} s", timeout.as_secs()))
                    })?
                    .map(Truncated);
            }
            if status.is_redirection() {
                let location = resp
                    .headers()
                    .get(http::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| GitHubError::Decode {
                        path: path.to_string(),
                        message: "a redirect without a Location".into(),
                    })?
                    .to_string();
                return super::download::stream(&location, cap, timeout, sink)
                    .await
                    .map(Truncated);
            }
            // An error answer is small; read at most 1 MiB of it for the message.
            let (parts, body) = resp.into_parts();
            let body = http_body_util::Limited::new(body, 1 << 20)
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let answer = Response {
                status: parts.status,
                headers: parts.headers,
                body,
            };
            match super::transport::decide(
                answer.status,
                &answer.headers,
                attempt,
                cfg.max_attempts,
                true,
                std::time::SystemTime::now(),
                rand::random(),
            ) {
                super::transport::Next::RetryAfter(wait) => cfg.sleeper.sleep(wait).await,
                _ => return Err(super::transport::error_for(&Method::GET, path, &answer)),
            }
        }
    }
}

/// RFC 3986's unreserved characters stay; everything else is percent-encoded.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// One path segment (a label, a login, a branch) for a URL.
pub(super) fn encode_path(s: &str) -> String {
    utf8_percent_encode(s, UNRESERVED).to_string()
}

/// A query value for a URL.
pub(crate) fn encode_query(s: &str) -> String {
    encode_path(s)
}

/// A repository file path for a URL: each segment encoded, the slashes kept.
pub(super) fn encode_file_path(path: &str) -> String {
    path.split('/')
        .map(encode_path)
        .collect::<Vec<_>>()
        .join("/")
}
