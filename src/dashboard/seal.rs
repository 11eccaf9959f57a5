//! The visitor's GitHub token at rest (docs/dashboard.md): sealed with XChaCha20-Poly1305 under a key
//! derived from the App's client secret (HMAC-SHA-256), a random nonce per token. A database
//! copy without the server's secrets holds no usable token; a row sealed under another secret,
//! or tampered with, opens to nothing (the visitor signs in again).

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{KeyInit as _, Mac};
use secrecy::{ExposeSecret as _, SecretString};

/// What a sealed token starts with (the format's version).
const PREFIX: &str = "v1.";

pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl Sealer {
    /// The key is HMAC-SHA-256(client secret, a fixed label): the same secret gives the same key
    /// on every replica.
    pub fn new(secret: &SecretString) -> Sealer {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.expose_secret().as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(b"repro-gate dashboard: the user's token at rest, v1");
        let key = mac.finalize().into_bytes();
        Sealer {
            cipher: XChaCha20Poly1305::new_from_slice(&key).expect("a 32-byte key"),
        }
    }

    pub fn seal(&self, token: &str) -> String {
        let nonce_bytes: [u8; 24] = rand::random();
        let nonce = XNonce::from_slice(&nonce_bytes);
        let sealed = self
            .cipher
            .encrypt(nonce, token.as_bytes())
            .expect("sealing a short token cannot fail");
        format!(
            "{PREFIX}{}.{}",
            hex::encode(nonce_bytes),
            hex::encode(sealed)
        )
    }

    /// The token, when `stored` was sealed by this key and not changed since.
    pub fn open(&self, stored: &str) -> Option<SecretString> {
        let rest = stored.strip_prefix(PREFIX)?;
        let (nonce, sealed) = rest.split_once('.')?;
        let nonce = hex::decode(nonce).ok().filter(|n| n.len() == 24)?;
        let sealed = hex::decode(sealed).ok()?;
        let plain = self
            .cipher
            .decrypt(XNonce::from_slice(&nonce), sealed.as_slice())
            .ok()?;
        String::from_utf8(plain).ok().map(SecretString::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(s: &str) -> Sealer {
        Sealer::new(&SecretString::from(s.to_string()))
    }

    #[test]
    fn a_sealed_token_opens_with_its_key_only() {
        let s = sealer("client-secret");
        let sealed = s.seal("ghu_abc123");
        assert!(!sealed.contains("ghu_abc123"), "{sealed}");
        assert_eq!(
            s.open(&sealed).map(|t| t.expose_secret().to_string()),
            Some("ghu_abc123".into())
        );
        assert!(sealer("another-secret").open(&sealed).is_none());
        assert_ne!(s.seal("ghu_abc123"), sealed, "a nonce per seal");
    }

    #[test]
    fn tampered_plain_or_malformed_rows_open_to_nothing() {
        let s = sealer("client-secret");
        let sealed = s.seal("ghu_abc123");
        let mut bytes = sealed.into_bytes();
        let last = bytes.len() - 1;
        bytes[last] = if bytes[last] == b'0' { b'1' } else { b'0' };
        let tampered = String::from_utf8(bytes).expect("hex");
        for bad in [
            tampered.as_str(),
            "ghu_plain_token_from_before",
            "v1.",
            "v1.zz.00",
            "v1.00.00",
        ] {
            assert!(s.open(bad).is_none(), "{bad}");
        }
    }
}
