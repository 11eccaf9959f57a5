//! Rerun sessions and their two sides.

use sqlx::Row as _;

use super::Store;

/// A session to create.
#[derive(Clone, Debug)]
pub struct NewSession<'a> {
    pub id: &'a str,
    pub repository: &'a str,
    pub installation_id: i64,
    pub pr_number: u64,
    pub test: &'a str,
    pub runs: u32,
    pub workflow: &'a str,
    /// `command` or `auto`.
    pub trigger_kind: &'a str,
    /// The login (command) or the test's standing (auto).
    pub trigger_detail: &'a str,
    pub head_sha: &'a str,
    pub base_sha: &'a str,
    pub history: Option<(u64, u64)>,
    pub now_ms: i64,
    pub deadline_ms: i64,
    /// A verification (docs/verification.md): what it runs beyond a rerun's inputs.
    pub verify: Option<NewVerify<'a>>,
    /// The workflow's `options` input (JSON: rerun.args, rerun.env, timeouts, verify.build).
    pub options: Option<&'a str>,
}

/// What a verification session runs.
#[derive(Clone, Debug)]
pub struct NewVerify<'a> {
    pub claim_key: &'a str,
    /// `seed` or `interleaving`.
    pub claim_kind: &'a str,
    pub claim_test: Option<&'a str>,
    pub seed: Option<&'a str>,
    /// Test files laid over the merge base.
    pub tests: &'a [String],
    pub command: Option<&'a str>,
    pub seed_env: &'a [String],
}

/// A verification session's own fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyRow {
    pub claim_key: String,
    pub claim_kind: String,
    pub claim_test: Option<String>,
    pub seed: Option<String>,
    pub tests: Vec<String>,
    pub command: Option<String>,
    pub seed_env: Vec<String>,
    /// The verdict once recorded (`Verdict::label`).
    pub verdict: Option<String>,
}

/// A side's run, completed.
#[derive(Clone, Debug)]
pub struct SideDone<'a> {
    pub session: &'a str,
    pub side: &'a str,
    pub run_id: i64,
    pub run_url: Option<&'a str>,
    /// (failures, runs) of the session's test.
    pub count: (u32, u32),
    pub seeds: &'a [String],
    /// Runs with no result, and the first one's reason (core::runs).
    pub no_result: (u32, Option<&'a str>),
    /// How the failures failed (`18 failed, 2 crashed (signal 6)`).
    pub how: Option<&'a str>,
    /// A find round's side: what each test did (JSON of `core::verify::find::SideResult`s).
    pub found: Option<&'a str>,
}

/// One side as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideRow {
    pub side: String,
    pub sha: String,
    pub dispatched: bool,
    /// When it was dispatched (Unix ms of the service's clock).
    pub dispatched_ms: Option<i64>,
    pub dispatch_error: Option<String>,
    /// The run this side is bound to (the one its dispatch returned, or the first that
    /// qualified): no other run counts.
    pub run_id: Option<i64>,
    pub run_url: Option<String>,
    /// (failures, runs) once its run completed.
    pub count: Option<(u32, u32)>,
    /// Runs with no result and the first one's reason; how the failures failed.
    pub no_result: u32,
    pub no_result_reason: Option<String>,
    pub how: Option<String>,
    pub seeds: Vec<String>,
    /// A find round's side: what each test did (JSON), once its run completed.
    pub found: Option<String>,
}

/// A session as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub repository: String,
    pub installation_id: i64,
    pub pr_number: u64,
    pub test: String,
    pub runs: u32,
    pub workflow: String,
    pub trigger_kind: String,
    pub trigger_detail: String,
    pub comment_id: Option<u64>,
    /// `running`, `finished` or `timed_out`.
    pub state: String,
    pub history: Option<(u64, u64)>,
    pub created_ms: i64,
    pub deadline_ms: i64,
    pub sides: Vec<SideRow>,
    /// The head SHA the session was started for.
    pub head_sha: Option<String>,
    /// Present for a verification session (purpose `verify`).
    pub verify: Option<VerifyRow>,
    /// The workflow's `options` input the session dispatches with.
    pub options: Option<String>,
}

impl SessionRow {
    /// The session's time limit in minutes.
    pub fn timeout_minutes(&self) -> u32 {
        u32::try_from((self.deadline_ms - self.created_ms).max(0) / 60_000).unwrap_or(u32::MAX)
    }
}

fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn small(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(0)
}

impl Store {
    /// Creates a session with its two sides; false when a session with this id exists.
    pub async fn create_session(&self, s: &NewSession<'_>) -> anyhow::Result<bool> {
        const SESSION: &str = "INSERT INTO rerun_sessions (id, repository, installation_id, pr_number, test, runs, workflow, trigger_kind, trigger_detail, state, history_failures, history_runs, created_ms, deadline_ms, \
            purpose, head_sha, claim_key, claim_kind, claim_test, seed, tests, command, seed_env, options) \
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'running', $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23) ON CONFLICT DO NOTHING";
        const SIDE: &str = "INSERT INTO rerun_sides (session, side, sha) VALUES ($1, $2, $3)";
        let hf = s.history.map(|h| i64::try_from(h.0).unwrap_or(i64::MAX));
        let hr = s.history.map(|h| i64::try_from(h.1).unwrap_or(i64::MAX));
        let v = s.verify.as_ref();
        let purpose = if v.is_some() { "verify" } else { "rerun" };
        let tests = v.map(|v| v.tests.join(" "));
        let seed_env = v.map(|v| v.seed_env.join(" "));
        let created = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let n = sqlx::query(SESSION)
                .bind(s.id).bind(s.repository).bind(s.installation_id).bind(s.pr_number as i64)
                .bind(s.test).bind(i64::from(s.runs)).bind(s.workflow).bind(s.trigger_kind)
                .bind(s.trigger_detail).bind(hf).bind(hr).bind(s.now_ms).bind(s.deadline_ms)
                .bind(purpose).bind(s.head_sha).bind(v.map(|v| v.claim_key)).bind(v.map(|v| v.claim_kind))
                .bind(v.and_then(|v| v.claim_test)).bind(v.and_then(|v| v.seed)).bind(tests.as_deref())
                .bind(v.and_then(|v| v.command)).bind(seed_env.as_deref()).bind(s.options)
                .execute(&mut *tx).await?.rows_affected();
            if n == 1 {
                for (side, sha) in [("branch", s.head_sha), ("base", s.base_sha)] {
                    sqlx::query(SIDE).bind(s.id).bind(side).bind(sha).execute(&mut *tx).await?;
                }
            }
            tx.commit().await?;
            n == 1
        });
        Ok(created)
    }

    /// A session with its sides.
    pub async fn session(&self, id: &str) -> anyhow::Result<Option<SessionRow>> {
        const SESSION: &str = "SELECT id, repository, installation_id, pr_number, test, runs, workflow, trigger_kind, trigger_detail, comment_id, state, history_failures, history_runs, created_ms, deadline_ms, \
            purpose, head_sha, claim_key, claim_kind, claim_test, seed, tests, command, seed_env, verdict, options FROM rerun_sessions WHERE id = $1";
        const SIDES: &str = "SELECT side, sha, dispatched_ms, dispatch_error, run_id, run_url, failures, runs, seeds, no_result, no_result_reason, how, found FROM rerun_sides WHERE session = $1 ORDER BY side DESC";
        let row = on_pool!(self, pool => {
            let Some(r) = sqlx::query(SESSION).bind(id).fetch_optional(pool).await? else {
                return Ok(None);
            };
            let sides = sqlx::query(SIDES).bind(id).fetch_all(pool).await?;
            let mut out = SessionRow {
                id: r.try_get("id")?,
                repository: r.try_get("repository")?,
                installation_id: r.try_get("installation_id")?,
                pr_number: u(r.try_get("pr_number")?),
                test: r.try_get("test")?,
                runs: small(r.try_get("runs")?),
                workflow: r.try_get("workflow")?,
                trigger_kind: r.try_get("trigger_kind")?,
                trigger_detail: r.try_get("trigger_detail")?,
                comment_id: r.try_get::<Option<i64>, _>("comment_id")?.map(u),
                state: r.try_get("state")?,
                history: match (r.try_get::<Option<i64>, _>("history_failures")?, r.try_get::<Option<i64>, _>("history_runs")?) {
                    (Some(f), Some(n)) => Some((u(f), u(n))),
                    _ => None,
                },
                created_ms: r.try_get("created_ms")?,
                deadline_ms: r.try_get("deadline_ms")?,
                sides: Vec::new(),
                head_sha: r.try_get("head_sha")?,
                verify: None,
                options: r.try_get("options")?,
            };
            let words = |t: Option<String>| -> Vec<String> {
                t.map(|t| t.split_whitespace().map(str::to_string).collect()).unwrap_or_default()
            };
            if r.try_get::<String, _>("purpose")? == "verify" {
                out.verify = Some(VerifyRow {
                    claim_key: r.try_get::<Option<String>, _>("claim_key")?.unwrap_or_default(),
                    claim_kind: r.try_get::<Option<String>, _>("claim_kind")?.unwrap_or_default(),
                    claim_test: r.try_get("claim_test")?,
                    seed: r.try_get("seed")?,
                    tests: words(r.try_get("tests")?),
                    command: r.try_get("command")?,
                    seed_env: words(r.try_get("seed_env")?),
                    verdict: r.try_get("verdict")?,
                });
            }
            for s in sides {
                let failures: Option<i64> = s.try_get("failures")?;
                let runs: Option<i64> = s.try_get("runs")?;
                let seeds: Option<String> = s.try_get("seeds")?;
                out.sides.push(SideRow {
                    side: s.try_get("side")?,
                    sha: s.try_get("sha")?,
                    dispatched: s.try_get::<Option<i64>, _>("dispatched_ms")?.is_some(),
                    dispatched_ms: s.try_get("dispatched_ms")?,
                    dispatch_error: s.try_get("dispatch_error")?,
                    run_id: s.try_get("run_id")?,
                    run_url: s.try_get("run_url")?,
                    count: failures.zip(runs).map(|(f, n)| (small(f), small(n))),
                    seeds: seeds.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default(),
                    no_result: small(s.try_get::<Option<i64>, _>("no_result")?.unwrap_or(0)),
                    no_result_reason: s.try_get("no_result_reason")?,
                    how: s.try_get("how")?,
                    found: s.try_get("found")?,
                });
            }
            out
        });
        Ok(Some(row))
    }

    pub async fn set_session_comment(&self, id: &str, comment_id: u64) -> anyhow::Result<()> {
        const SQL: &str = "UPDATE rerun_sessions SET comment_id = $1 WHERE id = $2";
        on_pool!(self, pool => sqlx::query(SQL).bind(comment_id as i64).bind(id).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    pub async fn set_session_state(&self, id: &str, state: &str) -> anyhow::Result<()> {
        const SQL: &str = "UPDATE rerun_sessions SET state = $1 WHERE id = $2";
        on_pool!(self, pool => sqlx::query(SQL).bind(state).bind(id).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    /// Records a side's dispatch: done (bound to `run`, the run GitHub answered with, when it
    /// answered one), or refused with `error`.
    pub async fn side_dispatched(
        &self,
        id: &str,
        side: &str,
        error: Option<&str>,
        run: Option<(i64, Option<&str>)>,
        now_ms: i64,
    ) -> anyhow::Result<()> {
        const SQL: &str = "UPDATE rerun_sides SET dispatched_ms = $1, dispatch_error = $2, \
            run_id = COALESCE($3, run_id), run_url = COALESCE($4, run_url), bound_ms = CASE WHEN $3 IS NULL THEN bound_ms ELSE $1 END \
            WHERE session = $5 AND side = $6";
        let at = error.is_none().then_some(now_ms);
        let (run_id, run_url) = match run {
            Some((r, u)) => (Some(r), u),
            None => (None, None),
        };
        on_pool!(self, pool => sqlx::query(SQL).bind(at).bind(error).bind(run_id).bind(run_url).bind(id).bind(side).execute(pool).await.map(|_| ())?);
        Ok(())
    }

    /// Binds a side dispatched without a run id (GitHub answered 204) to the first run that
    /// qualified; false when the side is bound already.
    pub async fn bind_side(
        &self,
        id: &str,
        side: &str,
        run_id: i64,
        run_url: Option<&str>,
        now_ms: i64,
    ) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE rerun_sides SET run_id = $1, run_url = $2, bound_ms = $3 \
            WHERE session = $4 AND side = $5 AND run_id IS NULL AND dispatched_ms IS NOT NULL AND done_ms IS NULL";
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(run_id).bind(run_url).bind(now_ms).bind(id).bind(side).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// The session side bound to a run of a repository.
    pub async fn side_of_run(
        &self,
        repo: &str,
        run_id: i64,
    ) -> anyhow::Result<Option<(String, String)>> {
        const SQL: &str = "SELECT s.session, s.side FROM rerun_sides s JOIN rerun_sessions r ON r.id = s.session \
            WHERE s.run_id = $1 AND r.repository = $2 LIMIT 1";
        let row = on_pool!(self, pool => {
            match sqlx::query(SQL).bind(run_id).bind(repo).fetch_optional(pool).await? {
                Some(r) => Some((r.try_get("session")?, r.try_get("side")?)),
                None => None,
            }
        });
        Ok(row)
    }

    /// Records a side's completed run (the run it is bound to); false when it was recorded
    /// before, or the run is not the side's.
    pub async fn side_done(&self, done: &SideDone<'_>, now_ms: i64) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE rerun_sides SET run_url = COALESCE($1, run_url), failures = $2, runs = $3, seeds = $4, done_ms = $5, \
            no_result = $6, no_result_reason = $7, how = $8, found = $12 \
            WHERE session = $9 AND side = $10 AND run_id = $11 AND done_ms IS NULL";
        let seeds = serde_json::to_string(done.seeds)?;
        let (failures, runs) = done.count;
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(done.run_url).bind(i64::from(failures)).bind(i64::from(runs))
            .bind(&seeds).bind(now_ms).bind(i64::from(done.no_result.0)).bind(done.no_result.1).bind(done.how)
            .bind(done.session).bind(done.side).bind(done.run_id).bind(done.found).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// The latest verification session of a PR's head and claim.
    pub async fn verify_session(
        &self,
        repo: &str,
        pr: u64,
        head_sha: &str,
        claim_key: &str,
    ) -> anyhow::Result<Option<SessionRow>> {
        const SQL: &str = "SELECT id FROM rerun_sessions WHERE repository = $1 AND pr_number = $2 AND head_sha = $3 AND claim_key = $4 AND purpose = 'verify' \
            ORDER BY created_ms DESC, (trigger_kind = 'command') DESC, id DESC LIMIT 1";
        let id: Option<String> = on_pool!(self, pool => {
            sqlx::query_scalar(SQL).bind(repo).bind(pr as i64).bind(head_sha).bind(claim_key).fetch_optional(pool).await?
        });
        match id {
            Some(id) => self.session(&id).await,
            None => Ok(None),
        }
    }

    /// Records a verification's verdict; true only the first time (it is audited and counted
    /// once, whichever replica or retry gets here).
    pub async fn set_verdict(&self, id: &str, verdict: &str) -> anyhow::Result<bool> {
        const SQL: &str =
            "UPDATE rerun_sessions SET verdict = $1 WHERE id = $2 AND verdict IS NULL";
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(verdict).bind(id).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// A side's bound run started: its link, before it completes; false when the link was
    /// known.
    pub async fn side_started(
        &self,
        id: &str,
        side: &str,
        run_id: i64,
        run_url: Option<&str>,
    ) -> anyhow::Result<bool> {
        const SQL: &str = "UPDATE rerun_sides SET run_url = $1 WHERE session = $2 AND side = $3 AND run_id = $4 AND done_ms IS NULL \
            AND $1 IS NOT NULL AND (run_url IS NULL OR run_url <> $1)";
        let n = on_pool!(self, pool => sqlx::query(SQL).bind(run_url).bind(id).bind(side).bind(run_id).execute(pool).await?.rows_affected());
        Ok(n == 1)
    }

    /// The rerun (docs/rerun.md) sessions of a PR: (test, session id, comment id).
    pub async fn pr_sessions(
        &self,
        repo: &str,
        pr: u64,
    ) -> anyhow::Result<Vec<(String, String, Option<u64>)>> {
        const SQL: &str = "SELECT test, id, comment_id FROM rerun_sessions WHERE repository = $1 AND pr_number = $2 AND purpose = 'rerun' ORDER BY created_ms";
        let rows = on_pool!(self, pool => {
            let rows = sqlx::query(SQL).bind(repo).bind(pr as i64).fetch_all(pool).await?;
            rows.iter().map(|r| Ok((r.try_get("test")?, r.try_get("id")?, r.try_get::<Option<i64>, _>("comment_id")?.map(u))))
                .collect::<Result<Vec<_>, sqlx::Error>>()?
        });
        Ok(rows)
    }
}
