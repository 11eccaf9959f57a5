//! `check_run` (Re-check button, re-run requests), `check_suite` re-runs, and merge queues.

use crate::core::merge_group::{self, Member};
use crate::core::render::CHECK_NAME;
use crate::core::verdict::Conclusion;
use crate::github::types::RepoName;

use super::JobError;
use super::context::{Services, gh};
use super::events::{Action, CheckRunAction, CheckRunEvent, CheckSuiteEvent, MergeGroupEvent};
use super::pull_request::{assess, evaluate, gate_check_run};

/// PRs of a commit: the payload's list, else the commit's PRs (forks leave the list empty).
async fn prs_for(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    listed: &[u64],
    sha: &str,
) -> Result<Vec<u64>, JobError> {
    if !listed.is_empty() {
        return Ok(listed.to_vec());
    }
    svc.github
        .pulls_for_commit(inst, repo, sha)
        .await
        .map_err(gh)
}

pub async fn on_check_run(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &CheckRunEvent,
) -> Result<(), JobError> {
    let ours = ev
        .check_run
        .app
        .as_ref()
        .is_some_and(|a| a.id == svc.github.app_id());
    let listed: Vec<u64> = ev
        .check_run
        .pull_requests
        .iter()
        .map(|p| p.number)
        .collect();
    let recheck = ev
        .requested_action
        .as_ref()
        .is_some_and(|a| a.identifier == "recheck");
    let rerun_of_ours = ours || ev.check_run.name == CHECK_NAME;
    match ev.action {
        CheckRunAction::RequestedAction if recheck => {}
        CheckRunAction::Rerequested if rerun_of_ours => {}
        CheckRunAction::Completed if !ours => {
            return super::failures::on_failed_check(svc, inst, repo, ev).await;
        }
        _ => return Ok(()),
    }
    for n in prs_for(svc, inst, repo, &listed, &ev.check_run.head_sha).await? {
        evaluate(svc, inst, repo, n).await?;
    }
    Ok(())
}

pub async fn on_check_suite(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &CheckSuiteEvent,
) -> Result<(), JobError> {
    let ours = ev
        .check_suite
        .app
        .as_ref()
        .is_some_and(|a| a.id == svc.github.app_id());
    if ev.action != Action::Rerequested || !ours {
        return Ok(());
    }
    let listed: Vec<u64> = ev
        .check_suite
        .pull_requests
        .iter()
        .map(|p| p.number)
        .collect();
    for n in prs_for(svc, inst, repo, &listed, &ev.check_suite.head_sha).await? {
        evaluate(svc, inst, repo, n).await?;
    }
    Ok(())
}

/// `success` on the group's head SHA only when every PR in it passes the gate now.
pub async fn on_merge_group(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &MergeGroupEvent,
) -> Result<(), JobError> {
    if ev.action != Action::ChecksRequested {
        return Ok(());
    }
    let head_ref = &ev.merge_group.head_ref;
    let mut members = Vec::new();
    for n in merge_group::group_prs(head_ref) {
        let member = match assess(svc, inst, repo, n).await? {
            Some(g) if g.decision().conclusion == Conclusion::Success => Member::Passes,
            Some(g) => Member::Fails { title: g.pr.title },
            None => Member::Missing,
        };
        members.push((n, member));
    }
    let v = merge_group::verdict(head_ref, &members);
    let run = gate_check_run(&ev.merge_group.head_sha, v.conclusion, v.title, v.summary);
    svc.write_check_run(inst, repo, &run).await?;
    Ok(())
}
