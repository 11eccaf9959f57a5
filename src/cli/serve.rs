//! `serve` and `migrate`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use secrecy::{ExposeSecret as _, SecretString};

use super::{AppArgs, DbArgs, ServeArgs};
use crate::app::{self, Deps};
use crate::settings::{AppCredentials, QueueSettings, Settings, split_secrets};
use crate::store::Store;

pub async fn migrate(args: DbArgs) -> anyhow::Result<ExitCode> {
    let store = Store::connect(&args.database_url).await?;
    store.migrate().await?;
    store.close().await;
    tracing::info!(backend = store.backend(), "migrations applied");
    Ok(ExitCode::SUCCESS)
}

pub async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let settings = settings_from(args)?;
    // The handlers are installed before the listener is bound: a signal
    // that arrives as soon as /healthz answers is a graceful shutdown, not
    // the default action (which would kill the process mid-work).
    let signal = super::signal::shutdown_signal()?;
    let running = app::start(settings, Deps::default()).await?;
    let token = running.shutdown_token();
    tokio::spawn(async move {
        signal.await;
        tracing::info!("shutdown signal received: finishing in-flight work");
        token.cancel();
    });
    running.wait().await?;
    Ok(ExitCode::SUCCESS)
}

fn settings_from(args: ServeArgs) -> anyhow::Result<Settings> {
    let mut settings = Settings::new(args.db.database_url);
    settings.listen = args.listen;
    settings.github_api_url = args.app.github_api_url.clone();
    settings.dry_run = args.app.dry_run;
    settings.public_url = args.public_url.filter(|u| !u.trim().is_empty());
    settings.oauth_client = match (
        args.client_id.filter(|c| !c.trim().is_empty()),
        args.client_secret.filter(|c| !c.trim().is_empty()),
    ) {
        (Some(id), Some(secret)) => Some((id, secrecy::SecretString::from(secret))),
        (Some(_), None) => {
            tracing::warn!(
                "GITHUB_CLIENT_ID is set without GITHUB_CLIENT_SECRET: the dashboard stays off"
            );
            None
        }
        _ => None,
    };
    settings.connections.max_connections = args.max_connections.max(1);
    settings.reconcile_minutes = args.reconcile_minutes;
    settings.history_schedule_minutes = args.history_schedule_minutes;
    settings.queue = QueueSettings {
        workers: args.workers,
        per_installation: args.workers_per_installation,
        max_attempts: args.max_attempts,
        lease: Duration::from_secs(args.lease_seconds),
        job_deadline: Duration::from_secs(args.job_deadline_seconds),
        shutdown_grace: Duration::from_secs(args.shutdown_grace_seconds),
        retention: Duration::from_secs(args.retention_days * 24 * 3600),
        ..QueueSettings::default()
    };

    let key = private_key(&args.app)?;
    let secrets = args
        .app
        .webhook_secret
        .clone()
        .map(|s| split_secrets(&SecretString::from(s)))
        .filter(|v| !v.is_empty());

    let mut missing = Vec::new();
    if args.app.app_id.is_none() {
        missing.push("GITHUB_APP_ID");
    }
    if key.is_none() {
        missing.push("GITHUB_APP_PRIVATE_KEY_PATH or GITHUB_APP_PRIVATE_KEY");
    }
    if secrets.is_none() {
        missing.push("GITHUB_WEBHOOK_SECRET");
    }
    settings.missing_credentials = missing;
    if let (Some(app_id), Some(private_key), Some(webhook_secrets)) =
        (args.app.app_id, key, secrets)
    {
        let variable = key_variable(&args.app);
        octocrab::jsonwebtoken::EncodingKey::from_rsa_pem(private_key.expose_secret().as_bytes())
            .map_err(|e| {
            anyhow::anyhow!(
                "{variable} is not an RSA private key in PEM form (PKCS#1 or PKCS#8): {e}"
            )
        })?;
        settings.credentials = Some(AppCredentials {
            app_id,
            private_key,
            webhook_secrets,
        });
    }
    Ok(settings)
}

/// The App's private key, from its file or its content.
pub(super) fn private_key(app: &AppArgs) -> anyhow::Result<Option<SecretString>> {
    Ok(match (&app.private_key_path, &app.private_key) {
        (Some(path), _) => Some(SecretString::from(
            std::fs::read_to_string(path).with_context(|| {
                format!("reading GITHUB_APP_PRIVATE_KEY_PATH={}", path.display())
            })?,
        )),
        (None, Some(pem)) => Some(SecretString::from(pem.replace("\\n", "\n"))),
        (None, None) => None,
    })
}

/// The variable the key came from (named in errors).
pub(super) fn key_variable(app: &AppArgs) -> &'static str {
    if app.private_key_path.is_some() {
        "GITHUB_APP_PRIVATE_KEY_PATH"
    } else {
        "GITHUB_APP_PRIVATE_KEY"
    }
}
