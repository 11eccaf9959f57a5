//! `/repro` commands: who may, what they change, a 👍 when accepted, a reply when refused, and
//! an audit row either way.

use crate::core::commands::{self, Command};
use crate::core::config::RepoConfig;
use crate::core::verdict::{OverrideTarget, WaiverKind, override_target};
use crate::github::types::{RepoName, is_bot};
use crate::store::AuditRow;

use super::JobError;
use super::context::{Services, gh, store_err};
use super::events::{Action, IssueCommentEvent};
use super::pull_request::evaluate;

pub async fn on_comment(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    ev: &IssueCommentEvent,
) -> Result<(), JobError> {
    if ev.action != Action::Created || ev.issue.pull_request.is_none() {
        return Ok(());
    }
    let by_bot = is_bot(ev.comment.user.kind.as_deref(), &ev.comment.user.login);
    let by_us = ev
        .comment
        .performed_via_github_app
        .as_ref()
        .is_some_and(|a| a.id == svc.github.app_id());
    if by_bot || by_us {
        return Ok(());
    }
    let parsed = commands::parse(ev.comment.body.as_deref().unwrap_or(""));
    if parsed.is_empty() {
        return Ok(());
    }
    let number = ev.issue.number;
    let actor = ev.comment.user.login.as_str();
    let (config, _) = svc.repo_config(inst, repo).await?;
    let pr = svc
        .github
        .pull_request(inst, repo, number)
        .await
        .map_err(gh)?;
    let head_sha = pr.head_sha.clone();
    let audit = |command: &str, args: &str, accepted: bool, why: String| AuditRow {
        at: String::new(),
        repository: repo.to_string(),
        pr: number as i64,
        head_sha: Some(head_sha.clone()),
        actor: actor.to_string(),
        command: command.to_string(),
        args: args.to_string(),
        accepted,
        why,
    };
    let mut reacted = false;
    for cmd in parsed {
        let now = svc.clock.now_ms();
        let cmd = match cmd {
            Ok(c) => c,
            Err(m) => {
                let row = audit("malformed", &m.line, false, m.message.clone());
                let reply = commands::malformed_reply(&m);
                refuse(svc, inst, repo, number, row, &reply, now).await?;
                continue;
            }
        };
        if cmd.privileged() && !may_act(svc, inst, repo, actor, &config).await? {
            let why = commands::refusal(actor, cmd.name(), &repo.to_string(), &config.maintainers);
            let row = audit(cmd.name(), cmd.args(), false, why.clone());
            refuse(svc, inst, repo, number, row, &why, now).await?;
            continue;
        }
        match &cmd {
            Command::Help => {
                svc.github
                    .create_comment(inst, repo, number, &commands::help_reply())
                    .await
                    .map_err(gh)?;
            }
            Command::Recheck => {}
            Command::Rerun { test, runs } => {
                let start = super::rerun::Start {
                    inst,
                    repo,
                    pr: number,
                    head_sha: &head_sha,
                    base_ref: &pr.base_ref,
                    test,
                    runs: runs.unwrap_or(config.rerun.runs),
                    trigger: super::rerun::StartedBy::Command(actor),
                    // The same comment retried is the same session.
                    session: crate::core::rerun::session_id(&format!(
                        "{repo}#{number}:comment:{}",
                        ev.comment.id
                    )),
                };
                if let super::rerun::Started::NoWorkflow(why) =
                    super::rerun::start(svc, &config, start).await?
                {
                    let reply = format!("@{actor}: cannot rerun: {why}.");
                    let row = audit(cmd.name(), cmd.args(), false, why);
                    refuse(svc, inst, repo, number, row, &reply, now).await?;
                    continue;
                }
            }
            Command::Override { reason } => {
                let heads = svc
                    .store
                    .heads(&repo.to_string(), number as i64)
                    .await
                    .map_err(store_err)?;
                let posted = super::events::rfc3339_ms(ev.comment.created_at.as_deref());
                let target = match override_target(&head_sha, posted, &heads) {
                    OverrideTarget::Head(sha) => sha,
                    OverrideTarget::Moved {
                        seen,
                        now: moved_to,
                    } => {
                        let why = commands::head_moved_reply(actor, &seen, &moved_to);
                        let row = audit(cmd.name(), cmd.args(), false, why.clone());
                        refuse(svc, inst, repo, number, row, &why, now).await?;
                        continue;
                    }
                };
                svc.store
                    .add_waiver(
                        &repo.to_string(),
                        number as i64,
                        WaiverKind::Override,
                        Some(&target),
                        actor,
                        reason,
                        now,
                    )
                    .await
                    .map_err(store_err)?;
            }
            Command::NotConcurrency { reason } => {
                svc.store
                    .add_waiver(
                        &repo.to_string(),
                        number as i64,
                        WaiverKind::Exemption,
                        None,
                        actor,
                        reason,
                        now,
                    )
                    .await
                    .map_err(store_err)?;
                svc.github
                    .remove_label(inst, repo, number, &config.label)
                    .await
                    .map_err(gh)?;
            }
        }
        svc.store
            .add_audit(&audit(cmd.name(), cmd.args(), true, "accepted".into()), now)
            .await
            .map_err(store_err)?;
        if !matches!(cmd, Command::Help | Command::Rerun { .. }) {
            evaluate(svc, inst, repo, number).await?;
        }
        if !reacted {
            svc.github
                .react(inst, repo, ev.comment.id, "+1")
                .await
                .map_err(gh)?;
            reacted = true;
        }
    }
    Ok(())
}

/// A command that does not go ahead: its audit row says why, and so does a reply on the PR.
async fn refuse(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
    row: AuditRow,
    reply: &str,
    now: i64,
) -> Result<(), JobError> {
    svc.store.add_audit(&row, now).await.map_err(store_err)?;
    svc.github
        .create_comment(inst, repo, number, reply)
        .await
        .map_err(gh)?;
    Ok(())
}

/// Write permission (read from the collaborator API, never `author_association`), or a
/// configured maintainer (a login or an `org/team`). Answers are cached for five minutes.
async fn may_act(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    user: &str,
    config: &RepoConfig,
) -> Result<bool, JobError> {
    if let Some(ok) = svc.cached_may_act(repo, user) {
        return Ok(ok);
    }
    let mut ok = config
        .maintainers
        .iter()
        .any(|m| !m.contains('/') && m.eq_ignore_ascii_case(user));
    if !ok {
        ok = svc
            .github
            .permission(inst, repo, user)
            .await
            .map_err(gh)?
            .can_write();
    }
    if !ok {
        for team in config.maintainers.iter().filter(|m| m.contains('/')) {
            if let Some((org, slug)) = team.split_once('/')
                && svc
                    .github
                    .is_team_member(inst, org, slug, user)
                    .await
                    .map_err(gh)?
            {
                ok = true;
                break;
            }
        }
    }
    svc.remember_may_act(repo, user, ok);
    Ok(ok)
}
