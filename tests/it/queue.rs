//! The durable job queue: restarts, retries to dead, lease expiry, per-PR serialisation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use repro_gate::clock::ManualClock;
use repro_gate::handlers::{HandlerFuture, Job, JobError, JobHandler};
use repro_gate::queue::{QueueEventKind, Work};
use tokio::sync::{Notify, mpsc};

use crate::both_backends;
use crate::common::{Db, Spawn, pr_payload};

both_backends!(
    job_queued_with_workers_off_is_done_after_restart,
    failing_job_ends_dead_after_max_attempts,
    expired_lease_hands_a_stuck_job_to_another_worker,
    claims_skip_a_pr_whose_job_is_running,
    claims_take_the_installation_with_the_fewest_running_jobs_first,
    claims_leave_an_installation_at_its_bound_to_the_others,
    workers_left_free_by_a_burst_take_another_installations_pr_at_once,
    jobs_of_one_pr_never_overlap_while_other_prs_proceed,
    a_job_that_hangs_is_stopped_at_its_deadline_and_retried_until_dead,
);

/// Every webhook job fails (tasks, such as the start-up catch-up pass, succeed).
struct Failing;
impl JobHandler for Failing {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        let webhook = matches!(job.work, Work::Webhook(_));
        Box::pin(async move {
            if webhook {
                Err(JobError::Transient(anyhow::anyhow!("GitHub answered 502")))
            } else {
                Ok(())
            }
        })
    }
}

/// Webhook jobs never finish: a worker that hung.
struct Stuck;
impl JobHandler for Stuck {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        let webhook = matches!(job.work, Work::Webhook(_));
        Box::pin(async move {
            if webhook {
                std::future::pending::<()>().await;
            }
            Ok(())
        })
    }
}

async fn job_queued_with_workers_off_is_done_after_restart(db: Db) {
    let first = Spawn::new(&db).workers(0).start().await;
    let a = first
        .deliver("pull_request", "r-1", &pr_payload("opened", "acme/pool", 1))
        .await;
    assert_eq!(a.json["status"], "queued");
    first.stop().await;

    let mut second = Spawn::new(&db).workers(2).start().await;
    second.wait_done("r-1").await;
    let jobs = second.app.store.jobs_for_delivery("r-1").await.unwrap();
    assert_eq!(jobs[0].state, "done");
    assert_eq!(jobs[0].attempts, 1);
    second.stop().await;
}

