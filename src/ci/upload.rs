//! Sends a run's results to the upload route (`POST /api/v1/results`, docs/service.md#http-metrics-and-logs), gzipped JUnit XML,
//! once: a connection error, a 5xx or a 429 is tried again (three tries in all); any other
//! answer is final.

use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// The run the results belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub repo: String,
    pub sha: String,
    pub branch: String,
    pub run: String,
    pub attempt: i64,
    /// The run's page and its pull request, shown beside its failures.
    pub url: Option<String>,
    pub pr: Option<i64>,
}

const TRIES: u32 = 3;
const TIMEOUT: Duration = Duration::from_secs(60);

/// The route's URL: `base` is the service (`https://gate.example.com`) or the route itself.
pub fn url(base: &str, t: &Target) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    let enc = |s: &str| utf8_percent_encode(s, NON_ALPHANUMERIC).to_string();
    let base = base.trim().trim_end_matches('/');
    let route = if base.ends_with("/api/v1/results") {
        base.to_string()
    } else {
        format!("{base}/api/v1/results")
    };
    let mut u = format!(
        "{route}?repo={}&sha={}&branch={}&run={}&attempt={}&format=junit",
        enc(&t.repo),
        enc(&t.sha),
        enc(&t.branch),
        enc(&t.run),
        t.attempt
    );
    if let Some(link) = &t.url {
        u.push_str(&format!("&url={}", enc(link)));
    }
    if let Some(pr) = t.pr {
        u.push_str(&format!("&pr={pr}"));
    }
    u
}

fn gzip(body: &str) -> anyhow::Result<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(body.as_bytes())?;
    Ok(e.finish()?)
}

/// What the route answered, in a line.
pub async fn send(base: &str, token: &str, t: &Target, junit: &str) -> anyhow::Result<String> {
    let body = Bytes::from(gzip(junit)?);
    let url = url(base, t);
    let provider = rustls::crypto::ring::default_provider();
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_native_roots(provider)
        .context("loading the system's TLS roots")?
        .https_or_http()
        .enable_http1()
        .build();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(https);
    let mut last = String::new();
    for attempt in 1..=TRIES {
        let req = http::Request::post(&url)
            .header(http::header::AUTHORIZATION, format!("Bearer {token}"))
            .header(http::header::CONTENT_TYPE, "application/xml")
            .header(http::header::CONTENT_ENCODING, "gzip")
            .header(
                http::header::USER_AGENT,
                concat!("repro-gate/", env!("CARGO_PKG_VERSION")),
            )
            .body(Full::new(body.clone()))
            .context("the upload URL is not valid")?;
        let answer = tokio::time::timeout(TIMEOUT, async {
            let resp = client.request(req).await?;
            let status = resp.status();
            let text = resp.into_body().collect().await?.to_bytes();
            Ok::<_, anyhow::Error>((status, text))
        })
        .await;
        let retry = match answer {
            Ok(Ok((status, text))) => {
                let text = String::from_utf8_lossy(&text[..text.len().min(2048)]).into_owned();
                if status.is_success() {
                    return Ok(text.trim().to_string());
                }
                last = format!("{status}: {}", text.trim());
                status.is_server_error() || status == http::StatusCode::TOO_MANY_REQUESTS
            }
            Ok(Err(e)) => {
                last = format!("{e:#}");
                true
            }
            Err(_) => {
                last = format!("no answer in {} s", TIMEOUT.as_secs());
                true
            }
        };
        if !retry || attempt == TRIES {
            break;
        }
        tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
    }
    anyhow::bail!("the upload failed: {last}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_is_added_to_a_base_and_values_are_encoded() {
        let t = Target {
            repo: "acme/pool".into(),
            sha: "abc".into(),
            branch: "fix/a&b".into(),
            run: "9 1".into(),
            attempt: 2,
            url: None,
            pr: None,
        };
        assert_eq!(
            url("https://gate.example/", &t),
            "https://gate.example/api/v1/results?repo=acme%2Fpool&sha=abc&branch=fix%2Fa%26b&run=9%201&attempt=2&format=junit"
        );
        let linked = Target {
            url: Some("https://github.com/acme/pool/actions/runs/9?x=1&y".into()),
            pr: Some(12),
            ..t.clone()
        };
        assert!(
            url("https://gate.example", &linked).ends_with(
                "&format=junit&url=https%3A%2F%2Fgithub%2Ecom%2Facme%2Fpool%2Factions%2Fruns%2F9%3Fx%3D1%26y&pr=12"
            ),
            "{}",
            url("https://gate.example", &linked)
        );
        assert!(url("http://h/api/v1/results", &t).starts_with("http://h/api/v1/results?repo="));
    }
}
