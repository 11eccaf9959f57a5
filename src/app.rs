//! The composition root: store, intake, workers and the HTTP server, started together and
//! stopped together.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::clock::{Clock, SystemClock};
use crate::github::{AppKey, ClientConfig, GitHub};
use crate::handlers::{Dispatcher, JobHandler, LogOnly, Services};
use crate::queue::{
    Enqueuer, Maintenance, Queue, QueueEvent, Task, WorkerPool, periodically, replica_id,
    spawn_workers,
};
use crate::server::{AppState, router};
use crate::settings::Settings;
use crate::store::Store;
use crate::telemetry;

/// What the service is built from besides its settings. Tests replace the clock or handler.
pub struct Deps {
    pub clock: Arc<dyn Clock>,
    /// `None`: the product's handler for the configured mode.
    pub handler: Option<Arc<dyn JobHandler>>,
    /// Where job events go; an observer subscribed before start sees every one (work released
    /// at start-up runs at once).
    pub events: Option<broadcast::Sender<QueueEvent>>,
}

impl Default for Deps {
    fn default() -> Self {
        Deps {
            clock: Arc::new(SystemClock),
            handler: None,
            events: None,
        }
    }
}

/// A started service.
pub struct RunningApp {
    pub addr: SocketAddr,
    pub store: Store,
    /// Submits typed work to this service's queue.
    pub queue: Queue,
    events: broadcast::Sender<QueueEvent>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl RunningApp {
    /// Job events from this process's workers, from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<QueueEvent> {
        self.events.subscribe()
    }

    /// Stops accepting, finishes or gives back in-flight work, and waits for it.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.shutdown.cancel();
        self.task.await.context("the service task panicked")?
    }

    /// A token that stops the service when cancelled (signal handlers).
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Waits until the service stops by itself or through its token.
    pub async fn wait(self) -> anyhow::Result<()> {
        self.task.await.context("the service task panicked")?
    }
}

/// The address a browser on this machine reaches `addr` at (an unspecified IP is loopback).
fn loopback(addr: std::net::SocketAddr) -> std::net::SocketAddr {
    match addr.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => {
            std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, addr.port()))
        }
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port()))
        }
        _ => addr,
    }
}

