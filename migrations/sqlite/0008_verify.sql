-- Verification sessions (§11) are rerun sessions of purpose 'verify': the same two sides, the
-- same dispatches and timeout, plus the claim they run (test, seed), the test files laid over
-- the merge base, the command template, and the verdict once there is one. A PR's head and
-- claim find their session; a push or an edited claim finds none and starts a new one.
ALTER TABLE rerun_sessions ADD COLUMN purpose TEXT NOT NULL DEFAULT 'rerun';
ALTER TABLE rerun_sessions ADD COLUMN head_sha TEXT;
ALTER TABLE rerun_sessions ADD COLUMN claim_key TEXT;
ALTER TABLE rerun_sessions ADD COLUMN claim_kind TEXT;
ALTER TABLE rerun_sessions ADD COLUMN claim_test TEXT;
ALTER TABLE rerun_sessions ADD COLUMN seed TEXT;
ALTER TABLE rerun_sessions ADD COLUMN tests TEXT;
ALTER TABLE rerun_sessions ADD COLUMN command TEXT;
ALTER TABLE rerun_sessions ADD COLUMN seed_env TEXT;
ALTER TABLE rerun_sessions ADD COLUMN verdict TEXT;
CREATE INDEX rerun_sessions_verify ON rerun_sessions (repository, pr_number, head_sha, claim_key);
