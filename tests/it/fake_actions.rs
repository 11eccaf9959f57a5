//! The fake GitHub's Actions and Git data routes: a run's artifacts (zips behind a 302) and
//! jobs, workflow dispatches (recorded), compare's merge base, branch refs, file writes and
//! pull requests opened from a branch. Kept apart from `fake_github.rs` so each file reads as
//! one part of GitHub.

use std::collections::HashMap;

use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::fake_github::{PrState, World, answer, not_found, param};

/// One workflow run: its artifacts (id, name, zip bytes) and its jobs (ids whose logs are in
/// `World::job_logs`).
#[derive(Clone, Debug, Default)]
pub struct FakeRun {
    pub artifacts: Vec<(u64, String, Vec<u8>)>,
    pub jobs: Vec<u64>,
}

/// What the Actions and Git routes keep.
#[derive(Debug, Default)]
pub struct ActionsWorld {
    pub runs: HashMap<u64, FakeRun>,
    /// (repo, workflow file, the request body), in order.
    pub dispatches: Vec<(String, String, Value)>,
    /// (repo, head sha) → merge base.
    pub merge_bases: HashMap<(String, String), String>,
    /// (repo, branch) → commit.
    pub refs: HashMap<(String, String), String>,
    /// repo → installation (`GET /repos/{o}/{r}/installation`, as the App).
    pub installation_of: HashMap<String, i64>,
    /// Answer a dispatch as github.com does with `return_run_details` (200, the run's id and
    /// link: the first is `first_run_id`, then one more each), instead of 204 (older GHES).
    pub run_details: Option<u64>,
    commits: u64,
}

/// A zip holding `files` (name, text).
pub fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write as _;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut buf);
        for (name, data) in files {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .expect("zip entry");
            w.write_all(data.as_bytes()).expect("zip write");
        }
        w.finish().expect("zip finish");
    }
    buf.into_inner()
}

/// A pre-signed artifact download (no auth, like GitHub's blob storage).
pub fn presigned_artifact(w: &World, id: u64) -> Option<Response> {
    w.actions
        .runs
        .values()
        .flat_map(|r| &r.artifacts)
        .find(|a| a.0 == id)
        .map(|a| (StatusCode::OK, a.2.clone()).into_response())
}

