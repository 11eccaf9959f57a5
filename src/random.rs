//! Random tokens (hex): the setup flow's state and one-time token, the dashboard's sign-in
//! nonces and session ids, temporary file names.

/// `n` random hex characters.
pub fn random_token(n: usize) -> String {
    (0..n)
        .map(|_| format!("{:x}", rand::random::<u8>() % 16))
        .collect()
}
