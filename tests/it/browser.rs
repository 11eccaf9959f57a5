//! The dashboard in a real browser: headless Chromium (Debian's `chromium`) signs in through the
//! OAuth flow itself, loads each page, and the rendered DOM (`--dump-dom`) is checked: tests,
//! tiers and charts are there, links sort and filter. At a phone's width (390×844) the page is
//! measured: nothing is wider than the screen. Skips with a message where Chromium is missing.
//! With `REPRO_GATE_SCREENSHOTS=DIR` it also writes the README's screenshots there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use repro_gate::core::failures::Outcome;
use repro_gate::history;
use repro_gate::store::Store;

use crate::common::Db;
use crate::dashboard::{Browser, dash_app, world};

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .map(|c| Path::new("/usr/bin").join(c))
        .find(|p| p.is_file())
}

/// Runs Chromium headless with a deadline (a hang becomes a failure, not a stuck run).
fn run_chromium(bin: &Path, profile: &Path, args: &[&str]) -> String {
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    loop {
        match child.try_wait().expect("wait") {
            Some(_) => break,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                panic!("chromium did not finish within 90 s: {args:?}");
            }
            None => std::thread::park_timeout(Duration::from_millis(50)),
        }
    }
    reader.join().expect("reader")
}

/// Forty tests with varied failures, a tier change and gate outcomes: a page worth looking at.
async fn rich_history(db: &Db) {
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrations");
    let now = chrono::Utc::now().timestamp_millis();
    for i in 0..30u32 {
        let results: Vec<(String, Outcome)> = (0..40u32)
            .map(|t| {
                let name = match t {
                    0 => "pool::TestAlpha".to_string(),
                    1 => "pool::TestBeta".to_string(),
                    2 => "pool::TestGamma".to_string(),
                    n => format!("pool/worker::TestWorkerHandlesJob{n:02}"),
                };
                let fails = (t == 1 && i % 3 == 0) || (t > 2 && t % 7 == 0 && i % 10 == t % 10);
                (name, if fails { Outcome::Fail } else { Outcome::Pass })
            })
            .collect();
        let run = crate::dashboard::run(crate::dashboard::REPO, i);
        history::record(
            &store,
            &run,
            &history::RunResults::from(results),
            now - i64::from(30 - i) * 3_600_000,
        )
        .await
        .expect("recorded");
    }
    let day = 86_400_000;
    store
        .log_tier_changes(
            crate::dashboard::REPO,
            &[("pool::TestBeta".into(), "quarantined".into())],
            now - 9 * day,
        )
        .await
        .expect("change");
    for (n, basis, ago) in [
        (1, "evidence", 20),
        (2, "verified", 12),
        (3, "overridden", 10),
        (4, "blocked", 3),
        (5, "verified", 2),
        (6, "exempted", 1),
    ] {
        store
            .record_gate_outcome(
                crate::dashboard::REPO,
                n,
                &format!("head{n}"),
                basis,
                now - ago * day,
            )
            .await
            .expect("outcome");
    }
}

