//! Workers: claim a job, run its handler under a lease kept alive by a heartbeat, record the
//! result. Shutdown stops claiming, waits for in-flight jobs up to a grace period, and gives
//! back the ones still running.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Notify, broadcast};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::settings::QueueSettings;
use super::{Delivery, Job, JobError, JobHandler, QueueEvent, QueueEventKind, Task, Work};
use crate::clock::Clock;
use crate::core::backoff::retry_delay;
use crate::store::{ClaimedJob, Store};

/// What every worker shares.
#[derive(Clone)]
pub struct WorkerPool {
    pub store: Store,
    pub handler: Arc<dyn JobHandler>,
    pub clock: Arc<dyn Clock>,
    pub settings: QueueSettings,
    /// Notified when intake queued new jobs in this process.
    pub new_jobs: Arc<Notify>,
    pub events: broadcast::Sender<QueueEvent>,
    /// Names this process in leases and in the replicas table.
    pub replica: String,
}

/// Starts `settings.workers` workers. They stop claiming when `shutdown` is cancelled; the
/// returned set finishes once every in-flight job is done or given back.
pub fn spawn_workers(pool: WorkerPool, shutdown: CancellationToken) -> JoinSet<()> {
    let mut set = JoinSet::new();
    for n in 0..pool.settings.workers {
        let pool = pool.clone();
        let shutdown = shutdown.clone();
        let owner = format!("{}-w{n}", pool.replica);
        set.spawn(async move { worker_loop(pool, owner, shutdown).await });
    }
    set
}

async fn worker_loop(pool: WorkerPool, owner: String, shutdown: CancellationToken) {
    let lease_ms = duration_ms(pool.settings.lease);
    loop {
        if shutdown.is_cancelled() {
            return;
        }
        // Register interest before looking, so a notification between the look and the wait
        // is not lost.
        let notified = pool.new_jobs.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();

        match pool
            .store
            .claim_job_within(
                &owner,
                &pool.replica,
                pool.clock.now_ms(),
                lease_ms,
                pool.settings.per_installation,
            )
            .await
        {
            Ok(Some(job)) => {
                run_one(&pool, job, &shutdown).await;
                continue;
            }
            Ok(None) => {}
            Err(err) => tracing::warn!(error = %format!("{err:#}"), "claiming a job failed"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = &mut notified => {}
            _ = tokio::time::sleep(pool.settings.poll_interval) => {}
        }
    }
}

async fn run_one(pool: &WorkerPool, job: ClaimedJob, shutdown: &CancellationToken) {
    // The serial key is `owner/repo#pr` for PR work: the span names both.
    let (repository, pr) = match job.serial_key.split_once('#') {
        Some((repo, pr)) => (repo, pr.parse::<u64>().ok()),
        None => (job.serial_key.split('@').next().unwrap_or(""), None),
    };
    let span = tracing::info_span!(
        "job",
        job_id = job.id,
        kind = %job.kind,
        delivery = job.delivery_id.as_deref(),
        event = %job.event,
        repository = %repository,
        pr = pr,
        attempt = job.attempts,
    );
    async {
        emit(
            pool,
            &job,
            QueueEventKind::Started {
                attempt: job.attempts,
            },
        );
        let started = Instant::now();
        let outcome = run_with_heartbeat(pool, &job, shutdown).await;
        metrics::histogram!("repro_gate_job_duration_seconds", "event" => job.event.clone())
            .record(started.elapsed().as_secs_f64());
        record(pool, &job, outcome).await;
    }
    .instrument(span)
    .await
}

/// Reads a claimed job's work: a webhook's stored delivery, or a task from its JSON.
async fn load_work(store: &Store, job: &ClaimedJob) -> Result<Work, JobError> {
    if let Some(id) = &job.delivery_id {
        let payload = match store.delivery_payload(id).await {
            Ok(Some(p)) => p,
            Ok(None) => {
                return Err(JobError::Permanent(anyhow::anyhow!(
                    "delivery {id} is not stored"
                )));
            }
            Err(e) => return Err(JobError::Transient(e)),
        };
        return Ok(Work::Webhook(Delivery {
            id: id.clone(),
            event: job.event.clone(),
            action: job.action.clone(),
            received_at_ms: job.created_at_ms,
            payload,
        }));
    }
    let args = job.args.as_deref().unwrap_or("");
    serde_json::from_str::<Task>(args)
        .map(Work::Task)
        .map_err(|e| {
            JobError::Permanent(anyhow::anyhow!(
                "job {} of kind {:?} has arguments this version cannot read: {e}",
                job.id,
                job.kind
            ))
        })
}

enum Outcome {
    Finished(Result<(), JobError>),
    /// Shutdown's grace period ran out first.
    Interrupted,
}

async fn run_with_heartbeat(
    pool: &WorkerPool,
    job: &ClaimedJob,
    shutdown: &CancellationToken,
) -> Outcome {
    let work = match load_work(&pool.store, job).await {
        Ok(w) => Job {
            id: job.id,
            attempt: job.attempts,
            work: w,
        },
        Err(e) => return Outcome::Finished(Err(e)),
    };
    let handler = pool.handler.clone();
    let run = handler.handle(&work);
    tokio::pin!(run);
    let beat = (pool.settings.lease / 3).max(Duration::from_millis(10));
    let grace = async {
        shutdown.cancelled().await;
        tokio::time::sleep(pool.settings.shutdown_grace).await;
    };
    tokio::pin!(grace);
    let deadline = tokio::time::sleep(pool.settings.job_deadline);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            result = &mut run => return Outcome::Finished(result),
            _ = &mut grace => return Outcome::Interrupted,
            // Dropping `run` stops the attempt at its next await; blocking work it started
            // (a report being parsed) ends at its own deadline.
            _ = &mut deadline => {
                tracing::warn!(
                    deadline = ?pool.settings.job_deadline,
                    "the job ran past its deadline; stopped"
                );
                return Outcome::Finished(Err(JobError::Transient(anyhow::anyhow!(
                    "the job ran past its deadline of {:?}",
                    pool.settings.job_deadline
                ))));
            }
            _ = tokio::time::sleep(beat) => {
                let until = pool.clock.now_ms() + duration_ms(pool.settings.lease);
                match pool.store.extend_lease(job, until).await {
                    Ok(true) => {}
                    Ok(false) => tracing::warn!("lease lost while the job ran"),
                    Err(err) => tracing::warn!(error = %format!("{err:#}"), "extending the lease failed"),
                }
            }
        }
    }
}

