//! Random tokens (hex) for the setup flow's state, its one-time token, and temporary file
//! names: one helper that the setup page and the `.env` writer both use, so neither depends on
//! the other.

/// `n` random hex characters.
pub fn random_token(n: usize) -> String {
    (0..n)
        .map(|_| format!("{:x}", rand::random::<u8>() % 16))
        .collect()
}
