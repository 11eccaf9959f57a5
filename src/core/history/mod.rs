//! The history (docs/history.md): recorded CI results become each test's window, the windows become tiers
//! with hysteresis, and the tiers become `.ci/test-reliability.yaml`. Pure: no IO.

pub mod file;
pub mod merged;
pub mod onset;
pub mod reasons;
pub mod record;
pub mod simulate;
pub mod status;
pub mod tiers;
pub mod window;