async fn failing_job_ends_dead_after_max_attempts(db: Db) {
    let mut spawn = Spawn::new(&db).workers(1).handler(Arc::new(Failing));
    spawn.settings.queue.max_attempts = 3;
    let mut app = spawn.start().await;
    app.deliver("pull_request", "f-1", &pr_payload("opened", "acme/pool", 1))
        .await;
    let dead = app
        .wait_for(|e| {
            e.delivery_id.as_deref() == Some("f-1") && matches!(e.kind, QueueEventKind::Dead { .. })
        })
        .await;
    let QueueEventKind::Dead { attempt, error } = dead.kind else {
        unreachable!()
    };
    assert_eq!(attempt, 3);
    assert!(error.contains("502"), "{error}");
    let jobs = app.app.store.jobs_for_delivery("f-1").await.unwrap();
    assert_eq!(jobs[0].state, "dead");
    assert_eq!(jobs[0].attempts, 3);
    assert!(jobs[0].last_error.as_deref().unwrap().contains("502"));
    let (_, metrics) = app.get("/metrics").await;
    assert!(
        metrics.contains(r#"repro_gate_jobs{state="dead"} 1"#),
        "{metrics}"
    );
    app.stop().await;
}

async fn expired_lease_hands_a_stuck_job_to_another_worker(db: Db) {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut stuck = Spawn::new(&db)
        .workers(1)
        .handler(Arc::new(Stuck))
        .clock(Arc::new(clock.clone()));
    stuck.settings.queue.shutdown_grace = std::time::Duration::ZERO;
    let mut stuck = stuck.start().await;
    stuck
        .deliver("pull_request", "l-1", &pr_payload("opened", "acme/pool", 1))
        .await;
    stuck
        .wait_for(|e| {
            e.delivery_id.as_deref() == Some("l-1")
                && e.kind == QueueEventKind::Started { attempt: 1 }
        })
        .await;

    // The lease (60 s) runs out without a heartbeat reaching the database.
    clock.advance_ms(61_000);
    let mut rescuer = Spawn::new(&db)
        .workers(1)
        .clock(Arc::new(clock.clone()))
        .start()
        .await;
    let done = rescuer.wait_done("l-1").await;
    assert_eq!(done.delivery_id.as_deref(), Some("l-1"));
    let jobs = rescuer.app.store.jobs_for_delivery("l-1").await.unwrap();
    assert_eq!(jobs[0].state, "done");
    assert_eq!(jobs[0].attempts, 2);

    // The stuck worker, stopped, cannot overwrite the result it no longer owns.
    stuck.stop().await;
    let jobs = rescuer.app.store.jobs_for_delivery("l-1").await.unwrap();
    assert_eq!(jobs[0].state, "done");
    rescuer.stop().await;
}

/// A service with no workers and no scheduled jobs, on a manual clock: the test claims by hand
/// and names each job it expects.
async fn claimed_by_hand(db: &Db) -> (crate::common::TestApp, ManualClock) {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut spawn = Spawn::new(db).workers(0).clock(Arc::new(clock.clone()));
    spawn.settings.reconcile_minutes = 0;
    spawn.settings.history_schedule_minutes = 0;
    (spawn.start().await, clock)
}

async fn claims_skip_a_pr_whose_job_is_running(db: Db) {
    let (app, clock) = claimed_by_hand(&db).await;
    app.deliver("pull_request", "a-1", &pr_payload("opened", "acme/pool", 1))
        .await;
    app.deliver("pull_request", "a-2", &pr_payload("edited", "acme/pool", 1))
        .await;
    app.deliver("pull_request", "b-1", &pr_payload("opened", "acme/pool", 2))
        .await;
    let store = &app.app.store;
    let now = clock.now_ms_for_test();
    let first = store
        .claim_job("w1", "test", now, 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.delivery_id.as_deref(), Some("a-1"));
    let second = store
        .claim_job("w2", "test", now, 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        second.delivery_id.as_deref(),
        Some("b-1"),
        "PR 1 is busy, so PR 2 goes next"
    );
    assert!(
        store
            .claim_job("w3", "test", now, 60_000)
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.complete_job(&first, now).await.unwrap());
    let third = store
        .claim_job("w3", "test", now, 60_000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(third.delivery_id.as_deref(), Some("a-2"));
    app.stop().await;
}

/// `count` PRs of installation 1's monorepo, delivered as `a-1`, `a-2`, …
async fn deliver_burst(app: &crate::common::TestApp, count: u64) {
    for n in 1..=count {
        app.deliver(
            "pull_request",
            &format!("a-{n}"),
            &pr_payload_of(1, "burst/mono", n),
        )
        .await;
    }
}

/// The payload of `pr_payload` delivered by another installation.
fn pr_payload_of(installation: i64, repo: &str, number: u64) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&pr_payload("opened", repo, number)).unwrap();
    v["installation"]["id"] = installation.into();
    v.to_string()
}

