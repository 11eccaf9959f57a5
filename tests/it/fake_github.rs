//! A stateful fake GitHub for the end-to-end tests: repositories, files at refs, pull requests
//! with files and patches, labels, check runs, comments, reactions, permissions, team members,
//! annotations and Actions job logs behind a 302. It checks the App JWT's RS256 signature and
//! the installation token on every call, answers in GitHub's documented shapes, records every
//! request, and injects faults on demand.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use http::{HeaderMap, Method, StatusCode};
use serde_json::{Value, json};

pub const PUBLIC_KEY: &str = include_str!("../fixtures/test-app-key.pub.pem");
pub const APP_ID: u64 = 42;

#[derive(Clone, Debug)]
#[allow(dead_code)] // every field is there for assertions; not every test reads each one
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: String,
    pub body: Value,
    pub auth: Option<String>,
}

/// A fault to answer instead of the real thing.
#[derive(Clone, Debug)]
pub enum Fault {
    Status(u16),
    RateLimited {
        reset_in_secs: u64,
    },
    RetryAfter(u64),
    /// Answer normally, but only after this many milliseconds.
    Slow(u64),
    /// Answer normally (consumes one matching request: "not this one, the next").
    Pass,
    /// Compute the normal answer, then hold it until the test releases it.
    Hold(Arc<Hold>),
    /// Answer 200 with a body of this many bytes (JSON whitespace after `[`), streamed.
    Huge(usize),
}

/// A held answer: `arrived` is notified when the request came and its answer was computed;
/// the answer goes out after `release`.
#[derive(Debug, Default)]
pub struct Hold {
    pub arrived: tokio::sync::Notify,
    pub release: tokio::sync::Notify,
}

#[derive(Default)]
pub struct PrState {
    pub title: String,
    pub body: String,
    pub head_sha: String,
    pub base: String,
    pub labels: Vec<String>,
    pub files: Vec<Value>,
    pub state: String,
    /// The branch a PR was opened from (pull requests the App opens).
    pub head_ref: String,
    /// The head's repository when it is not the base's (a fork).
    pub head_repo: Option<String>,
}

#[derive(Default)]
pub struct World {
    pub default_branch: HashMap<String, String>,
    /// (repo, ref, path) → content
    pub files: HashMap<(String, String, String), String>,
    pub prs: HashMap<(String, u64), PrState>,
    pub repo_labels: HashMap<String, Vec<String>>,
    pub check_runs: Vec<Value>,
    /// (repo, issue) → comments
    pub comments: Vec<(String, u64, Value)>,
    pub reactions: Vec<(u64, String)>,
    pub permissions: HashMap<(String, String), String>,
    pub team_members: HashMap<(String, String), Vec<String>>,
    pub annotations: HashMap<u64, Vec<Value>>,
    pub job_logs: HashMap<u64, String>,
    /// Job → where its log's 302 points instead of the fake's own pre-signed host.
    pub log_locations: HashMap<u64, String>,
    pub commit_pulls: HashMap<(String, String), Vec<u64>>,
    /// (repo, path) → the commits that touched it, newest first (`GET /commits?path=`).
    pub file_commits: HashMap<(String, String), Vec<Value>>,
    pub tokens: HashMap<String, i64>,
    pub tokens_minted: u32,
    pub requests: Vec<Recorded>,
    /// Path substring → faults to answer, in order.
    pub faults: Vec<(String, VecDeque<Fault>)>,
    /// `/app/hook/deliveries`, newest first.
    pub hook_deliveries: Vec<Value>,
    pub redelivery_requests: Vec<u64>,
    pub installations: Vec<i64>,
    /// installation → repositories
    pub installation_repos: HashMap<i64, Vec<String>>,
    /// Issues (not PRs) the App opened: (repo, number, issue JSON).
    pub issues: Vec<(String, u64, Value)>,
    next_id: u64,
    pub token_lifetime_secs: i64,
    pub actions: crate::fake_actions::ActionsWorld,
    /// The App's OAuth client (id, secret), for the dashboard's sign-in.
    pub oauth_client: Option<(String, String)>,
    /// Who approves at `/login/oauth/authorize` (a signed-in browser).
    pub oauth_user: Option<String>,
    /// Codes not yet exchanged → login.
    pub oauth_codes: HashMap<String, String>,
    /// User access tokens → login.
    pub user_tokens: HashMap<String, String>,
    /// login → (installation, repository) they can read.
    pub user_repos: HashMap<String, Vec<(i64, String)>>,
    /// Code exchanges answered: (code, accepted).
    pub oauth_exchanges: Vec<(String, bool)>,
    /// User tokens revoked by the App (`DELETE /applications/{client_id}/token`).
    pub revoked_tokens: Vec<String>,
}

