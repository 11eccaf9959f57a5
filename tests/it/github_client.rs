//! The GitHub client against the fake: tokens, pagination, retries, rate limits, dry run, and
//! no secret in the logs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use repro_gate::github::types::{CheckAction, CheckRunWrite, RepoName};
use repro_gate::github::{AppKey, ClientConfig, GitHub, GitHubError, Sleeper};
use secrecy::SecretString;

use crate::common::TEST_KEY;
use crate::fake_github::{APP_ID, FakeGitHub, Fault};

/// Records waits instead of spending them.
#[derive(Default)]
pub struct RecordingSleeper(pub Mutex<Vec<Duration>>);

impl Sleeper for RecordingSleeper {
    fn sleep(
        &self,
        d: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(d);
        Box::pin(async {})
    }
}

pub fn client(fake: &FakeGitHub, dry_run: bool) -> (GitHub, Arc<RecordingSleeper>) {
    crate::common::init_logs();
    let sleeper = Arc::new(RecordingSleeper::default());
    let mut config = ClientConfig::new(fake.url());
    config.dry_run = dry_run;
    config.sleeper = sleeper.clone();
    let key = AppKey::from_pem(
        APP_ID,
        &SecretString::from(TEST_KEY.to_string()),
        "GITHUB_APP_PRIVATE_KEY",
    )
    .unwrap();
    (GitHub::new(config, key), sleeper)
}

fn repo() -> RepoName {
    RepoName::parse("acme/pool").unwrap()
}

#[tokio::test]
async fn one_token_serves_many_calls_and_a_revoked_one_is_replaced() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr(
        "acme/pool",
        1,
        "sha1",
        "body",
        vec![("a.go", Some("@@ -1 +1 @@\n-a\n+b"))],
    );
    let (gh, _) = client(&fake, false);
    for _ in 0..5 {
        let pr = gh.pull_request(7, &repo(), 1).await.unwrap();
        assert_eq!(pr.head_sha, "sha1");
    }
    assert_eq!(fake.with(|w| w.tokens_minted), 1);
    // Every call but the mint carried the installation token.
    for r in fake
        .requests()
        .iter()
        .filter(|r| !r.path.starts_with("/app/"))
    {
        assert!(
            r.auth.as_deref().is_some_and(|a| a.contains("ghs_fake")),
            "{r:?}"
        );
    }
    // Revoke it: the next call gets 401, mints once more, and succeeds.
    fake.with(|w| w.tokens.clear());
    gh.pull_request(7, &repo(), 1).await.unwrap();
    assert_eq!(fake.with(|w| w.tokens_minted), 2);
}

#[tokio::test]
async fn a_token_near_expiry_is_refreshed() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    // Tokens that expire in 4 minutes are inside the 5-minute refresh margin.
    fake.with(|w| w.token_lifetime_secs = 240);
    let (gh, _) = client(&fake, false);
    gh.pull_request(7, &repo(), 1).await.unwrap();
    gh.pull_request(7, &repo(), 1).await.unwrap();
    assert_eq!(fake.with(|w| w.tokens_minted), 2);
}

#[tokio::test]
async fn pagination_reads_every_page_with_the_token() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    let files: Vec<(String, Option<&str>)> = (0..3000)
        .map(|i| (format!("f{i}.go"), Some("@@ -1 +1 @@\n+x")))
        .collect();
    fake.add_pr(
        "acme/pool",
        9,
        "sha9",
        "",
        files.iter().map(|(n, p)| (n.as_str(), *p)).collect(),
    );
    let (gh, _) = client(&fake, false);
    let got = gh.pull_request_files(7, &repo(), 9).await.unwrap();
    assert_eq!(got.len(), 3000);
    assert_eq!(got[2999].path, "f2999.go");
    let pages: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/files"))
        .collect();
    assert_eq!(pages.len(), 30);
    assert!(
        pages
            .iter()
            .all(|r| r.auth.as_deref().is_some_and(|a| a.contains("ghs_fake")))
    );
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_for_reads() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    fake.inject("/pulls/1", vec![Fault::Status(502), Fault::Status(502)]);
    let (gh, sleeper) = client(&fake, false);
    gh.pull_request(7, &repo(), 1).await.unwrap();
    let waits = sleeper.0.lock().unwrap().clone();
    assert_eq!(waits.len(), 2);
    assert!(waits[1] >= waits[0] / 2, "{waits:?}");
}

