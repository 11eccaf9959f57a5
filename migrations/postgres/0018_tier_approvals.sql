-- `/repro approve-tiers` (docs/history.md#quarantine-that-holds-in-ci): a maintainer approves
-- the tiers a PR lowers in the reliability file, for one head SHA.
CREATE TABLE tier_approvals (
    id         BIGSERIAL PRIMARY KEY,
    repository TEXT NOT NULL,
    pr         BIGINT NOT NULL,
    head_sha   TEXT NOT NULL,
    by_login   TEXT NOT NULL,
    at_ms      BIGINT NOT NULL
);
CREATE INDEX tier_approvals_pr ON tier_approvals (repository, pr, head_sha);
