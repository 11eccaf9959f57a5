-- `/repro approve-tiers` (docs/history.md#quarantine-that-holds-in-ci): a maintainer approves
-- the tiers a PR lowers in the reliability file, for one head SHA.
CREATE TABLE tier_approvals (
    id         INTEGER PRIMARY KEY,
    repository TEXT NOT NULL,
    pr         INTEGER NOT NULL,
    head_sha   TEXT NOT NULL,
    by_login   TEXT NOT NULL,
    at_ms      INTEGER NOT NULL
);
CREATE INDEX tier_approvals_pr ON tier_approvals (repository, pr, head_sha);
