//! The dashboard (docs/dashboard.md) over HTTP, as a browser without JavaScript uses it: off without a client
//! id; the OAuth web flow with the state bound to this browser; the session cookie's flags;
//! pages and JSON of a repository the visitor can read; 404 for one they cannot, and for the
//! JSON signed out; sign-out. On SQLite and on Postgres.

use std::collections::HashMap;

use repro_gate::core::failures::Outcome;
use repro_gate::history::{self, RunInfo};
use repro_gate::store::Store;
use serde_json::Value;

use crate::both_backends;
use crate::common::{Db, Spawn, TestApp};
use crate::fake_github::FakeGitHub;

both_backends!(
    without_a_client_id_the_dashboard_is_not_there,
    signing_in_binds_the_state_to_the_browser_and_sets_a_safe_cookie,
    a_reader_sees_the_repository_and_nobody_else_does,
    the_token_is_sealed_at_rest_and_sign_out_revokes_it_from_this_site_only,
);

pub const REPO: &str = "acme/pool";
pub const OTHER: &str = "acme/sandbox";
pub const CLIENT_ID: &str = "Iv1.dashtest";
pub const CLIENT_SECRET: &str = "dash-secret-for-tests";
pub const FILE: &str = "policy:\n  default_tier: probation\ntests:\n  - id: pool::TestAlpha\n    tier: trusted\n    owner: platform\n  - id: pool::TestBeta\n    tier: quarantined\n    owner: platform\n    ticket: PLAT-2024\n";

/// A fake GitHub with two repositories of installation 7: alice reads both, zed only the
/// sandbox; alice approves sign-ins.
pub async fn world() -> FakeGitHub {
    let fake = FakeGitHub::start().await;
    fake.add_repo(REPO);
    fake.add_repo(OTHER);
    fake.put_file(REPO, "main", ".ci/test-reliability.yaml", FILE);
    fake.with(|w| {
        w.oauth_client = Some((CLIENT_ID.into(), CLIENT_SECRET.into()));
        w.oauth_user = Some("alice".into());
        w.user_repos
            .insert("alice".into(), vec![(7, REPO.into()), (7, OTHER.into())]);
        w.user_repos.insert("zed".into(), vec![(7, OTHER.into())]);
    });
    fake
}

pub async fn dash_app(db: &Db, fake: &FakeGitHub) -> TestApp {
    let mut s = Spawn::new(db).workers(1).github(fake);
    s.settings.oauth_client = Some((CLIENT_ID.into(), CLIENT_SECRET.into()));
    s.start().await
}

/// Five runs of three tests of REPO (Beta fails twice) and one of the sandbox.
pub async fn record(db: &Db) {
    let store = Store::connect(&db.url).await.expect("store");
    store.migrate().await.expect("migrations");
    for i in 0..5u32 {
        let results: Vec<(String, Outcome)> = [
            ("TestAlpha", false),
            ("TestBeta", i % 2 == 0 && i < 4),
            ("TestGamma", false),
        ]
        .iter()
        .map(|(t, f)| {
            (
                format!("pool::{t}"),
                if *f { Outcome::Fail } else { Outcome::Pass },
            )
        })
        .collect();
        history::record(
            &store,
            &run(REPO, i),
            &history::RunResults::from(results),
            1_764_547_200_000 + i64::from(i),
        )
        .await
        .expect("recorded");
    }
    let sandbox = vec![("sandbox::TestSandboxOnly".to_string(), Outcome::Pass)];
    history::record(
        &store,
        &run(OTHER, 9),
        &history::RunResults::from(sandbox),
        1_764_547_200_000,
    )
    .await
    .expect("recorded");
}

/// Run `i` of `repo` on main, from an import.
pub fn run(repo: &str, i: u32) -> RunInfo {
    RunInfo {
        repository: repo.into(),
        run_id: i.to_string(),
        attempt: 1,
        sha: format!("sha{i}"),
        branch: "main".into(),
        source: "import",
        installation_id: Some(7),
        default_branch: Some("main".into()),
        branches: vec!["main".into()],
        url: None,
        pr: None,
    }
}

