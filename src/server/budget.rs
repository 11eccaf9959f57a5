//! Memory held by request bodies that are not authenticated yet: a body is read whole before
//! its signature (or token) can be checked, so the bytes in flight are budgeted. A body of up to
//! `SMALL` bytes takes from one budget, a larger one from another; when its budget is spent the
//! request is refused at once (503, before reading), so a flood of large unsigned uploads
//! cannot take the memory that normal deliveries (a few KB each) need. GitHub records a refused
//! delivery as failed and the catch-up pass asks for it again.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bodies up to this size share the small budget.
pub const SMALL: usize = 1024 * 1024;

/// Budgets are counted in KiB (a semaphore counts up to `u32::MAX` permits).
const UNIT: usize = 1024;

#[derive(Debug)]
pub struct BodyBudget {
    small: Arc<Semaphore>,
    large: Arc<Semaphore>,
}

impl BodyBudget {
    pub fn new(small_bytes: usize, large_bytes: usize) -> Self {
        BodyBudget {
            small: Arc::new(Semaphore::new(small_bytes / UNIT)),
            large: Arc::new(Semaphore::new(large_bytes / UNIT)),
        }
    }

    /// Reserves room for a body of `len` bytes (`max` when the length is not announced).
    /// `None` when the budget is spent.
    pub fn reserve(&self, len: Option<usize>, max: usize) -> Option<OwnedSemaphorePermit> {
        let len = len.unwrap_or(max).min(max);
        let units = u32::try_from(len.div_ceil(UNIT).max(1)).ok()?;
        let pool = if len <= SMALL {
            &self.small
        } else {
            &self.large
        };
        pool.clone().try_acquire_many_owned(units).ok()
    }
}

impl Default for BodyBudget {
    /// 32 MiB for small bodies, 64 MiB for large ones (two 25 MiB deliveries at once).
    fn default() -> Self {
        BodyBudget::new(32 * 1024 * 1024, 64 * 1024 * 1024)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_bodies_take_their_own_budget_and_give_it_back() {
        let b = BodyBudget::new(2 * SMALL, 50 * SMALL);
        let big1 = b.reserve(Some(25 * SMALL), 25 * SMALL).expect("room");
        let big2 = b
            .reserve(None, 25 * SMALL)
            .expect("room for an unannounced one");
        assert!(b.reserve(Some(25 * SMALL), 25 * SMALL).is_none(), "spent");
        // Small deliveries still get in.
        assert!(b.reserve(Some(30_000), 25 * SMALL).is_some());
        drop(big1);
        assert!(b.reserve(Some(25 * SMALL), 25 * SMALL).is_some());
        drop(big2);
    }
}
