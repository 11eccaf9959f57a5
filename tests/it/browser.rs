//! The dashboard in a real browser: headless Chromium (Debian's `chromium`) signs in through the
//! OAuth flow itself, loads each page, and the rendered DOM (`--dump-dom`) is checked: tests,
//! tiers, statuses and charts are there, links sort, filter and search, a test's page shows its
//! failures. The history is the realistic one the bench uses. At a phone's width (390×844) each page is
//! measured: nothing is wider than the screen. Skips with a message where Chromium is missing.
//! With `REPRO_GATE_SCREENSHOTS=DIR` it also writes the README's screenshots there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use repro_gate::store::Store;

#[path = "../../benches/support/realistic_history.rs"]
mod realistic;

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

/// Tests in the realistic history the browser sees (the bench runs it at 50,000).
const TESTS: usize = 330;

/// The realistic history of `benches/support/realistic_history.rs`, with its file on GitHub.
async fn rich_history(db: &Db, fake: &crate::fake_github::FakeGitHub) {
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrations");
    let now = chrono::Utc::now().timestamp_millis();
    realistic::record(&store, crate::dashboard::REPO, TESTS, now).await;
    fake.put_file(
        crate::dashboard::REPO,
        "main",
        ".ci/test-reliability.yaml",
        &realistic::reliability_file(TESTS),
    );
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

/// The rows of the page's test list.
fn tbody(dom: &str) -> &str {
    let start = dom.find("<tbody>").unwrap_or(dom.len());
    let end = dom[start..]
        .find("</tbody>")
        .map_or(dom.len(), |e| start + e);
    &dom[start..end]
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
    rich_history(&db, &fake).await;
    let app = dash_app(&db, &fake).await;
    let tmp = tempfile::tempdir().expect("tempdir");
    let profile = tmp.path().join("profile");
    let base = app.base.clone();
    let dump = |url: String| {
        let (bin, profile) = (bin.clone(), profile.clone());
        async move {
            tokio::task::spawn_blocking(move || run_chromium(&bin, &profile, &["--dump-dom", &url]))
                .await
                .expect("chromium")
        }
    };

    // Chromium signs in itself: the page → sign-in → GitHub (the fake approves) → back.
    let repo_url = format!("{base}/dashboard/acme/pool");
    let dom = dump(repo_url.clone()).await;
    let checkout = realistic::test_id(0);
    let broken = realistic::test_id(5);
    for want in [
        checkout.as_str(),
        broken.as_str(),
        "class=\"spark\"",
        "Gate outcomes per week",
        "Tier changes per week",
        "Proposed by the history, not merged",
        "1 broken",
        "<th scope=\"col\">",
        &format!("{TESTS} tests"),
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
    // Problems first: the broken test leads the list, healthy tests come after the flaky ones.
    let rows = tbody(&dom);
    assert!(
        rows.find(&broken) < rows.find(&checkout),
        "broken before flaky"
    );

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
    let filtered = dump(format!("{base}{filter}")).await;
    let filtered_rows = filtered
        .find("<tbody>")
        .map(|i| &filtered[i..])
        .unwrap_or("");
    assert!(
        filtered_rows.contains(&checkout) && !filtered_rows.contains(&broken),
        "filtered to quarantined: {filter}"
    );
    let sort = href(&dom, ">Pass rate<");
    let sorted = dump(format!("{base}{sort}")).await;
    let first_row = tbody(&sorted);
    assert!(
        first_row.find(&broken) < first_row.find(&checkout),
        "lowest pass rate first: {sort}"
    );
    // The search form is a GET: what a browser submits.
    let found = dump(format!("{repo_url}?q=LostWakeup")).await;
    let found_rows = tbody(&found);
    assert!(
        found_rows.contains(&realistic::test_id(2)) && !found_rows.contains(&checkout),
        "?q=LostWakeup lists the pool test alone"
    );
    assert!(
        found.contains("1 tests matching"),
        "the caption says what was found"
    );

    // A test's page, reached from its link.
    // Ids break after their separators (`<wbr>`): the link's title holds the whole id.
    let test_url = format!("{base}{}", href(&dom, &format!("title=\"{checkout}\"")));
    let tp = dump(test_url.clone()).await;
    for want in [
        "quarantined",
        "flaky",
        "checkout deadline of 50ms exceeded",
        "/actions/runs/70000",
        "Owner",
        "payments",
        "/acme/pool/issues/482\"",
        "Deadline trips when the pool is cold",
        "Results over time",
        "oldest first",
        "Failures by reason",
        "Failed and flaky results per day",
        "day (UTC)",
    ] {
        assert!(tp.contains(want), "the test page lacks {want}");
    }
    let bp = dump(format!(
        "{base}{}",
        href(&dom, &format!("title=\"{broken}\""))
    ))
    .await;
    assert!(
        bp.contains("broken") && bp.contains("failing its last 12 runs, since"),
        "the broken test's page says since when"
    );
    assert!(
        bp.contains("Since when") && bp.contains("First failing commit"),
        "the broken test's page names where its failing period began"
    );
    assert!(dom.contains("Failure rate"), "the repository's trend chart");

    // A phone's width: nothing is wider than the screen, and the screenshot is that size.
    let mut b = Browser::new(&app);
    b.sign_in(&fake, "alice").await;
    let html = b.get("/dashboard/acme/pool").await.body;
    let index = b.get("/dashboard").await.body;
    let test_html = b
        .get(test_url.strip_prefix(&base).expect("ours"))
        .await
        .body;
    for (name, page) in [
        ("repository", &html),
        ("index", &index),
        ("test", &test_html),
    ] {
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
                format!("{repo_url}?per_page=12"),
                "1280,1500",
            ),
            ("dashboard-test.png", test_url.clone(), "1280,1300"),
            ("dashboard-phone.png", repo_url.clone(), "390,844"),
            ("dashboard-test-phone.png", test_url.clone(), "390,844"),
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