#[tokio::test]
async fn an_answer_larger_than_the_cap_is_an_error_not_held() {
    use repro_gate::github::transport::MAX_ANSWER;
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    // Every attempt of the read gets the oversized answer.
    fake.inject("/pulls/1", vec![Fault::Huge(MAX_ANSWER + (1 << 20)); 4]);
    let (gh, _) = client(&fake, false);
    let err = gh.pull_request(7, &repo(), 1).await.unwrap_err();
    assert!(
        matches!(&err, GitHubError::Transport { message, .. } if message.contains("at most 64 MiB")),
        "{err}"
    );
}

#[tokio::test]
async fn a_502_on_create_is_not_blindly_resent() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    fake.inject("/issues/1/comments", vec![Fault::Status(502)]);
    let (gh, _) = client(&fake, false);
    // The GET (listing) hits the fault first and is retried; the POST is sent once.
    gh.upsert_marked_comment(7, &repo(), 1, "<!-- m -->", "<!-- m -->\nhello")
        .await
        .unwrap();
    let posts = fake
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/comments"))
        .count();
    assert_eq!(posts, 1);
    assert_eq!(fake.comments_on("acme/pool", 1).len(), 1);
}

#[tokio::test]
async fn a_slow_answer_times_out_and_the_read_is_retried() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    // The token is minted first, then the PR read is slow once.
    let (_, _) = client(&fake, false);
    let sleeper = Arc::new(RecordingSleeper::default());
    let mut config = ClientConfig::new(fake.url());
    config.timeout = Duration::from_millis(300);
    config.sleeper = sleeper.clone();
    let key = AppKey::from_pem(
        APP_ID,
        &SecretString::from(TEST_KEY.to_string()),
        "GITHUB_APP_PRIVATE_KEY",
    )
    .unwrap();
    let gh = GitHub::new(config, key);
    fake.inject("/pulls/1", vec![Fault::Slow(3_000)]);
    let pr = gh.pull_request(7, &repo(), 1).await.unwrap();
    assert_eq!(pr.head_sha, "sha1");
    assert_eq!(
        sleeper.0.lock().unwrap().len(),
        1,
        "one backoff after the timeout"
    );
    // (The timed-out request is not in the fake's record: the client hung up before the fake
    // answered, and the fake records a request when it answers.)
}

#[tokio::test]
async fn rate_limits_wait_until_reset_or_retry_after() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    fake.inject(
        "/pulls/1",
        vec![
            Fault::RateLimited { reset_in_secs: 120 },
            Fault::RetryAfter(7),
        ],
    );
    let (gh, sleeper) = client(&fake, false);
    gh.pull_request(7, &repo(), 1).await.unwrap();
    let waits = sleeper.0.lock().unwrap().clone();
    assert_eq!(waits.len(), 2, "{waits:?}");
    assert!(
        waits[0] >= Duration::from_secs(110) && waits[0] <= Duration::from_secs(121),
        "{waits:?}"
    );
    // The gate waits until the moment the answer named: 7 s from when it came.
    assert!(
        waits[1] > Duration::from_secs(6) && waits[1] <= Duration::from_secs(7),
        "{waits:?}"
    );
}