/// Connects the database, applies migrations, binds the listener and starts everything.
pub async fn start(settings: Settings, deps: Deps) -> anyhow::Result<RunningApp> {
    let store = Store::connect(&settings.database_url).await?;
    store.migrate().await?;

    let setup_mode = settings.credentials.is_none();
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("binding REPRO_GATE_LISTEN={}", settings.listen))?;
    let addr = listener.local_addr()?;
    // Reachable beyond this machine: setup needs a one-time token from this log line.
    let exposed = !addr.ip().is_loopback()
        || settings
            .public_url
            .as_deref()
            .is_some_and(|u| !crate::server::setup::is_loopback_url(u));
    let setup_token = (setup_mode && exposed).then(|| crate::random::random_token(32));
    if setup_mode {
        let link = match &setup_token {
            Some(t) => format!("http://{addr}/setup?token={t}"),
            None => format!("http://{addr}/setup"),
        };
        tracing::warn!(
            missing = %settings.missing_credentials.join(", "),
            "setup mode: open {link} to configure the GitHub App; webhooks answer 503 until then"
        );
    }

    let new_jobs = Arc::new(Notify::new());
    let replica = replica_id();
    let maintenance = Maintenance {
        store: store.clone(),
        clock: deps.clock.clone(),
        replica: replica.clone(),
        beat: settings.queue.heartbeat,
        dead_after: settings.queue.dead_after,
        retention: settings.queue.retention,
        prune_every: std::time::Duration::from_secs(3600),
    };
    // Before any worker claims: what a killed process held is released now, not after its lease.
    maintenance.start().await?;
    let queue = Queue::new(store.clone(), deps.clock.clone(), new_jobs.clone());
    let writers = match store {
        Store::Sqlite(_) => 1,
        Store::Postgres(_) => 4,
    };
    let (enqueuer, writer_tasks) =
        Enqueuer::start(store.clone(), deps.clock.clone(), writers, new_jobs.clone());
    let events = deps
        .events
        .clone()
        .unwrap_or_else(|| broadcast::channel(1024).0);
    let shutdown = CancellationToken::new();

    let services = match &settings.credentials {
        Some(creds) => {
            let key = AppKey::from_pem(creds.app_id, &creds.private_key, "GITHUB_APP_PRIVATE_KEY")?;
            let mut config = ClientConfig::new(settings.github_api_url.clone());
            config.dry_run = settings.dry_run;
            Some(Services::new(
                GitHub::new(config, key),
                store.clone(),
                deps.clock.clone(),
                queue.clone(),
            ))
        }
        None => None,
    };
    let handler: Arc<dyn JobHandler> = match (deps.handler, &services) {
        (Some(h), _) => h,
        (None, Some(svc)) => Arc::new(Dispatcher {
            services: svc.clone(),
        }),
        // Setup mode: nothing can be done on GitHub yet; jobs are logged.
        (None, None) => Arc::new(LogOnly),
    };
    let workers = spawn_workers(
        WorkerPool {
            store: store.clone(),
            handler,
            clock: deps.clock.clone(),
            settings: settings.queue.clone(),
            new_jobs,
            events: events.clone(),
            replica: replica.clone(),
        },
        shutdown.clone(),
    );
    let maintenance_task = tokio::spawn(maintenance.clone().run(shutdown.clone()));

    // The history's schedules are looked at every few minutes (a job per slot across replicas).
    if services.is_some() && settings.history_schedule_minutes > 0 {
        tokio::spawn(periodically(
            queue.clone(),
            deps.clock.clone(),
            Task::HistorySchedule,
            std::time::Duration::from_secs(settings.history_schedule_minutes * 60),
            shutdown.clone(),
        ));
    }

    // Catch-up passes are jobs: on start and once per slot, however many replicas run.
    if services.is_some() && settings.reconcile_minutes > 0 {
        let every = std::time::Duration::from_secs(settings.reconcile_minutes * 60);
        tokio::spawn(periodically(
            queue.clone(),
            deps.clock.clone(),
            Task::CatchUp,
            every,
            shutdown.clone(),
        ));
    }

    let state = AppState {
        store: store.clone(),
        enqueuer,
        clock: deps.clock.clone(),
        metrics: telemetry::metrics_handle(),
        webhook_secrets: settings
            .credentials
            .as_ref()
            .map(|c| Arc::new(c.webhook_secrets.clone())),
        missing_credentials: Arc::new(settings.missing_credentials.clone()),
        setup: Arc::new(crate::server::SetupConfig::new(
            settings.github_api_url.clone(),
            settings.env_file.clone(),
            settings.public_url.clone(),
            setup_token.map(secrecy::SecretString::from),
        )),
        bodies: Arc::default(),
        job_counts: Arc::default(),
        dashboard_on: settings.oauth_client.is_some(),
    };
    let dashboard = settings.oauth_client.as_ref().map(|(id, secret)| {
        Arc::new(crate::dashboard::Dashboard::new(
            crate::github::user_api::UserClient::new(
                &settings.github_api_url,
                id.clone(),
                secret.clone(),
            ),
            secret,
            store.clone(),
            deps.clock.clone(),
            services.as_ref().map(|s| s.github.clone()),
            settings
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{}", loopback(addr))),
        ))
    });
    let app = router(state, crate::dashboard::router(dashboard));
    tracing::info!(
        %addr,
        backend = store.backend(),
        %replica,
        workers = settings.queue.workers,
        dry_run = settings.dry_run,
        "repro-gate listening"
    );

    let stop = shutdown.clone();
    let task_store = store.clone();
    let connections = settings.connections;
    let task = tokio::spawn(async move {
        let served = crate::server::listen::serve(listener, app, connections, stop)
            .await
            .context("serving HTTP");
        // The router (and with it every Enqueuer clone) is gone: writers drain and stop.
        for w in writer_tasks {
            let _ = w.await;
        }
        let mut workers = workers;
        while workers.join_next().await.is_some() {}
        let _ = maintenance_task.await;
        maintenance.stop().await;
        task_store.close().await;
        tracing::info!("repro-gate stopped");
        served
    });

    Ok(RunningApp {
        addr,
        store,
        queue,
        events,
        shutdown,
        task,
    })
}
