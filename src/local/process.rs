//! One shell command in its own process group: its output (stdout and stderr as one stream,
//! bounded), how it ended, and a time limit and a stop that end the whole group, so that a
//! hung test, its children and grandchildren are gone when this returns.

use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncReadExt as _;
use tokio_util::sync::CancellationToken;

use crate::core::runs::{Capture, Ended};

/// A finished command.
#[derive(Debug)]
pub struct Ran {
    pub output: String,
    pub ended: Ended,
}

/// Why a command did not finish.
#[derive(Debug)]
pub enum NotRun {
    /// The stop was asked for; the group was ended.
    Stopped,
    /// It could not be started.
    Spawn(String),
}

/// Reaps the group's members that have ended and are this process's children: a run's
/// orphans come to this process (see [`adopt_orphans`]) rather than to an init that may never
/// reap them (a container's PID 1), and a zombie still counts as a member of its group.
fn reap(pgid: i32) {
    // SAFETY: waitpid with WNOHANG only collects ended children of the group; none is -1/0.
    while unsafe { libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
}

/// Makes this process the subreaper of what it starts (Linux): a run's processes orphaned when
/// its shell ends are reparented here, where [`reap`] collects them, so ending a hung run does
/// not wait out its grace on zombies. Elsewhere nothing changes.
fn adopt_orphans() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: PR_SET_CHILD_SUBREAPER takes one integer argument and changes only this
        // process's attribute.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
        }
    });
}

/// Ends a run whose shell is still running (out of time, or stopped): SIGTERM to its group,
/// the shell's own exit awaited and reaped (until it is, its zombie keeps the group alive and
/// `end_group` would wait out its whole grace: 3 s a hung run, seen in
/// `benches/real_fixes.py --cost`), then whatever is left of the group goes.
async fn end_running(pgid: i32, child: &mut tokio::process::Child) {
    // SAFETY: killpg only sends a signal; a group that is gone answers ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGTERM);
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
    end_group(pgid, Duration::from_secs(2)).await;
}

/// Ends the process group `pgid`: SIGTERM, then SIGKILL to whatever is left after `grace`.
async fn end_group(pgid: i32, grace: Duration) {
    // SAFETY: killpg only sends a signal; a group that is gone answers ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGTERM);
    }
    let deadline = tokio::time::Instant::now() + grace;
    while tokio::time::Instant::now() < deadline {
        reap(pgid);
        // SAFETY: signal 0 checks whether any process of the group is left.
        if unsafe { libc::killpg(pgid, 0) } != 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // SAFETY: as above.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
    // SIGKILL is delivered asynchronously: the group is gone when this returns (bounded, in
    // case a member is a zombie nobody reaps).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    while tokio::time::Instant::now() < deadline {
        reap(pgid);
        // SAFETY: as above.
        if unsafe { libc::killpg(pgid, 0) } != 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs `sh -c script` in `dir` with `env`, in a new process group, for at most `limit`.
pub async fn run(
    script: &str,
    dir: &Path,
    env: &[(String, String)],
    limit: Duration,
    stop: &CancellationToken,
) -> Result<Ran, NotRun> {
    adopt_orphans();
    let mut c = tokio::process::Command::new("sh");
    // stderr joins stdout, so lines keep their order (a crash message after its test's name).
    c.arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .spawn()
        .map_err(|e| NotRun::Spawn(format!("cannot run `{script}`: {e}")))?;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    let capture = std::sync::Arc::new(std::sync::Mutex::new(Capture::default()));
    let reader = child.stdout.take().map(|mut o| {
        let capture = capture.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 64 << 10];
            while let Ok(n) = o.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut c) = capture.lock() {
                    c.push(&buf[..n]);
                }
            }
        })
    });
    let ended = tokio::select! {
        status = child.wait() => {
            let status = status.map_err(|e| NotRun::Spawn(format!("waiting for `{script}`: {e}")))?;
            use std::os::unix::process::ExitStatusExt as _;
            match (status.code(), status.signal()) {
                (Some(code), _) => Ended::from_shell(code, None),
                (None, Some(sig)) => Ended::Signalled(sig),
                (None, None) => Ended::Exited(-1),
            }
        }
        _ = tokio::time::sleep(limit) => Ended::TimedOut(limit.as_secs()),
        _ = stop.cancelled() => {
            if let Some(g) = pgid {
                end_running(g, &mut child).await;
            }
            let _ = child.wait().await;
            if let Some(r) = reader {
                r.abort();
            }
            return Err(NotRun::Stopped);
        }
    };
    // The shell is gone or out of time: whatever is left in its group goes too, so the pipe
    // closes and the output is complete.
    if let Some(g) = pgid {
        if matches!(ended, Ended::TimedOut(_)) {
            end_running(g, &mut child).await;
        } else {
            end_group(g, Duration::from_millis(200)).await;
        }
    }
    let _ = child.wait().await;
    if let Some(r) = reader
        && tokio::time::timeout(Duration::from_secs(5), r)
            .await
            .is_err()
    {
        // A process that left the group still holds the pipe: take what came so far.
    }
    let output = capture.lock().map(|c| c.text()).unwrap_or_default();
    Ok(Ran { output, ended })
}
