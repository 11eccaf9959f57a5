//! Check runs: this App's run per SHA, other apps' annotations, the Actions job log.

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::api::{AppJson, decode, encode_query};
use super::types::*;
use super::{GitHub, GitHubError};

#[derive(Deserialize)]
struct OutputJson {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct CheckRunJson {
    id: u64,
    name: String,
    head_sha: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default)]
    app: Option<AppJson>,
    #[serde(default)]
    output: Option<OutputJson>,
}

impl From<CheckRunJson> for CheckRun {
    fn from(c: CheckRunJson) -> Self {
        CheckRun {
            id: c.id,
            name: c.name,
            head_sha: c.head_sha,
            status: c.status,
            conclusion: c.conclusion,
            app_id: c.app.map(|a| a.id),
            title: c.output.as_ref().and_then(|o| o.title.clone()),
            summary: c.output.as_ref().and_then(|o| o.summary.clone()),
            text: c.output.and_then(|o| o.text),
        }
    }
}

impl GitHub {
    /// `GET /repos/{o}/{r}/commits/{sha}/check-runs?check_name=…&app_id=…`: this App's run.
    pub async fn find_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        sha: &str,
        name: &str,
    ) -> Result<Option<CheckRun>, GitHubError> {
        #[derive(Deserialize)]
        struct L {
            check_runs: Vec<CheckRunJson>,
        }
        let p = format!(
            "/repos/{repo}/commits/{sha}/check-runs?check_name={}&app_id={}&filter=latest&per_page=100",
            encode_query(name),
            self.app_id()
        );
        let l: L = self.get_json(inst, &p).await?;
        let app = self.app_id();
        Ok(l.check_runs
            .into_iter()
            .map(CheckRun::from)
            .find(|c| c.name == name && c.app_id.is_none_or(|a| a == app)))
    }

    /// Finds this App's check run for the SHA and updates it, or creates it: one per SHA.
    pub async fn upsert_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        run: &CheckRunWrite,
    ) -> Result<u64, GitHubError> {
        let existing = self
            .find_check_run(inst, repo, &run.head_sha, &run.name)
            .await?;
        match existing {
            // Already showing this verdict: a write would change nothing.
            Some(c) if c.shows(run) => Ok(c.id),
            Some(c) => {
                self.update_check_run(inst, repo, c.id, run).await?;
                Ok(c.id)
            }
            None => self.create_check_run(inst, repo, run).await,
        }
    }

    fn check_run_body(run: &CheckRunWrite) -> serde_json::Value {
        let mut output = json!({
            "title": run.title,
            "summary": fit_check_text(&run.summary),
        });
        if let Some(t) = &run.text {
            output["text"] = json!(fit_check_text(t));
        }
        let actions: Vec<&CheckAction> = run.actions.iter().take(3).collect();
        let mut body = json!({
            "name": run.name,
            "output": output,
            "actions": actions,
        });
        match &run.conclusion {
            Some(c) => {
                body["status"] = json!("completed");
                body["conclusion"] = json!(c);
                body["completed_at"] =
                    json!(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
            }
            None => body["status"] = json!("in_progress"),
        }
        body
    }

    /// `PATCH /repos/{o}/{r}/check-runs/{id}`
    pub async fn update_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        id: u64,
        run: &CheckRunWrite,
    ) -> Result<(), GitHubError> {
        self.write(
            inst,
            Method::PATCH,
            &format!("/repos/{repo}/check-runs/{id}"),
            Some(&Self::check_run_body(run)),
            true,
        )
        .await
        .map(|_| ())
    }

    /// `POST /repos/{o}/{r}/check-runs`: its id.
    pub async fn create_check_run(
        &self,
        inst: i64,
        repo: &RepoName,
        run: &CheckRunWrite,
    ) -> Result<u64, GitHubError> {
        let mut body = Self::check_run_body(run);
        body["head_sha"] = json!(run.head_sha);
        let resp = self
            .write(
                inst,
                Method::POST,
                &format!("/repos/{repo}/check-runs"),
                Some(&body),
                false,
            )
            .await?;
        match resp {
            Some(r) => Ok(decode::<CheckRunJson>("check-runs", &r)?.id),
            None => Ok(0),
        }
    }

    /// `GET /repos/{o}/{r}/check-runs/{id}/annotations`, every page.
    pub async fn annotations(
        &self,
        inst: i64,
        repo: &RepoName,
        check_run: u64,
    ) -> Result<Vec<Annotation>, GitHubError> {
        #[derive(Deserialize)]
        struct A {
            #[serde(default)]
            path: String,
            #[serde(default)]
            title: Option<String>,
            #[serde(default)]
            message: Option<String>,
            #[serde(default)]
            raw_details: Option<String>,
            #[serde(default)]
            annotation_level: Option<String>,
        }
        let list: Vec<A> = self
            .get_pages(
                inst,
                &format!("/repos/{repo}/check-runs/{check_run}/annotations"),
                30,
            )
            .await?;
        Ok(list
            .into_iter()
            .map(|a| Annotation {
                path: a.path,
                title: a.title,
                message: a.message.unwrap_or_default(),
                raw_details: a.raw_details,
                level: a.annotation_level.unwrap_or_default(),
            })
            .collect())
    }

    /// `GET /repos/{o}/{r}/actions/jobs/{id}/logs`: GitHub answers 302 to a pre-signed URL,
    /// fetched without the token (it may be another host). The log is streamed to `sink` in
    /// chunks, at most `cap` bytes; the answer says whether the log was longer.
    pub async fn job_log(
        &self,
        inst: i64,
        repo: &RepoName,
        job: u64,
        cap: usize,
        sink: &tokio::sync::mpsc::Sender<bytes::Bytes>,
    ) -> Result<Truncated, GitHubError> {
        let path = format!("/repos/{repo}/actions/jobs/{job}/logs");
        self.download_redirected(inst, &path, cap, std::time::Duration::from_secs(120), sink)
            .await
    }
}
