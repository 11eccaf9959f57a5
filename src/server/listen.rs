//! Serving HTTP with limits against slow and abusive clients: a connection must send its request
//! headers within `header_read`, is closed after `idle` without any traffic, and at most
//! `max_connections` are open at once (beyond that a new connection is closed at once, so file
//! descriptors stay free for the ones being served). Small answers go out without Nagle delay.
//! Shutdown stops accepting and lets open connections finish their requests.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

/// The limits on connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnLimits {
    pub header_read: Duration,
    pub idle: Duration,
    pub max_connections: usize,
    /// How long shutdown waits for open connections.
    pub drain: Duration,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_read: Duration::from_secs(10),
            idle: Duration::from_secs(30),
            max_connections: 512,
            drain: Duration::from_secs(10),
        }
    }
}

/// Serves `app` on `listener` until `stop`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    stop: CancellationToken,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read)
        .max_buf_size(64 * 1024)
        .keep_alive(true);
    builder.http2().timer(TokioTimer::new());
    let service = TowerToHyperService::new(app);
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            a = listener.accept() => a,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors or similar: back off instead of spinning.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            metrics::counter!("repro_gate_connections_refused_total").increment(1);
            tracing::debug!(%peer, "connection limit reached; connection closed");
            drop(tcp);
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let io = TokioIo::new(IdleIo::new(tcp, limits.idle));
        let conn = builder
            .serve_connection_with_upgrades(io, service.clone())
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(limits.drain) => {
            tracing::warn!("connections still open after the drain period; closing them");
        }
    }
    Ok(())
}

/// A stream that fails with `TimedOut` after `idle` without reading or writing anything.
pub struct IdleIo<T> {
    inner: T,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<T> IdleIo<T> {
    pub fn new(inner: T, idle: Duration) -> Self {
        IdleIo {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn touch(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "connection idle for too long")
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                this.touch();
                Poll::Ready(r)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_write(cx, data) {
            Poll::Ready(r) => {
                this.touch();
                Poll::Ready(r)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => {
                this.touch();
                Poll::Ready(r)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt as _;

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_is_cut_off_after_the_idle_time() {
        let (client, server) = tokio::io::duplex(64);
        let mut io = IdleIo::new(server, Duration::from_secs(30));
        let mut buf = [0u8; 8];
        // Time is paused: the read waits until the clock auto-advances past the deadline.
        let err = io.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        drop(client);
    }

    #[tokio::test(start_paused = true)]
    async fn traffic_keeps_a_connection_open() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut io = IdleIo::new(server, Duration::from_secs(30));
        use tokio::io::AsyncWriteExt as _;
        for _ in 0..5 {
            tokio::time::advance(Duration::from_secs(20)).await;
            client.write_all(b"x").await.unwrap();
            let mut b = [0u8; 1];
            assert_eq!(io.read(&mut b).await.unwrap(), 1);
        }
    }
}
