//! One request to GitHub with the project's policy: a timeout, retries with backoff and
//! jitter for idempotent calls, rate-limit waits, metrics, and a token refresh on 401.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::BodyExt as _;

use super::error::GitHubError;

/// Waits; tests replace it to record the waits instead of spending them.
pub trait Sleeper: Send + Sync + 'static {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// `tokio::time::sleep`.
#[derive(Debug, Default)]
pub struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(d))
    }
}

/// The answer to one request.
#[derive(Debug)]
pub struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// What to do after an answer.
#[derive(Debug, PartialEq)]
pub enum Next {
    Done,
    /// Wait this long, then send again.
    RetryAfter(Duration),
    Fail,
}

/// Longest single wait for a rate limit (GitHub's windows are an hour at most).
pub const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(3600);

/// Pure retry policy: the status and headers of an answer, the attempt (from 1), whether the
/// call may be repeated without doubling an effect.
pub fn decide(
    status: StatusCode,
    headers: &HeaderMap,
    attempt: u32,
    max: u32,
    idempotent: bool,
    now: SystemTime,
    jitter: f64,
) -> Next {
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    if status == StatusCode::FORBIDDEN || status == StatusCode::TOO_MANY_REQUESTS {
        // Secondary limit: Retry-After seconds. Primary limit: remaining 0 until reset.
        if let Some(secs) = header("retry-after").and_then(|v| v.trim().parse::<u64>().ok()) {
            return Next::RetryAfter(Duration::from_secs(secs).min(MAX_RATE_LIMIT_WAIT));
        }
        if header("x-ratelimit-remaining") == Some("0") {
            let reset = header("x-ratelimit-reset")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0);
            let now_s = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
            let wait = Duration::from_secs(reset.saturating_sub(now_s).max(1));
            return Next::RetryAfter(wait.min(MAX_RATE_LIMIT_WAIT));
        }
        if status == StatusCode::TOO_MANY_REQUESTS && attempt < max {
            return Next::RetryAfter(backoff(attempt, jitter));
        }
        return Next::Fail;
    }
    if status.is_server_error() {
        if idempotent && attempt < max {
            return Next::RetryAfter(backoff(attempt, jitter));
        }
        return Next::Fail;
    }
    if status.is_success() || status.is_redirection() {
        Next::Done
    } else {
        Next::Fail
    }
}

/// 0.5 s doubling per attempt, jittered into [d/2, d].
pub fn backoff(attempt: u32, jitter: f64) -> Duration {
    crate::core::backoff::retry_delay(
        attempt,
        Duration::from_millis(500),
        Duration::from_secs(30),
        jitter,
    )
}

/// When a successful answer says the window is used up (`x-ratelimit-remaining: 0`): how long
/// until `x-ratelimit-reset`.
pub fn exhausted_until(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    if header("x-ratelimit-remaining").map(str::trim) != Some("0") {
        return None;
    }
    let reset = header("x-ratelimit-reset")?.trim().parse::<u64>().ok()?;
    let now_s = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now_s).max(1)).min(MAX_RATE_LIMIT_WAIT))
}

/// The largest API answer read (downloads are streamed instead): far above any JSON GitHub
/// sends, so that a broken or hostile server cannot make the service hold without end.
pub const MAX_ANSWER: usize = 64 * 1024 * 1024;

pub(super) async fn send_once(
    client: &octocrab::Octocrab,
    method: &Method,
    url: &str,
    body: Option<&serde_json::Value>,
    headers: Option<&HeaderMap>,
    timeout: Duration,
) -> Result<Response, String> {
    let call = async {
        let resp = match *method {
            Method::GET => client._get_with_headers(url, headers.cloned()).await,
            Method::POST => client._post(url, body).await,
            Method::PATCH => client._patch(url, body).await,
            Method::PUT => client._put(url, body).await,
            Method::DELETE => client._delete(url, body).await,
            _ => return Err(format!("unsupported method {method}")),
        }
        .map_err(|e| describe(&e))?;
        let (parts, body) = resp.into_parts();
        let body = http_body_util::Limited::new(body, MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| match e.downcast::<octocrab::Error>() {
                Ok(e) => format!("reading the body: {}", describe(&e)),
                Err(e) => format!("reading the body: {e} (at most {} MiB)", MAX_ANSWER >> 20),
            })?
            .to_bytes();
        Ok(Response {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    };
    match tokio::time::timeout(timeout, call).await {
        Ok(r) => r,
        Err(_) => Err(format!("no answer within {} s", timeout.as_secs())),
    }
}

fn describe(e: &octocrab::Error) -> String {
    // octocrab's Display can be terse; the source chain says what happened.
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    s
}

/// Turns a final non-success answer into a typed error.
pub fn error_for(method: &Method, path: &str, resp: &Response) -> GitHubError {
    let message = serde_json::from_slice::<serde_json::Value>(&resp.body)
        .ok()
        .and_then(|v| {
            v.get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| {
            String::from_utf8_lossy(&resp.body[..resp.body.len().min(200)]).into_owned()
        });
    let (method, path) = (method.to_string(), path.to_string());
    match resp.status.as_u16() {
        404 => GitHubError::NotFound { method, path },
        403 => GitHubError::Forbidden {
            method,
            path,
            message,
        },
        422 => GitHubError::Unprocessable {
            method,
            path,
            message,
        },
        status => GitHubError::Status {
            method,
            path,
            status,
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    const NOW: u64 = 1_700_000_000;

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(NOW)
    }

    #[test]
    fn server_errors_retry_only_idempotent_calls() {
        let h = HeaderMap::new();
        assert!(matches!(
            decide(StatusCode::BAD_GATEWAY, &h, 1, 4, true, now(), 0.0),
            Next::RetryAfter(_)
        ));
        assert_eq!(
            decide(StatusCode::BAD_GATEWAY, &h, 1, 4, false, now(), 0.0),
            Next::Fail
        );
        assert_eq!(
            decide(StatusCode::BAD_GATEWAY, &h, 4, 4, true, now(), 0.0),
            Next::Fail
        );
    }

    #[test]
    fn rate_limits_wait_as_told() {
        let h = headers(&[("retry-after", "30")]);
        assert_eq!(
            decide(StatusCode::FORBIDDEN, &h, 1, 4, false, now(), 0.0),
            Next::RetryAfter(Duration::from_secs(30))
        );
        let reset = (NOW + 120).to_string();
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", &reset),
        ]);
        assert_eq!(
            decide(StatusCode::FORBIDDEN, &h, 1, 4, false, now(), 0.0),
            Next::RetryAfter(Duration::from_secs(120))
        );
        // A plain 403 (permissions) is final.
        assert_eq!(
            decide(
                StatusCode::FORBIDDEN,
                &HeaderMap::new(),
                1,
                4,
                true,
                now(),
                0.0
            ),
            Next::Fail
        );
    }

    #[test]
    fn other_client_errors_are_final() {
        for s in [400u16, 401, 404, 422] {
            assert_eq!(
                decide(
                    StatusCode::from_u16(s).unwrap(),
                    &HeaderMap::new(),
                    1,
                    4,
                    true,
                    now(),
                    0.0
                ),
                Next::Fail
            );
        }
        assert_eq!(
            decide(StatusCode::OK, &HeaderMap::new(), 1, 4, true, now(), 0.0),
            Next::Done
        );
    }
}
