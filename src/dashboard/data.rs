//! What a page shows, read from the store: one page of tests (sorted and filtered in SQL),
//! counts, tier changes, the reliability pull request, recent sessions and the gate's weeks.
//! The default branch's reliability file is read from GitHub at most every
//! [`super::FILE_TTL`] and kept as rows, replaced only when its blob changes.

use crate::core::rerun::verdict::{Count, assess};
use crate::core::{config, reliability};
use crate::github::types::RepoName;
use crate::store::{
    Basis, FailureRow, FileEntry, GateWeek, RepoSummary, TestPage, TestQuery, TestRow, TierChange,
};

use super::Dashboard;
use super::when::{WEEK_MS, week_start};

/// Weeks the charts cover.
pub const WEEKS: usize = 12;

/// A rerun or verification session as the page shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SessionLine {
    pub purpose: String,
    pub pr: i64,
    pub test: String,
    /// The verdict, or the state while it runs.
    pub outcome: String,
    pub created_ms: i64,
    /// (side, "f/n failed", run url)
    pub sides: Vec<(String, String, Option<String>)>,
}

/// Tier changes in one week, by the tier moved to.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChangeWeek {
    pub week_ms: i64,
    pub trusted: u64,
    pub probation: u64,
    pub quarantined: u64,
}

/// Everything `/dashboard/{owner}/{repo}` shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RepoView {
    pub repository: String,
    pub web_url: String,
    pub now_ms: i64,
    #[serde(skip)]
    pub query: TestQuery,
    pub default_tier: String,
    pub file_read_ms: Option<i64>,
    pub counts: RepoSummary,
    pub page: TestPage,
    pub changes: Vec<TierChange>,
    pub change_weeks: Vec<ChangeWeek>,
    /// The history's proposals the file has not taken.
    pub proposals: Vec<TierChange>,
    pub pull_request: Option<(i64, i64)>,
    pub sessions: Vec<SessionLine>,
    pub gate_weeks: Vec<GateWeek>,
    /// The repository's results per day, the last [`TREND_DAYS`] days.
    #[serde(skip)]
    pub trend: Vec<super::charts::Day>,
}

/// Days the trend charts show.
pub const TREND_DAYS: i32 = 30;

/// Today, in days since 1970-01-01 (UTC).
pub fn today(now_ms: i64) -> i32 {
    i32::try_from(now_ms.div_euclid(86_400_000)).unwrap_or(0)
}

/// A test's days for its trend charts.
pub fn test_days(w: &crate::core::history::window::Window, now_ms: i64) -> Vec<super::charts::Day> {
    let days: Vec<super::charts::Day> = w
        .days
        .iter()
        .map(|d| super::charts::Day {
            day: d.day,
            results: u64::from(d.results),
            failed: u64::from(d.failed),
            flaky: u64::from(d.flaky),
            timed: u64::from(d.timed),
            ms_total: d.ms_total,
        })
        .collect();
    super::charts::span(&days, today(now_ms), TREND_DAYS)
}

/// `/dashboard`: each readable repository with its counts and recent tier changes.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IndexView {
    pub login: String,
    pub now_ms: i64,
    pub repos: Vec<(RepoSummary, Vec<TierChange>)>,
}

/// The rows of a reliability file.
pub fn entries_of(file: &reliability::ReliabilityFile) -> Vec<FileEntry> {
    file.tests
        .iter()
        .map(|t| FileEntry {
            test: t.id.clone(),
            tier: t.tier.as_str().to_string(),
            owner: t.owner.clone(),
            ticket: t.ticket.clone(),
            note: t.note.clone(),
            pin: t.pin.unwrap_or(false),
        })
        .collect()
}

