//! Upload tokens (docs/service.md#http-metrics-and-logs): one repository each, shown once, stored as their SHA-256.

use sha2::{Digest as _, Sha256};

/// Every token starts with this (so a leaked one is recognisable in a secret scanner).
pub const PREFIX: &str = "rgu_";

/// A new random token (160 bits).
pub fn new_token() -> String {
    let bytes: [u8; 20] = rand::random();
    format!("{PREFIX}{}", hex::encode(bytes))
}

/// What is stored and looked up: the token's SHA-256, hex.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The token of an `Authorization: Bearer …` (or `token …`) header value.
pub fn from_header(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    ((scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("token"))
        && !token.is_empty()
        && token.len() <= 256)
        .then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_prefixed_and_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert!(a.starts_with(PREFIX) && a.len() == PREFIX.len() + 40);
        assert_eq!(hash(&a), hash(&a));
        assert_ne!(hash(&a), hash(&b));
        assert_eq!(hash(&a).len(), 64);
        assert!(!hash(&a).contains(&a[PREFIX.len()..]));
    }

    #[test]
    fn bearer_headers_are_read() {
        assert_eq!(from_header("Bearer rgu_x"), Some("rgu_x"));
        assert_eq!(from_header("bearer  rgu_x "), Some("rgu_x"));
        assert_eq!(from_header("token rgu_x"), Some("rgu_x"));
        assert_eq!(from_header("Basic abc"), None);
        assert_eq!(from_header("Bearer"), None);
        assert_eq!(from_header("Bearer "), None);
    }
}