#[derive(Clone)]
pub struct FakeGitHub {
    pub world: Arc<Mutex<World>>,
    pub addr: SocketAddr,
}

/// Where pre-signed log URLs point: another host (port) than the API, as on GitHub.
static LOG_HOST: std::sync::OnceLock<Mutex<HashMap<SocketAddr, SocketAddr>>> =
    std::sync::OnceLock::new();

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        let world = Arc::new(Mutex::new(World {
            next_id: 1000,
            token_lifetime_secs: 3600,
            ..World::default()
        }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake");
        let addr = listener.local_addr().expect("addr");
        let logs = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind log host");
        let log_addr = logs.local_addr().expect("addr");
        LOG_HOST
            .get_or_init(Default::default)
            .lock()
            .unwrap()
            .insert(addr, log_addr);
        let app = axum::Router::new().fallback(handle).with_state(FakeState {
            world: world.clone(),
            addr,
        });
        let log_app = app.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        tokio::spawn(async move {
            let _ = axum::serve(logs, log_app).await;
        });
        FakeGitHub { world, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn with<R>(&self, f: impl FnOnce(&mut World) -> R) -> R {
        f(&mut self.world.lock().unwrap())
    }

    pub fn add_repo(&self, repo: &str) {
        self.with(|w| {
            w.default_branch.insert(repo.into(), "main".into());
        });
    }

    pub fn put_file(&self, repo: &str, git_ref: &str, path: &str, content: &str) {
        self.with(|w| {
            w.files
                .insert((repo.into(), git_ref.into(), path.into()), content.into());
        });
    }

    pub fn add_pr(
        &self,
        repo: &str,
        number: u64,
        head_sha: &str,
        body: &str,
        files: Vec<(&str, Option<&str>)>,
    ) {
        let files = files
            .into_iter()
            .map(|(name, patch)| {
                let mut f = json!({"filename": name, "status": "modified"});
                if let Some(p) = patch {
                    f["patch"] = json!(p);
                }
                f
            })
            .collect();
        self.with(|w| {
            w.prs.insert(
                (repo.into(), number),
                PrState {
                    title: format!("PR {number}"),
                    body: body.into(),
                    head_sha: head_sha.into(),
                    base: "main".into(),
                    files,
                    state: "open".into(),
                    ..PrState::default()
                },
            );
        });
    }

    pub fn set_pr(&self, repo: &str, number: u64, f: impl FnOnce(&mut PrState)) {
        self.with(|w| {
            f(w.prs
                .get_mut(&(repo.to_string(), number))
                .expect("PR exists"))
        });
    }

    pub fn inject(&self, path_contains: &str, faults: Vec<Fault>) {
        self.with(|w| w.faults.push((path_contains.into(), faults.into())));
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.with(|w| w.requests.clone())
    }

    pub fn check_runs_for(&self, sha: &str) -> Vec<Value> {
        self.with(|w| {
            w.check_runs
                .iter()
                .filter(|c| c["head_sha"] == sha)
                .cloned()
                .collect()
        })
    }

    pub fn comments_on(&self, repo: &str, number: u64) -> Vec<Value> {
        self.with(|w| {
            w.comments
                .iter()
                .filter(|(r, n, _)| r == repo && *n == number)
                .map(|(_, _, c)| c.clone())
                .collect()
        })
    }

    pub fn labels_of(&self, repo: &str, number: u64) -> Vec<String> {
        self.with(|w| w.prs[&(repo.to_string(), number)].labels.clone())
    }
}

#[derive(Clone)]
struct FakeState {
    world: Arc<Mutex<World>>,
    addr: SocketAddr,
}

pub(crate) fn answer(status: u16, body: Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
        axum::Json(body),
    )
        .into_response()
}

pub(crate) fn not_found() -> Response {
    answer(
        404,
        json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}),
    )
}