/// The width the page lays out at in a viewport `width` wide: a copy of the page with a probe
/// script the test adds (the dashboard itself has none), framed at that width (headless
/// Chromium's own window is at least 500 px wide), reporting its scroll width to the frame.
fn laid_out_width(bin: &Path, dir: &Path, base: &str, html: &str, width: u32) -> u32 {
    let probe =
        "<script>parent.postMessage(String(document.documentElement.scrollWidth), '*');</script>";
    let page = html
        .replacen("<head>", &format!("<head><base href=\"{base}/\">"), 1)
        .replacen("</body>", &format!("{probe}</body>"), 1);
    std::fs::write(dir.join("page.html"), page).expect("write the page");
    let frame = format!(
        "<!DOCTYPE html><html><body><iframe src=\"page.html\" width=\"{width}\" height=\"844\"></iframe>\
         <script>addEventListener('message', e => document.body.setAttribute('data-scroll-width', e.data));</script></body></html>"
    );
    let file = dir.join(format!("probe-{width}.html"));
    std::fs::write(&file, frame).expect("write the frame");
    let dom = run_chromium(
        bin,
        &dir.join("probe-profile"),
        &[
            "--window-size=1000,900",
            "--virtual-time-budget=5000",
            "--dump-dom",
            &format!("file://{}", file.display()),
        ],
    );
    let at = dom
        .find("data-scroll-width=\"")
        .expect("the probe reported")
        + "data-scroll-width=\"".len();
    dom[at..]
        .split('"')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a width")
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).expect("screenshot written");
    assert_eq!(&b[1..4], b"PNG", "a PNG");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_render_sort_filter_and_fit_a_phone_in_chromium() {
    let Some(bin) = chromium() else {
        eprintln!(
            "skipped: Chromium not found (install Debian's `chromium` package to run the browser tests)"
        );
        return;
    };
    let db = Db::sqlite();
    let fake = world().await;
    rich_history(&db).await;
    let app = dash_app(&db, &fake).await;
    let tmp = tempfile::tempdir().expect("tempdir");
    let profile = tmp.path().join("profile");
    let base = app.base.clone();

    // Chromium signs in itself: the page → sign-in → GitHub (the fake approves) → back.
    let repo_url = format!("{base}/dashboard/acme/pool");
    let dom = {
        let (bin, profile, url) = (bin.clone(), profile.clone(), repo_url.clone());
        tokio::task::spawn_blocking(move || run_chromium(&bin, &profile, &["--dump-dom", &url]))
            .await
            .expect("chromium")
    };
    for want in [
        "pool::TestAlpha",
        "pool::TestBeta",
        "PLAT-2024",
        "class=\"spark\"",
        "Gate outcomes per week",
        "Tier changes per week",
        "<th scope=\"col\">",
    ] {
        assert!(
            dom.contains(want),
            "the rendered page lacks {want}: {}",
            &dom[..dom.len().min(400)]
        );
    }
    assert!(
        dom.contains("tier quarantined")
            && dom.contains("tier trusted")
            && dom.contains("tier probation")
    );
    assert!(dom.matches("<svg").count() >= 3, "sparklines and charts");
    assert!(dom.contains("40 tests"), "the caption counts every test");

    // Links filter and sort (followed as a browser follows them).
    let href = |dom: &str, needle: &str| -> String {
        let i = dom
            .find(needle)
            .unwrap_or_else(|| panic!("no link {needle}"));
        let start = dom[..i].rfind("href=\"").expect("href") + 6;
        dom[start..]
            .split('"')
            .next()
            .expect("href end")
            .replace("&amp;", "&")
    };
    let filter = href(&dom, ">quarantined</a>");
    let filtered = {
        let (bin, profile, url) = (bin.clone(), profile.clone(), format!("{base}{filter}"));
        tokio::task::spawn_blocking(move || run_chromium(&bin, &profile, &["--dump-dom", &url]))
            .await
            .expect("chromium")
    };
    assert!(
        filtered.contains("pool::TestBeta") && !filtered.contains("pool::TestAlpha"),
        "filtered to quarantined: {filter}"
    );
    let sort = href(&dom, "Pass rate");
    let sorted = {
        let (bin, profile, url) = (bin.clone(), profile.clone(), format!("{base}{sort}"));
        tokio::task::spawn_blocking(move || run_chromium(&bin, &profile, &["--dump-dom", &url]))
            .await
            .expect("chromium")
    };
    let first_row = sorted.find("<tbody>").map(|i| &sorted[i..]).unwrap_or("");
    assert!(
        first_row.find("pool::TestBeta") < first_row.find("pool::TestAlpha"),
        "lowest pass rate first: {sort}"
    );

    // A phone's width: nothing is wider than the screen, and the screenshot is that size.
    let mut b = Browser::new(&app);
    b.sign_in(&fake, "alice").await;
    let html = b.get("/dashboard/acme/pool").await.body;
    let index = b.get("/dashboard").await.body;
    for (name, page) in [("repository", &html), ("index", &index)] {
        let (bin2, dir, base2, page2) = (
            bin.clone(),
            tmp.path().to_path_buf(),
            base.clone(),
            page.clone(),
        );
        let w =
            tokio::task::spawn_blocking(move || laid_out_width(&bin2, &dir, &base2, &page2, 390))
                .await
                .expect("probe");
        assert!(
            w <= 390,
            "the {name} page is {w}px wide at 390px: something is cut off"
        );
    }
    let phone = tmp.path().join("phone.png");
    let shot = format!("--screenshot={}", phone.display());
    {
        let (bin, profile, url) = (bin.clone(), profile.clone(), repo_url.clone());
        tokio::task::spawn_blocking(move || {
            run_chromium(&bin, &profile, &["--window-size=390,844", &shot, &url])
        })
        .await
        .expect("chromium");
    }
    assert_eq!(png_size(&phone), (390, 844));

    if let Ok(dir) = std::env::var("REPRO_GATE_SCREENSHOTS") {
        for (file, url, size) in [
            (
                "dashboard-index.png",
                format!("{base}/dashboard"),
                "1280,520",
            ),
            (
                "dashboard-repo.png",
                format!("{repo_url}?per_page=8"),
                "1280,1400",
            ),
            ("dashboard-phone.png", repo_url.clone(), "390,844"),
        ] {
            let shot = format!("--screenshot={dir}/{file}");
            let win = format!("--window-size={size}");
            let (bin, profile) = (bin.clone(), profile.clone());
            tokio::task::spawn_blocking(move || run_chromium(&bin, &profile, &[&win, &shot, &url]))
                .await
                .expect("chromium");
        }
    }
    app.stop().await;
}
