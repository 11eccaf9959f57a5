//! Quarantine tickets as issues (docs/rerun.md, `rerun.tickets: issue`): a `not this change` session's test
//! gets one open issue, found again by its marker and updated by the next session, never a
//! duplicate (this job's serial key is the test's: one at a time on every replica). The
//! session's comment and the PR's reliability comment link it.

use crate::core::comment;
use crate::core::rerun::comment::{outcome, ticket};
use crate::core::rerun::tickets;
use crate::core::rerun::verdict::Verdict;
use crate::github::types::RepoName;

use super::JobError;
use super::context::{Services, gh, store_err};

pub async fn file(
    svc: &Services,
    inst: i64,
    repo_s: &str,
    test: &str,
    session: &str,
) -> Result<(), JobError> {
    let repo = RepoName::parse(repo_s).ok_or_else(|| {
        JobError::Permanent(anyhow::anyhow!(
            "repository name {repo_s:?} is not owner/name"
        ))
    })?;
    let Some(row) = svc.store.session(session).await.map_err(store_err)? else {
        return Ok(());
    };
    let view = super::rerun::session_view(&row);
    let Some(a) = outcome(&view).filter(|a| a.verdict == Verdict::NotThisChange) else {
        return Ok(());
    };
    let (Some(branch), Some(base)) = (count(&row, "branch"), count(&row, "base")) else {
        return Ok(());
    };
    let text = ticket(&view, &a, branch, base);
    let link = row.comment_id.map(|c| {
        format!(
            "https://github.com/{repo}/pull/{}#issuecomment-{c}",
            row.pr_number
        )
    });
    let body = tickets::body(test, &text, link.as_deref(), row.pr_number);

    let app = svc.github.app_id();
    let mut existing = None;
    if let Some(n) = svc
        .store
        .ticket_issue(repo_s, test)
        .await
        .map_err(store_err)?
        && let Some(i) = svc.github.issue(inst, &repo, n).await.map_err(gh)?
        && i.state == "open"
    {
        existing = Some(i);
    }
    if existing.is_none() {
        // Filed before this service remembered it (another deployment, a lost write): the
        // App's own open issue with the marker.
        existing = svc
            .github
            .open_issues_labeled(inst, &repo, tickets::LABEL)
            .await
            .map_err(gh)?
            .into_iter()
            .find(|i| i.via_app.is_none_or(|a| a == app) && tickets::is_ticket_of(&i.body, test));
    }
    let number = match existing {
        Some(i) => {
            if i.body != body {
                svc.github
                    .update_issue_body(inst, &repo, i.number, &body)
                    .await
                    .map_err(gh)?;
            }
            i.number
        }
        None => {
            if !svc.label_exists(inst, &repo, tickets::LABEL).await? {
                match svc
                    .github
                    .create_label(
                        inst,
                        &repo,
                        tickets::LABEL,
                        tickets::LABEL_COLOR,
                        tickets::LABEL_DESCRIPTION,
                    )
                    .await
                {
                    Ok(()) | Err(crate::github::GitHubError::Unprocessable { .. }) => {}
                    Err(e) => return Err(gh(e)),
                }
                svc.label_created(&repo, tickets::LABEL);
            }
            svc.github
                .create_issue(inst, &repo, &tickets::title(test), &body, &[tickets::LABEL])
                .await
                .map_err(gh)?
        }
    };
    svc.store
        .set_ticket_issue(repo_s, test, number, svc.clock.now_ms())
        .await
        .map_err(store_err)?;
    tracing::info!(%repo, test, issue = number, session, "quarantine ticket filed");
    link_from_comments(svc, inst, &repo, &row, number).await
}

fn count(row: &crate::store::SessionRow, side: &str) -> Option<crate::core::rerun::verdict::Count> {
    let (failures, runs) = row.sides.iter().find(|s| s.side == side)?.count?;
    Some(crate::core::rerun::verdict::Count { failures, runs })
}

/// The session's comment says where its ticket went, and so does the PR's reliability comment.
async fn link_from_comments(
    svc: &Services,
    inst: i64,
    repo: &RepoName,
    row: &crate::store::SessionRow,
    number: u64,
) -> Result<(), JobError> {
    if let Some(id) = row.comment_id {
        let mut view = super::rerun::session_view(row);
        view.ticket_issue = Some(number);
        let body = crate::core::rerun::comment::render(&view);
        svc.github
            .update_comment(inst, repo, id, &body)
            .await
            .map_err(gh)?;
    }
    let Some(c) = svc
        .github
        .own_comment(inst, repo, row.pr_number, comment::MARKER)
        .await
        .map_err(gh)?
    else {
        return Ok(());
    };
    let mut filed = comment::filed_tickets(&c.body);
    filed.retain(|(t, _)| t != &row.test);
    filed.push((row.test.clone(), number));
    let body = comment::compose(
        Some(&c.body),
        comment::TICKETS_SECTION,
        comment::tickets_section(&filed),
    );
    if body != c.body {
        svc.github
            .update_comment(inst, repo, c.id, &body)
            .await
            .map_err(gh)?;
    }
    Ok(())
}