/// Who set the tiers a new copy of the file changed: the newest commit of the default branch
/// that touched it, with its pull request and author. Best effort: without an answer the
/// changes keep the time the file was read.
async fn tier_origin(
    d: &Dashboard,
    gh: &crate::github::GitHub,
    inst: i64,
    name: &RepoName,
    path: &str,
    branch: &str,
    read_ms: i64,
) {
    let commit = match gh.last_commit_touching(inst, name, path, branch).await {
        Ok(Some(c)) => c,
        Ok(None) => return,
        Err(e) => {
            tracing::debug!(repo = %name, error = %e, "who set the tiers is not known");
            return;
        }
    };
    let pr = gh
        .pulls_for_commit(inst, name, &commit.sha)
        .await
        .ok()
        .and_then(|p| p.into_iter().next())
        .and_then(|n| i64::try_from(n).ok());
    let repo = name.to_string();
    if let Err(e) = d
        .store
        .set_tier_origin(
            &repo,
            read_ms,
            &commit.sha,
            commit.at_ms,
            pr,
            commit.author.as_deref(),
        )
        .await
    {
        tracing::warn!(repo, error = %e, "recording who set the tiers failed");
    }
}

/// Reads the default branch's reliability file when the copy here is older than the TTL.
/// Failures leave the last copy in place (the page says when it was read).
pub async fn sync_file(d: &Dashboard, repo: &str, inst: i64) {
    if d.files.get(repo).is_some() {
        return;
    }
    let Some(gh) = &d.github else { return };
    let Some(name) = RepoName::parse(repo) else {
        return;
    };
    let result = async {
        let branch = gh.default_branch(inst, &name).await?;
        let cfg = gh
            .file_at(inst, &name, config::CONFIG_PATH, &branch)
            .await?;
        let (cfg, _) = config::load(cfg.as_ref().map(|(t, _)| t.as_str()));
        let file = gh
            .file_at(inst, &name, &cfg.reliability_file, &branch)
            .await?;
        anyhow::Ok((file, branch, cfg.reliability_file))
    }
    .await;
    let now = d.clock.now_ms();
    match result {
        Ok((Some((text, sha)), branch, path)) => {
            let stored = d.store.reliability_file_read(repo).await.ok().flatten();
            if stored.as_ref().map(|s| s.sha.as_str()) == Some(sha.as_str()) {
                let _ = d.store.touch_reliability_file(repo, now).await;
            } else {
                let parsed = tokio::task::spawn_blocking(move || reliability::parse(&text)).await;
                match parsed {
                    Ok(Ok(f)) => {
                        let entries = entries_of(&f);
                        match d
                            .store
                            .replace_reliability_file(repo, (&sha, &f.policy), &entries, now)
                            .await
                        {
                            Ok(0) => {}
                            Ok(_) => tier_origin(d, gh, inst, &name, &path, &branch, now).await,
                            Err(e) => {
                                tracing::warn!(repo, error = %e, "storing the reliability file failed")
                            }
                        }
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(repo, error = %e, "the default branch's reliability file does not parse")
                    }
                    Err(e) => {
                        tracing::warn!(repo, error = %e, "parsing the reliability file stopped")
                    }
                }
            }
        }
        Ok((None, _, _)) => {}
        Err(e) => {
            tracing::warn!(repo, error = %e, "reading the reliability file for the dashboard failed");
            return;
        }
    }
    d.files.insert(repo.to_string(), ());
}

/// The stored file's policy (the defaults before it is read), and when it was read.
async fn policy(d: &Dashboard, repo: &str) -> anyhow::Result<(reliability::Policy, Option<i64>)> {
    Ok(match d.store.reliability_file_read(repo).await? {
        Some(f) => (f.policy, Some(f.read_ms)),
        None => (reliability::Policy::default(), None),
    })
}

fn basis(p: &reliability::Policy) -> Basis {
    Basis {
        default_tier: p.default_tier.as_str().to_string(),
        broken_after: p.broken_after,
    }
}

