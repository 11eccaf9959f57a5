//! The guarantees under the shipped defaults (start-up catch-up on): a catch-up evaluation and
//! a delivery of one PR never race, a killed process's claimed jobs run again at once, and a
//! rate limit stops every request of the installation until its reset. Each test synchronises
//! on explicit signals (held answers, a frozen clock, a sleeper the test releases), never on
//! time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use repro_gate::clock::{Clock, ManualClock};
use repro_gate::github::types::RepoName;
use repro_gate::github::{AppKey, ClientConfig, GitHub, Sleeper};
use repro_gate::queue::QueueEventKind;
use repro_gate::store::Store;
use secrecy::SecretString;
use serde_json::json;
use tokio::sync::Notify;

use crate::both_backends;
use crate::common::{Db, Spawn, TEST_KEY};
use crate::fake_github::{APP_ID, Fault, Hold};
use crate::gate::{REPO, add_racy_pr, pr_event, world};

both_backends!(
    a_catch_up_evaluation_and_a_delivery_of_the_same_pr_make_one_check_run,
    jobs_claimed_by_a_killed_process_run_at_once_after_a_restart,
);

async fn a_catch_up_evaluation_and_a_delivery_of_the_same_pr_make_one_check_run(db: Db) {
    let fake = world().await;
    add_racy_pr(&fake, 1, "sha-1");
    fake.with(|w| {
        w.installations = vec![7];
        w.installation_repos.insert(7, vec![REPO.into()]);
    });
    // The pass itself looks for the check run first (answered); the evaluation it queues
    // looks next: that answer ("no check run yet") is held until the delivery is in.
    let hold = Arc::new(Hold::default());
    let arrived = hold.arrived.notified();
    fake.inject("/check-runs", vec![Fault::Pass, Fault::Hold(hold.clone())]);
    let mut app = Spawn::new(&db).workers(4).github(&fake).start().await;
    arrived.await;

    let a = app
        .deliver(
            "pull_request",
            "opened-1",
            &pr_event("opened", 1, json!({})),
        )
        .await;
    assert_eq!(a.json["status"], "queued");
    // The evaluation is a job under the PR's key, running; the delivery's job waits for it.
    let evaluations = app.app.store.jobs_of_kind("evaluate_pr").await.unwrap();
    assert_eq!(
        evaluations.len(),
        1,
        "the catch-up pass queues the evaluation"
    );
    assert_eq!(evaluations[0].state, "running");
    assert_eq!(evaluations[0].serial_key, format!("{REPO}#1"));
    let delivery = app.app.store.jobs_for_delivery("opened-1").await.unwrap();
    assert_eq!(delivery[0].state, "queued", "the PR's other job waits");

    hold.release.notify_one();
    app.wait_done("opened-1").await;
    let runs = fake.check_runs_for("sha-1");
    assert_eq!(runs.len(), 1, "one check run per head SHA: {runs:?}");
    app.stop().await;
}