/// A browser: a cookie jar for the service, redirects followed by hand.
pub struct Browser {
    http: reqwest::Client,
    base: String,
    pub cookies: HashMap<String, String>,
    pub set_cookies: Vec<String>,
}

pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

impl Browser {
    pub fn new(app: &TestApp) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            base: app.base.clone(),
            cookies: HashMap::new(),
            set_cookies: Vec::new(),
        }
    }

    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub async fn request(&mut self, method: reqwest::Method, url: &str) -> Page {
        let url = if url.starts_with('/') {
            format!("{}{url}", self.base)
        } else {
            url.to_string()
        };
        let ours = url.starts_with(&self.base);
        let mut req = self.http.request(method, &url);
        if ours && !self.cookies.is_empty() {
            req = req.header("cookie", self.cookie_header());
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if ours {
            self.set_cookies = resp
                .headers()
                .get_all("set-cookie")
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_string))
                .collect();
            for c in &self.set_cookies {
                let (nv, attrs) = c.split_once(';').unwrap_or((c, ""));
                let (n, v) = nv.split_once('=').unwrap_or((nv, ""));
                if v.is_empty() || attrs.to_lowercase().contains("max-age=0") {
                    self.cookies.remove(n.trim());
                } else {
                    self.cookies.insert(n.trim().to_string(), v.to_string());
                }
            }
        }
        Page {
            status,
            location,
            body: resp.text().await.unwrap_or_default(),
        }
    }

    pub async fn get(&mut self, url: &str) -> Page {
        self.request(reqwest::Method::GET, url).await
    }

    /// `/dashboard` → sign-in → GitHub's authorize URL: its state and redirect_uri.
    pub async fn start_sign_in(&mut self) -> (String, String, String) {
        let p = self.get("/dashboard").await;
        assert!(
            matches!(p.status, 302 | 303 | 307),
            "signed out: {}",
            p.status
        );
        let p = self.get(&p.location.expect("to sign-in")).await;
        let authorize = p.location.expect("to GitHub");
        assert!(authorize.contains("/login/oauth/authorize?"), "{authorize}");
        assert!(
            authorize.contains(&format!("client_id={CLIENT_ID}")),
            "{authorize}"
        );
        let q = |k: &str| {
            authorize
                .split(['?', '&'])
                .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
                .map(percent_decode)
                .unwrap_or_default()
        };
        (authorize.clone(), q("state"), q("redirect_uri"))
    }

    /// The whole flow as `login` (who approves at GitHub).
    pub async fn sign_in(&mut self, fake: &FakeGitHub, login: &str) {
        let (authorize, _, _) = self.start_sign_in().await;
        fake.with(|w| w.oauth_user = Some(login.into()));
        let at_github = self.get(&authorize).await;
        assert_eq!(at_github.status, 302);
        let back = self.get(&at_github.location.expect("callback")).await;
        assert!(
            matches!(back.status, 302 | 303),
            "callback: {} {}",
            back.status,
            back.body
        );
    }

    pub async fn signed_in(&mut self) -> bool {
        self.get("/dashboard").await.status == 200
    }
}

pub fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

async fn without_a_client_id_the_dashboard_is_not_there(db: Db) {
    let fake = world().await;
    let app = Spawn::new(&db).workers(1).github(&fake).start().await;
    for path in [
        "/dashboard",
        "/dashboard/acme/pool",
        "/dashboard/login",
        "/api/v1/repos/acme/pool/tests",
    ] {
        let (status, _) = app.get(path).await;
        assert_eq!(status, 404, "{path}");
    }
    app.stop().await;
}

