//! App authentication: an RS256 JWT (iss = App id, iat 60 s in the past, exp 9 minutes ahead)
//! exchanged for an installation token, cached until 5 minutes before it expires.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use octocrab::jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use secrecy::{ExposeSecret as _, SecretString};
use serde::Serialize;
use tokio::sync::Mutex;

/// The App's signing key, checked at start-up.
#[derive(Clone)]
pub struct AppKey {
    pub app_id: u64,
    key: EncodingKey,
    /// A secret derived from the private key (every replica has the same): it keys session
    /// ids, so that nobody outside can tell one in advance.
    derived: [u8; 32],
}

impl std::fmt::Debug for AppKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppKey")
            .field("app_id", &self.app_id)
            .finish_non_exhaustive()
    }
}

impl AppKey {
    /// Parses a PKCS#1 or PKCS#8 PEM key; `variable` names where it came from in errors.
    pub fn from_pem(app_id: u64, pem: &SecretString, variable: &str) -> anyhow::Result<Self> {
        let key = EncodingKey::from_rsa_pem(pem.expose_secret().as_bytes()).map_err(|e| {
            anyhow::anyhow!(
                "{variable} is not an RSA private key in PEM form (PKCS#1 or PKCS#8): {e}"
            )
        })?;
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update(b"repro-gate session ids\0");
        h.update(pem.expose_secret().as_bytes());
        Ok(AppKey {
            app_id,
            key,
            derived: h.finalize().into(),
        })
    }

    /// The secret that keys session ids.
    pub fn session_key(&self) -> &[u8; 32] {
        &self.derived
    }

    /// A JWT valid for 9 minutes from `now` (iat back-dated 60 s for clock drift).
    pub fn jwt(&self, now: SystemTime) -> anyhow::Result<SecretString> {
        #[derive(Serialize)]
        struct Claims {
            iat: u64,
            exp: u64,
            iss: String,
        }
        let secs = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let claims = Claims {
            iat: secs.saturating_sub(60),
            exp: secs + 9 * 60,
            iss: self.app_id.to_string(),
        };
        let token = encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| anyhow::anyhow!("signing the App JWT: {e}"))?;
        Ok(SecretString::from(token))
    }
}

/// An installation token and when it stops being used.
#[derive(Clone)]
pub struct CachedToken {
    pub token: SecretString,
    /// Refresh from this instant on (5 minutes before GitHub's `expires_at`).
    pub refresh_at: SystemTime,
}

/// Tokens per installation.
#[derive(Default)]
pub struct TokenCache {
    tokens: Mutex<HashMap<i64, CachedToken>>,
}

impl TokenCache {
    pub async fn get(&self, installation: i64, now: SystemTime) -> Option<SecretString> {
        let tokens = self.tokens.lock().await;
        tokens
            .get(&installation)
            .filter(|t| now < t.refresh_at)
            .map(|t| t.token.clone())
    }

    pub async fn put(&self, installation: i64, token: SecretString, expires_at: SystemTime) {
        let refresh_at = expires_at
            .checked_sub(Duration::from_secs(300))
            .unwrap_or(expires_at);
        self.tokens
            .lock()
            .await
            .insert(installation, CachedToken { token, refresh_at });
    }

    pub async fn forget(&self, installation: i64) {
        self.tokens.lock().await.remove(&installation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKCS1: &str = include_str!("../../tests/fixtures/test-app-key.pem");
    const PKCS8: &str = include_str!("../../tests/fixtures/test-app-key.pkcs8.pem");

    #[test]
    fn both_pem_forms_sign_and_a_bad_key_names_its_variable() {
        for pem in [PKCS1, PKCS8] {
            let key = AppKey::from_pem(
                42,
                &SecretString::from(pem.to_string()),
                "GITHUB_APP_PRIVATE_KEY",
            )
            .unwrap();
            let jwt = key.jwt(SystemTime::now()).unwrap();
            assert_eq!(jwt.expose_secret().split('.').count(), 3);
        }
        let err = AppKey::from_pem(
            42,
            &SecretString::from("not a key".to_string()),
            "GITHUB_APP_PRIVATE_KEY_PATH",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("GITHUB_APP_PRIVATE_KEY_PATH"),
            "{err}"
        );
        assert!(
            !format!(
                "{:?}",
                AppKey::from_pem(1, &SecretString::from(PKCS1.to_string()), "x").unwrap()
            )
            .contains("PRIVATE")
        );
    }

    #[test]
    fn tokens_are_refreshed_five_minutes_before_expiry() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let cache = TokenCache::default();
            let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
            cache
                .put(
                    7,
                    SecretString::from("t".to_string()),
                    now + Duration::from_secs(3600),
                )
                .await;
            assert!(
                cache
                    .get(7, now + Duration::from_secs(3600 - 301))
                    .await
                    .is_some()
            );
            assert!(
                cache
                    .get(7, now + Duration::from_secs(3600 - 300))
                    .await
                    .is_none()
            );
        });
    }
}