#[tokio::test]
async fn client_errors_come_back_typed() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    let (gh, _) = client(&fake, false);
    let err = gh.pull_request(7, &repo(), 404).await.unwrap_err();
    assert!(matches!(err, GitHubError::NotFound { .. }), "{err}");
    assert_eq!(
        gh.file_at(7, &repo(), ".github/repro-gate.yml", "main")
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn check_runs_are_one_per_sha_and_carry_actions() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    let (gh, _) = client(&fake, false);
    let mut run = CheckRunWrite {
        name: "repro-gate".into(),
        head_sha: "abc".into(),
        conclusion: Some("failure".into()),
        title: "t".into(),
        summary: "x".repeat(70_000),
        text: None,
        actions: vec![CheckAction {
            label: "Re-check".into(),
            description: "d".into(),
            identifier: "recheck".into(),
        }],
    };
    let id1 = gh.upsert_check_run(7, &repo(), &run).await.unwrap();
    run.conclusion = Some("success".into());
    let id2 = gh.upsert_check_run(7, &repo(), &run).await.unwrap();
    assert_eq!(id1, id2);
    let runs = fake.check_runs_for("abc");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["conclusion"], "success");
    assert_eq!(runs[0]["actions"][0]["identifier"], "recheck");
    assert!(runs[0]["output"]["summary"].as_str().unwrap().len() <= 65_535);
}

/// Reads a job log through the streaming download: (text, cut at the cap).
async fn read_log(gh: &GitHub, job: u64, cap: usize) -> (String, bool) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<axum::body::Bytes>(4);
    let collect = tokio::spawn(async move {
        let mut all = Vec::new();
        while let Some(b) = rx.recv().await {
            all.extend_from_slice(&b);
        }
        all
    });
    let cut = gh.job_log(7, &repo(), job, cap, &tx).await.unwrap();
    drop(tx);
    let bytes = collect.await.unwrap();
    (String::from_utf8_lossy(&bytes).into_owned(), cut.0)
}

#[tokio::test]
async fn a_huge_job_log_is_read_up_to_the_cap_only() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    let line = "--- PASS: TestSomething (0.00s)\n";
    fake.with(|w| w.job_logs.insert(56, line.repeat(200_000)));
    let (gh, _) = client(&fake, false);
    let (text, cut) = read_log(&gh, 56, 1 << 20).await;
    assert!(cut, "the log was longer than the cap");
    assert_eq!(text.len(), 1 << 20);
}