/// One installation's burst (older jobs) does not hold back another installation's newer job:
/// a claim takes the lane with the fewest running jobs first, then the oldest job in it.
async fn claims_take_the_installation_with_the_fewest_running_jobs_first(db: Db) {
    let (app, clock) = claimed_by_hand(&db).await;
    deliver_burst(&app, 5).await;
    app.deliver("pull_request", "b-1", &pr_payload_of(2, "quiet/app", 1))
        .await;
    app.deliver("pull_request", "c-1", &pr_payload_of(3, "other/lib", 1))
        .await;
    let store = &app.app.store;
    let now = clock.now_ms_for_test();
    let claim = async |w: &str| {
        store
            .claim_job(w, "test", now, 60_000)
            .await
            .unwrap()
            .and_then(|j| j.delivery_id)
            .unwrap()
    };
    // Nothing runs: the oldest job first (the burst's).
    assert_eq!(claim("w1").await, "a-1");
    // The burst has one running: the other installations' jobs go before its older ones.
    assert_eq!(claim("w2").await, "b-1");
    assert_eq!(claim("w3").await, "c-1");
    // Every lane has one running: oldest first again, so the burst still progresses.
    assert_eq!(claim("w4").await, "a-2");
    assert_eq!(claim("w5").await, "a-3");
    app.stop().await;
}

/// At its bound (`per_installation`), a lane takes no more workers; another lane's job still does.
async fn claims_leave_an_installation_at_its_bound_to_the_others(db: Db) {
    let (app, clock) = claimed_by_hand(&db).await;
    deliver_burst(&app, 3).await;
    let store = &app.app.store;
    let now = clock.now_ms_for_test();
    let claim = async |w: &str, cap: usize| {
        store
            .claim_job_within(w, "test", now, 60_000, cap)
            .await
            .unwrap()
            .and_then(|j| j.delivery_id)
    };
    assert_eq!(claim("w1", 2).await.as_deref(), Some("a-1"));
    assert_eq!(claim("w2", 2).await.as_deref(), Some("a-2"));
    // Two of the burst run: a third waits although it is ready.
    assert_eq!(claim("w3", 2).await, None);
    app.deliver("pull_request", "b-1", &pr_payload_of(2, "quiet/app", 1))
        .await;
    assert_eq!(claim("w3", 2).await.as_deref(), Some("b-1"));
    assert_eq!(claim("w4", 2).await, None);
    // 0 is no bound.
    assert_eq!(claim("w4", 0).await.as_deref(), Some("a-3"));
    app.stop().await;
}

/// With real workers: a burst holds at most `per_installation` of them, so another
/// installation's PR starts while the burst's jobs are still running.
async fn workers_left_free_by_a_burst_take_another_installations_pr_at_once(db: Db) {
    let (tx, mut started) = mpsc::unbounded_channel();
    let gated = Arc::new(Gated {
        started: tx,
        release: Mutex::default(),
        running: Mutex::default(),
        overlaps: Mutex::default(),
    });
    let mut spawn = Spawn::new(&db).workers(3).handler(gated.clone());
    spawn.settings.queue.per_installation = 2;
    spawn.settings.reconcile_minutes = 0;
    spawn.settings.history_schedule_minutes = 0;
    let mut app = spawn.start().await;
    deliver_burst(&app, 3).await;
    // Two of the burst run (which two is the order of racing claims on Postgres).
    let first = [started.recv().await.unwrap(), started.recv().await.unwrap()];
    assert_ne!(first[0], first[1]);
    let waiting = ["a-1", "a-2", "a-3"]
        .into_iter()
        .find(|d| !first.iter().any(|f| f == d))
        .unwrap();
    app.deliver("pull_request", "b-1", &pr_payload_of(2, "quiet/app", 1))
        .await;
    // The third worker was free all along; the burst's third job may not take it.
    assert_eq!(started.recv().await.unwrap(), "b-1");
    for d in ["b-1", first[0].as_str()] {
        gated.gate(d).notify_one();
        app.wait_done(d).await;
    }
    assert_eq!(started.recv().await.unwrap(), waiting);
    for d in [first[1].as_str(), waiting] {
        gated.gate(d).notify_one();
        app.wait_done(d).await;
    }
    app.stop().await;
}