async fn record(pool: &WorkerPool, job: &ClaimedJob, outcome: Outcome) {
    let now = pool.clock.now_ms();
    let (stored, kind) = match outcome {
        Outcome::Interrupted => {
            tracing::info!("shutdown grace ran out; job given back to the queue");
            (
                pool.store.release_job(job, now).await,
                QueueEventKind::Released,
            )
        }
        Outcome::Finished(Ok(())) => {
            tracing::debug!("job done");
            (
                pool.store.complete_job(job, now).await,
                QueueEventKind::Done,
            )
        }
        Outcome::Finished(Err(err)) => {
            let permanent = matches!(err, JobError::Permanent(_));
            let error = format!("{:#}", err.into_inner());
            let attempt = job.attempts;
            if permanent || attempt >= pool.settings.max_attempts as i32 {
                tracing::error!(%error, attempt, "job failed for the last time; parked as dead");
                metrics::counter!("repro_gate_jobs_dead_total", "event" => job.event.clone())
                    .increment(1);
                (
                    pool.store.fail_job(job, now, &error, None).await,
                    QueueEventKind::Dead { attempt, error },
                )
            } else {
                let delay = retry_delay(
                    attempt.max(1) as u32,
                    pool.settings.retry_base,
                    pool.settings.retry_cap,
                    rand::random::<f64>(),
                );
                tracing::warn!(%error, attempt, retry_in_ms = delay.as_millis() as u64, "job failed; will retry");
                (
                    pool.store
                        .fail_job(job, now, &error, Some(now + duration_ms(delay)))
                        .await,
                    QueueEventKind::Retrying { attempt, error },
                )
            }
        }
    };
    match stored {
        Ok(true) => emit(pool, job, kind),
        Ok(false) => {
            tracing::warn!("the job's lease was lost to another worker; result not recorded");
            emit(pool, job, QueueEventKind::LeaseLost)
        }
        Err(err) => {
            // The lease will expire and another worker will run the job again.
            tracing::error!(error = %format!("{err:#}"), "recording the job's result failed");
        }
    }
}

fn emit(pool: &WorkerPool, job: &ClaimedJob, kind: QueueEventKind) {
    let _ = pool.events.send(QueueEvent {
        job_id: job.id,
        work: job.kind.clone(),
        delivery_id: job.delivery_id.clone(),
        serial_key: job.serial_key.clone(),
        kind,
    });
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 4)
}
