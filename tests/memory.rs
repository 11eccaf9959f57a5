//! Memory a hostile report costs, measured by counting the heap (a global allocator that keeps
//! the high-water mark), not guessed from time: each shape the contract bounds (64 MiB of memory
//! whatever the report's compression or shape) is read through the path the service uses, and
//! the peak of bytes held while reading it is compared with the bound.
//!
//! One test function runs every shape in turn: the allocator's peak is process-wide, so shapes
//! must not run at once.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use repro_gate::history::{ReportFormat, RunResults, bounded};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                let grew = new_size - layout.size();
                let now = HELD.fetch_add(grew, Ordering::Relaxed) + grew;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: usize = 1 << 20;
/// The contract's bound on one report.
const BOUND: usize = 64 * MIB;

/// Bytes held at the peak while `f` ran, above what was held before it.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), out)
}

/// A reader that makes its bytes as they are read (`piece(i)` is the i-th piece), so a report
/// of hundreds of MiB costs the test nothing to hold.
struct Made<F: FnMut(usize) -> Option<Vec<u8>>> {
    piece: F,
    i: usize,
    cur: Vec<u8>,
    at: usize,
}

fn made<F: FnMut(usize) -> Option<Vec<u8>>>(piece: F) -> Made<F> {
    Made {
        piece,
        i: 0,
        cur: Vec::new(),
        at: 0,
    }
}

impl<F: FnMut(usize) -> Option<Vec<u8>>> Read for Made<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.cur.len() {
            match (self.piece)(self.i) {
                Some(p) => {
                    self.cur = p;
                    self.at = 0;
                    self.i += 1;
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.cur.len() - self.at);
        buf[..n].copy_from_slice(&self.cur[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// `head`, then `body` repeated to about `total` bytes (in pieces of about 64 KiB), then `tail`.
fn repeated(head: &str, body: &str, tail: &str, total: usize) -> impl Read {
    let per_piece = (64 * 1024 / body.len().max(1)).max(1);
    let piece = body.repeat(per_piece).into_bytes();
    let pieces = total / piece.len();
    let (head, tail) = (head.as_bytes().to_vec(), tail.as_bytes().to_vec());
    made(move |i| match i {
        0 => Some(head.clone()),
        i if i <= pieces => Some(piece.clone()),
        i if i == pieces + 1 => Some(tail.clone()),
        _ => None,
    })
}

/// JUnit with `n` distinct failing tests, each with a long message.
fn junit_many(total: usize) -> impl Read {
    let mut n = 0usize;
    let msg = "x".repeat(4000);
    made(move |i| {
        if i == 0 {
            return Some(b"<?xml version=\"1.0\"?>\n<testsuite name=\"s\">\n".to_vec());
        }
        if n * 4100 > total {
            return None;
        }
        n += 1;
        Some(
            format!(
                "<testcase classname=\"pkg{}\" name=\"TestCase{n}\"><failure message=\"boom\">{msg}</failure></testcase>\n",
                n % 7
            )
            .into_bytes(),
        )
    })
}

fn gzip_of(r: impl Read) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut r = r;
    std::io::copy(&mut r, &mut enc).expect("gzip");
    enc.finish().expect("gzip")
}

fn zip_of(name: &str, r: impl Read) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut buf);
        w.start_file(name, zip::write::SimpleFileOptions::default())
            .expect("zip");
        let mut r = r;
        std::io::copy(&mut r, &mut w).expect("zip");
        w.finish().expect("zip");
    }
    buf.into_inner()
}

struct Shape {
    name: &'static str,
    peak: usize,
    outcome: String,
}

fn upload(name: &'static str, body: Vec<u8>, gzipped: bool, format: ReportFormat) -> Shape {
    let (peak, r) = peak_of(|| bounded::read_upload(body.as_slice(), gzipped, format));
    Shape {
        name,
        peak,
        outcome: match r {
            Ok(r) => format!("{} tests", r.tests.len()),
            Err(e) => format!("error: {e}"),
        },
    }
}

fn artifact(name: &'static str, zip: Vec<u8>) -> Shape {
    let (peak, r) = peak_of(|| {
        let mut run = RunResults::default();
        bounded::read_zip(std::io::Cursor::new(zip.as_slice()), &mut run).map(|()| run)
    });
    Shape {
        name,
        peak,
        outcome: match r {
            Ok(r) => format!("{} tests", r.len()),
            Err(e) => format!("error: {e}"),
        },
    }
}