/// Answers a `/repos/{o}/{r}/…` route of this part, or `None` for the rest of the fake.
pub fn route(
    w: &mut World,
    host: &str,
    method: &Method,
    repo: &str,
    rest: &[&str],
    query: &str,
    body: &Value,
) -> Option<Response> {
    let r = match (method.clone(), rest) {
        (Method::GET, ["actions", "runs", id, "artifacts"]) => {
            let run = w
                .actions
                .runs
                .get(&id.parse().unwrap_or(0))
                .cloned()
                .unwrap_or_default();
            let list: Vec<Value> = run
                .artifacts
                .iter()
                .map(|(id, name, zip)| json!({"id": id, "name": name, "expired": false, "size_in_bytes": zip.len()}))
                .collect();
            answer(200, json!({"total_count": list.len(), "artifacts": list}))
        }
        (Method::GET, ["actions", "runs", id, "jobs"]) => {
            let run = w
                .actions
                .runs
                .get(&id.parse().unwrap_or(0))
                .cloned()
                .unwrap_or_default();
            let jobs: Vec<Value> = run
                .jobs
                .iter()
                .map(|j| json!({"id": j, "name": "test"}))
                .collect();
            answer(200, json!({"total_count": jobs.len(), "jobs": jobs}))
        }
        (Method::GET, ["actions", "artifacts", id, "zip"]) => {
            let mut r = StatusCode::FOUND.into_response();
            let loc = format!("http://{host}/_presigned/artifacts/{id}");
            r.headers_mut()
                .insert("location", loc.parse().expect("header"));
            r
        }
        (Method::POST, ["actions", "workflows", file, "dispatches"]) => {
            w.actions
                .dispatches
                .push((repo.to_string(), file.to_string(), body.clone()));
            match w.actions.run_details.as_mut() {
                Some(next) if body["return_run_details"] == true => {
                    let id = *next;
                    *next += 1;
                    answer(
                        200,
                        json!({
                            "workflow_run_id": id,
                            "run_url": format!("http://{host}/repos/{repo}/actions/runs/{id}"),
                            "html_url": format!("https://github.com/{repo}/actions/runs/{id}"),
                        }),
                    )
                }
                _ => StatusCode::NO_CONTENT.into_response(),
            }
        }
        (Method::GET, ["compare", basehead]) => {
            let Some((_, head)) = basehead.split_once("...") else {
                return Some(not_found());
            };
            match w
                .actions
                .merge_bases
                .get(&(repo.to_string(), head.to_string()))
            {
                Some(mb) => answer(
                    200,
                    json!({"merge_base_commit": {"sha": mb}, "status": "diverged"}),
                ),
                None => not_found(),
            }
        }
        (Method::GET, ["git", "ref", "heads", branch @ ..]) => {
            match w.actions.refs.get(&(repo.to_string(), branch.join("/"))) {
                Some(sha) => answer(
                    200,
                    json!({"ref": format!("refs/heads/{}", branch.join("/")), "object": {"sha": sha, "type": "commit"}}),
                ),
                None => not_found(),
            }
        }
        (Method::POST, ["git", "refs"]) => {
            let name = body["ref"]
                .as_str()
                .unwrap_or("")
                .trim_start_matches("refs/heads/")
                .to_string();
            let sha = body["sha"].as_str().unwrap_or("").to_string();
            let key = (repo.to_string(), name);
            if w.actions.refs.contains_key(&key) {
                answer(422, json!({"message": "Reference already exists"}))
            } else {
                copy_files(w, repo, &sha, &key.1);
                w.actions.refs.insert(key, sha.clone());
                answer(201, json!({"object": {"sha": sha}}))
            }
        }
        (Method::PATCH, ["git", "refs", "heads", branch @ ..]) => {
            let key = (repo.to_string(), branch.join("/"));
            let sha = body["sha"].as_str().unwrap_or("").to_string();
            if !w.actions.refs.contains_key(&key) {
                return Some(answer(422, json!({"message": "Reference does not exist"})));
            }
            copy_files(w, repo, &sha, &key.1);
            w.actions.refs.insert(key, sha.clone());
            answer(200, json!({"object": {"sha": sha}}))
        }
        (Method::PUT, ["contents", file @ ..]) => {
            let path = file.join("/");
            let branch = body["branch"].as_str().unwrap_or("main").to_string();
            let current = w
                .files
                .get(&(repo.to_string(), branch.clone(), path.clone()))
                .cloned();
            let given = body["sha"].as_str();
            let current_sha = current
                .as_deref()
                .map(|c| format!("{:x}", crate::fake_github::fxhash(c)));
            if given.map(str::to_string) != current_sha {
                return Some(answer(409, json!({"message": "sha does not match"})));
            }
            let text = base64::engine::general_purpose::STANDARD
                .decode(body["content"].as_str().unwrap_or(""))
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .unwrap_or_default();
            w.files
                .insert((repo.to_string(), branch.clone(), path), text);
            w.actions.commits += 1;
            let commit = format!("commit{}", w.actions.commits);
            w.actions
                .refs
                .insert((repo.to_string(), branch), commit.clone());
            answer(200, json!({"commit": {"sha": commit}}))
        }
        (Method::GET, ["pulls"]) if param(query, "head").is_some() => {
            let head = param(query, "head").unwrap_or_default();
            let list: Vec<Value> = w
                .prs
                .iter()
                .filter(|((r, _), p)| r == repo && p.state == "open" && format!("{}:{}", repo.split('/').next().unwrap_or(""), p.head_ref) == head)
                .map(|((_, n), p)| json!({"number": n, "title": p.title, "body": p.body, "base": {"ref": p.base}, "head": {"ref": p.head_ref}}))
                .collect();
            answer(200, Value::Array(list))
        }
        (Method::POST, ["pulls"]) => {
            let n = w
                .prs
                .keys()
                .filter(|(r, _)| r == repo)
                .map(|(_, n)| *n)
                .max()
                .unwrap_or(0)
                + 1;
            w.prs.insert(
                (repo.to_string(), n),
                PrState {
                    title: body["title"].as_str().unwrap_or("").into(),
                    body: body["body"].as_str().unwrap_or("").into(),
                    head_ref: body["head"].as_str().unwrap_or("").into(),
                    base: body["base"].as_str().unwrap_or("").into(),
                    state: "open".into(),
                    ..PrState::default()
                },
            );
            answer(201, json!({"number": n}))
        }
        (Method::PATCH, ["pulls", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            match w.prs.get_mut(&(repo.to_string(), n)) {
                Some(p) => {
                    if let Some(t) = body["title"].as_str() {
                        p.title = t.into();
                    }
                    if let Some(b) = body["body"].as_str() {
                        p.body = b.into();
                    }
                    answer(200, json!({"number": n}))
                }
                None => not_found(),
            }
        }
        _ => return None,
    };
    Some(r)
}

/// A branch pointed at a commit gets the files of the branch that commit is the head of.
fn copy_files(w: &mut World, repo: &str, sha: &str, to: &str) {
    let from = w
        .actions
        .refs
        .iter()
        .find(|((r, b), s)| r == repo && *s == sha && b != to)
        .map(|((_, b), _)| b.clone());
    let Some(from) = from else { return };
    let files: Vec<(String, String)> = w
        .files
        .iter()
        .filter(|((r, b, _), _)| r == repo && *b == from)
        .map(|((_, _, p), c)| (p.clone(), c.clone()))
        .collect();
    w.files.retain(|(r, b, _), _| !(r == repo && b == to));
    for (p, c) in files {
        w.files.insert((repo.to_string(), to.to_string(), p), c);
    }
}

/// A JUnit report of `runs` runs of one test, the first `fails` failing.
pub fn junit_runs(classname: &str, name: &str, runs: usize, fails: usize) -> String {
    let mut xml = String::from("<testsuites><testsuite name=\"s\">");
    for i in 0..runs {
        xml.push_str(&format!(
            "<testcase classname=\"{classname}\" name=\"{name}\">"
        ));
        if i < fails {
            xml.push_str("<failure message=\"seed: 4242\"/>");
        }
        xml.push_str("</testcase>");
    }
    xml.push_str("</testsuite></testsuites>");
    xml
}

/// A session's run `run` (of `repo`) completing as the shipped workflow does: its report as
/// the artifact `repro-gate-rerun-junit`, and the `workflow_run` completed delivery to send.
pub fn finish_run(
    fake: &crate::fake_github::FakeGitHub,
    repo: &str,
    run: u64,
    session: &str,
    side: &str,
    report: &str,
) -> String {
    fake.with(|w| {
        w.actions.runs.insert(
            run,
            FakeRun {
                artifacts: vec![(
                    run + 10_000,
                    "repro-gate-rerun-junit".into(),
                    zip_of(&[("report.xml", report)]),
                )],
                jobs: vec![],
            },
        );
    });
    json!({
        "action": "completed",
        "workflow_run": {
            "id": run, "run_attempt": 1, "head_sha": "main-sha", "head_branch": "main",
            "event": "workflow_dispatch", "conclusion": "success",
            "display_title": format!("repro-gate rerun {session} {side}"),
            "html_url": format!("https://github.com/{repo}/actions/runs/{run}"),
            // This fake answers a dispatch 204 (older GHES): the side binds to the first run
            // that qualifies, which this is.
            "path": ".github/workflows/repro-gate-rerun.yml",
            "actor": {"login": "repro-gate-test[bot]"},
            "head_repository": {"full_name": repo},
            "created_at": chrono::Utc::now().to_rfc3339()
        },
        "repository": {"full_name": repo, "default_branch": "main"},
        "installation": {"id": 7}
    })
    .to_string()
}
