//! The checkout's own `.github/repro-gate.yml` (or a file named on the command line): what
//! `rerun-local`, `verify-local`, `agents-md` and the MCP tools read, the same strict parser
//! as the service.

use std::io::Read as _;
use std::path::Path;

use crate::core::config::{self, RepoConfig};

/// The config `explicit` names (relative to `dir`), else the checkout's
/// `.github/repro-gate.yml` when present, else the defaults.
pub fn checkout_config(dir: &Path, explicit: Option<&str>) -> Result<RepoConfig, String> {
    let path = match explicit {
        Some(c) => Some(dir.join(c)),
        None => Some(dir.join(config::CONFIG_PATH)).filter(|p| p.is_file()),
    };
    match path {
        None => Ok(RepoConfig::default()),
        Some(p) => {
            let mut bytes = Vec::new();
            std::fs::File::open(&p)
                .and_then(|f| {
                    f.take(config::MAX_CONFIG_BYTES as u64 + 1)
                        .read_to_end(&mut bytes)
                })
                .map_err(|e| format!("cannot read the config from {}: {e}", p.display()))?;
            config::parse(&String::from_utf8_lossy(&bytes)).map_err(|e| e.to_string())
        }
    }
}