/// Two claims at once on Postgres, forced into the racing order: the first has chosen the
/// lane's last place and waits inside its transaction (someone else is inserting its PR's key);
/// the second, looking meanwhile at a job of the lane that arrived since, must not take a place
/// in that lane too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "set TEST_DATABASE_URL to run it on Postgres"
)]
async fn a_claim_racing_an_uncommitted_one_never_passes_the_bound() {
    let db = Db::postgres().await;
    let (app, clock) = claimed_by_hand(&db).await;
    app.deliver("pull_request", "a-1", &pr_payload_of(1, "burst/mono", 1))
        .await;
    let side = sqlx::PgPool::connect(&db.url).await.unwrap();
    let key: String = sqlx::query_scalar("SELECT serial_key FROM jobs WHERE delivery_id = 'a-1'")
        .fetch_one(&side)
        .await
        .unwrap();
    let mut blocker = side.begin().await.unwrap();
    sqlx::query("INSERT INTO job_keys (serial_key, job_id, lease_until_ms) VALUES ($1, -1, 0)")
        .bind(&key)
        .execute(&mut *blocker)
        .await
        .unwrap();
    let now = clock.now_ms_for_test();
    let first = claim_in_background(&app.app.store, "w1", now);
    // The signal: the first claim's backend waits on the blocker's row.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while waiting_on_locks(&side).await == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the first claim never reached the key"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // A job of the lane arrives now: the first claim has not locked it.
    app.deliver("pull_request", "a-2", &pr_payload_of(1, "burst/mono", 2))
        .await;
    let second = claim_in_background(&app.app.store, "w2", now);
    // The second claim either ends at once (it took a place) or waits for the lane's lock.
    while !second.is_finished() && waiting_on_locks(&side).await < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the second claim neither ended nor waited for the lane"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    blocker.rollback().await.unwrap();
    assert_eq!(first.await.unwrap().as_deref(), Some("a-1"));
    assert_eq!(
        second.await.unwrap(),
        None,
        "the lane's one place was taken twice"
    );
    let running: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE state = 'running'")
        .fetch_one(&side)
        .await
        .unwrap();
    assert_eq!(running, 1);
    app.stop().await;
}

/// A claim with a bound of 1, running on its own task: the delivery it took.
fn claim_in_background(
    store: &repro_gate::store::Store,
    worker: &'static str,
    now: i64,
) -> tokio::task::JoinHandle<Option<String>> {
    let store = store.clone();
    tokio::spawn(async move {
        store
            .claim_job_within(worker, "test", now, 60_000, 1)
            .await
            .unwrap()
            .and_then(|j| j.delivery_id)
    })
}

