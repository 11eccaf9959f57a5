//! The pure core: judgement over plain data. No IO, no async, no clock.

pub mod delivery;
