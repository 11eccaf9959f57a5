//! Runs a CI test command as its CI would: stdin, stdout and stderr passed through as they
//! come, its exit status or signal kept. Meanwhile every line goes to a spool file (read by the
//! parsers afterwards, so memory stays flat whatever the log's size) and to [`Signs`].
//! SIGTERM and SIGHUP are passed on to the command; Ctrl-C reaches it from the terminal, and
//! this process stays to report.

use std::io::{BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::core::ci::account::{Account, Scan};
use crate::core::ci::signs::Signs;
use crate::core::runs::Ended;

/// The longest line kept whole; a longer one is read as several.
const MAX_LINE: usize = 64 << 10;
/// How long the output may go on after the command exited (a process it left behind holding
/// the pipe): then its results are read as they are.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(5);

/// A command that ran.
pub struct Finished {
    pub ended: Ended,
    /// Every line it printed, stdout and stderr interleaved by line.
    pub spool: tempfile::NamedTempFile,
    pub signs: Signs,
    /// Each failing package, binary and session, as the output showed it.
    pub account: Account,
}

struct Sink {
    spool: std::io::BufWriter<std::fs::File>,
    signs: Signs,
    scan: Scan,
    failed: Option<std::io::Error>,
}

impl Sink {
    fn line(&mut self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        self.signs.line(&text);
        self.scan.line(&text);
        if self.failed.is_none()
            && let Err(e) = self
                .spool
                .write_all(bytes)
                .and_then(|_| self.spool.write_all(b"\n"))
        {
            self.failed = Some(e);
        }
    }
}

/// Copies `from` to `to` as it comes, and each line into the sink.
fn tee(mut from: impl Read, mut to: impl Write, sink: Arc<Mutex<Sink>>) {
    let mut buf = vec![0u8; 32 << 10];
    let mut line = Vec::new();
    let feed = |line: &mut Vec<u8>| {
        if let Ok(mut s) = sink.lock() {
            let end = line.strip_suffix(b"\r").map_or(line.len(), <[u8]>::len);
            s.line(&line[..end]);
        }
        line.clear();
    };
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        // The CI sees the output first; a closed stdout is not a reason to stop reading.
        let _ = to.write_all(&buf[..n]).and_then(|_| to.flush());
        for &b in &buf[..n] {
            if b == b'\n' {
                feed(&mut line);
            } else {
                line.push(b);
                if line.len() >= MAX_LINE {
                    feed(&mut line);
                }
            }
        }
    }
    if !line.is_empty() {
        feed(&mut line);
    }
}

/// pytest's options added through `PYTEST_ADDOPTS` (before the caller's own, which win): the
/// short summary names every test with its result (`PASSED x`), so a quiet run (`-q`) still
/// records its passing tests.
pub const PYTEST_REPORT: &str = "-rfEsxXp";

/// Runs `argv` in `dir` (None: here).
pub async fn run(argv: &[String], dir: Option<&std::path::Path>) -> anyhow::Result<Finished> {
    let Some((program, args)) = argv.split_first() else {
        anyhow::bail!("no command: give it after `--`, e.g. `repro-gate test -- go test ./...`");
    };
    let spool = tempfile::NamedTempFile::new()?;
    let sink = Arc::new(Mutex::new(Sink {
        spool: std::io::BufWriter::new(spool.reopen()?),
        signs: Signs::default(),
        scan: Scan::default(),
        failed: None,
    }));
    let mut cmd = Command::new(program);
    let addopts = match std::env::var("PYTEST_ADDOPTS") {
        Ok(own) if !own.trim().is_empty() => format!("{PYTEST_REPORT} {own}"),
        _ => PYTEST_REPORT.to_string(),
    };
    cmd.env("PYTEST_ADDOPTS", addopts);
    cmd.args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", crate::core::shell::quote(program)))?;
    let pid = child.id() as i32;
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        let (sink, tx) = (sink.clone(), done_tx.clone());
        readers.push(std::thread::spawn(move || {
            tee(out, std::io::stdout(), sink);
            let _ = tx.send(());
        }));
    }
    if let Some(err) = child.stderr.take() {
        let (sink, tx) = (sink.clone(), done_tx.clone());
        readers.push(std::thread::spawn(move || {
            tee(err, std::io::stderr(), sink);
            let _ = tx.send(());
        }));
    }
    drop(done_tx);
    let forward = tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        loop {
            let sig = tokio::select! {
                _ = term.recv() => libc::SIGTERM,
                _ = hup.recv() => libc::SIGHUP,
                // The terminal sent it to the command too: stay to report.
                _ = int.recv() => continue,
            };
            // SAFETY: kill only sends a signal to the command's process.
            unsafe {
                libc::kill(pid, sig);
            }
        }
    });
    let status = tokio::task::spawn_blocking(move || child.wait()).await??;
    forward.abort();
    // The readers end when every process holding the pipes has closed them.
    let n = readers.len();
    let deadline = std::time::Instant::now() + DRAIN_AFTER_EXIT;
    let mut ended_readers = 0;
    while ended_readers < n {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match tokio::task::block_in_place(|| done_rx.recv_timeout(left)) {
            Ok(()) => ended_readers += 1,
            Err(_) => {
                eprintln!(
                    "repro-gate test: the command exited but something it started still holds its output; reading the results printed so far"
                );
                break;
            }
        }
    }
    let ended = {
        use std::os::unix::process::ExitStatusExt as _;
        match (status.code(), status.signal()) {
            (Some(c), _) => Ended::Exited(c),
            (None, Some(s)) => Ended::Signalled(s),
            (None, None) => Ended::Exited(1),
        }
    };
    let (signs, scan, failed) = {
        let mut s = sink
            .lock()
            .map_err(|_| anyhow::anyhow!("the output reader failed"))?;
        let flushed = s.spool.flush();
        (
            std::mem::take(&mut s.signs),
            std::mem::take(&mut s.scan),
            s.failed.take().or(flushed.err()),
        )
    };
    if let Some(e) = failed {
        anyhow::bail!("the output could not be spooled for reading: {e}");
    }
    Ok(Finished {
        ended,
        spool,
        signs,
        account: scan.finish(),
    })
}

/// The spool's lines as a reader.
pub fn read_spool(f: &Finished) -> std::io::Result<impl std::io::BufRead> {
    Ok(BufReader::new(f.spool.reopen()?))
}

#[cfg(test)]
mod tests {
    use std::io::BufRead as _;

    use super::*;

    #[test]
    fn a_line_is_spooled_whole_and_an_endless_line_in_pieces() {
        let spool = tempfile::NamedTempFile::new().unwrap();
        let sink = Arc::new(Mutex::new(Sink {
            spool: std::io::BufWriter::new(spool.reopen().unwrap()),
            signs: Signs::default(),
            scan: Scan::default(),
            failed: None,
        }));
        let mut input = b"FAIL\tpkg [build failed]\r\nok\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        let mut seen = Vec::new();
        tee(&input[..], &mut seen, sink.clone());
        assert_eq!(seen, input, "the output passes through unchanged");
        let mut s = sink.lock().unwrap();
        s.spool.flush().unwrap();
        assert!(s.signs.build.is_some());
        let lines: Vec<String> = BufReader::new(spool.reopen().unwrap())
            .lines()
            .map(|l| l.unwrap())
            .collect();
        assert_eq!(lines.len(), 4, "two lines, then the long one in two pieces");
        assert_eq!(lines[0], "FAIL\tpkg [build failed]");
    }
}
