//! Group commit for intake: concurrent requests hand their delivery to a writer task, which
//! stores everything waiting in one transaction and then answers each request. One fsync then
//! serves a whole batch instead of one delivery.

use std::sync::Arc;

use tokio::sync::{Notify, mpsc, oneshot};

use crate::clock::Clock;
use crate::store::{InsertOutcome, NewDelivery, Store};

/// Most deliveries written in one transaction.
const MAX_BATCH: usize = 256;
/// Deliveries waiting for a writer before intake pushes back.
const QUEUE_DEPTH: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum EnqueueError {
    #[error("the database did not store the delivery: {0}")]
    Store(String),
    #[error("the service is shutting down")]
    ShuttingDown,
}

type Reply = oneshot::Sender<Result<InsertOutcome, EnqueueError>>;

/// Hands deliveries to the writer tasks. Cheap to clone.
#[derive(Clone)]
pub struct Enqueuer {
    tx: mpsc::Sender<(NewDelivery, Reply)>,
}

impl Enqueuer {
    /// Starts `writers` writer tasks (1 for SQLite, which has one writer anyway). `new_jobs` is
    /// notified after every commit that queued a job. The tasks end when every `Enqueuer` clone
    /// is dropped, after writing what was already handed over.
    pub fn start(
        store: Store,
        clock: Arc<dyn Clock>,
        writers: usize,
        new_jobs: Arc<Notify>,
    ) -> (Self, Vec<tokio::task::JoinHandle<()>>) {
        let (tx, rx) = mpsc::channel::<(NewDelivery, Reply)>(QUEUE_DEPTH);
        let rx = Arc::new(tokio::sync::Mutex::new(rx));
        let handles = (0..writers.max(1))
            .map(|_| {
                let (rx, store, clock, new_jobs) =
                    (rx.clone(), store.clone(), clock.clone(), new_jobs.clone());
                tokio::spawn(async move {
                    let mut batch = Vec::with_capacity(MAX_BATCH);
                    loop {
                        {
                            let mut rx = rx.lock().await;
                            if rx.recv_many(&mut batch, MAX_BATCH).await == 0 {
                                return;
                            }
                        }
                        write_batch(&store, clock.as_ref(), &mut batch, &new_jobs).await;
                    }
                })
            })
            .collect();
        (Enqueuer { tx }, handles)
    }

    /// Stores the delivery and its job; returns once they are committed.
    pub async fn enqueue(&self, delivery: NewDelivery) -> Result<InsertOutcome, EnqueueError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((delivery, reply))
            .await
            .map_err(|_| EnqueueError::ShuttingDown)?;
        answer.await.map_err(|_| EnqueueError::ShuttingDown)?
    }
}

async fn write_batch(
    store: &Store,
    clock: &dyn Clock,
    batch: &mut Vec<(NewDelivery, Reply)>,
    new_jobs: &Notify,
) {
    let (deliveries, replies): (Vec<NewDelivery>, Vec<Reply>) = batch.drain(..).unzip();
    match store.insert_deliveries(&deliveries, clock.now_ms()).await {
        Ok(outcomes) => {
            if outcomes.contains(&InsertOutcome::Queued) {
                new_jobs.notify_waiters();
            }
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(Ok(outcome));
            }
        }
        Err(err) => {
            let message = format!("{err:#}");
            tracing::error!(error = %message, batch = deliveries.len(), "storing deliveries failed");
            for reply in replies {
                let _ = reply.send(Err(EnqueueError::Store(message.clone())));
            }
        }
    }
}