/// Counts of one repository, with its tier changes of the last 30 days.
pub async fn summary(d: &Dashboard, repo: &str) -> anyhow::Result<(RepoSummary, Vec<TierChange>)> {
    let (p, _) = policy(d, repo).await?;
    let counts = d.store.tier_counts(repo, &basis(&p)).await?;
    let since = d.clock.now_ms() - 30 * 86_400_000;
    let changes = d.store.tier_changes(repo, since, 20).await?;
    Ok((counts, changes))
}

/// Buckets (basis, at) into the last [`WEEKS`] weeks, oldest first.
pub fn gate_weeks(outcomes: &[(String, i64)], now_ms: i64) -> Vec<GateWeek> {
    let last = week_start(now_ms);
    let mut weeks: Vec<GateWeek> = (0..WEEKS as i64)
        .rev()
        .map(|i| GateWeek {
            week_ms: last - i * WEEK_MS,
            ..GateWeek::default()
        })
        .collect();
    for (basis, at) in outcomes {
        let w = week_start(*at);
        if let Some(g) = weeks.iter_mut().find(|g| g.week_ms == w) {
            match basis.as_str() {
                "evidence" => g.evidence += 1,
                "verified" => g.verified += 1,
                "overridden" => g.overridden += 1,
                "exempted" => g.exempted += 1,
                _ => g.blocked += 1,
            }
        }
    }
    weeks
}

/// Buckets tier changes into the last [`WEEKS`] weeks, oldest first.
pub fn change_weeks(changes: &[TierChange], now_ms: i64) -> Vec<ChangeWeek> {
    let last = week_start(now_ms);
    let mut weeks: Vec<ChangeWeek> = (0..WEEKS as i64)
        .rev()
        .map(|i| ChangeWeek {
            week_ms: last - i * WEEK_MS,
            ..ChangeWeek::default()
        })
        .collect();
    for c in changes {
        let w = week_start(c.at_ms);
        if let Some(g) = weeks.iter_mut().find(|g| g.week_ms == w) {
            match c.tier.as_str() {
                "trusted" => g.trusted += 1,
                "quarantined" => g.quarantined += 1,
                _ => g.probation += 1,
            }
        }
    }
    weeks
}

fn session_line(s: crate::store::RecentSession) -> SessionLine {
    let count = |side: &str| {
        s.sides
            .iter()
            .find(|x| x.0 == side)
            .and_then(|x| match (x.1, x.2) {
                (Some(f), Some(n)) => Some(Count {
                    failures: f.clamp(0, i64::from(u32::MAX)) as u32,
                    runs: n.clamp(0, i64::from(u32::MAX)) as u32,
                }),
                _ => None,
            })
    };
    let outcome = match (&s.verdict, count("branch"), count("base")) {
        (Some(v), _, _) => v.clone(),
        (None, Some(b), Some(m)) if s.purpose == "rerun" => {
            assess(b, m).verdict.phrase().to_string()
        }
        _ => s.state.clone(),
    };
    SessionLine {
        purpose: s.purpose.clone(),
        pr: s.pr,
        test: s.test.clone(),
        outcome,
        created_ms: s.created_ms,
        sides: s
            .sides
            .iter()
            .map(|(side, f, n, url)| {
                let text = match (f, n) {
                    (Some(f), Some(n)) => format!("{f}/{n} failed"),
                    _ => "running".to_string(),
                };
                (side.clone(), text, url.clone())
            })
            .collect(),
    }
}

