//! One rate-limit gate per identity (the App, each installation): after GitHub answers a rate
//! limit (403/429 with `Retry-After`, or `x-ratelimit-remaining: 0`), every request of that
//! identity waits until the reset, whichever job sends it. GitHub asks integrations to stop all
//! requests until then; continuing can get the App banned.
//!
//! With several replicas, each learns of the limit from its own first limited answer (GitHub
//! answers every request of the installation the same way until the reset), so each sends at
//! most the requests it had in flight before pausing too.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::transport::Sleeper;

/// Whose requests a limit stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Identity {
    App,
    Installation(i64),
}

#[derive(Clone, Copy, Debug)]
struct Closed {
    until: SystemTime,
    /// Bumped each time the gate closes again, so a waiter knows whether it waited out the
    /// latest closing (a sleeper in tests returns at once; the gate trusts the wait it asked for).
    generation: u64,
}

#[derive(Debug, Default)]
pub struct RateGate {
    closed: Mutex<HashMap<Identity, Closed>>,
}

impl RateGate {
    /// Closes the gate of `who` for `wait` from `now` (never shortening a longer closing).
    pub fn close(&self, who: Identity, wait: Duration, now: SystemTime) {
        let until = now + wait;
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        let entry = closed.entry(who).or_insert(Closed {
            until,
            generation: 0,
        });
        entry.until = entry.until.max(until);
        entry.generation += 1;
    }

    /// How long `who` must still wait, and the closing it belongs to.
    fn pending(&self, who: Identity, now: SystemTime) -> Option<(Duration, u64)> {
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        let c = *closed.get(&who)?;
        match c.until.duration_since(now) {
            Ok(left) if !left.is_zero() => Some((left, c.generation)),
            _ => {
                closed.remove(&who);
                None
            }
        }
    }

    /// Waits until `who` may send. Returns how long it asked to wait in all.
    pub async fn pass(&self, who: Identity, sleeper: &dyn Sleeper) -> Duration {
        let mut waited = Duration::ZERO;
        while let Some((left, generation)) = self.pending(who, SystemTime::now()) {
            tracing::debug!(
                ?who,
                wait_ms = left.as_millis() as u64,
                "rate limited: waiting for the reset before sending"
            );
            sleeper.sleep(left).await;
            waited += left;
            // The wait asked for is over: the gate opens, unless it closed again meanwhile.
            if self.open_after(who, generation) {
                break;
            }
        }
        waited
    }

    /// Opens the gate when its latest closing is `generation`; false when it closed again.
    fn open_after(&self, who: Identity, generation: u64) -> bool {
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        match closed.get(&who) {
            Some(c) if c.generation != generation => false,
            _ => {
                closed.remove(&who);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;

    #[derive(Default)]
    struct Record(Mutex<Vec<Duration>>);
    impl Sleeper for Record {
        fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
            self.0.lock().unwrap().push(d);
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn a_closed_gate_holds_every_request_of_that_identity_only() {
        let gate = RateGate::default();
        let sleeper = Arc::new(Record::default());
        gate.close(
            Identity::Installation(7),
            Duration::from_secs(30),
            SystemTime::now(),
        );
        let waited = gate.pass(Identity::Installation(7), sleeper.as_ref()).await;
        assert!(waited > Duration::from_secs(29) && waited <= Duration::from_secs(30));
        assert_eq!(
            gate.pass(Identity::Installation(8), sleeper.as_ref()).await,
            Duration::ZERO
        );
        assert_eq!(
            gate.pass(Identity::App, sleeper.as_ref()).await,
            Duration::ZERO
        );
        assert_eq!(sleeper.0.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_later_limit_extends_the_closing_and_an_earlier_one_does_not_shorten_it() {
        let gate = RateGate::default();
        let now = SystemTime::now();
        gate.close(Identity::App, Duration::from_secs(60), now);
        gate.close(Identity::App, Duration::from_secs(5), now);
        let (left, _) = gate.pending(Identity::App, now).unwrap();
        assert_eq!(left, Duration::from_secs(60));
        assert!(
            gate.pending(Identity::App, now + Duration::from_secs(61))
                .is_none()
        );
    }
}
