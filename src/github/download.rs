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
        pump(resp.into_body(), cap, sink).await
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| err(format!("no complete answer within {} s", timeout.as_secs())))?
}

/// Sends `body` to `sink` chunk by chunk, stopping after `cap` bytes or when the receiver is
/// gone. True when the body was longer than `cap`.
pub(super) async fn pump<B>(
    mut body: B,
    cap: usize,
    sink: &tokio::sync::mpsc::Sender<Bytes>,
) -> Result<bool, GitHubError>
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
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
}

/// How many chunks may wait for the reader.
const QUEUED_CHUNKS: usize = 16;

/// `std::io::Read` over chunks sent from async code, read on a blocking thread; the input ends
/// when the sender is dropped.
pub struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<Bytes>,
    current: Bytes,
}

/// A channel whose receiving end `consume` reads as `std::io::Read` on a blocking thread: how a
/// download or an upload is parsed (or written to a file) as it arrives, in flat memory.
pub fn read_blocking<T: Send + 'static>(
    consume: impl FnOnce(ChannelReader) -> T + Send + 'static,
) -> (tokio::sync::mpsc::Sender<Bytes>, tokio::task::JoinHandle<T>) {
    let (tx, rx) = tokio::sync::mpsc::channel(QUEUED_CHUNKS);
    let reader = ChannelReader {
        rx,
        current: Bytes::new(),
    };
    (tx, tokio::task::spawn_blocking(move || consume(reader)))
}

impl std::io::Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.blocking_recv() {
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