/// A download reaches its reader while the server is still sending it: nothing waits for (or
/// holds) the whole file. The server sends one chunk and holds the rest until the reader has it;
/// a client that read the body whole would never see that chunk.
#[tokio::test]
async fn a_download_is_streamed_to_its_reader_as_it_arrives() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    let first_seen = Arc::new(tokio::sync::Notify::new());
    let seen = first_seen.clone();
    let app = axum::Router::new().route(
        "/signed/log",
        axum::routing::get(move || {
            let seen = seen.clone();
            async move {
                let chunks = futures::stream::unfold(0u8, move |i| {
                    let seen = seen.clone();
                    async move {
                        match i {
                            0 => Some((Ok::<_, std::io::Error>(vec![b'a'; 64 * 1024]), 1)),
                            1 => {
                                seen.notified().await;
                                Some((Ok(vec![b'b'; 64 * 1024]), 2))
                            }
                            _ => None,
                        }
                    }
                });
                axum::body::Body::from_stream(chunks)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    fake.with(|w| {
        w.log_locations
            .insert(57, format!("http://{addr}/signed/log"))
    });
    let (gh, _) = client(&fake, false);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<axum::body::Bytes>(4);
    let reader = tokio::spawn(async move {
        let mut all = Vec::new();
        while let Some(b) = rx.recv().await {
            if all.is_empty() {
                // The first bytes are here before the server sent the rest.
                first_seen.notify_one();
            }
            all.extend_from_slice(&b);
        }
        all
    });
    // A bound on a failure only: a client that buffers the body never finishes.
    let cut = tokio::time::timeout(
        Duration::from_secs(60),
        gh.job_log(7, &repo(), 57, 1 << 20, &tx),
    )
    .await
    .expect("the download waited for the whole body before handing any of it on")
    .unwrap();
    drop(tx);
    let all = reader.await.unwrap();
    assert!(!cut.0);
    assert_eq!(all.len(), 128 * 1024);
    assert!(
        all[..64 * 1024].iter().all(|&b| b == b'a') && all[64 * 1024..].iter().all(|&b| b == b'b')
    );
}

#[tokio::test]
async fn job_logs_follow_the_redirect_without_the_token() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.with(|w| w.job_logs.insert(55, "--- FAIL: TestX (0.00s)\n".into()));
    let (gh, _) = client(&fake, false);
    let log = read_log(&gh, 55, 1 << 20).await;
    assert!(log.0.contains("TestX") && !log.1, "{log:?}");
    let download = fake
        .requests()
        .into_iter()
        .find(|r| r.path.starts_with("/_presigned/"))
        .unwrap();
    assert_eq!(download.auth, None);
}

#[tokio::test]
async fn permissions_and_teams() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.with(|w| {
        w.permissions
            .insert(("acme/pool".into(), "maya".into()), "maintain".into());
        w.permissions
            .insert(("acme/pool".into(), "rita".into()), "read".into());
        w.team_members
            .insert(("acme".into(), "platform".into()), vec!["tom".into()]);
    });
    let (gh, _) = client(&fake, false);
    assert!(gh.permission(7, &repo(), "maya").await.unwrap().can_write());
    assert!(!gh.permission(7, &repo(), "rita").await.unwrap().can_write());
    assert!(
        !gh.permission(7, &repo(), "stranger")
            .await
            .unwrap()
            .can_write()
    );
    assert!(
        gh.is_team_member(7, "acme", "platform", "tom")
            .await
            .unwrap()
    );
    assert!(
        !gh.is_team_member(7, "acme", "platform", "rita")
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn dry_run_sends_no_write() {
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    let (gh, _) = client(&fake, true);
    gh.add_labels(7, &repo(), 1, &["concurrency"])
        .await
        .unwrap();
    gh.create_comment(7, &repo(), 1, "hi").await.unwrap();
    gh.react(7, &repo(), 3, "+1").await.unwrap();
    gh.upsert_check_run(
        7,
        &repo(),
        &CheckRunWrite {
            name: "repro-gate".into(),
            head_sha: "sha1".into(),
            conclusion: Some("success".into()),
            title: "t".into(),
            summary: "s".into(),
            text: None,
            actions: vec![],
        },
    )
    .await
    .unwrap();
    let writes: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET" && !r.path.starts_with("/app/"))
        .collect();
    assert!(writes.is_empty(), "{writes:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_never_contain_the_key_the_secret_or_a_token() {
    crate::common::init_logs();
    let fake = FakeGitHub::start().await;
    fake.add_repo("acme/pool");
    fake.add_pr("acme/pool", 1, "sha1", "", vec![]);
    fake.inject("/pulls/1", vec![Fault::Status(502)]);
    let (gh, _) = client(&fake, false);
    gh.pull_request(7, &repo(), 1).await.unwrap();
    let (dry, _) = client(&fake, true);
    dry.create_comment(7, &repo(), 1, "hello").await.unwrap();
    let settings = repro_gate::settings::Settings::new("sqlite::memory:").with_credentials(
        1,
        TEST_KEY,
        "hunter2-webhook-secret",
    );
    tracing::info!(?settings, "settings");
    // The capture holds every test's logs so far, this one's included.
    let text =
        String::from_utf8_lossy(&crate::common::captured_logs().lock().unwrap()).into_owned();
    assert!(text.contains("dry run: not sending"), "the capture works");
    assert!(!text.contains("hunter2"), "webhook secret in logs");
    assert!(!text.contains("PRIVATE KEY"), "private key in logs");
    assert!(
        !text.contains(crate::common::SECRET),
        "webhook secret in logs"
    );
    let tokens: Vec<String> = fake.with(|w| w.tokens.keys().cloned().collect());
    assert!(!tokens.is_empty());
    for t in tokens {
        assert!(!text.contains(&t), "token {t} in logs");
    }
    assert!(!text.contains("ghs_"), "an installation token in logs");
}