/// The repository page's data.
pub async fn repo_view(
    d: &Dashboard,
    repo: &str,
    inst: i64,
    query: TestQuery,
) -> anyhow::Result<RepoView> {
    sync_file(d, repo, inst).await;
    let now = d.clock.now_ms();
    let (p, read) = policy(d, repo).await?;
    let b = basis(&p);
    let counts = d.store.tier_counts(repo, &b).await?;
    let mut query = query;
    let mut page = d.store.test_page(repo, &b, &counts, &query).await?;
    // Past the last page: the last page, not an empty table.
    let last = page.total.div_ceil(u64::from(query.per_page.max(1))).max(1);
    if u64::from(query.page) > last {
        query.page = u32::try_from(last).unwrap_or(1);
        page = d.store.test_page(repo, &b, &counts, &query).await?;
    }
    let since = week_start(now) - (WEEKS as i64 - 1) * WEEK_MS;
    let changes = d.store.tier_changes(repo, since, 2000).await?;
    let proposals = d.store.open_proposals(repo, &b.default_tier, 50).await?;
    let outcomes = d.store.gate_outcomes(repo, since).await?;
    let sessions = d.store.recent_sessions(repo, "", 20).await?;
    let first_day = today(now) - TREND_DAYS + 1;
    let days: Vec<super::charts::Day> = d
        .store
        .repo_days(repo, i64::from(first_day) * 86_400_000)
        .await?
        .into_iter()
        .map(|(day, n, f, k)| super::charts::Day {
            day: i32::try_from(day).unwrap_or(0),
            results: n.max(0) as u64,
            failed: f.max(0) as u64,
            flaky: k.max(0) as u64,
            ..super::charts::Day::default()
        })
        .collect();
    let trend = super::charts::span(&days, today(now), TREND_DAYS);
    Ok(RepoView {
        repository: repo.to_string(),
        web_url: d.oauth.web_url().to_string(),
        now_ms: now,
        query,
        default_tier: b.default_tier,
        proposals,
        file_read_ms: read,
        counts,
        change_weeks: change_weeks(&changes, now),
        changes: changes.into_iter().take(20).collect(),
        pull_request: d.store.reliability_pull(repo).await?,
        sessions: sessions.into_iter().map(session_line).collect(),
        gate_weeks: gate_weeks(&outcomes, now),
        page,
        trend,
    })
}

/// Everything `/dashboard/{owner}/{repo}/tests/{id}` shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TestView {
    pub repository: String,
    pub web_url: String,
    pub now_ms: i64,
    pub file_read_ms: Option<i64>,
    pub row: TestRow,
    /// Why the test has its tier, or why the history proposes another (worded as in the
    /// reliability pull request).
    pub why: String,
    pub broken_after: u32,
    /// Newest first.
    pub failures: Vec<FailureRow>,
    /// Failures kept in all (the page lists the newest).
    pub failures_kept: u64,
    /// The failures read (at most [`REASONS_READ`], newest) grouped by reason, most frequent
    /// first.
    pub reasons: Vec<crate::core::history::reasons::Reason>,
    /// How many failures the reasons were read from.
    pub reasons_of: usize,
    /// The merged change that set its tier, when one was seen.
    pub tier_set: Option<crate::store::TierChange>,
    pub sessions: Vec<SessionLine>,
}

/// Newest failures the reasons are grouped from.
pub const REASONS_READ: i64 = 1000;

/// Failures listed on a test's page.
pub const FAILURES_SHOWN: i64 = 100;

