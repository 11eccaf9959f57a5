//! Reading reports nobody vouches for (uploads, artifacts of any PR's run, job logs) within
//! bounds: every inflated byte (gzip, zip) is counted against [`INFLATED_CAP`] before the parser
//! sees it, and past it the report is an error, never a silently cut one; every read checks a
//! [`REPORT_DEADLINE`], so a blocking thread is freed even when the job that asked has been
//! given up. Memory is bounded inside the parser (lines, XML events, JSON strings, the
//! collector's budget); this bounds the time.

use std::io::{BufReader, Read};
use std::time::{Duration, Instant};

use super::{ReportFormat, RunResults, read_report};

/// Most bytes one report (or one artifact's zip entries in all) may inflate to.
pub const INFLATED_CAP: u64 = 256 * 1024 * 1024;
/// Most entries read from one zip, and most artifacts or jobs read from one run.
pub const MAX_ENTRIES: usize = 2_000;
/// Longest a report may take to read.
pub const REPORT_DEADLINE: Duration = Duration::from_secs(120);

/// A reader that errors past `cap` bytes or past `deadline`.
pub struct Bounded<R> {
    inner: R,
    left: u64,
    cap: u64,
    deadline: Instant,
}

impl<R: Read> Bounded<R> {
    pub fn new(inner: R, cap: u64, deadline: Instant) -> Self {
        Bounded {
            inner,
            left: cap,
            cap,
            deadline,
        }
    }

    /// Bytes still allowed.
    pub fn left(&self) -> u64 {
        self.left
    }
}