async fn signing_in_binds_the_state_to_the_browser_and_sets_a_safe_cookie(db: Db) {
    let fake = world().await;
    let app = dash_app(&db, &fake).await;

    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let session: Vec<&String> = alice
        .set_cookies
        .iter()
        .filter(|c| c.starts_with("rg_session="))
        .collect();
    assert_eq!(session.len(), 1, "{:?}", alice.set_cookies);
    let c = session[0].to_lowercase();
    assert!(
        c.contains("httponly") && c.contains("samesite=lax") && c.contains("path=/"),
        "{c}"
    );
    assert!(!c.contains("secure"), "plain http: not Secure ({c})");
    assert!(
        !session[0].contains("ghu_"),
        "the token is not in the cookie"
    );
    let page = alice.get("/dashboard").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("acme/pool") && page.body.contains("alice"),
        "{}",
        page.body
    );

    // A state nobody issued, with a code GitHub did issue.
    let mut mallory = Browser::new(&app);
    let (_, _, redirect) = mallory.start_sign_in().await;
    fake.with(|w| w.oauth_codes.insert("code-forged".into(), "alice".into()));
    let p = mallory
        .get(&format!("{redirect}?code=code-forged&state=forged"))
        .await;
    assert_eq!(p.status, 400);
    assert!(!mallory.signed_in().await);
    // Another visitor's real state and code in this browser (login CSRF).
    let mut victim = Browser::new(&app);
    let mut other = Browser::new(&app);
    let (_, state, redirect) = victim.start_sign_in().await;
    other.start_sign_in().await;
    fake.with(|w| w.oauth_codes.insert("code-bob".into(), "bob".into()));
    let p = other
        .get(&format!("{redirect}?code=code-bob&state={state}"))
        .await;
    assert_eq!(p.status, 400);
    assert!(!other.signed_in().await);
    assert!(
        fake.with(|w| w
            .oauth_exchanges
            .iter()
            .all(|(c, _)| c != "code-bob" && c != "code-forged")),
        "a refused state exchanges no code"
    );
    // A state is used once: the callback again is refused.
    let mut twice = Browser::new(&app);
    let (authorize, _, _) = twice.start_sign_in().await;
    let at = twice.get(&authorize).await.location.expect("callback");
    assert!(matches!(twice.get(&at).await.status, 302 | 303));
    let mut replay = Browser::new(&app);
    assert_eq!(
        replay.get(&at).await.status,
        400,
        "no state cookie in this browser"
    );

    // Sign-out forgets the session on the server too.
    let stolen = alice.cookie_header();
    let out = alice
        .request(reqwest::Method::POST, "/dashboard/logout")
        .await;
    assert!(matches!(out.status, 302 | 303));
    assert!(!alice.signed_in().await);
    let (status, _, _) = app.get_with("/dashboard", &[("cookie", &stolen)]).await;
    assert_ne!(status, 200, "the old cookie no longer signs in");
    app.stop().await;
}

async fn a_reader_sees_the_repository_and_nobody_else_does(db: Db) {
    let fake = world().await;
    record(&db).await;
    let app = dash_app(&db, &fake).await;
    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let page = alice.get("/dashboard/acme/pool").await;
    assert_eq!(page.status, 200, "{}", page.body);
    for name in [
        "pool::TestAlpha",
        "pool::TestBeta",
        "pool::TestGamma",
        "PLAT-2024",
        "<svg",
    ] {
        assert!(page.body.contains(name), "{name} missing");
    }
    assert!(!page.body.contains("TestSandboxOnly"));
    // The file's tiers; Gamma is not listed: the default tier.
    let js = alice.get("/api/v1/repos/acme/pool/tests?sort=name").await;
    assert_eq!(js.status, 200);
    let v: Value = serde_json::from_str(&js.body).expect("json");
    let tiers: Vec<(String, String)> = v["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["test"].as_str().unwrap_or("").to_string(),
                t["tier"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        tiers,
        vec![
            ("pool::TestAlpha".to_string(), "trusted".to_string()),
            ("pool::TestBeta".to_string(), "quarantined".to_string()),
            ("pool::TestGamma".to_string(), "probation".to_string()),
        ]
    );
    assert_eq!(v["total"], 3);
    assert_eq!(v["tests"][1]["failures"], 2);
    assert_eq!(v["tests"][1]["runs"], 5);
    // Filtered and paged by links.
    let q: Value = serde_json::from_str(
        &alice
            .get("/api/v1/repos/acme/pool/tests?tier=quarantined")
            .await
            .body,
    )
    .expect("json");
    assert_eq!(q["total"], 1);
    let p2: Value = serde_json::from_str(
        &alice
            .get("/api/v1/repos/acme/pool/tests?sort=name&per_page=2&page=2")
            .await
            .body,
    )
    .expect("json");
    assert_eq!(p2["tests"][0]["test"], "pool::TestGamma");
    let worst: Value = serde_json::from_str(
        &alice
            .get("/api/v1/repos/acme/pool/tests?sort=pass_rate")
            .await
            .body,
    )
    .expect("json");
    assert_eq!(worst["tests"][0]["test"], "pool::TestBeta");

    let mut zed = Browser::new(&app);
    zed.sign_in(&fake, "zed").await;
    assert_eq!(zed.get("/dashboard/acme/pool").await.status, 404);
    assert_eq!(zed.get("/api/v1/repos/acme/pool/tests").await.status, 404);
    assert_eq!(zed.get("/dashboard/acme/no-such-repo").await.status, 404);
    let index = zed.get("/dashboard").await;
    assert_eq!(index.status, 200);
    assert!(
        index.body.contains("acme/sandbox") && !index.body.contains("acme/pool"),
        "{}",
        index.body
    );

    let mut anon = Browser::new(&app);
    let a = anon.get("/api/v1/repos/acme/pool/tests").await;
    assert_eq!(a.status, 404);
    assert!(!a.body.contains("TestAlpha"));
    app.stop().await;
}

/// The stored session tokens, as a copy of the database shows them.
async fn stored_tokens(db: &Db) -> Vec<String> {
    const SQL: &str = "SELECT token FROM dashboard_sessions";
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.expect("sqlite");
        sqlx::query_scalar(SQL)
            .fetch_all(&pool)
            .await
            .expect("rows")
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.expect("postgres");
        sqlx::query_scalar(SQL)
            .fetch_all(&pool)
            .await
            .expect("rows")
    }
}

