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
    let (parsed, ignored) = commands::bound(parsed);
    // One comment, one reply: refusals, errors and help are gathered and posted once; the PR is
    // evaluated once after every accepted command that changes what it decides.
    let mut messages: Vec<String> = Vec::new();
    let mut usage = false;
    let mut evaluate = false;
    let mut drop_label = false;
    let mut accepted = false;
    for cmd in parsed {
        let now = svc.clock.now_ms();
        let cmd = match cmd {
            Ok(c) => c,
            Err(m) => {
                let row = audit("malformed", &m.line, false, m.message.clone());
                refuse(svc, row, now).await?;
                messages.push(m.message);
                usage = true;
                continue;
            }
        };
        if cmd.privileged() && !may_act(svc, inst, repo, actor, &config).await? {
            let why = commands::refusal(actor, cmd.name(), &repo.to_string(), &config.maintainers);
            let row = audit(cmd.name(), cmd.args(), false, why.clone());
            refuse(svc, row, now).await?;
            messages.push(why);
            continue;
        }
        match &cmd {
            Command::Help => usage = true,
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
                    session: crate::core::rerun::session_id(
                        svc.github.session_key(),
                        &format!("{repo}#{number}:comment:{}", ev.comment.id),
                    ),
                    timeout_minutes: config.rerun.timeout_minutes,
                    verify: None,
                };
                if let super::rerun::Started::NoWorkflow(why) =
                    super::rerun::start(svc, &config, start).await?
                {
                    let reply = format!("@{actor}: cannot rerun: {why}.");
                    let row = audit(cmd.name(), cmd.args(), false, why);
                    refuse(svc, row, now).await?;
                    messages.push(reply);
                    continue;
                }
            }
            Command::Verify => {
                if let Some(why) = verify_now(svc, inst, repo, number, actor, ev.comment.id).await?
                {
                    let reply = format!("@{actor}: nothing was run: {why}");
                    let row = audit(cmd.name(), cmd.args(), false, why);
                    refuse(svc, row, now).await?;
                    messages.push(reply);
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
                        refuse(svc, row, now).await?;
                        messages.push(why);
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
            Command::ApproveTiers => {
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
                        let why = commands::tiers_head_moved_reply(actor, &seen, &moved_to);
                        let row = audit(cmd.name(), cmd.args(), false, why.clone());
                        refuse(svc, row, now).await?;
                        messages.push(why);
                        continue;
                    }
                };
                svc.store
                    .add_tier_approval(&repo.to_string(), number as i64, &target, actor, now)
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
        accepted = true;
        evaluate |= !matches!(cmd, Command::Help | Command::Rerun { .. });
        drop_label |= matches!(cmd, Command::NotConcurrency { .. });
    }
    if evaluate {
        // The PR read for this comment stands in for a second read (waivers are in the store; a
        // label a command removed is gone from it too).
        let mut now_pr = pr.clone();
        if drop_label {
            now_pr.labels.retain(|l| l != &config.label);
        }
        super::pull_request::evaluate_with(svc, inst, repo, number, Some(now_pr)).await?;
    }
    if accepted {
        svc.github
            .react(inst, repo, ev.comment.id, "+1")
            .await
            .map_err(gh)?;
    }
    if let Some(reply) = commands::one_reply(&messages, usage, &ignored) {
        svc.github
            .create_comment(inst, repo, number, &reply)
            .await
            .map_err(gh)?;
    }
    Ok(())
}

/// `/repro verify` by a writer: a new verification session of the current head and claim
/// (also for a PR from a fork). `Some(why)` when there is nothing to run.
async fn verify_now(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    number: u64,
    actor: &str,
    comment: u64,
) -> Result<Option<String>, JobError> {
    use crate::core::config::VerifyMode;
    use crate::core::verify::{self, Status};
    let Some(mut gate) = super::pull_request::assess(svc, inst, repo, number).await? else {
        return Ok(Some("the pull request is gone.".into()));
    };
    let workflow = gate.config.rerun.workflow.clone();
    let claim_and_tests = |claim: &verify::Claim| {
        verify::test_files_for_base(&gate.files).map(|t| (claim.clone(), t))
    };
    let plan = match &gate.verification {
        Status::ToStart { claim, tests } => Ok((claim.clone(), tests.clone())),
        Status::FindAwaitingWriter { tests, sources } => {
            // A fork's search: the find round, then its candidates, as an automatic start.
            let (tests, sources) = (tests.clone(), sources.clone());
            let ask = gate.ask(inst, repo);
            super::find::start(svc, &ask, &tests, &sources, Some(actor)).await?;
            if let Status::Finding(view) = super::find::status(svc, &ask).await? {
                super::find::advance(svc, &ask, &view).await?;
            }
            return Ok(None);
        }
        Status::AwaitingWriter { claim } => claim_and_tests(claim),
        Status::Session(s) => claim_and_tests(&s.claim),
        Status::Unrunnable { reason, .. } => Err(format!("{reason}.")),
        Status::NotInstalled { .. } => Err(format!(
            "verification needs the rerun workflow `.github/workflows/{workflow}` on the default branch (copy `deploy/repro-gate-rerun.yml` from repro-gate)."
        )),
        Status::Outdated { missing, .. } => Err(format!(
            "the rerun workflow `.github/workflows/{workflow}` does not take the inputs {} that verification needs; update it from `deploy/repro-gate-rerun.yml`.",
            missing.join(", ")
        )),
        Status::Inapplicable if gate.config.verify.mode == VerifyMode::Off => {
            Err("verification is off here (`verify.mode: off` in `.github/repro-gate.yml`).".into())
        }
        Status::NoFindMode { .. } => Err(format!(
            "the description claims no reproduction to run, and the rerun workflow `.github/workflows/{workflow}` is an older copy that cannot look for one among the PR's tests; update it from `deploy/repro-gate-rerun.yml`."
        )),
        Status::ToFind { .. } | Status::Finding(_) => Err("the description claims no reproduction to run; the gate looks for one among the PR's tests by itself, once per head (push to run it again).".into()),
        Status::Inapplicable => Err("the description claims no reproduction to run (a `seed` with its test, or a test that forces the interleaving), or the PR is not under the gate.".into()),
    };
    let (claim, tests) = match plan {
        Ok(p) => p,
        Err(why) => return Ok(Some(why)),
    };
    gate.start_verification(svc, inst, repo, &claim, &tests, Some((actor, comment)))
        .await?;
    if let Status::NotInstalled { .. } = gate.verification {
        return Ok(Some(format!(
            "the rerun workflow `.github/workflows/{workflow}` is not on the default branch."
        )));
    }
    Ok(None)
}

/// A command that does not go ahead: its audit row says why (and so does the comment's reply).
async fn refuse(svc: &Services, row: AuditRow, now: i64) -> Result<(), JobError> {
    svc.store.add_audit(&row, now).await.map_err(store_err)?;
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