fn verify_jwt(auth: &str) -> bool {
    use jsonwebtoken_fake::*;
    let token = auth.trim_start_matches("Bearer ").trim();
    verify(token)
}

mod jsonwebtoken_fake {
    use octocrab::jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};

    #[derive(serde::Deserialize)]
    struct Claims {
        iss: String,
        iat: u64,
        exp: u64,
    }

    pub fn verify(token: &str) -> bool {
        let Ok(key) = DecodingKey::from_rsa_pem(super::PUBLIC_KEY.as_bytes()) else {
            return false;
        };
        let mut v = Validation::new(Algorithm::RS256);
        v.set_required_spec_claims(&["exp", "iss", "iat"]);
        match decode::<Claims>(token, &key, &v) {
            Ok(d) => {
                d.claims.iss == super::APP_ID.to_string()
                    && d.claims.exp > d.claims.iat
                    && d.claims.exp - d.claims.iat <= 600
            }
            Err(_) => false,
        }
    }
}

async fn handle(State(s): State<FakeState>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    // A held or passed-through answer: decided before the request is handled.
    let special = {
        let mut w = s.world.lock().unwrap();
        let at = w.faults.iter().position(|(p, q)| {
            path.contains(p.as_str()) && matches!(q.front(), Some(Fault::Hold(_) | Fault::Pass))
        });
        at.and_then(|i| w.faults[i].1.pop_front())
    };
    let answer = handle_request(s, req).await;
    if let Some(Fault::Hold(hold)) = special {
        let released = hold.release.notified();
        hold.arrived.notify_one();
        released.await;
    }
    answer
}

