//! The service's settings, resolved from flags and environment (see `cli`) into plain values.

use std::net::SocketAddr;

use secrecy::{ExposeSecret as _, SecretString};

/// The GitHub App's identity. Present only when id, key and webhook secret are all configured.
#[derive(Clone)]
pub struct AppCredentials {
    pub app_id: u64,
    pub private_key: SecretString,
    /// Any one of these may sign a delivery (several during a rotation).
    pub webhook_secrets: Vec<SecretString>,
}

impl std::fmt::Debug for AppCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCredentials")
            .field("app_id", &self.app_id)
            .field("private_key", &"[redacted]")
            .field("webhook_secrets", &self.webhook_secrets.len())
            .finish()
    }
}

pub use crate::queue::settings::{MIN_RETENTION_DAYS, QueueSettings};

/// Everything `serve` needs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub listen: SocketAddr,
    pub database_url: String,
    pub github_api_url: String,
    pub dry_run: bool,
    pub credentials: Option<AppCredentials>,
    /// Which of id, key and secret are missing (for the setup page and log).
    pub missing_credentials: Vec<&'static str>,
    pub queue: QueueSettings,
    /// Minutes between catch-up passes; 0 turns them off.
    pub reconcile_minutes: u64,
    /// Minutes between looks at each repository's `history.schedule` (the nightly publish);
    /// 0 turns scheduled publishing off.
    pub history_schedule_minutes: u64,
    /// Where the setup flow writes the registered App's credentials.
    pub env_file: std::path::PathBuf,
    /// Where GitHub reaches this service (`REPRO_GATE_PUBLIC_URL`), behind a proxy or tunnel.
    pub public_url: Option<String>,
    /// Limits on HTTP connections (slow and abusive clients).
    pub connections: crate::server::listen::ConnLimits,
    /// The App's OAuth client (`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`): the dashboard's
    /// sign-in; without it the dashboard answers 404.
    pub oauth_client: Option<(String, secrecy::SecretString)>,
}

impl Settings {
    /// Settings with the contract's defaults and the given database.
    pub fn new(database_url: impl Into<String>) -> Self {
        Settings {
            listen: SocketAddr::from(([127, 0, 0, 1], 3000)),
            database_url: database_url.into(),
            github_api_url: "https://api.github.com".into(),
            dry_run: false,
            credentials: None,
            missing_credentials: vec![
                "GITHUB_APP_ID",
                "GITHUB_APP_PRIVATE_KEY_PATH or GITHUB_APP_PRIVATE_KEY",
                "GITHUB_WEBHOOK_SECRET",
            ],
            queue: QueueSettings::default(),
            reconcile_minutes: 10,
            history_schedule_minutes: 5,
            env_file: ".env".into(),
            public_url: None,
            connections: Default::default(),
            oauth_client: None,
        }
    }

    /// Sets the App's credentials from their raw values; the secret may list several, comma-separated.
    pub fn with_credentials(
        mut self,
        app_id: u64,
        private_key: &str,
        webhook_secret: &str,
    ) -> Self {
        self.credentials = Some(AppCredentials {
            app_id,
            private_key: SecretString::from(private_key.to_owned()),
            webhook_secrets: split_secrets(&SecretString::from(webhook_secret.to_owned())),
        });
        self.missing_credentials.clear();
        self
    }
}

/// Splits a comma-separated secret list, dropping empty entries and surrounding spaces.
pub fn split_secrets(raw: &SecretString) -> Vec<SecretString> {
    raw.expose_secret()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| SecretString::from(s.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_split_on_commas_and_ignore_blanks() {
        let got = split_secrets(&SecretString::from(" old , new,,".to_owned()));
        let got: Vec<&str> = got.iter().map(|s| s.expose_secret()).collect();
        assert_eq!(got, ["old", "new"]);
    }

    #[test]
    fn debug_output_never_shows_the_key_or_secrets() {
        let s = Settings::new("sqlite::memory:").with_credentials(1, "PRIVATE-KEY", "hunter2");
        let shown = format!("{s:?}");
        assert!(!shown.contains("PRIVATE-KEY"), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}
