-- Only the App's own runs count (docs/verification.md#run-identity): each side is bound to the
-- run its dispatch returned (`return_run_details`), or, where GitHub answers 204 without one,
-- to the first run that qualifies (the rerun workflow, dispatched by the App, in the
-- repository, after the dispatch, titled with the session). `run_id` is that run from now on.
ALTER TABLE rerun_sides ADD COLUMN bound_ms BIGINT;
-- How a completed side's runs went (core::runs): runs with no result and the first one's
-- reason (could not run), and how the failures failed.
ALTER TABLE rerun_sides ADD COLUMN no_result BIGINT;
ALTER TABLE rerun_sides ADD COLUMN no_result_reason TEXT;
ALTER TABLE rerun_sides ADD COLUMN how TEXT;
-- The repository's rerun.args, rerun.env, rerun.run_timeout_seconds, verify.build and
-- verify.seed_env, as the workflow's `options` input (JSON), fixed when the session starts.
ALTER TABLE rerun_sessions ADD COLUMN options TEXT;
CREATE INDEX rerun_sides_run ON rerun_sides (run_id);