/// How many backends of this database wait on a lock.
async fn waiting_on_locks(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM pg_stat_activity \
         WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

trait NowForTest {
    fn now_ms_for_test(&self) -> i64;
}
impl NowForTest for ManualClock {
    fn now_ms_for_test(&self) -> i64 {
        repro_gate::clock::Clock::now_ms(self)
    }
}

/// Holds each job until the test releases its delivery; records overlap per PR.
struct Gated {
    started: mpsc::UnboundedSender<String>,
    release: Mutex<HashMap<String, Arc<Notify>>>,
    running: Mutex<HashMap<String, u32>>,
    overlaps: Mutex<Vec<String>>,
}

impl Gated {
    fn gate(&self, delivery: &str) -> Arc<Notify> {
        self.release
            .lock()
            .unwrap()
            .entry(delivery.to_owned())
            .or_default()
            .clone()
    }
}

impl JobHandler for Gated {
    fn handle<'a>(&'a self, job: &'a Job) -> HandlerFuture<'a> {
        Box::pin(async move {
            let Work::Webhook(d) = &job.work else {
                return Ok(());
            };
            let payload: serde_json::Value = serde_json::from_slice(&d.payload).unwrap();
            let pr = payload["number"].to_string();
            {
                let mut running = self.running.lock().unwrap();
                let n = running.entry(pr.clone()).or_default();
                *n += 1;
                if *n > 1 {
                    self.overlaps.lock().unwrap().push(pr.clone());
                }
            }
            let gate = self.gate(&d.id);
            let released = gate.notified();
            let _ = self.started.send(d.id.clone());
            released.await;
            *self.running.lock().unwrap().get_mut(&pr).unwrap() -= 1;
            Ok(())
        })
    }
}

async fn jobs_of_one_pr_never_overlap_while_other_prs_proceed(db: Db) {
    let (tx, mut started) = mpsc::unbounded_channel();
    let gated = Arc::new(Gated {
        started: tx,
        release: Mutex::default(),
        running: Mutex::default(),
        overlaps: Mutex::default(),
    });
    let mut app = Spawn::new(&db)
        .workers(4)
        .handler(gated.clone())
        .start()
        .await;
    app.deliver(
        "pull_request",
        "p1-a",
        &pr_payload("opened", "acme/pool", 1),
    )
    .await;
    assert_eq!(started.recv().await.unwrap(), "p1-a");
    app.deliver(
        "pull_request",
        "p1-b",
        &pr_payload("edited", "acme/pool", 1),
    )
    .await;
    app.deliver(
        "pull_request",
        "p2-a",
        &pr_payload("opened", "acme/pool", 2),
    )
    .await;
    // PR 2 runs to completion while PR 1's first job is still held.
    assert_eq!(started.recv().await.unwrap(), "p2-a");
    gated.gate("p2-a").notify_one();
    app.wait_done("p2-a").await;
    let p1b = app.app.store.jobs_for_delivery("p1-b").await.unwrap();
    assert_eq!(
        p1b[0].state, "queued",
        "PR 1's second job waits for its first"
    );
    // Releasing PR 1's first job lets its second one run.
    gated.gate("p1-a").notify_one();
    app.wait_done("p1-a").await;
    assert_eq!(started.recv().await.unwrap(), "p1-b");
    gated.gate("p1-b").notify_one();
    app.wait_done("p1-b").await;
    assert!(gated.overlaps.lock().unwrap().is_empty());
    app.stop().await;
}

async fn a_job_that_hangs_is_stopped_at_its_deadline_and_retried_until_dead(db: Db) {
    let mut spawn = Spawn::new(&db).workers(1).handler(Arc::new(Stuck));
    // The shipped deadline is 15 minutes; the mechanism is the same at any length.
    assert_eq!(
        spawn.settings.queue.job_deadline,
        repro_gate::settings::QueueSettings::default().job_deadline
    );
    assert_eq!(
        repro_gate::settings::QueueSettings::default().job_deadline,
        std::time::Duration::from_secs(900)
    );
    spawn.settings.queue.job_deadline = std::time::Duration::from_millis(100);
    spawn.settings.queue.max_attempts = 2;
    let mut app = spawn.start().await;
    app.deliver("pull_request", "h-1", &pr_payload("opened", "acme/pool", 1))
        .await;
    let retrying = app
        .wait_for(|e| {
            e.delivery_id.as_deref() == Some("h-1")
                && matches!(e.kind, QueueEventKind::Retrying { .. })
        })
        .await;
    let QueueEventKind::Retrying { attempt, error } = retrying.kind else {
        unreachable!()
    };
    assert_eq!(attempt, 1);
    assert!(error.contains("ran past its deadline"), "{error}");
    let dead = app
        .wait_for(|e| {
            e.delivery_id.as_deref() == Some("h-1") && matches!(e.kind, QueueEventKind::Dead { .. })
        })
        .await;
    assert!(matches!(dead.kind, QueueEventKind::Dead { attempt: 2, .. }));
    let jobs = app.app.store.jobs_for_delivery("h-1").await.unwrap();
    assert_eq!(jobs[0].state, "dead");
    assert_eq!(
        jobs[0].last_error.as_deref(),
        Some("the job ran past its deadline of 100ms")
    );
    app.stop().await;
}