#[test]
fn every_hostile_report_shape_is_read_within_the_bound() {
    let mut shapes = Vec::new();
    let junit_head = "<?xml version=\"1.0\"?>\n<testsuite name=\"s\">\n";
    // Inflates to far more than the budget: many distinct tests, each failing with a message.
    shapes.push(upload(
        "gzip JUnit, 100 MiB inflated, distinct failing tests with 4 KB messages",
        gzip_of(junit_many(100 * MIB)),
        true,
        ReportFormat::Junit,
    ));
    shapes.push(upload(
        "gzip go test -v, 100 MiB inflated, distinct failing tests (default format)",
        gzip_of(made({
            let mut n = 0usize;
            move |_| {
                n += 1;
                (n * 40 < 100 * MIB).then(|| format!("--- FAIL: TestGo{n} (0.00s)\n").into_bytes())
            }
        })),
        true,
        ReportFormat::Auto,
    ));
    shapes.push(upload(
        "gzip, one 100 MiB line",
        gzip_of(repeated("", "a", "\n", 100 * MIB)),
        true,
        ReportFormat::Auto,
    ));
    shapes.push(upload(
        "gzip JUnit, one 100 MiB attribute",
        gzip_of(repeated(
            &format!("{junit_head}<testcase name=\"t\" classname=\""),
            "c",
            "\"/></testsuite>",
            100 * MIB,
        )),
        true,
        ReportFormat::Junit,
    ));
    shapes.push(upload(
        "gzip JUnit, one 100 MiB failure text",
        gzip_of(repeated(
            &format!("{junit_head}<testcase name=\"t\"><failure>"),
            "f",
            "</failure></testcase></testsuite>",
            100 * MIB,
        )),
        true,
        ReportFormat::Junit,
    ));
    shapes.push(upload(
        "gzip JUnit, one 100 MiB CDATA",
        gzip_of(repeated(
            &format!("{junit_head}<testcase name=\"t\"><system-out><![CDATA["),
            "<>]",
            "]]></system-out></testcase></testsuite>",
            100 * MIB,
        )),
        true,
        ReportFormat::Junit,
    ));
    shapes.push(upload(
        "JUnit, one 60 MiB test name",
        {
            let mut v = Vec::new();
            repeated(
                &format!("{junit_head}<testcase name=\""),
                "n",
                "\"/></testsuite>",
                60 * MIB,
            )
            .read_to_end(&mut v)
            .expect("made");
            v
        },
        false,
        ReportFormat::Junit,
    ));
    shapes.push(artifact(
        "artifact zip, JUnit of 100 MiB",
        zip_of("report.xml", junit_many(100 * MIB)),
    ));
    shapes.push(artifact(
        "artifact zip, 100 MiB go test -json",
        zip_of(
            "go.json",
            made({
                let mut n = 0usize;
                move |_| {
                    n += 1;
                    (n * 90 < 100 * MIB).then(|| {
                        format!(
                            "{{\"Action\":\"fail\",\"Package\":\"p/q\",\"Test\":\"TestJson{n}\"}}\n"
                        )
                        .into_bytes()
                    })
                }
            }),
        ),
    ));
    shapes.push(artifact(
        "artifact zip, JUnit of 200 MiB, test cases of 20,000 attributes each",
        zip_of("report.xml", {
            let attrs: String = (0..20_000).map(|i| format!(" a{i}=\"x\"")).collect();
            let mut n = 0usize;
            made(move |i| {
                if i == 0 {
                    return Some(junit_head.as_bytes().to_vec());
                }
                n += 1;
                (n * attrs.len() < 200 * MIB).then(|| {
                    format!("<testcase name=\"TestAttrs{n}\"{attrs}><failure/></testcase>\n")
                        .into_bytes()
                })
            })
        }),
    ));
    shapes.push(upload(
        "gzip jest --json, 100 MiB, one suite of distinct tests",
        gzip_of({
            let mut n = 0usize;
            made(move |i| {
                if i == 0 {
                    return Some(
                        b"{\"numFailedTests\":1,\"testResults\":[{\"assertionResults\":[".to_vec(),
                    );
                }
                n += 1;
                match (n * 60).cmp(&(100 * MIB)) {
                    std::cmp::Ordering::Less => Some(
                        format!("{{\"fullName\":\"case {n}\",\"status\":\"failed\"}},")
                            .into_bytes(),
                    ),
                    // The last assertion (without its comma) and the suite's name, once.
                    std::cmp::Ordering::Equal | std::cmp::Ordering::Greater
                        if (n - 1) * 60 < 100 * MIB =>
                    {
                        Some(b"{}],\"name\":\"f.test.js\"}]}".to_vec())
                    }
                    _ => None,
                }
            })
        }),
        true,
        ReportFormat::Jest,
    ));
    let mut report = String::new();
    for s in &shapes {
        report.push_str(&format!(
            "{:>6.1} MiB  {}: {}\n",
            s.peak as f64 / MIB as f64,
            s.name,
            s.outcome
        ));
    }
    eprintln!("{report}");
    let over: Vec<&Shape> = shapes.iter().filter(|s| s.peak > BOUND).collect();
    assert!(
        over.is_empty(),
        "shapes over {} MiB:\n{report}",
        BOUND / MIB
    );
    // The test names that cannot be ids are errors, not stored.
    let named = shapes
        .iter()
        .find(|s| s.name.contains("test name"))
        .expect("shape");
    assert!(named.outcome.starts_with("error"), "{}", named.outcome);
}