async fn handle_request(s: FakeState, req: Request) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let headers: HeaderMap = req.headers().clone();
    let body: Bytes = axum::body::to_bytes(req.into_body(), 50 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // A slow answer: wait without holding the world.
    let delay = {
        let mut w = s.world.lock().unwrap();
        let slow = w.faults.iter().position(|(p, q)| {
            path.contains(p.as_str()) && matches!(q.front(), Some(Fault::Slow(_)))
        });
        match slow.and_then(|i| w.faults[i].1.pop_front()) {
            Some(Fault::Slow(ms)) => Some(ms),
            _ => None,
        }
    };
    if let Some(ms) = delay {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    let mut w = s.world.lock().unwrap();
    w.requests.push(Recorded {
        method: method.to_string(),
        path: path.clone(),
        query: query.clone(),
        body: body.clone(),
        auth: auth.clone(),
    });

    // Pre-signed log downloads need no auth, like GitHub's.
    if let Some(id) = path.strip_prefix("/_presigned/logs/") {
        let id: u64 = id.parse().unwrap_or(0);
        return match w.job_logs.get(&id) {
            Some(text) => (StatusCode::OK, text.clone()).into_response(),
            None => not_found(),
        };
    }

    if let Some(id) = path.strip_prefix("/_presigned/artifacts/") {
        return crate::fake_actions::presigned_artifact(&w, id.parse().unwrap_or(0))
            .unwrap_or_else(not_found);
    }
    // The App asking which installation a repository is on (JWT, not a token).
    if method == Method::GET
        && segs_of(&path).len() == 4
        && segs_of(&path)[0] == "repos"
        && segs_of(&path)[3] == "installation"
    {
        if !auth.as_deref().is_some_and(verify_jwt) {
            return answer(
                401,
                json!({"message": "A JSON web token could not be decoded"}),
            );
        }
        let s = segs_of(&path);
        return match w.actions.installation_of.get(&format!("{}/{}", s[1], s[2])) {
            Some(i) => answer(200, json!({"id": i})),
            None => not_found(),
        };
    }

    // Faults, first matching.
    if let Some(i) = w.faults.iter().position(|(p, q)| {
        path.contains(p.as_str())
            && matches!(
                q.front(),
                Some(
                    Fault::Status(_)
                        | Fault::RateLimited { .. }
                        | Fault::RetryAfter(_)
                        | Fault::Huge(_)
                )
            )
    }) {
        let fault = w.faults[i].1.pop_front();
        if let Some(f) = fault {
            return match f {
                Fault::Status(code) => answer(code, json!({"message": "injected fault"})),
                Fault::Huge(len) => {
                    let piece = axum::body::Bytes::from(vec![b' '; 1 << 20]);
                    let pieces = futures::stream::iter(
                        std::iter::once(axum::body::Bytes::from_static(b"["))
                            .chain((0..len / piece.len()).map(move |_| piece.clone()))
                            .map(Ok::<_, std::io::Error>),
                    );
                    axum::body::Body::from_stream(pieces).into_response()
                }
                Fault::RateLimited { reset_in_secs } => {
                    let reset = chrono::Utc::now().timestamp() as u64 + reset_in_secs;
                    let mut r = answer(403, json!({"message": "API rate limit exceeded"}));
                    r.headers_mut()
                        .insert("x-ratelimit-remaining", "0".parse().unwrap());
                    r.headers_mut()
                        .insert("x-ratelimit-reset", reset.to_string().parse().unwrap());
                    r
                }
                Fault::Slow(_) | Fault::Pass | Fault::Hold(_) => {
                    unreachable!("handled above")
                }
                Fault::RetryAfter(secs) => {
                    let mut r = answer(
                        429,
                        json!({"message": "You have exceeded a secondary rate limit"}),
                    );
                    r.headers_mut()
                        .insert("retry-after", secs.to_string().parse().unwrap());
                    r
                }
            };
        }
    }

    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if method == Method::POST
        && segs.len() == 3
        && segs[0] == "app-manifests"
        && segs[2] == "conversions"
    {
        return if segs[1] == "good-code" {
            answer(
                201,
                json!({
                    "id": 4242, "slug": "repro-gate-test", "html_url": "https://github.com/apps/repro-gate-test",
                    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIfake\n-----END RSA PRIVATE KEY-----\n",
                    "webhook_secret": "whsec-from-github"
                }),
            )
        } else {
            answer(404, json!({"message": "Not Found"}))
        };
    }
    if let Some(r) = oauth_route(&mut w, &method, &segs, &query, &body, auth.as_deref()) {
        return r;
    }
    let app_route = segs.first() == Some(&"app")
        && !(segs.len() == 4 && segs[1] == "installations" && segs[3] == "access_tokens");
    if app_route {
        if !auth.as_deref().is_some_and(verify_jwt) {
            return answer(
                401,
                json!({"message": "A JSON web token could not be decoded"}),
            );
        }
        return match (method.clone(), segs.as_slice()) {
            (Method::GET, ["app", "hook", "deliveries"]) => {
                answer(200, Value::Array(w.hook_deliveries.clone()))
            }
            (Method::POST, ["app", "hook", "deliveries", id, "attempts"]) => {
                w.redelivery_requests.push(id.parse().unwrap_or(0));
                answer(202, json!({}))
            }
            (Method::GET, ["app"]) => answer(200, json!({"id": APP_ID, "slug": "repro-gate-test"})),
            (Method::GET, ["app", "installations"]) => answer(
                200,
                Value::Array(w.installations.iter().map(|i| json!({"id": i})).collect()),
            ),
            _ => not_found(),
        };
    }
    // App-level: mint a token with a valid JWT.
    if method == Method::POST
        && segs.len() == 4
        && segs[0] == "app"
        && segs[1] == "installations"
        && segs[3] == "access_tokens"
    {
        if !auth.as_deref().is_some_and(verify_jwt) {
            return answer(
                401,
                json!({"message": "A JSON web token could not be decoded"}),
            );
        }
        let inst: i64 = segs[2].parse().unwrap_or(0);
        w.tokens_minted += 1;
        let token = format!("ghs_fake{}x{}", inst, w.tokens_minted);
        w.tokens.insert(token.clone(), inst);
        let expires = chrono::Utc::now() + chrono::Duration::seconds(w.token_lifetime_secs);
        return answer(
            201,
            json!({"token": token, "expires_at": expires.to_rfc3339()}),
        );
    }
    let token = auth.as_deref().map(|a| {
        a.trim_start_matches("Bearer ")
            .trim_start_matches("token ")
            .to_string()
    });
    if !token.as_ref().is_some_and(|t| w.tokens.contains_key(t)) {
        return answer(401, json!({"message": "Bad credentials"}));
    }

    let page: usize = param(&query, "page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(1);
    let per_page: usize = param(&query, "per_page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(30)
        .min(100);
    let paged = |items: Vec<Value>| -> Response {
        let start = (page - 1) * per_page;
        let slice: Vec<Value> = items.iter().skip(start).take(per_page).cloned().collect();
        let mut r = answer(200, Value::Array(slice));
        if start + per_page < items.len() {
            let link = format!(
                "<http://{}{}?per_page={per_page}&page={}>; rel=\"next\"",
                s.addr,
                path,
                page + 1
            );
            r.headers_mut().insert("link", link.parse().unwrap());
        }
        r
    };

    let caller = token
        .as_ref()
        .and_then(|t| w.tokens.get(t))
        .copied()
        .unwrap_or(0);
    match (method.clone(), segs.as_slice()) {
        (Method::GET, ["installation", "repositories"]) => {
            let repos = w
                .installation_repos
                .get(&caller)
                .cloned()
                .unwrap_or_default();
            answer(
                200,
                json!({"total_count": repos.len(), "repositories": repos.iter().map(|r| json!({"full_name": r})).collect::<Vec<_>>()}),
            )
        }
        (Method::GET, ["orgs", org, "teams", team, "memberships", user]) => {
            let members = w
                .team_members
                .get(&(org.to_string(), team.to_string()))
                .cloned()
                .unwrap_or_default();
            if members.iter().any(|m| m == user) {
                answer(200, json!({"state": "active", "role": "member"}))
            } else {
                not_found()
            }
        }
        (_, ["repos", owner, name, rest @ ..]) => {
            let repo = format!("{owner}/{name}");
            if !w.default_branch.contains_key(&repo) {
                return not_found();
            }
            let host = LOG_HOST
                .get_or_init(Default::default)
                .lock()
                .unwrap()
                .get(&s.addr)
                .copied()
                .unwrap_or(s.addr)
                .to_string();
            if let Some(r) =
                crate::fake_actions::route(&mut w, &host, &method, &repo, rest, &query, &body)
            {
                return r;
            }
            match (method, rest) {
                (Method::GET, []) => answer(
                    200,
                    json!({"full_name": repo, "default_branch": w.default_branch[&repo]}),
                ),
                (Method::GET, ["contents", file @ ..]) => {
                    let git_ref =
                        param(&query, "ref").unwrap_or_else(|| w.default_branch[&repo].clone());
                    match w.files.get(&(repo.clone(), git_ref, file.join("/"))) {
                        Some(c) => answer(
                            200,
                            json!({
                                "type": "file", "encoding": "base64",
                                "content": base64::engine::general_purpose::STANDARD.encode(c),
                                "sha": format!("{:x}", fxhash(c)), "path": file.join("/"),
                            }),
                        ),
                        None => not_found(),
                    }
                }
                (Method::GET, ["pulls"]) => {
                    let list: Vec<Value> = w
                        .prs
                        .iter()
                        .filter(|((r, _), p)| *r == repo && p.state == "open")
                        .map(|((_, n), p)| pr_json(*n, p))
                        .collect();
                    paged(list)
                }
                (Method::GET, ["pulls", n]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    match w.prs.get(&(repo.clone(), n)) {
                        Some(p) => answer(200, pr_json(n, p)),
                        None => not_found(),
                    }
                }
                (Method::GET, ["pulls", n, "files"]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    match w.prs.get(&(repo.clone(), n)) {
                        Some(p) => paged(p.files.clone()),
                        None => not_found(),
                    }
                }
                (Method::GET, ["commits"]) => {
                    let path = param(&query, "path").unwrap_or_default();
                    let list = w
                        .file_commits
                        .get(&(repo.clone(), path))
                        .cloned()
                        .unwrap_or_default();
                    answer(200, Value::Array(list.into_iter().take(1).collect()))
                }
                (Method::GET, ["commits", sha, "pulls"]) => {
                    let nums = w
                        .commit_pulls
                        .get(&(repo.clone(), sha.to_string()))
                        .cloned()
                        .unwrap_or_default();
                    let list = nums
                        .iter()
                        .filter_map(|n| w.prs.get(&(repo.clone(), *n)).map(|p| pr_json(*n, p)))
                        .collect();
                    paged(list)
                }
                (Method::GET, ["commits", sha, "check-runs"]) => {
                    let name = param(&query, "check_name");
                    let runs: Vec<Value> = w
                        .check_runs
                        .iter()
                        .filter(|c| {
                            c["repo"] == repo
                                && c["head_sha"] == *sha
                                && name.as_ref().is_none_or(|n| c["name"] == *n)
                        })
                        .cloned()
                        .collect();
                    answer(200, json!({"total_count": runs.len(), "check_runs": runs}))
                }
                (Method::POST, ["check-runs"]) => {
                    w.next_id += 1;
                    let id = w.next_id;
                    let mut run = body.clone();
                    run["id"] = json!(id);
                    run["repo"] = json!(repo);
                    run["app"] = json!({"id": APP_ID});
                    w.check_runs.push(run.clone());
                    answer(201, run)
                }
                (Method::PATCH, ["check-runs", id]) => {
                    let id: u64 = id.parse().unwrap_or(0);
                    match w.check_runs.iter_mut().find(|c| c["id"] == id) {
                        Some(c) => {
                            if let (Some(obj), Some(patch)) = (c.as_object_mut(), body.as_object())
                            {
                                for (k, v) in patch {
                                    obj.insert(k.clone(), v.clone());
                                }
                            }
                            answer(200, c.clone())
                        }
                        None => not_found(),
                    }
                }
                (Method::GET, ["check-runs", id, "annotations"]) => {
                    let id: u64 = id.parse().unwrap_or(0);
                    paged(w.annotations.get(&id).cloned().unwrap_or_default())
                }
                (Method::GET, ["actions", "jobs", id, "logs"]) => {
                    let mut r = StatusCode::FOUND.into_response();
                    let host = LOG_HOST
                        .get_or_init(Default::default)
                        .lock()
                        .unwrap()
                        .get(&s.addr)
                        .copied()
                        .unwrap_or(s.addr);
                    let loc = match id.parse::<u64>().ok().and_then(|j| w.log_locations.get(&j)) {
                        Some(elsewhere) => elsewhere.clone(),
                        None => format!("http://{host}/_presigned/logs/{id}"),
                    };
                    r.headers_mut().insert("location", loc.parse().unwrap());
                    r
                }
                (Method::GET, ["labels", name]) => {
                    let name = percent_decode(name);
                    if w.repo_labels.get(&repo).is_some_and(|l| l.contains(&name)) {
                        answer(200, json!({"name": name}))
                    } else {
                        not_found()
                    }
                }
                (Method::POST, ["labels"]) => {
                    let name = body["name"].as_str().unwrap_or("").to_string();
                    let labels = w.repo_labels.entry(repo.clone()).or_default();
                    if labels.contains(&name) {
                        answer(
                            422,
                            json!({"message": "Validation Failed", "errors": [{"code": "already_exists"}]}),
                        )
                    } else {
                        labels.push(name.clone());
                        answer(
                            201,
                            json!({"name": name, "color": body["color"], "description": body["description"]}),
                        )
                    }
                }
                (Method::POST, ["issues"]) => {
                    w.next_id += 1;
                    let n = 10_000 + w.next_id;
                    let issue = json!({
                        "number": n, "title": body["title"], "body": body["body"], "state": "open",
                        "labels": body["labels"].as_array().cloned().unwrap_or_default()
                            .into_iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
                        "performed_via_github_app": {"id": APP_ID},
                    });
                    w.issues.push((repo.clone(), n, issue.clone()));
                    answer(201, issue)
                }
                (Method::GET, ["issues"]) => {
                    let label = param(&query, "labels").unwrap_or_default();
                    let list: Vec<Value> = w
                        .issues
                        .iter()
                        .filter(|(r, _, i)| {
                            *r == repo
                                && i["state"] == "open"
                                && (label.is_empty()
                                    || i["labels"].as_array().is_some_and(|ls| {
                                        ls.iter().any(|l| l["name"] == label.as_str())
                                    }))
                        })
                        .map(|(_, _, i)| i.clone())
                        .collect();
                    answer(200, json!(list))
                }
                (Method::GET, ["issues", n]) if n.parse::<u64>().is_ok_and(|n| n > 10_000) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    match w.issues.iter().find(|(r, k, _)| *r == repo && *k == n) {
                        Some((_, _, i)) => answer(200, i.clone()),
                        None => not_found(),
                    }
                }
                (Method::PATCH, ["issues", n]) if n.parse::<u64>().is_ok_and(|n| n > 10_000) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    match w.issues.iter_mut().find(|(r, k, _)| *r == repo && *k == n) {
                        Some((_, _, i)) => {
                            if let (Some(obj), Some(patch)) = (i.as_object_mut(), body.as_object())
                            {
                                for (k, v) in patch {
                                    obj.insert(k.clone(), v.clone());
                                }
                            }
                            answer(200, i.clone())
                        }
                        None => not_found(),
                    }
                }
                (Method::POST, ["issues", n, "labels"]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    let add: Vec<String> = body["labels"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    for l in &add {
                        let rl = w.repo_labels.entry(repo.clone()).or_default();
                        if !rl.contains(l) {
                            rl.push(l.clone());
                        }
                    }
                    match w.prs.get_mut(&(repo.clone(), n)) {
                        Some(p) => {
                            for l in add {
                                if !p.labels.contains(&l) {
                                    p.labels.push(l);
                                }
                            }
                            answer(
                                200,
                                json!(
                                    p.labels
                                        .iter()
                                        .map(|l| json!({"name": l}))
                                        .collect::<Vec<_>>()
                                ),
                            )
                        }
                        None => not_found(),
                    }
                }
                (Method::DELETE, ["issues", n, "labels", name]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    let name = percent_decode(name);
                    match w.prs.get_mut(&(repo.clone(), n)) {
                        Some(p) if p.labels.contains(&name) => {
                            p.labels.retain(|l| *l != name);
                            answer(200, json!([]))
                        }
                        _ => not_found(),
                    }
                }
                (Method::GET, ["issues", n, "comments"]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    let list = w
                        .comments
                        .iter()
                        .filter(|(r, i, _)| *r == repo && *i == n)
                        .map(|(_, _, c)| c.clone())
                        .collect();
                    paged(list)
                }
                (Method::POST, ["issues", n, "comments"]) => {
                    let n: u64 = n.parse().unwrap_or(0);
                    w.next_id += 1;
                    let c = json!({"id": w.next_id, "body": body["body"], "user": {"login": "repro-gate[bot]", "type": "Bot"}, "performed_via_github_app": {"id": APP_ID}, "created_at": chrono::Utc::now().to_rfc3339()});
                    w.comments.push((repo.clone(), n, c.clone()));
                    answer(201, c)
                }
                (Method::PATCH, ["issues", "comments", id]) => {
                    let id: u64 = id.parse().unwrap_or(0);
                    match w.comments.iter_mut().find(|(_, _, c)| c["id"] == id) {
                        Some((_, _, c)) => {
                            c["body"] = body["body"].clone();
                            answer(200, c.clone())
                        }
                        None => not_found(),
                    }
                }
                (Method::POST, ["issues", "comments", id, "reactions"]) => {
                    let id: u64 = id.parse().unwrap_or(0);
                    let content = body["content"].as_str().unwrap_or("").to_string();
                    w.reactions.push((id, content.clone()));
                    answer(201, json!({"id": 1, "content": content}))
                }
                (Method::GET, ["collaborators", user, "permission"]) => {
                    match w.permissions.get(&(repo.clone(), user.to_string())) {
                        Some(role) => {
                            // GitHub's legacy `permission` folds maintain into write, triage into read.
                            let legacy = match role.as_str() {
                                "maintain" => "write",
                                "triage" => "read",
                                r => r,
                            };
                            answer(
                                200,
                                json!({"permission": legacy, "role_name": role, "user": {"login": user}}),
                            )
                        }
                        None => answer(404, json!({"message": "is not a user"})),
                    }
                }
                _ => not_found(),
            }
        }
        _ => not_found(),
    }
}

fn pr_json(n: u64, p: &PrState) -> Value {
    let base_repo = "acme/pool";
    let head_repo = p.head_repo.as_deref().unwrap_or(base_repo);
    json!({
        "number": n, "title": p.title, "body": p.body, "state": p.state, "draft": false,
        "head": {"sha": p.head_sha, "ref": "feature", "repo": {"full_name": head_repo}},
        "base": {"sha": "base", "ref": p.base, "repo": {"full_name": base_repo}},
        "labels": p.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
        "user": {"login": "author", "type": "User"},
    })
}

fn segs_of(path: &str) -> Vec<&str> {
    path.trim_start_matches('/').split('/').collect()
}

pub(crate) fn param(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == key).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The OAuth web flow and the user-token routes (the dashboard's sign-in).
fn oauth_route(
    w: &mut World,
    method: &Method,
    segs: &[&str],
    query: &str,
    body: &Value,
    auth: Option<&str>,
) -> Option<Response> {
    match (method.clone(), segs) {
        (Method::GET, ["login", "oauth", "authorize"]) => {
            let (Some(redirect), Some(login)) =
                (param(query, "redirect_uri"), w.oauth_user.clone())
            else {
                return Some(answer(200, json!({"message": "sign in to GitHub"})));
            };
            let code = format!(
                "code-{}-{}",
                login,
                w.oauth_codes.len() + w.oauth_exchanges.len()
            );
            w.oauth_codes.insert(code.clone(), login);
            let state = param(query, "state").unwrap_or_default();
            let loc = format!("{redirect}?code={code}&state={}", utf8_percent(&state));
            let mut r = answer(302, json!({}));
            r.headers_mut().insert("location", loc.parse().unwrap());
            Some(r)
        }
        (Method::POST, ["login", "oauth", "access_token"]) => {
            let p = body;
            let client_ok = w.oauth_client.as_ref().is_some_and(|(id, secret)| {
                p["client_id"] == id.as_str() && p["client_secret"] == secret.as_str()
            });
            let code = p["code"].as_str().unwrap_or("").to_string();
            let login = if client_ok {
                w.oauth_codes.remove(&code)
            } else {
                None
            };
            w.oauth_exchanges.push((code, login.is_some()));
            Some(match login {
                Some(l) => {
                    let token = format!("ghu_fake{}", w.user_tokens.len() + 1);
                    w.user_tokens.insert(token.clone(), l);
                    answer(
                        200,
                        json!({"access_token": token, "token_type": "bearer", "expires_in": 28800}),
                    )
                }
                None => answer(200, json!({"error": "bad_verification_code"})),
            })
        }
        (Method::DELETE, ["applications", client, "token"]) => {
            // Basic auth with the client id and secret.
            let want = w.oauth_client.as_ref().map(|(id, secret)| {
                use base64::Engine as _;
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
                )
            });
            if want.as_deref() != auth
                || w.oauth_client.as_ref().map(|c| c.0.as_str()) != Some(*client)
            {
                return Some(answer(401, json!({"message": "Bad credentials"})));
            }
            let token = body["access_token"].as_str().unwrap_or("").to_string();
            Some(if w.user_tokens.remove(&token).is_some() {
                w.revoked_tokens.push(token);
                answer(204, json!({}))
            } else {
                not_found()
            })
        }
        (Method::GET, ["user", rest @ ..]) => {
            let token = auth
                .unwrap_or("")
                .trim_start_matches("Bearer ")
                .trim_start_matches("token ");
            let Some(login) = w.user_tokens.get(token).cloned() else {
                return Some(answer(401, json!({"message": "Bad credentials"})));
            };
            let repos = w.user_repos.get(&login).cloned().unwrap_or_default();
            Some(match rest {
                [] => answer(200, json!({"login": login})),
                ["installations"] => {
                    let mut ids: Vec<i64> = repos.iter().map(|(i, _)| *i).collect();
                    ids.dedup();
                    answer(
                        200,
                        json!({"total_count": ids.len(), "installations": ids.iter().map(|i| json!({"id": i})).collect::<Vec<_>>()}),
                    )
                }
                ["installations", id, "repositories"] => {
                    let id: i64 = id.parse().unwrap_or(0);
                    let mine: Vec<Value> = repos
                        .iter()
                        .filter(|(i, _)| *i == id)
                        .map(|(_, r)| json!({"full_name": r}))
                        .collect();
                    if mine.is_empty() {
                        not_found()
                    } else {
                        answer(
                            200,
                            json!({"total_count": mine.len(), "repositories": mine}),
                        )
                    }
                }
                _ => not_found(),
            })
        }
        _ => None,
    }
}

fn utf8_percent(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