/// The error a report larger than `cap` once inflated gets.
pub fn too_large(cap: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("the report is larger than {} MiB once inflated", cap >> 20),
    )
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if Instant::now() >= self.deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "reading the report took longer than {} s",
                    REPORT_DEADLINE.as_secs()
                ),
            ));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        // One byte more than allowed is asked for, so a report of exactly the cap passes and
        // one byte over is seen.
        let want = (buf.len() as u64).min(self.left.saturating_add(1)) as usize;
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.left {
            self.left = 0;
            return Err(too_large(self.cap));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// An upload's body (gzip when `gzipped`) read as one report.
pub fn read_upload<R: Read>(
    body: R,
    gzipped: bool,
    format: ReportFormat,
) -> std::io::Result<crate::core::failures::Results> {
    read_upload_capped(body, gzipped, INFLATED_CAP, format)
}

fn read_upload_capped<R: Read>(
    body: R,
    gzipped: bool,
    cap: u64,
    format: ReportFormat,
) -> std::io::Result<crate::core::failures::Results> {
    let deadline = Instant::now() + REPORT_DEADLINE;
    if gzipped {
        let inflated = Bounded::new(flate2::read::GzDecoder::new(body), cap, deadline);
        read_report(BufReader::new(inflated), format)
    } else {
        read_report(BufReader::new(Bounded::new(body, cap, deadline)), format)
    }
}

/// Every report inside a zip, added to `into` one entry at a time, at most [`INFLATED_CAP`]
/// inflated bytes in all: the entry that goes past it is an error, and so is the zip (the
/// reports before it were read whole and count).
pub fn read_zip<R: Read + std::io::Seek>(file: R, into: &mut RunResults) -> Result<(), String> {
    read_zip_capped(file, INFLATED_CAP, into)
}

fn read_zip_capped<R: Read + std::io::Seek>(
    file: R,
    cap: u64,
    into: &mut RunResults,
) -> Result<(), String> {
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip: {e}"))?;
    let deadline = Instant::now() + REPORT_DEADLINE;
    let mut left = cap;
    for i in 0..zip.len().min(MAX_ENTRIES) {
        let Ok(entry) = zip.by_index(i) else {
            continue;
        };
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().to_string();
        let mut limited = Bounded::new(entry, left, deadline);
        let read = read_report(BufReader::new(&mut limited), ReportFormat::Auto);
        // What the entry inflated to is spent, report or not.
        left = limited.left();
        match read {
            Ok(r) => into.add(r),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::TimedOut) => {
                return Err(format!("{name}: {e}"));
            }
            Err(_) if left == 0 => {
                return Err(format!(
                    "{name}: the artifact is larger than {} MiB once inflated",
                    cap >> 20
                ));
            }
            Err(e) => tracing::debug!(entry = %name, error = %e, "a zip entry is not a report"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            for (name, body) in files {
                w.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(body).unwrap();
            }
            w.finish().unwrap();
        }
        buf.into_inner()
    }

    fn gzip(body: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(body).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn a_zip_of_reports_gives_every_test() {
        let junit = br#"<testsuite name="s"><testcase classname="c" name="a"><failure/></testcase></testsuite>"#;
        let go = b"--- PASS: TestX (0.00s)\nok  \tp\t0.1s\n";
        let z = zip_of(&[("a.xml", junit), ("dir/", b""), ("b.txt", go)]);
        let mut run = RunResults::default();
        read_zip(std::io::Cursor::new(z), &mut run).unwrap();
        let ids: Vec<&str> = run.results.iter().map(|(id, _)| id.as_str()).collect();
        assert!(
            ids.contains(&"c::a") && ids.iter().any(|i| i.ends_with("TestX")),
            "{ids:?}"
        );
        assert!(read_zip(std::io::Cursor::new(b"not a zip".to_vec()), &mut run).is_err());
    }

    #[test]
    fn past_the_cap_a_zip_is_an_error_and_the_reports_before_it_count() {
        let first = b"--- FAIL: TestFirst (0.00s)\n".to_vec();
        let mut big = b"--- FAIL: TestBig (0.00s)\n".to_vec();
        big.extend(std::iter::repeat_n(b'x', 4096));
        let z = zip_of(&[("a.txt", &first), ("b.txt", &big)]);
        let cap = first.len() as u64 + 1024;
        let mut run = RunResults::default();
        let e = read_zip_capped(std::io::Cursor::new(z.clone()), cap, &mut run).unwrap_err();
        assert!(e.contains("b.txt") && e.contains("once inflated"), "{e}");
        assert_eq!(run.results.len(), 1, "{:?}", run.results);
        // With room for both, both count.
        let mut run = RunResults::default();
        read_zip_capped(std::io::Cursor::new(z), 1 << 20, &mut run).unwrap();
        assert_eq!(run.results.len(), 2);
    }

    #[test]
    fn a_gzip_bomb_is_an_error_not_a_cut_report() {
        let body = gzip(b"--- FAIL: TestA (0.00s)\n");
        let r = read_upload(body.as_slice(), true, ReportFormat::Auto).unwrap();
        assert_eq!(r.tests.len(), 1);
        let mut bomb = vec![b'\n'; 8 << 20];
        bomb[..24].copy_from_slice(b"--- FAIL: TestA (0.00s)\n");
        let bomb = gzip(&bomb);
        assert!(bomb.len() < 64 << 10);
        let e = read_upload_capped(bomb.as_slice(), true, 4 << 20, ReportFormat::Auto).unwrap_err();
        assert!(
            e.to_string().contains("larger than 4 MiB once inflated"),
            "{e}"
        );
        // Not gzipped, the same cap.
        let plain = vec![b'\n'; 5 << 20];
        assert!(read_upload_capped(plain.as_slice(), false, 4 << 20, ReportFormat::Auto).is_err());
    }

    #[test]
    fn a_report_of_exactly_the_cap_passes_and_one_byte_more_does_not() {
        let deadline = Instant::now() + REPORT_DEADLINE;
        let mut out = Vec::new();
        Bounded::new(&[7u8; 100][..], 100, deadline)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out.len(), 100);
        let e = Bounded::new(&[7u8; 101][..], 100, deadline)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        // No cap at all (a job log, bounded by its download) reads whole.
        let mut out = Vec::new();
        Bounded::new(&[7u8; 100][..], u64::MAX, deadline)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out.len(), 100);
    }

    #[test]
    fn a_report_read_past_its_deadline_is_an_error() {
        // A deadline of now has passed by the first read.
        let e = Bounded::new(&b"--- FAIL: TestA (0.00s)\n"[..], 1 << 20, Instant::now())
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    }
}