async fn the_token_is_sealed_at_rest_and_sign_out_revokes_it_from_this_site_only(db: Db) {
    let fake = world().await;
    let app = dash_app(&db, &fake).await;
    // The callback comes from the service's own address, whatever `Host` a request names.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let r = http
        .get(format!("{}/dashboard/login", app.base))
        .header("host", "evil.example")
        .send()
        .await
        .expect("login");
    let to = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let redirect = percent_decode(
        to.split(['?', '&'])
            .find_map(|kv| kv.strip_prefix("redirect_uri="))
            .expect("redirect_uri"),
    );
    assert_eq!(redirect, format!("{}/dashboard/callback", app.base));

    let mut alice = Browser::new(&app);
    alice.sign_in(&fake, "alice").await;
    let issued: Vec<String> = fake.with(|w| w.user_tokens.keys().cloned().collect());
    assert_eq!(issued.len(), 1);
    let stored = stored_tokens(&db).await;
    assert_eq!(stored.len(), 1);
    assert!(
        !stored[0].contains(&issued[0]) && stored[0].starts_with("v1."),
        "the token is sealed at rest: {}",
        stored[0]
    );

    // Another site's form cannot sign alice out.
    let cookie = alice.cookie_header();
    let post = |headers: Vec<(&'static str, String)>| {
        let mut req = http
            .post(format!("{}/dashboard/logout", app.base))
            .header("cookie", cookie.clone());
        for (k, v) in headers {
            req = req.header(k, v);
        }
        req.send()
    };
    let evil = post(vec![("origin", "https://evil.example".into())])
        .await
        .expect("post");
    assert_eq!(evil.status(), 403);
    let blind = post(vec![("sec-fetch-site", "cross-site".into())])
        .await
        .expect("post");
    assert_eq!(blind.status(), 403);
    assert!(alice.signed_in().await, "still signed in");
    assert!(fake.with(|w| w.revoked_tokens.is_empty()));

    // Her own sign-out: the session is gone here and the token at GitHub.
    let own = post(vec![
        ("origin", app.base.clone()),
        ("sec-fetch-site", "same-origin".into()),
    ])
    .await
    .expect("post");
    assert!(
        matches!(own.status().as_u16(), 302 | 303),
        "{}",
        own.status()
    );
    assert!(!alice.signed_in().await);
    assert_eq!(fake.with(|w| w.revoked_tokens.clone()), issued);
    assert!(stored_tokens(&db).await.is_empty());
    app.stop().await;
}
