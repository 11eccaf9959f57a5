//! Downloads from pre-signed URLs (job logs, artifacts): no token (the URL is the credential,
//! and it may be another host), streamed in chunks with a byte cap, and never logged (the URL
//! carries its signature).

use std::time::Duration;

use bytes::Bytes;
use http::Method;
use http_body_util::BodyExt as _;

use super::GitHubError;

fn err(message: impl Into<String>) -> GitHubError {
    GitHubError::Transport {
        method: "GET".into(),
        path: "pre-signed download".into(),
        message: message.into(),
    }
}

/// Streams `url` into `sink`, stopping after `cap` bytes or when the receiver is gone. True
/// when the body was longer than `cap`.
pub async fn stream(
    url: &str,
    cap: usize,
    timeout: Duration,
    sink: &tokio::sync::mpsc::Sender<Bytes>,
) -> Result<bool, GitHubError> {
    let uri: http::Uri = url
        .parse()
        .map_err(|_| err("the download URL GitHub gave is not a URL"))?;
    let origin = format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map(|a| a.as_str()).unwrap_or("")
    );
    let client = octocrab::Octocrab::builder()
        .base_uri(origin.as_str())
        .map_err(|_| err("the download URL has no usable origin"))?
        .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
        .set_connect_timeout(Some(Duration::from_secs(10)))
        .build()
        .map_err(|e| err(e.to_string()))?;
    let work = async {
        let resp = client
            ._get(url)
            .await
            .map_err(|_| err("the download failed to connect or was refused"))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(GitHubError::Status {
                method: Method::GET.to_string(),
                path: "pre-signed download".into(),
                status: status.as_u16(),
                message: "the download was refused".into(),
            });
        }
        let mut body = resp.into_body();
        let mut taken = 0usize;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| err("the download broke off"))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if taken + data.len() > cap {
                let keep = cap - taken;
                let _ = sink.send(data.slice(..keep)).await;
                return Ok(true);
            }
            taken += data.len();
            if sink.send(data).await.is_err() {
                return Ok(false);
            }
        }
        Ok(false)
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| err(format!("no complete answer within {} s", timeout.as_secs())))?
}

/// `std::io::Read` over chunks handed over by a download (on a blocking thread: `next` waits
/// for the next chunk, `None` at the end).
pub struct ChunkReader<F: FnMut() -> Option<Bytes>> {
    next: F,
    current: Bytes,
}

impl<F: FnMut() -> Option<Bytes>> ChunkReader<F> {
    pub fn new(next: F) -> Self {
        ChunkReader {
            next,
            current: Bytes::new(),
        }
    }
}

impl<F: FnMut() -> Option<Bytes>> std::io::Read for ChunkReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match (self.next)() {
                Some(b) => self.current = b,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}