/// Why `row` has its tier or the one the history proposes: the reliability pull request's
/// reason for a proposal, else what keeps the tier where it is.
pub fn why(policy: &reliability::Policy, row: &TestRow, proposed_at: Option<u64>) -> String {
    use crate::core::history::file::{Proposals, build};
    use crate::core::history::tiers::{TestHistory, pct};
    use crate::core::tier::Tier;
    let tier = Tier::named(&row.tier).unwrap_or(policy.default_tier);
    let existing = reliability::ReliabilityFile {
        policy: policy.clone(),
        tests: row
            .listed
            .then(|| {
                let mut e = reliability::TestEntry::new(&row.test, tier);
                e.pin = row.pin.then_some(true);
                e
            })
            .into_iter()
            .collect(),
    };
    let proposals: Proposals = proposed_at
        .map(|at| (row.test.clone(), (tier, at)))
        .into_iter()
        .collect();
    let history = TestHistory {
        id: &row.test,
        window: &row.window,
        since_change: None,
    };
    let built = build(&existing, [history], &proposals);
    if let Some(c) = built.changes.first() {
        // Only a proposal the history made is called one.
        return if row.proposed_tier.as_deref() == Some(c.to.as_str()) {
            format!("The history proposes {}: {}.", c.to.as_str(), c.reason)
        } else {
            format!(
                "{}. No reliability pull request has proposed a change yet; the next one would propose {}.",
                c.reason,
                c.to.as_str()
            )
        };
    }
    let (runs, failures) = row.window.counts(policy.window_runs.max(1) as usize);
    if row.pin {
        return format!(
            "Pinned at {} by a person: the history never moves it.",
            row.tier
        );
    }
    if row.window.failing_last(policy.broken_after as usize) {
        return format!(
            "Broken: it failed each of its last {} runs. A real failure, never quarantined by the history.",
            policy.broken_after
        );
    }
    if runs < u64::from(policy.min_runs) {
        return format!(
            "{runs} of the {} runs a tier needs: it keeps its tier until then.",
            policy.min_runs
        );
    }
    let rate = failures as f64 / runs.max(1) as f64;
    let counted = format!(
        "{failures} failures in the last {runs} runs: {} %",
        pct(rate)
    );
    if rate > policy.flake_budget {
        // Only a quarantined test stays over the budget without a proposal.
        return format!(
            "{counted} > {} %. It stays {} until a full window of {} runs at or below {} %.",
            pct(policy.flake_budget),
            row.tier,
            policy.window_runs,
            pct(policy.recovery())
        );
    }
    if tier != Tier::Trusted && policy.promote_after_window {
        return format!(
            "{counted}, within the {} % budget. It climbs a tier after a full window of {} runs at or below {} % ({runs} so far).",
            pct(policy.flake_budget),
            policy.window_runs,
            pct(policy.recovery())
        );
    }
    format!(
        "{counted}, within the {} % budget.",
        pct(policy.flake_budget)
    )
}

/// A test's page data, or `None` when no result of it was recorded.
pub async fn test_view(
    d: &Dashboard,
    repo: &str,
    inst: i64,
    test: &str,
) -> anyhow::Result<Option<TestView>> {
    sync_file(d, repo, inst).await;
    let (p, read) = policy(d, repo).await?;
    let Some(row) = d.store.test_row(repo, &basis(&p), test).await? else {
        return Ok(None);
    };
    let proposed_at = d
        .store
        .proposed_change(repo, test)
        .await?
        .filter(|(tier, _)| *tier == row.tier)
        .map(|(_, at)| at);
    let (failures, failures_kept) = d.store.test_failures(repo, test, REASONS_READ).await?;
    let (reasons, mut failures) = tokio::task::spawn_blocking(move || {
        let reasons = crate::core::history::reasons::group(failures.iter().map(|f| {
            crate::core::history::reasons::Failure {
                run_id: &f.run_id,
                run_url: f.run_url.as_deref(),
                at_ms: f.at_ms,
                message: f.message.as_deref(),
            }
        }));
        (reasons, failures)
    })
    .await?;
    let reasons_of = failures.len();
    failures.truncate(FAILURES_SHOWN as usize);
    let sessions = d.store.recent_sessions(repo, test, 20).await?;
    let tier_set = d
        .store
        .tier_set_by(repo, test)
        .await?
        .filter(|c| c.tier == row.tier);
    Ok(Some(TestView {
        repository: repo.to_string(),
        web_url: d.oauth.web_url().to_string(),
        now_ms: d.clock.now_ms(),
        file_read_ms: read,
        why: why(&p, &row, proposed_at),
        broken_after: p.broken_after,
        row,
        failures,
        failures_kept,
        reasons,
        reasons_of,
        tier_set,
        sessions: sessions.into_iter().map(session_line).collect(),
    }))
}
