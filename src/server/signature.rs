//! `X-Hub-Signature-256` verification: HMAC-SHA256 of the raw body, compared in constant time,
//! against each configured secret (several during a rotation).

use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret as _, SecretString};
use sha2::Sha256;

/// True when `header` (`sha256=<hex>`) is the HMAC of `body` under any of `secrets`.
pub fn verify(secrets: &[SecretString], header: &str, body: &[u8]) -> bool {
    let Some(hex_sig) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Ok(signature) = hex::decode(hex_sig) else {
        return false;
    };
    // Every secret is tried, so the time taken does not tell which one matched.
    secrets.iter().fold(false, |ok, secret| {
        let matched = Hmac::<Sha256>::new_from_slice(secret.expose_secret().as_bytes())
            .map(|mut mac| {
                mac.update(body);
                mac.verify_slice(&signature).is_ok()
            })
            .unwrap_or(false);
        ok | matched
    })
}

/// The header value GitHub would send for `body` signed with `secret`.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(list: &[&str]) -> Vec<SecretString> {
        list.iter()
            .map(|s| SecretString::from(s.to_string()))
            .collect()
    }

    #[test]
    fn accepts_githubs_documented_example() {
        // From GitHub's "Validating webhook deliveries" page.
        let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert!(verify(
            &secrets(&["It's a Secret to Everybody"]),
            header,
            b"Hello, World!"
        ));
    }

    #[test]
    fn any_secret_of_a_rotation_may_sign() {
        let body = br#"{"zen":"x"}"#;
        let header = sign("new", body);
        assert!(verify(&secrets(&["old", "new"]), &header, body));
        assert!(!verify(&secrets(&["old"]), &header, body));
    }

    #[test]
    fn rejects_tampered_bodies_and_malformed_headers() {
        let header = sign("s", b"body");
        assert!(!verify(&secrets(&["s"]), &header, b"body!"));
        for bad in [
            "",
            "sha256=",
            "sha1=00",
            "sha256=zz",
            &header[..header.len() - 2],
        ] {
            assert!(!verify(&secrets(&["s"]), bad, b"body"), "{bad}");
        }
        assert!(!verify(&[], &header, b"body"));
    }
}