async fn jobs_claimed_by_a_killed_process_run_at_once_after_a_restart(db: Db) {
    let fake = world().await;
    add_racy_pr(&fake, 1, "sha-1");
    add_racy_pr(&fake, 2, "sha-2");
    // Time stands still: no lease ever expires, so only the release at start-up can free a job.
    let clock = ManualClock::new(1_700_000_000_000);
    let now = clock.now_ms();
    let comment = |pr: u64, id: u64| {
        json!({
            "action": "created",
            "issue": {"number": pr, "pull_request": {"url": "x"}},
            "comment": {"id": id, "body": "/repro help", "user": {"login": "maya", "type": "User"}},
            "repository": {"full_name": REPO},
            "installation": {"id": 7}
        })
        .to_string()
    };
    let mut first = Spawn::new(&db).workers(0).clock(Arc::new(clock.clone()));
    first.settings.reconcile_minutes = 0;
    first.settings.history_schedule_minutes = 0;
    let first = first.start().await;
    first
        .deliver("issue_comment", "help-1", &comment(1, 501))
        .await;
    first
        .deliver("issue_comment", "help-2", &comment(2, 502))
        .await;
    let store: Store = first.app.store.clone();
    // A process that died holding the first job (its last beat 20 s ago); on Postgres, a live
    // replica (beating now) holds the second.
    store.heartbeat("dead-replica", now - 20_000).await.unwrap();
    store.heartbeat("live-replica", now).await.unwrap();
    let dead = store
        .claim_job("dead-replica-w0", "dead-replica", now, 60_000)
        .await
        .unwrap()
        .unwrap();
    let live = store
        .claim_job("live-replica-w0", "live-replica", now, 60_000)
        .await
        .unwrap()
        .unwrap();
    first.stop().await;

    let mut second = Spawn::new(&db)
        .workers(2)
        .github(&fake)
        .clock(Arc::new(clock.clone()));
    second.settings.reconcile_minutes = 0;
    second.settings.history_schedule_minutes = 0;
    let mut second = second.start().await;
    // On SQLite both jobs run (in either order); on Postgres only the dead replica's.
    let sqlite = matches!(second.app.store, Store::Sqlite(_));
    let mut done = std::collections::HashSet::new();
    while !(done.contains(&dead.id) && (!sqlite || done.contains(&live.id))) {
        let e = second
            .wait_for(|e| {
                e.kind == QueueEventKind::Done && (e.job_id == dead.id || e.job_id == live.id)
            })
            .await;
        done.insert(e.job_id);
    }
    assert!(!fake.comments_on(REPO, 1).is_empty(), "the help reply came");
    if !sqlite {
        // A live replica's job is never taken from it.
        let held = second.app.store.jobs_for_delivery("help-2").await.unwrap();
        assert_eq!(held[0].state, "running");
        assert!(!done.contains(&live.id));
    }
    second.stop().await;
}

/// Each wait blocks until the test releases it; the test sees how many are waiting.
#[derive(Default)]
struct HeldSleeper {
    waiting: Mutex<Vec<Duration>>,
    changed: Notify,
    release: Notify,
}

impl Sleeper for HeldSleeper {
    fn sleep(
        &self,
        d: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let released = self.release.notified();
            tokio::pin!(released);
            released.as_mut().enable();
            self.waiting.lock().unwrap().push(d);
            self.changed.notify_waiters();
            released.await;
        })
    }
}

impl HeldSleeper {
    async fn until_waiting(&self, n: usize) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.waiting.lock().unwrap().len() >= n {
                return;
            }
            changed.await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_holds_every_request_of_the_installation_until_the_reset() {
    let fake = world().await;
    fake.add_pr(REPO, 1, "sha-1", "", vec![]);
    fake.add_pr(REPO, 2, "sha-2", "", vec![]);
    fake.inject("/pulls/1", vec![Fault::RetryAfter(30)]);
    let sleeper = Arc::new(HeldSleeper::default());
    let mut config = ClientConfig::new(fake.url());
    config.sleeper = sleeper.clone();
    let key = AppKey::from_pem(
        APP_ID,
        &SecretString::from(TEST_KEY.to_string()),
        "GITHUB_APP_PRIVATE_KEY",
    )
    .unwrap();
    let gh = GitHub::new(config, key);
    let repo = RepoName::parse(REPO).unwrap();

    // One job's request is answered 429 and waits out the Retry-After.
    let first = tokio::spawn({
        let (gh, repo) = (gh.clone(), repo.clone());
        async move { gh.pull_request(7, &repo, 1).await }
    });
    sleeper.until_waiting(1).await;
    // Another job of the same installation, in flight meanwhile, must wait too.
    let mut second = tokio::spawn({
        let (gh, repo) = (gh.clone(), repo.clone());
        async move { gh.pull_request(7, &repo, 2).await }
    });
    tokio::select! {
        _ = sleeper.until_waiting(2) => {}
        done = &mut second => {
            panic!("a request went out inside the Retry-After window: {:?}", done.map(|r| r.map(|p| p.number)));
        }
    }
    let before = fake
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/pulls/2"))
        .count();
    assert_eq!(before, 0, "nothing is sent before the reset");
    let waits = sleeper.waiting.lock().unwrap().clone();
    assert!(
        waits.iter().all(|w| *w > Duration::from_secs(29)),
        "{waits:?}"
    );
    sleeper.release.notify_waiters();
    assert_eq!(first.await.unwrap().unwrap().number, 1);
    assert_eq!(second.await.unwrap().unwrap().number, 2);
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.path.ends_with("/pulls/2"))
            .count(),
        1
    );
}
