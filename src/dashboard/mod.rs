//! The reliability dashboard (docs/dashboard.md): the history as server-rendered pages and JSON, for people
//! signed in with GitHub who can read the repository. Without an OAuth client id every route
//! here answers 404.
//!
//! - `signin.rs`: the OAuth web flow (state bound to a signed cookie), sessions, sign-out.
//! - `seal.rs`: the user's token encrypted at rest.
//! - `access.rs`: who the visitor is and which repositories they may read (cached briefly).
//! - `data.rs`: one page's data from the store (and the default branch's reliability file).
//! - `pages.rs`, `test_page.rs`, `charts.rs`: pure rendering: data in, HTML and inline SVG out.
//! - `search.rs`: what `?q=` asks for.
//! - `routes.rs`: the handlers.

pub mod access;
pub mod charts;
pub mod data;
pub mod pages;
pub mod routes;
pub mod seal;
pub mod search;
pub mod signin;
pub mod test_page;
pub mod when;

use std::sync::Arc;
use std::time::Duration;

use axum_extra::extract::cookie::Key;
use moka::sync::Cache;
use sha2::Digest as _;

use crate::clock::Clock;
use crate::github::GitHub;
use crate::github::user_api::UserClient;
use crate::store::Store;

pub use routes::router;

/// How long a visitor's list of readable repositories is trusted.
pub const ACCESS_TTL: Duration = Duration::from_secs(60);
/// How long the default branch's reliability file is trusted before it is read again.
pub const FILE_TTL: Duration = Duration::from_secs(300);
/// How long a sign-in lasts at most.
pub const SESSION_TTL_MS: i64 = 8 * 3600 * 1000;
/// A page of tests.
pub const PER_PAGE: u32 = 100;

/// Everything the dashboard's handlers need.
pub struct Dashboard {
    pub oauth: UserClient,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// The App's client, to read the default branch's reliability file (`None` in setup mode).
    pub github: Option<GitHub>,
    /// Where visitors reach the service (`REPRO_GATE_PUBLIC_URL`, else the address it
    /// listens on): the OAuth callback is built from it, never from a request's `Host`.
    pub public_url: String,
    /// Signs the cookies (derived from the client secret).
    pub key: Key,
    /// Seals the users' tokens in the database.
    pub sealer: seal::Sealer,
    /// Session → the repositories (full name, installation) the visitor can read.
    pub access: Cache<String, Arc<Vec<(String, i64)>>>,
    /// Repositories whose reliability file was read within [`FILE_TTL`].
    pub files: Cache<String, ()>,
}

impl Dashboard {
    pub fn new(
        oauth: UserClient,
        secret: &secrecy::SecretString,
        store: Store,
        clock: Arc<dyn Clock>,
        github: Option<GitHub>,
        public_url: String,
    ) -> Dashboard {
        use secrecy::ExposeSecret as _;
        let mut h = sha2::Sha512::new();
        h.update(b"repro-gate dashboard cookies\0");
        h.update(secret.expose_secret().as_bytes());
        let key = Key::from(h.finalize().as_slice());
        Dashboard {
            oauth,
            store,
            clock,
            github,
            public_url: public_url.trim_end_matches('/').to_string(),
            key,
            sealer: seal::Sealer::new(secret),
            access: Cache::builder()
                .time_to_live(ACCESS_TTL)
                .max_capacity(10_000)
                .build(),
            files: Cache::builder()
                .time_to_live(FILE_TTL)
                .max_capacity(10_000)
                .build(),
        }
    }

    /// Cookies are `Secure` when the service is reached over https.
    pub fn secure(&self) -> bool {
        self.public_url.starts_with("https://")
    }

    /// The scheme, host and port visitors use (what a same-origin request's `Origin` is).
    pub fn origin(&self) -> &str {
        let u = self.public_url.as_str();
        let start = u.find("://").map_or(0, |i| i + 3);
        match u[start..].find('/') {
            Some(i) => &u[..start + i],
            None => u,
        }
    }
}
