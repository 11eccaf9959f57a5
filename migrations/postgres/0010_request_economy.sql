-- Fewer GitHub requests per event (issue: four per `opened`).
-- The newest pull_request payload time per PR: a delivery older than one already handled is
-- stale, and its PR is read live instead of from the payload.
CREATE TABLE pr_payloads (
    repository TEXT NOT NULL,
    pr_number  BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (repository, pr_number)
);
-- The App's check run per head SHA and what it shows (a digest): written again only when that
-- changes, found without listing the commit's check runs.
CREATE TABLE check_runs (
    repository TEXT NOT NULL,
    head_sha   TEXT NOT NULL,
    name       TEXT NOT NULL,
    check_run_id BIGINT NOT NULL,
    digest     TEXT NOT NULL,
    PRIMARY KEY (repository, head_sha, name)
);
